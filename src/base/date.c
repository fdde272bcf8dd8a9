/* UTC dates and times (benchsite/date.h), and the parsed form the
 * archive uses (date_int.h). */
#include "benchsite/date.h"

#include "date_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static int isdigit_(int c) { return c >= '0' && c <= '9'; }

static int read_digits(const char **p, int n, int *out) {
  int v = 0;
  for (int i = 0; i < n; i++) {
    if (!isdigit_((unsigned char)(*p)[i]))
      return 0;
    v = v * 10 + ((*p)[i] - '0');
  }
  *p += n;
  *out = v;
  return 1;
}

static int days_in_month(int y, int m) {
  static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
    return 29;
  return days[m - 1];
}

int bs__utc_parse(const char *s, bs__utc_time *t) {
  memset(t, 0, sizeof *t);
  const char *p = s;
  if (!read_digits(&p, 4, &t->year) || *p++ != '-' ||
      !read_digits(&p, 2, &t->month) || *p++ != '-' ||
      !read_digits(&p, 2, &t->day))
    return 0;
  if (t->month < 1 || t->month > 12 || t->day < 1 ||
      t->day > days_in_month(t->year, t->month))
    return 0;
  if (*p == '\0')
    return 1;
  t->has_time = 1;
  if (*p++ != 'T' || !read_digits(&p, 2, &t->hour) || *p++ != ':' ||
      !read_digits(&p, 2, &t->minute) || *p++ != ':' ||
      !read_digits(&p, 2, &t->second))
    return 0;
  /* 60 allows a leap second. */
  if (t->hour > 23 || t->minute > 59 || t->second > 60)
    return 0;
  if (*p == '.') {
    p++;
    size_t n = 0;
    if (!isdigit_((unsigned char)*p))
      return 0;
    for (; isdigit_((unsigned char)*p); p++) {
      if (n + 1 < sizeof t->frac)
        t->frac[n++] = *p;
    }
    while (n > 0 && t->frac[n - 1] == '0')
      n--;
    t->frac[n] = '\0';
  }
  if (!strcmp(p, "Z") || !strcmp(p, "+00:00"))
    return 1;
  return 0;
}

static int cmp_int(int a, int b) { return (a > b) - (a < b); }

/* By the days of the proleptic Gregorian calendar (Hinnant's
 * days_from_civil). */
long long bs__utc_seconds(const bs__utc_time *t) {
  long long y = t->year - (t->month <= 2);
  long long era = (y >= 0 ? y : y - 399) / 400;
  long long yoe = y - era * 400;
  long long mp = (t->month + 9) % 12;
  long long doy = (153 * mp + 2) / 5 + t->day - 1;
  long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  long long days = era * 146097 + doe - 719468;
  return days * 86400 + t->hour * 3600LL + t->minute * 60LL + t->second;
}

int bs__utc_cmp(const bs__utc_time *a, const bs__utc_time *b) {
  int c;
  if ((c = cmp_int(a->year, b->year)) || (c = cmp_int(a->month, b->month)) ||
      (c = cmp_int(a->day, b->day)) || (c = cmp_int(a->hour, b->hour)) ||
      (c = cmp_int(a->minute, b->minute)) ||
      (c = cmp_int(a->second, b->second)))
    return c;
  /* Fraction digits without trailing zeros compare as decimals when
   * compared as strings: ".5" > ".25", ".5" == ".50". */
  c = strcmp(a->frac, b->frac);
  return (c > 0) - (c < 0);
}

int bs_date_valid(const char *text) {
  bs__utc_time t;
  return text && bs__utc_parse(text, &t);
}

int bs_date_normalise(const char *text, char *out, size_t n) {
  bs__utc_time t;
  if (n)
    out[0] = '\0';
  if (!text || n < BS_DATE_MAX || !bs__utc_parse(text, &t))
    return 0;
  snprintf(out, n, "%04d-%02d-%02dT%02d:%02d:%02d%s%sZ", t.year, t.month, t.day,
           t.hour, t.minute, t.second, t.frac[0] ? "." : "", t.frac);
  return 1;
}

int bs_date_in_future(const char *text) {
  bs__utc_time t;
  time_t now = time(NULL);
  return text && bs__utc_parse(text, &t) && now != (time_t)-1 &&
         bs__utc_seconds(&t) > (long long)now + 86400;
}

int bs_date_cmp(const char *a, const char *b) {
  bs__utc_time ta, tb;
  int va = bs__utc_parse(a, &ta), vb = bs__utc_parse(b, &tb);
  if (va && vb) {
    int c = bs__utc_cmp(&ta, &tb);
    if (c)
      return c;
  } else if (va != vb) {
    return va ? 1 : -1;
  }
  int c = strcmp(a, b);
  return (c > 0) - (c < 0);
}

const char *bs_date_duration(char *buf, size_t n, double seconds) {
  /* Rounded to whole seconds: the conversion truncates, which for a
   * positive number is floor (and the program links no libm). */
  double r = seconds > 0 && isfinite(seconds) ? seconds + 0.5 : 0;
  unsigned long long s = r < 1e12 ? (unsigned long long)r : 999999999999ull;
  if (s < 60)
    snprintf(buf, n, "%llu s", s);
  else if (s < 3600)
    snprintf(buf, n, "%llu:%02llu", s / 60, s % 60);
  else
    snprintf(buf, n, "%llu:%02llu:%02llu", s / 3600, s / 60 % 60, s % 60);
  return buf;
}
