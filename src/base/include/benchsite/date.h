/* benchsite: UTC dates and times as manifests and archives write them:
 * "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM:SS[.frac]" with "Z" or "+00:00" (ISO
 * 8601; a UTC time is the only kind that orders runs measured on different
 * machines correctly). */
#ifndef BENCHSITE_DATE_H
#define BENCHSITE_DATE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Compares two times of the accepted forms as times: <0, 0 or >0. Text
 * that does not parse sorts before every time, ties broken by byte order.
 * Neither may be NULL. */
int bs_date_cmp(const char *a, const char *b);

/* Returns 1 when `text` is an accepted ISO 8601 UTC time, else 0 (also
 * for NULL). */
int bs_date_valid(const char *text);

/* Room for a time in the form bs_date_normalise writes, and its NUL. */
#define BS_DATE_MAX 64

/* Writes `text`, an accepted time, into out (n bytes, at least
 * BS_DATE_MAX) in one form, an RFC 3339 UTC time:
 * "YYYY-MM-DDTHH:MM:SS[.frac]Z", the fraction without trailing zeros (none
 * when it is zero), "Z" for "+00:00", and 00:00:00 for a date without a
 * time (the time such a date always stood for: it orders and identifies
 * the run as midnight UTC). Returns 1; 0 when `text` is not an accepted
 * time (or NULL, or n too small), out then "". */
int bs_date_normalise(const char *text, char *out, size_t n);

/* Returns 1 when `text` is an accepted time more than a day after the
 * current time (a run `archive add` would refuse; one archived before that
 * rule must not head the history for ever), else 0 (also for NULL). */
int bs_date_in_future(const char *text);

/* A duration in seconds, rounded to whole seconds, as "42 s", "3:05"
 * (minutes) or "1:02:03" (hours), into buf (n bytes); returns buf. Not a
 * positive finite number: "0 s". */
const char *bs_date_duration(char *buf, size_t n, double seconds);

#ifdef __cplusplus
}
#endif
#endif
