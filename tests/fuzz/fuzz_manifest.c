/* libFuzzer target: the environment manifest reader (src/input/manifest.c).
 * Properties: no crash, leak or undefined behaviour; an error is one clean
 * line and leaves the manifest empty; on success keys are unique, non-empty,
 * valid UTF-8 without NUL, and each is found by bs_manifest_get(). */
#include "benchsite/manifest.h"

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  bs_manifest *m = bs_manifest_new();
  if (!m)
    return 0;
  bs_error err;
  bs_status st =
      bs_manifest_read_buffer(m, "m.csv", (const char *)data, size, &err);
  if (st != BS_OK) {
    FUZZ_CHECK(st == BS_EINPUT || st == BS_ELIMIT, "status %d", (int)st);
    fz_check_message(&err);
    FUZZ_CHECK(bs_manifest_count(m) == 0, "entries kept after an error");
    FUZZ_CHECK(strcmp(bs_manifest_path(m), "") == 0, "path kept");
  } else {
    size_t n = bs_manifest_count(m);
    for (size_t i = 0; i < n; i++) {
      const char *k = bs_manifest_key(m, i), *v = bs_manifest_value(m, i);
      FUZZ_CHECK(k && v && k[0], "entry %zu", i);
      FUZZ_CHECK(fz_utf8_ok((const unsigned char *)k, strlen(k)) &&
                     fz_utf8_ok((const unsigned char *)v, strlen(v)),
                 "entry %zu not UTF-8", i);
      FUZZ_CHECK(bs_manifest_get(m, k) == v, "get(%s) is another entry", k);
    }
    /* The comparability check and the native gate take any manifest. */
    const char *diff[BS_MANIFEST_NCOMPARABILITY];
    size_t nd;
    bs_manifest_comparable(m, m, diff, &nd);
    if (bs_manifest_require_native(m, &err) != BS_OK)
      fz_check_message(&err);
  }
  bs_manifest_free(m);
  return 0;
}
