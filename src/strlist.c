#include "strlist.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

bs_status bs__strlist_addf(char ***list, size_t *n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (len < 0)
    return BS_EINTERNAL;
  char *s = malloc((size_t)len + 1);
  if (!s)
    return BS_ENOMEM;
  va_start(ap, fmt);
  vsnprintf(s, (size_t)len + 1, fmt, ap);
  va_end(ap);
  char **grown = realloc(*list, (*n + 1) * sizeof *grown);
  if (!grown) {
    free(s);
    return BS_ENOMEM;
  }
  grown[(*n)++] = s;
  *list = grown;
  return BS_OK;
}

void bs__strlist_free(char **list, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(list[i]);
  free(list);
}

void bs__case_label(char *buf, size_t n, const char *benchmark,
                    const char *dataset) {
  if (dataset && dataset[0])
    snprintf(buf, n, "%s [%s]", benchmark, dataset);
  else
    snprintf(buf, n, "%s", benchmark);
}
