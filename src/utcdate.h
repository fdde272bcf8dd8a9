/* UTC dates and times: "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM:SS[.frac]" with
 * "Z" or "+00:00" (ISO 8601; a UTC time is the only kind that orders runs
 * measured on different machines correctly). Private; the public face is
 * bs_archive_date_valid() and friends in benchsite/archive.h. */
#ifndef BENCHSITE_UTCDATE_H
#define BENCHSITE_UTCDATE_H

typedef struct bs__utc_time {
  int year, month, day, hour, minute, second;
  char frac[32]; /* fraction digits, trailing zeros removed ("" for none) */
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
