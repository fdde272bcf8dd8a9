/* benchsite: atomic output files. */
#ifndef BENCHSITE_OUTPUT_H
#define BENCHSITE_OUTPUT_H

#include "benchsite/error.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes `len` bytes to `path` atomically: the data goes to a temporary
 * file in the same directory, is flushed with fsync and renamed over
 * `path`. On any failure the temporary file is removed, `path` is left as
 * it was, and BS_EIO is returned with `err` filled. */
bs_status bs_write_file_atomic(const char *path, const void *data, size_t len,
                               bs_error *err);

/* Reads a whole file into a malloc'd NUL-terminated buffer (the caller
 * frees it). Fails with BS_ELIMIT past `limit` bytes (0 = no limit) and
 * BS_EIO when it cannot be read. */
bs_status bs_read_file(const char *path, size_t limit, char **data, size_t *len,
                       bs_error *err);

#ifdef __cplusplus
}
#endif
#endif
