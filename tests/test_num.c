/* src/num.c: the grammar, the reasons, and the exact fast paths checked
 * bit for bit against strtod (tests/fuzz/fuzz_num.c does the same on
 * fuzzed text). */
#include "num.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bs__num num(const char *s, double *v) {
  return bs__num_double(s, strlen(s), v);
}

/* strtod as the oracle, for text in the grammar. */
static double oracle(const char *s) { return strtod(s, NULL); }

static void same_as_strtod(const char *s) {
  double v = 0;
  cr_assert_eq(num(s, &v), BS__NUM_OK, "%s", s);
  double w = oracle(s);
  cr_assert(memcmp(&v, &w, sizeof v) == 0, "%s: %.17g != strtod %.17g", s, v,
            w);
}

Test(num, decimal_grammar) {
  static const char *const ok[] = {
      "1",    "+1",   "-1",    "1.", ".5", "0.5",   "5e3", "5E3",
      "5e+3", "5e-3", "-.5e1", "0",  "-0", "00001", "1e0", "0e999999999999"};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
    same_as_strtod(ok[i]);
  static const char *const bad[] = {
      "",   "+",  "-",   ".",   "e5",    "1e", "1e+",   "1.2.3",
      " 1", "1 ", "1,5", "--1", "1e5.5", "１", "1_000", "0b1"};
  double v;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    cr_assert_eq(num(bad[i], &v), BS__NUM_SYNTAX, "%s", bad[i]);
}

Test(num, reasons) {
  double v;
  cr_assert_eq(num("nan", &v), BS__NUM_NONFINITE);
  cr_assert_eq(num("-NaN", &v), BS__NUM_NONFINITE);
  cr_assert_eq(num("inf", &v), BS__NUM_NONFINITE);
  cr_assert_eq(num("+Infinity", &v), BS__NUM_NONFINITE);
  cr_assert_eq(num("nan(1)", &v), BS__NUM_SYNTAX);
  cr_assert_eq(num("0x10", &v), BS__NUM_HEX);
  cr_assert_eq(num("-0X1p-3", &v), BS__NUM_HEX);
  cr_assert_eq(num("1e400", &v), BS__NUM_OVERFLOW);
  cr_assert_eq(num("-1e309", &v), BS__NUM_OVERFLOW);
  cr_assert_eq(num("1e-400", &v), BS__NUM_UNDERFLOW);
  cr_assert_eq(num("1e-310", &v), BS__NUM_OK, "a subnormal is kept");
  cr_assert_str_eq(bs__num_reason(BS__NUM_OVERFLOW),
                   " (out of range for a double)");
  cr_assert_str_eq(bs__num_reason(BS__NUM_SYNTAX), "");
}

Test(num, negative_zero_is_negative_zero) {
  double v = 1;
  cr_assert_eq(num("-0", &v), BS__NUM_OK);
  cr_assert(v == 0 && signbit(v));
  cr_assert_eq(num("-0.000e-500", &v), BS__NUM_OK);
  cr_assert(v == 0 && signbit(v));
}

Test(num, fast_paths_round_ties_and_near_ties_like_strtod) {
  static const char *const s[] = {
      "9007199254740993", /* 2^53 + 1: a tie, to even (down) */
      "9007199254740995", /* 2^53 + 3: a tie, to even (up) */
      "9007199254740993.0000001",
      "9007199254740992.9999999",
      "18014398509481986", /* 2^54 + 2 */
      "18014398509481990", /* 2^54 + 6 */
      "1.7976931348623157e308",
      "2.2250738585072014e-308",
      "0.1",
      "0.2",
      "0.3",
      "1.1",
      "123456789012345678",
      "9999999999999999999",
      "18446744073709551615", /* 20 digits: strtod */
      "13.917196078431374",
      "15.803000000000001",
      "4.9406564584124654e-324",
      "1e22",
      "1e23",
      "1e-22",
      "1e-23",
      "123456789e-19",
      "1234567890123456789e19",
      "1234567890123456789e-19",
      "5e-20",
      "7.2057594037927933e16"};
  for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
    same_as_strtod(s[i]);
}

Test(num, random_doubles_round_trip_like_strtod) {
  uint64_t x = 0x9E3779B97F4A7C15u;
  char buf[64];
  for (int i = 0; i < 300000; i++) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    uint64_t bits = x * 0x2545F4914F6CDD1Du;
    double d;
    memcpy(&d, &bits, sizeof d);
    if (!isfinite(d))
      continue;
    snprintf(buf, sizeof buf, "%.*g", 1 + i % 19, d);
    double v = 0, w = oracle(buf);
    bs__num st = num(buf, &v);
    if (isinf(w)) { /* "%.1g" of a huge double can round up past it */
      cr_assert_eq(st, BS__NUM_OVERFLOW, "%s", buf);
      continue;
    }
    if (w == 0 && d != 0 && strchr(buf, 'e')) {
      cr_assert(st == BS__NUM_UNDERFLOW || st == BS__NUM_OK, "%s", buf);
      continue;
    }
    cr_assert_eq(st, BS__NUM_OK, "%s", buf);
    cr_assert(memcmp(&v, &w, sizeof v) == 0, "%s: %.17g != %.17g", buf, v, w);
  }
}

Test(num, unsigned_integers) {
  uint64_t v;
  cr_assert_eq(bs__num_u64("0", 1, &v), BS__NUM_OK);
  cr_assert_eq(v, 0);
  const char *max = "18446744073709551615";
  cr_assert_eq(bs__num_u64(max, strlen(max), &v), BS__NUM_OK);
  cr_assert_eq(v, UINT64_MAX);
  const char *over = "18446744073709551616";
  cr_assert_eq(bs__num_u64(over, strlen(over), &v), BS__NUM_OVERFLOW);
  const char *zeros = "0000000000000000000000000000007";
  cr_assert_eq(bs__num_u64(zeros, strlen(zeros), &v), BS__NUM_OK);
  cr_assert_eq(v, 7);
  const char *huge = "100000000000000000000000000000000000000000";
  cr_assert_eq(bs__num_u64(huge, strlen(huge), &v), BS__NUM_OVERFLOW);
  static const char *const bad[] = {"", "-1", "+1", "1.0", " 1", "0x1", "1e3"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    cr_assert_eq(bs__num_u64(bad[i], strlen(bad[i]), &v), BS__NUM_SYNTAX, "%s",
                 bad[i]);
}

Test(num, no_nul_needed) {
  double v;
  cr_assert_eq(bs__num_double("2.5xyz", 3, &v), BS__NUM_OK);
  cr_assert_eq(v, 2.5);
  /* A long number goes to strtod through a copy. */
  char big[300];
  memset(big, '0', sizeof big);
  big[0] = '1';
  big[1] = '.';
  big[299] = '7';
  cr_assert_eq(bs__num_double(big, sizeof big, &v), BS__NUM_OK);
  cr_assert_eq(v, 1.0);
  uint64_t u;
  cr_assert_eq(bs__num_u64("123456", 3, &u), BS__NUM_OK);
  cr_assert_eq(u, 123);
}
