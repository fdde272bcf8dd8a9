/* SHA-256 (FIPS 180-4), for archive checksums and content hashes. Private.
 *
 * Incremental: init, any number of updates, final. The state is a plain
 * struct on the caller's stack; nothing allocates, nothing can fail. The
 * hashing is nettle's (which uses the CPU's SHA instructions where it has
 * them); this header keeps nettle out of the callers. */
#ifndef BENCHSITE_SHA256_H
#define BENCHSITE_SHA256_H

#include <nettle/sha2.h>
#include <stddef.h>
#include <stdint.h>

#define BS__SHA256_LEN 32
#define BS__SHA256_HEXLEN 64

typedef struct bs__sha256 {
  struct sha256_ctx ctx;
} bs__sha256;

void bs__sha256_init(bs__sha256 *s);
/* `data` may be NULL when n is 0. */
void bs__sha256_update(bs__sha256 *s, const void *data, size_t n);
/* Writes the 32-byte digest; the state must be re-initialised to reuse. */
void bs__sha256_final(bs__sha256 *s, unsigned char out[BS__SHA256_LEN]);

/* One call: the digest of `n` bytes as 64 lowercase hex digits plus NUL. */
void bs__sha256_hex(const void *data, size_t n,
                    char hex[BS__SHA256_HEXLEN + 1]);
/* Lowercase hex of a digest, NUL-terminated. */
void bs__sha256_tohex(const unsigned char digest[BS__SHA256_LEN],
                      char hex[BS__SHA256_HEXLEN + 1]);

#endif
