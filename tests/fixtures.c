#include "fixtures.h"

#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fx_numbers(const char *file, const char *prefix, double *out, size_t max) {
  char *path = ts_data(file);
  char *text = ts_read(path, NULL);
  free(path);
  if (!text)
    return -1;
  size_t plen = strlen(prefix);
  int count = -1;
  for (char *line = text; line && *line;) {
    char *next = strchr(line, '\n');
    if (next)
      *next++ = '\0';
    if (!strncmp(line, prefix, plen) && (line[plen] == ' ' || !line[plen])) {
      count = 0;
      char *p = line + plen;
      while (*p && (size_t)count < max) {
        char *end;
        double v = strtod(p, &end);
        if (end == p)
          break;
        out[count++] = v;
        p = end;
      }
      break;
    }
    line = next;
  }
  free(text);
  return count;
}

double fx_reldiff(double a, double b) {
  double m = fmax(fabs(a), fabs(b));
  return m == 0 ? 0 : fabs(a - b) / m;
}
