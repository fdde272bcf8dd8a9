/* Small JSON emitting helpers on bs__buf. Private. */
#ifndef BENCHSITE_JSONW_H
#define BENCHSITE_JSONW_H

#include "buf.h"

#include <stdint.h>

/* A JSON string literal: quotes, backslash and control bytes escaped.
 * Bytes >= 0x80 are copied (inputs are validated UTF-8). */
bs_status bs__json_string(bs__buf *b, const char *s);
/* A number with %.17g; non-finite values become null. */
bs_status bs__json_number(bs__buf *b, double v);
bs_status bs__json_u64(bs__buf *b, uint64_t v);
bs_status bs__json_bool(bs__buf *b, int v);
/* `"key": ` preceded by ",\n" + indent unless first. */
bs_status bs__json_key(bs__buf *b, int indent, int first, const char *key);

#endif
