/* benchsite: the environment manifest (SPEC §1.2), read with libcsv. */
#ifndef BENCHSITE_MANIFEST_H
#define BENCHSITE_MANIFEST_H

#include "benchsite/error.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bs_manifest bs_manifest;

/* The keys that must be present and equal for two runs to be comparable. */
#define BS_MANIFEST_NCOMPARABILITY 6
extern const char
    *const bs_manifest_comparability_keys[BS_MANIFEST_NCOMPARABILITY];

/* Returns an empty manifest, or NULL when out of memory. */
bs_manifest *bs_manifest_new(void);
/* NULL is a no-op. */
void bs_manifest_free(bs_manifest *m);

/* Reads a `key,value` CSV. Errors (BS_EINPUT with file:line): missing or
 * wrong header, a row without exactly two fields, an empty or duplicate key.
 * Caps (BS_ELIMIT): 65 536 bytes per field, 10 000 keys, a 16 MiB file.
 * On error the manifest is left empty. BS_EIO when unreadable. */
bs_status bs_manifest_read_file(bs_manifest *m, const char *path,
                                bs_error *err);
bs_status bs_manifest_read_buffer(bs_manifest *m, const char *name,
                                  const char *data, size_t len, bs_error *err);

/* Appends key = value (copied). BS_EINPUT for an empty or duplicate key,
 * BS_ENOMEM. */
bs_status bs_manifest_set(bs_manifest *m, const char *key, const char *value);

/* The path it was read from ("" for an empty manifest). */
const char *bs_manifest_path(const bs_manifest *m);
/* Entries in file order. */
size_t bs_manifest_count(const bs_manifest *m);
const char *bs_manifest_key(const bs_manifest *m, size_t i);
const char *bs_manifest_value(const bs_manifest *m, size_t i);
/* The value of `key`, or NULL when absent. `m` may be NULL. */
const char *bs_manifest_get(const bs_manifest *m, const char *key);

/* Returns 1 when both manifests hold every comparability key with equal
 * values, else 0. The differing (or missing) keys are stored, in the order
 * of bs_manifest_comparability_keys, into `differing` (room for
 * BS_MANIFEST_NCOMPARABILITY pointers to static strings; may be NULL) and
 * their number into `*ndiffering` (may be NULL). */
int bs_manifest_comparable(const bs_manifest *a, const bs_manifest *b,
                           const char **differing, size_t *ndiffering);

/* BS_EINPUT when `target` is present and not "native" (performance claims
 * are made only for native builds); BS_OK otherwise, also for NULL. */
bs_status bs_manifest_require_native(const bs_manifest *m, bs_error *err);

#ifdef __cplusplus
}
#endif
#endif
