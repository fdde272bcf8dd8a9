/* benchsite: the environment manifest (SPEC §1.2), read with libcsv. */
#ifndef BENCHSITE_MANIFEST_H
#define BENCHSITE_MANIFEST_H

#include "benchsite/error.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bs_manifest bs_manifest;

/* The keys on which two runs must agree to be comparable (SPEC §1.2 and
 * the runner's `duet`): target, profile, dtype, machine, frequency_policy,
 * protocol, duet. */
#define BS_MANIFEST_NCOMPARABILITY 7
extern const char
    *const bs_manifest_comparability_keys[BS_MANIFEST_NCOMPARABILITY];

/* The value a comparability key stands for when a manifest lacks it, or
 * NULL when it has none: "0" for duet (a run that does not say it ran in
 * duet mode ran sequentially); NULL for the other keys and any other key. */
const char *bs_manifest_comparability_default(const char *key);

/* The value of comparability key `key` in m: its own, else the key's
 * default, else NULL (not recorded). `m` may be NULL. */
const char *bs_manifest_comparability_value(const bs_manifest *m,
                                            const char *key);

/* The comparability keys without a default that none of m[0..n-1]
 * records (n may be 0: then every such key), in the order of
 * bs_manifest_comparability_keys, into keys[] (room for
 * BS_MANIFEST_NCOMPARABILITY); returns their number. Such a key counts
 * as equal between the runs, so reports name it. */
size_t bs_manifest_unrecorded(const bs_manifest *const *m, size_t n,
                              const char **keys);

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

/* Returns 1 when the two runs are comparable (SPEC §1.2): every
 * comparability key has equal values (bs_manifest_comparability_value), a
 * key absent from both counting as equal and a key present in one only as
 * different; else 0. A NULL manifest records nothing. The differing keys
 * are stored, in the order of bs_manifest_comparability_keys, into
 * `differing` (room for BS_MANIFEST_NCOMPARABILITY pointers to static
 * strings; may be NULL) and their number into `*ndiffering` (may be
 * NULL). */
int bs_manifest_comparable(const bs_manifest *a, const bs_manifest *b,
                           const char **differing, size_t *ndiffering);

/* BS_EINPUT when `target` is present and not "native" (performance claims
 * are made only for native builds); BS_OK otherwise, also for NULL. */
bs_status bs_manifest_require_native(const bs_manifest *m, bs_error *err);

#ifdef __cplusplus
}
#endif
#endif
