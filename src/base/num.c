#include "num.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Exactly representable powers of ten: 10^22 < 2^53 * 2^22 is the largest
 * whose odd part 5^22 < 2^53 fits a double's significand. */
static const double pow10_exact[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int is_digit(unsigned char c) { return (unsigned)(c - '0') < 10u; }

/* Eight ASCII digits at a time (SWAR, as in fast_float): most times in a
 * log have 15-17 significant digits. Little-endian byte order only. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define EIGHT_AT_ONCE 1
/* Whether the 8 bytes at s are all '0'..'9': each byte's high nibble is 3
 * and adding 6 to it does not carry into the high nibble. */
static int eight_digits(const char *s, uint64_t *v) {
  uint64_t x;
  memcpy(&x, s, 8);
  *v = x;
  return ((x & 0xF0F0F0F0F0F0F0F0u) |
          (((x + 0x0606060606060606u) & 0xF0F0F0F0F0F0F0F0u) >> 4)) ==
         0x3333333333333333u;
}

/* The value of eight digits (first digit most significant) loaded as a
 * little-endian word: pairs, then fours, then the eight combined. */
static uint64_t eight_value(uint64_t x) {
  x -= 0x3030303030303030u;
  x = x * 10 + (x >> 8); /* each even byte: two digits */
  x = ((x & 0x000000FF000000FFu) * 0x000F424000000064u +
       ((x >> 16) & 0x000000FF000000FFu) * 0x0000271000000001u) >>
      32;
  return x;
}
#endif

/* Collects the digits at s[i..n-1] into *w (w = 10 w + digit, wrapping
 * mod 2^64 as digit by digit would) and returns the index after them. */
static size_t digits(const char *s, size_t i, size_t n, uint64_t *w) {
  uint64_t acc = *w;
#ifdef EIGHT_AT_ONCE
  uint64_t x;
  while (n - i >= 8 && eight_digits(s + i, &x)) {
    acc = acc * 100000000u + eight_value(x);
    i += 8;
  }
#endif
  while (i < n && is_digit((unsigned char)s[i]))
    acc = acc * 10 + (uint64_t)(s[i++] - '0');
  *w = acc;
  return i;
}

static int lower_eq(const char *s, size_t n, const char *word) {
  size_t k = strlen(word);
  if (n != k)
    return 0;
  for (size_t i = 0; i < k; i++) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z')
      c = (char)(c - 'A' + 'a');
    if (c != word[i])
      return 0;
  }
  return 1;
}

/* Names what a string that is not in the grammar looks like. */
static bs__num classify_bad(const char *s, size_t n) {
  size_t i = 0;
  if (n > 0 && (s[0] == '+' || s[0] == '-'))
    i = 1;
  if (lower_eq(s + i, n - i, "nan") || lower_eq(s + i, n - i, "inf") ||
      lower_eq(s + i, n - i, "infinity"))
    return BS__NUM_NONFINITE;
  if (n - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X'))
    return BS__NUM_HEX;
  return BS__NUM_SYNTAX;
}

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 u128;

/* 10^0 .. 10^19, all below 2^64. */
static const uint64_t pow10_u64[20] = {1u,
                                       10u,
                                       100u,
                                       1000u,
                                       10000u,
                                       100000u,
                                       1000000u,
                                       10000000u,
                                       100000000u,
                                       1000000000u,
                                       10000000000u,
                                       100000000000u,
                                       1000000000000u,
                                       10000000000000u,
                                       100000000000000u,
                                       1000000000000000u,
                                       10000000000000000u,
                                       100000000000000000u,
                                       1000000000000000000u,
                                       10000000000000000000u};

static int bit_length(u128 x) {
  uint64_t hi = (uint64_t)(x >> 64);
  if (hi)
    return 128 - __builtin_clzll(hi);
  return 64 - __builtin_clzll((uint64_t)x);
}

/* The double nearest to (q + t) * 2^e2, where 0 <= t < 1 and t > 0 exactly
 * when `sticky`, ties to even; q >= 2^53. The caller keeps the result
 * normal and finite, so it is built from its bits directly. */
static double round_bits(u128 q, int sticky, int e2) {
  int shift = bit_length(q) - 53;
  uint64_t m = (uint64_t)(q >> shift); /* 2^52 <= m < 2^53 */
  u128 rem = q & (((u128)1 << shift) - 1);
  u128 half = (u128)1 << (shift - 1);
  if (rem > half || (rem == half && (sticky || (m & 1))))
    m++;
  int e = e2 + shift + 52; /* the exponent of m's leading bit */
  if (m == (uint64_t)1 << 53) {
    m >>= 1;
    e++;
  }
  uint64_t bits = (uint64_t)(e + 1023) << 52 | (m & (((uint64_t)1 << 52) - 1));
  double v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

/* *q, *r = n / d, n % d for a quotient known to fit 64 bits (n's high
 * half below d): one divq on x86-64, where the compiler would call the
 * general 128-bit division. */
static void div_128_64(u128 n, uint64_t d, uint64_t *q, uint64_t *r) {
#if defined(__x86_64__) && defined(__GNUC__)
  uint64_t hi = (uint64_t)(n >> 64), lo = (uint64_t)n, quo, rem;
  __asm__("divq %4" : "=a"(quo), "=d"(rem) : "a"(lo), "d"(hi), "rm"(d));
  *q = quo;
  *r = rem;
#else
  *q = (uint64_t)(n / d);
  *r = (uint64_t)(n % d);
#endif
}

/* w * 10^k for 0 < w < 2^64 and -19 <= k <= 19, correctly rounded to
 * nearest with exact integer arithmetic:
 *  - k >= 0: N = w * 10^k < 2^64 * 2^64 is exact; round N.
 *  - k < 0: with w normalised to bit 63 and shifted up, N / 10^-k has
 *    at least 63 bits; the quotient's bits below the 53rd and a non-zero
 *    remainder (sticky) decide the rounding exactly.
 * Results lie in [1e-19, 2^64 * 1e19], far inside the normal range. This
 * is the value strtod returns (glibc rounds correctly); the differential
 * fuzz target tests/fuzz/fuzz_num.c checks it against strtod. */
static double scale_exact(uint64_t w, long k) {
  if (k >= 0) {
    u128 n = (u128)w * pow10_u64[k];
    if (n <= (u128)1 << 53)
      return (double)(uint64_t)n; /* exact */
    return round_bits(n, 0, 0);
  }
  /* With w normalised (bit 63 set) and shifted up one bit less than the
   * bit length b of d = 10^-k, N / d lies in (2^62, 2^64): a 64-bit
   * quotient of at least 63 bits, one hardware division. */
  int lz = __builtin_clzll(w);
  uint64_t d = pow10_u64[-k];
  int sh = 63 - __builtin_clzll(d); /* b - 1, 3..63 */
  u128 n = (u128)(w << lz) << sh;
  uint64_t q, rem;
  div_128_64(n, d, &q, &rem);
  return round_bits(q, rem != 0, -(lz + sh));
}
#endif

/* The fallback for what the fast paths leave: strtod on text known to be
 * in the grammar, which keeps out what strtod would also take (blanks,
 * hex, inf, nan). strtod needs a NUL: short text is copied to the stack. */
static bs__num slow_double(const char *s, size_t n, double *out) {
  char small[64];
  char *copy = n < sizeof small ? small : malloc(n + 1);
  if (!copy)
    return BS__NUM_NOMEM;
  memcpy(copy, s, n);
  copy[n] = '\0';
  errno = 0;
  char *end = NULL;
  double v = strtod(copy, &end);
  int e = errno;
  int whole = end == copy + n;
  if (copy != small)
    free(copy);
  if (!whole)
    return BS__NUM_SYNTAX; /* cannot happen for the grammar */
  if (e == ERANGE && isinf(v))
    return BS__NUM_OVERFLOW;
  if (e == ERANGE && v == 0)
    return BS__NUM_UNDERFLOW;
  if (!isfinite(v))
    return BS__NUM_OVERFLOW;
  *out = v;
  return BS__NUM_OK;
}

bs__num bs__num_double(const char *s, size_t n, double *out) {
  /* One pass checks the grammar and collects every significand digit into
   * w (wrapping, so only meaningful for at most 19 significant digits) and
   * the decimal exponent. Leading zeros leave w at 0 and are not
   * significant. */
  size_t i = 0;
  int neg = 0;
  if (i < n && (s[i] == '+' || s[i] == '-'))
    neg = s[i++] == '-';
  uint64_t w = 0;
  size_t first = i, lead = 0; /* lead: zeros before the first non-zero */
  i = digits(s, i, n, &w);
  size_t intdig = i - first, fracdig = 0;
  if (i < n && s[i] == '.') {
    size_t f0 = ++i;
    i = digits(s, i, n, &w);
    fracdig = i - f0;
  }
  size_t mant = intdig + fracdig;
  if (mant == 0)
    return classify_bad(s, n);
  long e = 0;
  int ebig = 0; /* the exponent has more than 6 digits' worth */
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    int eneg = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
      eneg = s[i++] == '-';
    if (i == n || !is_digit((unsigned char)s[i]))
      return BS__NUM_SYNTAX;
    for (; i < n && is_digit((unsigned char)s[i]); i++) {
      if (e < 100000) /* far past any double; keeps e from overflowing */
        e = e * 10 + (s[i] - '0');
      else
        ebig = 1;
    }
    if (eneg)
      e = -e;
  }
  if (i != n)
    return classify_bad(s, n);

  for (size_t j = first; j < first + mant + (fracdig ? 1 : 0); j++) {
    if (s[j] == '.')
      continue;
    if (s[j] != '0')
      break;
    lead++;
  }
  if (lead == mant) {
    *out = neg ? -0.0 : 0.0; /* any exponent: exactly zero, as strtod */
    return BS__NUM_OK;
  }
  if (mant - lead > 19 || ebig || fracdig > 100000)
    return slow_double(s, n, out);
  long k = e - (long)fracdig;
#if FLT_EVAL_METHOD == 0
  /* Clinger's fast path: w <= 2^53 converts exactly, 10^|k| for k <= 22 is
   * exact, so one IEEE multiply or divide rounds the exact decimal value
   * once, to nearest: the correctly rounded result that strtod returns.
   * (Not with excess precision, where the operation would round twice.) */
  if (w <= ((uint64_t)1 << 53) && k >= -22 && k <= 22) {
    double v = (double)w;
    v = k < 0 ? v / pow10_exact[-k] : v * pow10_exact[k];
    *out = neg ? -v : v;
    return BS__NUM_OK;
  }
#endif
#ifdef __SIZEOF_INT128__
  if (k >= -19 && k <= 19) {
    double v = scale_exact(w, k);
    *out = neg ? -v : v;
    return BS__NUM_OK;
  }
#endif
  return slow_double(s, n, out);
}

bs__num bs__num_u64(const char *s, size_t n, uint64_t *out) {
  if (n == 0)
    return BS__NUM_SYNTAX;
  for (size_t i = 0; i < n; i++) {
    if (!is_digit((unsigned char)s[i]))
      return BS__NUM_SYNTAX;
  }
  if (n <= 19) {
    /* 10^19 - 1 < 2^64: no overflow possible. */
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
      v = v * 10 + (uint64_t)(s[i] - '0');
    *out = v;
    return BS__NUM_OK;
  }
  /* 20 digits or more: strtoull decides (a copy for its NUL; longer is
   * past UINT64_MAX unless it has leading zeros). */
  size_t z = 0;
  while (z + 20 < n && s[z] == '0')
    z++;
  if (n - z > 20)
    return BS__NUM_OVERFLOW;
  char copy[21];
  memcpy(copy, s + z, n - z);
  copy[n - z] = '\0';
  errno = 0;
  char *end = NULL;
  unsigned long long v = strtoull(copy, &end, 10);
  if (end != copy + (n - z))
    return BS__NUM_SYNTAX;
  if (errno == ERANGE)
    return BS__NUM_OVERFLOW;
  *out = (uint64_t)v;
  return BS__NUM_OK;
}

const char *bs__num_reason(bs__num why) {
  switch (why) {
  case BS__NUM_NONFINITE:
    return " (nan and infinity are not allowed)";
  case BS__NUM_HEX:
    return " (hexadecimal is not allowed)";
  case BS__NUM_OVERFLOW:
    return " (out of range for a double)";
  case BS__NUM_UNDERFLOW:
    return " (rounds to zero)";
  case BS__NUM_NOMEM:
    return " (out of memory)";
  case BS__NUM_OK:
  case BS__NUM_SYNTAX:
    break;
  }
  return "";
}

int bs__parse_double(const char *s, double *out) {
  return bs__num_double(s, strlen(s), out) == BS__NUM_OK ? 0 : -1;
}

int bs__parse_u64(const char *s, uint64_t *out) {
  return bs__num_u64(s, strlen(s), out) == BS__NUM_OK ? 0 : -1;
}

/* ---- Shortest round-trip text -------------------------------------------
 * Not a printf precision: the fewest significant digits p for which a
 * p-digit decimal next to v (v cut to p digits, or that plus one unit in
 * its last place) reads back to v. The 17 digits printf gives (correctly
 * rounded, and 17 always read back) are cut and rounded as text: exact,
 * except where the digits past p are exactly "50...0", which the first
 * rounding may have made a tie; there printf rounds again from v itself.
 * If a p-digit decimal reads back, so does a (p+1)-digit one (the same
 * with a zero appended, or the neighbour of v between it and v), so the
 * least p is found by bisection. Each candidate is checked by parsing it
 * (bs__num_double, strtod's result bit for bit). */

/* A candidate: p significant digits d[0..p-1] (no point) times 10^e
 * placed after the first digit: d0.d1d2... x 10^e. */
typedef struct shortest_cand {
  char d[18];
  size_t p;
  int e;
} shortest_cand;

/* Whether sign + candidate reads back to exactly a. */
static int reads_back(const shortest_cand *c, int neg, double a) {
  char t[48];
  size_t k = 0;
  if (neg)
    t[k++] = '-';
  t[k++] = c->d[0];
  if (c->p > 1) {
    t[k++] = '.';
    memcpy(t + k, c->d + 1, c->p - 1);
    k += c->p - 1;
  }
  int n = snprintf(t + k, sizeof t - k, "e%d", c->e);
  if (n < 0)
    return 0;
  k += (size_t)n;
  double back;
  if (bs__num_double(t, k, &back) != BS__NUM_OK)
    return 0;
  uint64_t bits_back, bits_a; /* the same bits, -0 and 0 apart */
  memcpy(&bits_back, &back, sizeof bits_back);
  memcpy(&bits_a, &a, sizeof bits_a);
  return bits_back == bits_a;
}

/* The two p-digit neighbours of the 17 digits d (exponent e): cut, and
 * cut plus one unit; *nearer_up says which is nearer v. */
static void neighbours(double mag, const char d[17], int e, size_t p,
                       shortest_cand *down, shortest_cand *up, int *nearer_up) {
  memcpy(down->d, d, p);
  down->p = p;
  down->e = e;
  *up = *down;
  size_t i = p;
  while (i > 0 && up->d[i - 1] == '9')
    up->d[--i] = '0';
  if (i == 0) {
    up->d[0] = '1'; /* 99..9 + 1: 10..0, one place up */
    up->e++;
  } else {
    up->d[i - 1]++;
  }
  *nearer_up = 0;
  if (p >= 17)
    return;
  int cmp = d[p] < '5' ? -1 : d[p] > '5' ? 1 : 0;
  for (size_t k = p + 1; k < 17 && cmp == 0; k++)
    cmp = d[k] != '0';
  if (cmp == 0) {
    /* "50...0": the 17 digits may have rounded to a tie; ask printf for
     * the p digits of v itself. */
    char t[48];
    snprintf(t, sizeof t, "%.*e", (int)p - 1, mag);
    *nearer_up =
        t[0] != down->d[0] || (p > 1 && memcmp(t + 2, down->d + 1, p - 1) != 0);
  } else {
    *nearer_up = cmp > 0;
  }
}

/* Whether some p-digit neighbour of v reads back; it goes into *out
 * (the nearer one first). */
static int shortest_at(double a, double mag, int neg, const char d[17], int e,
                       size_t p, shortest_cand *out) {
  shortest_cand down, up;
  int nearer_up;
  neighbours(mag, d, e, p, &down, &up, &nearer_up);
  const shortest_cand *first = nearer_up ? &up : &down,
                      *second = nearer_up ? &down : &up;
  if (reads_back(first, neg, a)) {
    *out = *first;
    return 1;
  }
  if (p < 17 && reads_back(second, neg, a)) {
    *out = *second;
    return 1;
  }
  return 0;
}

size_t bs__num_shortest(double v, char out[BS__NUM_SHORTEST]) {
  out[0] = '\0';
  if (!isfinite(v))
    return 0;
  int neg = signbit(v) != 0;
  size_t k = 0;
  if (neg)
    out[k++] = '-';
  if (v == 0) {
    out[k++] = '0';
    out[k] = '\0';
    return k;
  }
  double mag = fabs(v);
  /* "d.dddddddddddddddde+XXX": 17 correctly rounded digits. */
  char t[48], d[17];
  snprintf(t, sizeof t, "%.16e", mag);
  d[0] = t[0];
  memcpy(d + 1, t + 2, 16);
  int e = 0, esign = t[19] == '-' ? -1 : 1;
  for (const char *q = t + 20; *q >= '0' && *q <= '9'; q++)
    e = e * 10 + (*q - '0');
  e *= esign;
  shortest_cand best;
  memcpy(best.d, d, 17);
  best.p = 17;
  best.e = e;
  size_t lo = 1, hi = 17; /* 17 digits always read back */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    shortest_cand c;
    if (shortest_at(v, mag, neg, d, e, mid, &c)) {
      best = c;
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  while (best.p > 1 && best.d[best.p - 1] == '0')
    best.p--;
  /* Plain or with an exponent, whichever is shorter. */
  size_t p = best.p;
  int x = best.e;
  size_t plain = x >= (int)p - 1 ? (size_t)x + 1
                 : x >= 0        ? p + 1
                                 : p + 1 + (size_t)(-x);
  char ebuf[8];
  int en = snprintf(ebuf, sizeof ebuf, "e%d", x);
  size_t expo = p + (p > 1) + (size_t)(en > 0 ? en : 0);
  if (plain <= expo) {
    if (x >= (int)p - 1) {
      memcpy(out + k, best.d, p);
      k += p;
      for (int z = x - ((int)p - 1); z > 0; z--)
        out[k++] = '0';
    } else if (x >= 0) {
      memcpy(out + k, best.d, (size_t)x + 1);
      k += (size_t)x + 1;
      out[k++] = '.';
      memcpy(out + k, best.d + x + 1, p - (size_t)x - 1);
      k += p - (size_t)x - 1;
    } else {
      out[k++] = '0';
      out[k++] = '.';
      for (int z = -x - 1; z > 0; z--)
        out[k++] = '0';
      memcpy(out + k, best.d, p);
      k += p;
    }
  } else {
    out[k++] = best.d[0];
    if (p > 1) {
      out[k++] = '.';
      memcpy(out + k, best.d + 1, p - 1);
      k += p - 1;
    }
    memcpy(out + k, ebuf, (size_t)en);
    k += (size_t)en;
  }
  out[k] = '\0';
  return k;
}
