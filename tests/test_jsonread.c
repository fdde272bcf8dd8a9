/* The JSON reader (src/base/jsonread.c): its relaxed form, for other
 * programs' reports (NaN, Infinity, a repeated key), beside the strict
 * one, which keeps refusing both. */
#include <criterion/criterion.h>

#include "jsonread.h"

#include <math.h>
#include <string.h>

static bs__jvalue *relaxed(const char *text) {
  bs__jvalue *v = NULL;
  bs_error err;
  bs_status st = bs__json_parse_relaxed("t.json", text, strlen(text), NULL,
                                        NULL, 0, &v, &err);
  cr_assert_eq(st, BS_OK, "%s: %s", text, err.message);
  return v;
}

Test(jsonread, relaxed_reads_nan_and_infinity_as_python_and_gbench_write) {
  bs__jvalue *v = relaxed("{\"a\": NaN, \"b\": Infinity, \"c\": -Infinity, "
                          "\"d\": -NaN, \"e\": [1, NaN, 2.5]}");
  const bs__jvalue *a = bs__json_member(v, "a"), *b = bs__json_member(v, "b"),
                   *c = bs__json_member(v, "c"), *d = bs__json_member(v, "d"),
                   *e = bs__json_member(v, "e");
  cr_assert(a && b && c && d && e);
  cr_expect_eq(a->type, BS__JNUMBER);
  cr_expect(isnan(a->number));
  cr_expect(isinf(b->number) && b->number > 0);
  cr_expect(isinf(c->number) && c->number < 0);
  cr_expect(isnan(d->number));
  cr_assert_eq(e->type, BS__JARRAY);
  cr_assert_eq(e->n, 3);
  cr_expect(isnan(e->items[1].number));
  cr_expect_eq(e->items[2].number, 2.5);
  bs__json_free(v);
}

Test(jsonread, relaxed_keeps_the_first_of_a_repeated_key) {
  bs__jvalue *v = relaxed("{\"n\": 1, \"m\": {\"x\": 1}, \"n\": 2, "
                          "\"m\": [NaN], \"n\": {\"deep\": [1, 2]}}");
  cr_assert_eq(v->n, 2);
  cr_expect_eq(bs__json_member(v, "n")->number, 1);
  cr_expect_eq(bs__json_member(v, "m")->type, BS__JOBJECT);
  bs__json_free(v);
  /* the same through a filter that keeps n only */
  static const char *const keys[] = {"n", NULL};
  static const bs__jfilter f = {keys, NULL, NULL, 0, NULL};
  const char *text = "{\"m\": 0, \"n\": 7, \"n\": \"x\", \"m\": 1}";
  bs_error err;
  cr_assert_eq(bs__json_parse_relaxed("t.json", text, strlen(text), &f, NULL, 0,
                                      &v, &err),
               BS_OK, "%s", err.message);
  cr_assert_eq(v->n, 1);
  cr_expect_eq(bs__json_member(v, "n")->number, 7);
  bs__json_free(v);
}

Test(jsonread, strict_still_refuses_what_relaxed_reads) {
  static const char *const bad[] = {"[NaN]", "[Infinity]", "[-Infinity]",
                                    "{\"a\": 1, \"a\": 2}"};
  static const char *const why[] = {"expected a value", "expected a value",
                                    "expected a value",
                                    "duplicate key in an object"};
  for (size_t i = 0; i < 4; i++) {
    bs__jvalue *v = NULL;
    bs_error err;
    cr_expect_eq(bs__json_parse("t.json", bad[i], strlen(bad[i]), &v, &err),
                 BS_EINPUT, "%s", bad[i]);
    cr_expect_null(v);
    cr_expect(strstr(err.message, why[i]), "%s: %s", bad[i], err.message);
  }
}

Test(jsonread, relaxed_is_strict_about_everything_else) {
  static const char *const bad[] = {"[nan]",      "[Inf]",       "[- Infinity]",
                                    "[NaN,]",     "{\"a\": NaN", "[+1]",
                                    "[Infinityx]"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    bs__jvalue *v = NULL;
    bs_error err;
    cr_expect_eq(bs__json_parse_relaxed("t.json", bad[i], strlen(bad[i]), NULL,
                                        NULL, 0, &v, &err),
                 BS_EINPUT, "%s", bad[i]);
    cr_expect_null(v);
  }
}
