/* malloc'd strings: copies, formatted strings and lists of them
 * (warnings). Private. */
#ifndef BENCHSITE_STRLIST_H
#define BENCHSITE_STRLIST_H

#include "benchsite/error.h"

#include <stddef.h>

/* A malloc'd copy of s; NULL when out of memory. */
char *bs__strdup(const char *s);
/* A malloc'd printf-formatted string; NULL when out of memory. */
char *bs__strdupf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Appends a printf-formatted string to *list (count *n). */
bs_status bs__strlist_addf(char ***list, size_t *n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void bs__strlist_free(char **list, size_t n);
/* "bench [dataset]", or "bench" for an empty or NULL dataset, into buf
 * (n bytes, cut to fit). Returns buf. */
char *bs__case_label(char *buf, size_t n, const char *benchmark,
                     const char *dataset);

#endif
