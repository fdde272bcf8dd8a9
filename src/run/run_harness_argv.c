/* benchsite: the command line of a harness program, as an adapter writes
 * it (run_harness.h): an argv of owned copies, and the look-ups in the
 * user's words (a flag already given, where the harness's own arguments
 * end) that decide which words an adapter adds. */
#include "run_harness.h"

#include "grow.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bs__argv_init(bs__argv *a) { memset(a, 0, sizeof *a); }

void bs__argv_release(bs__argv *a) {
  for (size_t i = 0; i < a->n; i++)
    free(a->v[i]);
  free(a->v);
  memset(a, 0, sizeof *a);
}

static bs_status argv_take(bs__argv *a, char *word) {
  if (!word)
    return BS_ENOMEM;
  if (a->n + 2 > a->cap) {
    char **v = BS__GROW(a->v, a->cap, a->n + 2, 16);
    if (!v) {
      free(word);
      return BS_ENOMEM;
    }
    a->v = v;
  }
  a->v[a->n++] = word;
  a->v[a->n] = NULL;
  return BS_OK;
}

bs_status bs__argv_add(bs__argv *a, const char *word) {
  return argv_take(a, strdup(word));
}

bs_status bs__argv_addf(bs__argv *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *w = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (w) {
    va_start(ap, fmt);
    vsnprintf(w, (size_t)n + 1, fmt, ap);
    va_end(ap);
  }
  return argv_take(a, w);
}

bs_status bs__argv_add_words(bs__argv *a, char *const *words, size_t from,
                             size_t to) {
  bs_status st = BS_OK;
  for (size_t i = from; !st && i < to; i++)
    st = bs__argv_add(a, words[i]);
  return st;
}

int bs__words_flag(char *const *words, size_t stop, const char *const *names,
                   int next, int glued, const char **value) {
  int found = 0;
  /* words[0] is the program */
  for (size_t i = 1; i < stop && words[i]; i++) {
    for (size_t k = 0; names[k]; k++) {
      size_t n = strlen(names[k]);
      const char *w = words[i];
      if (strncmp(w, names[k], n) != 0)
        continue;
      if (w[n] == '=' || (glued && w[n])) {
        *value = w + n + (w[n] == '=');
        found = 1;
        break;
      }
      if (!w[n] && next && i + 1 < stop && words[i + 1]) {
        *value = words[++i];
        found = 1;
        break;
      }
    }
  }
  return found;
}

size_t bs__words_end(char *const *words, const char *const *ends) {
  size_t i = 1;
  for (; words[i]; i++)
    for (size_t k = 0; ends[k]; k++)
      if (!strcmp(words[i], ends[k]))
        return i;
  return i;
}
