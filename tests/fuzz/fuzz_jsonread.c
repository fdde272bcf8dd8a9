/* libFuzzer target: the strict JSON reader (src/base/jsonread.c), which reads
 * `--noise NOISE.json`, a file a pull request can supply, both as a whole
 * tree and through the noise reader's filters (bs_noise_floors_parse:
 * kept members, packed number arrays, case by case). Properties: no
 * crash, leak, undefined behaviour or deep recursion; an error is a clean
 * message with a line; a parsed tree holds only valid UTF-8 strings and
 * finite numbers; what the noise reader accepts the whole-tree reader
 * accepts too, and every floor it keeps is finite, non-negative and found
 * again by its lookup. The relaxed reader (harness reports: NaN,
 * Infinity, repeated keys) accepts whatever the strict one accepts, and
 * fails as cleanly. */
#include "benchsite/noise.h"
#include "fuzz_util.h"
#include "jsonread.h"

#include <math.h>

static void walk(const bs__jvalue *v, int depth, int relaxed) {
  FUZZ_CHECK(depth <= BS__JSON_MAX_DEPTH + 1, "depth %d", depth);
  switch (v->type) {
  case BS__JNUMBER:
    FUZZ_CHECK(relaxed || isfinite(v->number), "non-finite number");
    break;
  case BS__JSTRING:
    FUZZ_CHECK(strlen(v->string) == v->len, "NUL inside a string");
    FUZZ_CHECK(fz_utf8_ok((const unsigned char *)v->string, v->len),
               "string not UTF-8");
    break;
  case BS__JARRAY:
  case BS__JOBJECT:
    for (size_t i = 0; i < v->n; i++) {
      if (v->type == BS__JOBJECT)
        FUZZ_CHECK(
            fz_utf8_ok((const unsigned char *)v->keys[i], strlen(v->keys[i])),
            "key not UTF-8");
      walk(&v->items[i], depth + 1, relaxed);
    }
    break;
  default:
    break;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  bs__jvalue *root = NULL;
  bs_error err;
  bs_status st =
      bs__json_parse("n.json", (const char *)data, size, &root, &err);
  bs__jvalue *loose = NULL;
  bs_error lerr;
  bs_status lst = bs__json_parse_relaxed("n.json", (const char *)data, size,
                                         NULL, NULL, 0, &loose, &lerr);
  if (lst == BS_OK) {
    walk(loose, 0, 1);
    bs__json_free(loose);
  } else {
    FUZZ_CHECK(loose == NULL, "relaxed: tree left on error");
    FUZZ_CHECK(st != BS_OK, "relaxed refused what strict read: %s",
               lerr.message);
    if (lst == BS_EINPUT)
      fz_check_message(&lerr);
  }
  if (st == BS_OK) {
    FUZZ_CHECK(root != NULL, "no tree");
    walk(root, 0, 0);
    bs__json_free(root);
  } else {
    FUZZ_CHECK(root == NULL, "tree left on error");
    FUZZ_CHECK(st == BS_EINPUT || st == BS_ENOMEM, "status %d", (int)st);
    if (st == BS_EINPUT)
      fz_check_message(&err);
  }
  bs_noise_floors *f = NULL;
  bs_error ferr;
  bs_status fst =
      bs_noise_floors_parse("n.json", (const char *)data, size, &f, &ferr);
  if (fst == BS_OK) {
    FUZZ_CHECK(st == BS_OK, "the noise reader accepted bad JSON");
    FUZZ_CHECK(f != NULL, "no floors");
    /* Every case kept can be found again (names hold no NUL: the tree
     * reader refuses \u0000), with a finite, non-negative floor. */
    bs__jvalue *tree = NULL;
    if (bs__json_parse("n.json", (const char *)data, size, &tree, NULL) ==
        BS_OK) {
      const bs__jvalue *cases = bs__json_member(tree, "cases");
      size_t n = 0;
      for (size_t i = 0; cases && i < cases->n; i++) {
        const bs__jvalue *b = bs__json_member(&cases->items[i], "benchmark");
        const bs__jvalue *d = bs__json_member(&cases->items[i], "dataset");
        double pct = -1;
        FUZZ_CHECK(b && d &&
                       bs_noise_floors_lookup(f, b->string, d->string, &pct),
                   "case %zu not found", i);
        FUZZ_CHECK(isfinite(pct) && pct >= 0, "floor %g", pct);
        n++;
      }
      FUZZ_CHECK(n == bs_noise_floors_count(f), "%zu cases, %zu floors", n,
                 bs_noise_floors_count(f));
      bs__json_free(tree);
    }
    bs_noise_floors_free(f);
  } else {
    FUZZ_CHECK(f == NULL, "floors left on error");
    FUZZ_CHECK(fst == BS_EINPUT || fst == BS_ENOMEM || fst == BS_ELIMIT,
               "noise reader status %d", (int)fst);
    if (fst == BS_EINPUT)
      fz_check_message(&ferr);
  }
  return 0;
}
