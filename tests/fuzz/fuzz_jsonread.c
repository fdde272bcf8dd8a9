/* libFuzzer target: the strict JSON reader (src/jsonread.c), which reads
 * `--noise NOISE.json`, a file a pull request can supply. Properties: no
 * crash, leak, undefined behaviour or deep recursion; an error is a clean
 * message with a line; a parsed tree holds only valid UTF-8 strings and
 * finite numbers. */
#include "fuzz_util.h"
#include "jsonread.h"

#include <math.h>

static void walk(const bs__jvalue *v, int depth) {
  FUZZ_CHECK(depth <= BS__JSON_MAX_DEPTH + 1, "depth %d", depth);
  switch (v->type) {
  case BS__JNUMBER:
    FUZZ_CHECK(isfinite(v->number), "non-finite number");
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
      walk(&v->items[i], depth + 1);
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
  if (st == BS_OK) {
    FUZZ_CHECK(root != NULL, "no tree");
    walk(root, 0);
    bs__json_free(root);
  } else {
    FUZZ_CHECK(root == NULL, "tree left on error");
    FUZZ_CHECK(st == BS_EINPUT || st == BS_ENOMEM, "status %d", (int)st);
    if (st == BS_EINPUT)
      fz_check_message(&err);
  }
  return 0;
}
