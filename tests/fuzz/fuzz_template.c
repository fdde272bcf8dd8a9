/* libFuzzer target: the Mustache-style template engine (src/views/template.c).
 *
 * The input is a template, then (after a 0x00 0xFF pair) the values of a
 * context: strings a, b, c, a boolean flag, a list `items` of objects
 * {name, value}, an object `obj` {name}. Properties: no crash, leak or
 * undefined behaviour; errors come with a message; and escaping holds:
 * when the template itself has none of < > " ' and no raw tag ({{{ or
 * {{&), the output has none of them either, whatever the values hold.
 * Templates are project files, not user input, so a template may not nest
 * more than 6 sections (3^6 renderings at most): this keeps the fuzzer
 * off exponential templates and on the engine. */
#include "benchsite/template.h"

#include "fuzz_util.h"

static size_t count(const char *s, size_t n, const char *pat) {
  size_t k = strlen(pat), c = 0;
  for (size_t i = 0; i + k <= n; i++)
    c += memcmp(s + i, pat, k) == 0;
  return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t split = size;
  for (size_t i = 0; i + 1 < size; i++) {
    if (data[i] == 0x00 && data[i + 1] == 0xFF) {
      split = i;
      break;
    }
  }
  const char *text = (const char *)data;
  if (split > 4096 || count(text, split, "{{#") + count(text, split, "{{^") > 6)
    return 0;
  fz_in in = {data + split, size - split};
  if (in.n >= 2) {
    in.p += 2;
    in.n -= 2;
  }

  bs_tdata *d = bs_tdata_new();
  if (!d)
    return 0;
  bs_tval *root = bs_tdata_root(d);
  char *strs[16];
  size_t nstrs = 0;
  static const char *const keys[] = {"a", "b", "c"};
  for (size_t i = 0; i < 3; i++) {
    strs[nstrs] = fz_str(&in, 200, NULL); /* any bytes but NUL-cut */
    bs_tval_set_str(root, keys[i], strs[nstrs++]);
  }
  bs_tval_set_bool(root, "flag", (int)(fz_byte(&in) & 1));
  bs_tval *list = bs_tval_set_list(root, "items");
  size_t nitems = fz_byte(&in) % 4;
  for (size_t i = 0; i < nitems; i++) {
    bs_tval *o = bs_tval_push_obj(list);
    strs[nstrs] = fz_str(&in, 100, NULL);
    bs_tval_set_str(o, "name", strs[nstrs++]);
    bs_tval_set_bool(o, "value", (int)(fz_byte(&in) & 1));
  }
  bs_tval *obj = bs_tval_set_obj(root, "obj");
  strs[nstrs] = fz_str(&in, 100, NULL);
  bs_tval_set_str(obj, "name", strs[nstrs++]);
  FUZZ_CHECK(bs_tdata_status(d) == BS_OK, "builder failed");

  bs_templates *t = bs_templates_new(NULL);
  if (!t) {
    bs_tdata_free(d);
    goto done;
  }
  bs_error err;
  bs_status st = bs_templates_add(t, "page", text, split, &err);
  if (st == BS_OK) {
    char *out = NULL;
    size_t len = 0;
    st = bs_templates_render(t, "page", root, &out, &len, &err);
    if (st == BS_OK) {
      FUZZ_CHECK(out && strlen(out) <= len, "output length");
      int plain = !memchr(text, '<', split) && !memchr(text, '>', split) &&
                  !memchr(text, '"', split) && !memchr(text, '\'', split) &&
                  !count(text, split, "{{{") && !count(text, split, "{{&");
      if (plain) {
        for (size_t i = 0; i < len; i++)
          FUZZ_CHECK(out[i] != '<' && out[i] != '>' && out[i] != '"' &&
                         out[i] != '\'',
                     "unescaped '%c' at byte %zu of the output", out[i], i);
      }
      free(out);
    } else {
      FUZZ_CHECK(out == NULL && err.message[0], "render error %d", (int)st);
    }
  } else {
    FUZZ_CHECK(err.message[0], "add error %d without a message", (int)st);
  }
  bs_templates_free(t);
  bs_tdata_free(d);
done:
  for (size_t i = 0; i < nstrs; i++)
    free(strs[i]);
  return 0;
}
