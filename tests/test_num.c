/* src/base/num.c: the grammar, the reasons, and the exact fast paths checked
 * bit for bit against strtod (tests/fuzz/fuzz_num.c does the same on
 * fuzzed text). */
#include "num.h"
#include "support.h"

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
  for (int i = 0; i < 200000; i++) {
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

/* The exact path for w / 10^j (up to 19 significant digits and a negative
 * exponent, as runners print per-call times with %.17g, where Clinger's
 * fast path does not apply): random digits at every decimal point
 * position, and decimals within a unit in the 19th digit of a midpoint
 * between two doubles, where a lost remainder bit or a wrong tie rule
 * shows (a sticky bit forced to 0 fails here, and not in the round-trip
 * test above). */
static uint64_t next_rand(uint64_t *x) {
  *x ^= *x >> 12;
  *x ^= *x << 25;
  *x ^= *x >> 27;
  return *x * 0x2545F4914F6CDD1Du;
}

Test(num, long_fractions_like_strtod) {
  uint64_t x = 0xD1B54A32D192ED03u;
  char buf[64];
  for (int i = 0; i < 400000; i++) {
    uint64_t r = next_rand(&x);
    int digits = 15 + (int)(r % 5); /* 15..19 significant digits */
    char d[24];
    for (int k = 0; k < digits; k++)
      d[k] = (char)('0' + next_rand(&x) % 10);
    d[0] = (char)('1' + next_rand(&x) % 9);
    d[digits] = '\0';
    int point = (int)((r >> 8) % (unsigned)(digits + 3)); /* digits before */
    if (point == 0)
      snprintf(buf, sizeof buf, "0.%s", d);
    else if (point > digits)
      snprintf(buf, sizeof buf, "0.%0*d%s", point - digits, 0, d);
    else
      snprintf(buf, sizeof buf, "%.*s.%s", point, d, d + point);
    same_as_strtod(buf);
  }
  for (int i = 0; i < 200000; i++) {
    uint64_t bits = next_rand(&x) >> 2; /* positive */
    double v;
    memcpy(&v, &bits, sizeof v);
    if (!isfinite(v) || v < 1e-15 || v > 1e15)
      continue;
    double mid = v + (nextafter(v, INFINITY) - v) / 2; /* rounds: near */
    snprintf(buf, sizeof buf, "%.18e", mid);
    same_as_strtod(buf);
    /* The same 19 digits as a plain fraction with the last one moved. */
    snprintf(buf, sizeof buf, "%.18f", mid / 1e4);
    same_as_strtod(buf);
  }
  static const char *const edge[] = {
      "0.50242682223843693",
      "0.51468359360507887",
      "0.9999999999999999999",
      "0.1000000000000000055511151231257827",
      "0.30000000000000001665",
      "0.000000000000000001",
      "1.000000000000000111", /* near 1 + 2^-53 */
      "1.000000000000000222",
      "0.4503599627370496",
      "9.007199254740993",
      "4.503599627370497",
      "0.0000000000000000001844674407370955161",
      "1844674407370955161.5",
      "0.7205759403792793"};
  for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
    same_as_strtod(edge[i]);
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

/* What strtod says about text in the grammar, as a bs__num: overflow to
 * infinity and underflow to zero are errors, anything else its value. */
static bs__num oracle_status(const char *s, double *v) {
  errno = 0;
  *v = strtod(s, NULL);
  if (errno == ERANGE && isinf(*v))
    return BS__NUM_OVERFLOW;
  if (errno == ERANGE && *v == 0)
    return BS__NUM_UNDERFLOW;
  return BS__NUM_OK;
}

static void same_status_as_strtod(const char *s) {
  double v = 0, w = 0;
  bs__num got = num(s, &v), want = oracle_status(s, &w);
  cr_assert_eq(got, want, "%s: status %d, strtod says %d", s, got, want);
  if (want == BS__NUM_OK)
    cr_assert(memcmp(&v, &w, sizeof v) == 0, "%s: %.17g != strtod %.17g", s, v,
              w);
}

/* Every shape the grammar has, at random: a sign, 0-30 integer digits
 * (leading zeros included), a point, 0-30 fraction digits, an exponent
 * from subnormal to overflow. The digits are read eight at a time where
 * eight are left, so the lengths cross every multiple of 8. */
Test(num, random_shapes_like_strtod) {
  uint64_t x = 0x9E3779B97F4A7C15u;
  char buf[128];
  for (int i = 0; i < 200000; i++) {
    size_t o = 0;
    uint64_t r = next_rand(&x);
    if (r % 4 == 0)
      buf[o++] = r % 8 == 0 ? '-' : '+';
    int nint = (int)((r >> 4) % 31), nfrac = (int)((r >> 12) % 31);
    int zeros = (int)((r >> 20) % 4) == 0 ? (int)((r >> 24) % 12) : 0;
    if (nint == 0 && nfrac == 0)
      nint = 1;
    for (int k = 0; k < nint; k++)
      buf[o++] = k < zeros ? '0' : (char)('0' + next_rand(&x) % 10);
    if (nfrac || (r >> 30) % 2) {
      buf[o++] = '.';
      for (int k = 0; k < nfrac; k++)
        buf[o++] = (char)('0' + next_rand(&x) % 10);
    }
    switch ((r >> 32) % 4) {
    case 0:
      break; /* no exponent */
    case 1:  /* a small one */
      o += (size_t)snprintf(buf + o, sizeof buf - o, "e%d",
                            (int)((r >> 40) % 41) - 20);
      break;
    default: /* anywhere, past both ends of the range */
      o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%+d",
                            (r >> 35) % 2 ? "E" : "e",
                            (int)((r >> 40) % 761) - 380);
      break;
    }
    buf[o] = '\0';
    same_status_as_strtod(buf);
  }
  static const char *const edge[] = {"12345678",
                                     "123456789",
                                     "1234567.8",
                                     "12345678.",
                                     ".12345678",
                                     "00000000000000000001",
                                     "0000000012345678",
                                     "1234567812345678",
                                     "12345678123456781",
                                     "123456781234567812",
                                     "1234567812345678123",
                                     "12345678123456781234",
                                     "99999999999999999999",
                                     "0.99999999999999999",
                                     "18446744073709551615",
                                     "18446744073709551616",
                                     "9007199254740993",
                                     "-0.50242682223843693",
                                     "+0.50242682223843693",
                                     "0.000000000000000000001e22",
                                     "1e-320",
                                     "4.9e-324",
                                     "2.4703282292062328e-324",
                                     "2.2250738585072011e-308",
                                     "2.2250738585072014e-308",
                                     "1.7976931348623157e308",
                                     "1.7976931348623158e308",
                                     "1.7976931348623159e308",
                                     "1e308",
                                     "1e309",
                                     "2e-324",
                                     "0.00000000e-400",
                                     "00000000.00000000",
                                     "-0.0000000000e5",
                                     "0.1e-999999999",
                                     "123456781234567812345678e-30"};
  for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
    same_status_as_strtod(edge[i]);
}

/* A non-digit anywhere in an eight-byte stretch ends the digits there,
 * exactly as digit by digit: no byte next to '0'..'9' passes for one. */
Test(num, eight_digit_chunks_stop_at_any_non_digit) {
  static const char near[] = "/:.eE+- \x00\xb0\x30\x39\x40\x29";
  for (int pos = 0; pos < 8; pos++) {
    for (size_t c = 0; c < sizeof near - 1; c++) {
      char buf[32] = "1234567812345678";
      buf[pos + 4] = near[c];
      double v;
      bs__num st = bs__num_double(buf, 16, &v);
      if (near[c] >= '0' && near[c] <= '9') {
        cr_assert_eq(st, BS__NUM_OK);
        char z[32];
        memcpy(z, buf, 16);
        z[16] = '\0';
        cr_assert_eq(v, strtod(z, NULL), "%s", z);
        continue;
      }
      /* strtod on the same text (cut at a NUL): where it reads all 16
       * bytes, the same status and value; elsewhere not a number. */
      char z[32];
      memcpy(z, buf, 16);
      z[16] = '\0';
      char *end;
      strtod(z, &end);
      if (end == z + 16)
        same_status_as_strtod(z);
      else
        cr_assert_eq(st, BS__NUM_SYNTAX, "byte %d = 0x%02x", pos + 4,
                     (unsigned char)near[c]);
    }
  }
}

/* ---- Shortest round-trip text ------------------------------------------- */

/* The significant digits of a decimal text: no sign, point, exponent,
 * leading or trailing zeros ("0.00120e5" -> "12"). */
static void sig_digits(const char *s, char *out, size_t n) {
  size_t k = 0;
  int started = 0;
  for (; *s && *s != 'e' && *s != 'E'; s++) {
    if (*s < '0' || *s > '9')
      continue;
    if (*s == '0' && !started)
      continue;
    started = 1;
    if (k + 1 < n)
      out[k++] = *s;
  }
  while (k > 0 && out[k - 1] == '0')
    k--;
  out[k] = '\0';
}

static void reads_back_exactly(double v, const char *text) {
  char *end = NULL;
  double w = strtod(text, &end);
  cr_assert(end && *end == '\0', "%s: not all read", text);
  cr_assert(memcmp(&v, &w, sizeof v) == 0, "%a written %s reads back %a", v,
            text, w);
}

/* Against tests/data/num/shortest.txt (CPython's repr, the shortest digits
 * by David Gay's algorithm; see make_shortest.py there): the same
 * significant digits for every double of it (edge values, every power of
 * two, random bit patterns, numbers shaped like the site's), and the text
 * reads back through strtod to the same bits. */
Test(num, shortest_text_has_pythons_digits_and_reads_back) {
  char *path = ts_data("num/shortest.txt");
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f, "%s", path);
  char line[128];
  size_t n = 0;
  while (fgets(line, sizeof line, f)) {
    uint64_t b = strtoull(line, NULL, 16);
    double v;
    memcpy(&v, &b, sizeof v);
    char *repr = line + 17;
    repr[strcspn(repr, "\n")] = '\0';
    char out[BS__NUM_SHORTEST], mine[40], theirs[40];
    size_t len = bs__num_shortest(v, out);
    cr_assert_eq(len, strlen(out));
    reads_back_exactly(v, out);
    sig_digits(out, mine, sizeof mine);
    sig_digits(repr, theirs, sizeof theirs);
    if (v == 0)
      cr_assert(!strcmp(out, "0") || !strcmp(out, "-0"), "%s", out);
    else
      cr_assert_str_eq(mine, theirs, "%a: %s, Python %s", v, out, repr);
    n++;
  }
  fclose(f);
  free(path);
  cr_assert_gt(n, 5000);
}

/* The written form: plain or with an exponent, whichever is shorter,
 * JSON's number syntax (no "+", no leading ".", no "inf"). */
Test(num, shortest_text_forms) {
  static const struct {
    double v;
    const char *text;
  } cases[] = {
      {0.0, "0"},
      {-0.0, "-0"},
      {1.0, "1"},
      {-1.5, "-1.5"},
      {0.1, "0.1"},
      {0.001, "1e-3"},
      {0.01, "0.01"},
      {1e-5, "1e-5"},
      {1.5e-7, "1.5e-7"},
      {123.5, "123.5"},
      {12300.0, "12300"},
      {1e16, "1e16"},
      {1e300, "1e300"},
      {-1e-300, "-1e-300"},
      {5e-324, "5e-324"},
      {100.0, "100"},
      {1e5, "1e5"},
      {123456.0, "123456"},
      {1.7976931348623157e308, "1.7976931348623157e308"},
      {2.2250738585072014e-308, "2.2250738585072014e-308"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char out[BS__NUM_SHORTEST];
    bs__num_shortest(cases[i].v, out);
    cr_expect_str_eq(out, cases[i].text, "%a", cases[i].v);
  }
  char out[BS__NUM_SHORTEST];
  cr_expect_eq(bs__num_shortest(INFINITY, out), 0);
  cr_expect_str_eq(out, "");
  cr_expect_eq(bs__num_shortest(NAN, out), 0);
}

/* Many doubles, every kind of bit pattern (subnormals and the largest
 * included): the text reads back through strtod to the same bits, and
 * one digit fewer does not. */
Test(num, shortest_text_reads_back_and_is_shortest_over_many_doubles) {
  uint64_t s = 0x2545F4914F6CDD1DULL;
  size_t checked = 0;
  for (int i = 0; i < 200000; i++) {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    uint64_t b = s * 0x2545F4914F6CDD1DULL;
    if (i % 3 == 1)
      b &= 0x800FFFFFFFFFFFFFULL; /* subnormals */
    double v;
    memcpy(&v, &b, sizeof v);
    if (!isfinite(v))
      continue;
    char out[BS__NUM_SHORTEST], d[40];
    bs__num_shortest(v, out);
    reads_back_exactly(v, out);
    sig_digits(out, d, sizeof d);
    size_t p = strlen(d);
    if (p > 1 && i % 16 == 0) {
      /* printf's nearest (p-1)-digit decimal does not read back (the
       * Python fixture checks the other neighbour too). */
      char t[64];
      snprintf(t, sizeof t, "%.*e", (int)p - 2, v);
      double w = strtod(t, NULL);
      cr_assert(memcmp(&w, &v, sizeof v) != 0, "%a: %s is shorter than %s", v,
                t, out);
    }
    checked++;
  }
  cr_assert_gt(checked, 150000);
}
