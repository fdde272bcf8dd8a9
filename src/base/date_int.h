/* UTC dates and times parsed into their fields, for the archive that
 * orders and checks them. Private; the public face is bs_date_valid() and
 * friends in benchsite/date.h, which say which forms are accepted. */
#ifndef BENCHSITE_DATE_INT_H
#define BENCHSITE_DATE_INT_H

typedef struct bs__utc_time {
  int year, month, day, hour, minute, second;
  char frac[32]; /* fraction digits, trailing zeros removed ("" for none) */
  int has_time;  /* 0 for a date alone (YYYY-MM-DD) */
} bs__utc_time;

/* Parses s into *t (zeroed first): 1, or 0 when s is not such a date or
 * time (a day that does not exist in its month included; second 60, a
 * leap second, is allowed). */
int bs__utc_parse(const char *s, bs__utc_time *t);

/* Seconds since 1970-01-01T00:00:00Z, the fraction dropped. */
long long bs__utc_seconds(const bs__utc_time *t);

/* -1, 0 or 1 as a is earlier than, the same time as or later than b
 * (fractions compared as decimals). */
int bs__utc_cmp(const bs__utc_time *a, const bs__utc_time *b);

#endif
