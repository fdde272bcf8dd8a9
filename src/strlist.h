/* A malloc'd list of malloc'd strings (warnings). Private. */
#ifndef BENCHSITE_STRLIST_H
#define BENCHSITE_STRLIST_H

#include "benchsite/error.h"

#include <stddef.h>

/* Appends a printf-formatted string to *list (count *n). */
bs_status bs__strlist_addf(char ***list, size_t *n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void bs__strlist_free(char **list, size_t n);
/* "bench [dataset]" or "bench" for an empty dataset, into buf. */
void bs__case_label(char *buf, size_t n, const char *benchmark,
                    const char *dataset);

#endif
