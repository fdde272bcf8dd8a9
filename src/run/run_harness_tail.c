/* benchsite: the last lines a harness program printed, kept while it runs
 * for the message that quotes them when it fails (run_harness.h). */
#include "run_harness.h"

#include <stdlib.h>
#include <string.h>

/* The bytes of a line a message may quote (longer: cut, with "..."). */
#define LINE_KEEP 240

/* The last BS__TAIL_LINES lines that hold more than blanks of what a
 * program printed on its standard output and error, each stream cut into
 * lines on its own (a line of one is never spliced into a line of the
 * other): a ring, so a chatty program costs nothing more. */
struct bs__tail {
  char line[BS__TAIL_LINES][LINE_KEEP + 1];
  unsigned char cut[BS__TAIL_LINES];
  size_t count; /* lines ever kept; the newest is (count - 1) % LINES */
  char part[2][LINE_KEEP + 1]; /* per stream: the line being read */
  size_t plen[2];
  unsigned char pcut[2];
};

static void tail_end_line(bs__tail *t, int s) {
  size_t n = t->plen[s];
  const char *p = t->part[s];
  while (n && (p[n - 1] == ' ' || p[n - 1] == '\r'))
    n--;
  size_t b = 0;
  while (b < n && p[b] == ' ')
    b++;
  if (b < n) {
    size_t k = t->count++ % BS__TAIL_LINES;
    memcpy(t->line[k], p, n);
    t->line[k][n] = '\0';
    t->cut[k] = t->pcut[s];
  }
  t->plen[s] = 0;
  t->pcut[s] = 0;
}

void bs__tail_put(bs__tail *t, int s, const char *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (p[i] == '\n') {
      tail_end_line(t, s);
    } else if (t->plen[s] < LINE_KEEP) {
      /* a tab is a blank here: quoted, it would be an escape */
      char c = p[i];
      if (c == '\t')
        c = ' ';
      t->part[s][t->plen[s]++] = c;
    } else {
      t->pcut[s] = 1;
    }
  }
}

bs_status bs__tail_give(bs__tail *t, bs_run_result *r) {
  for (int s = 0; s < 2; s++)
    if (t->plen[s])
      tail_end_line(t, s);
  size_t n = t->count < BS__TAIL_LINES ? t->count : BS__TAIL_LINES;
  if (!n)
    return BS_OK;
  char **out = calloc(n, sizeof *out);
  if (!out)
    return BS_ENOMEM;
  for (size_t i = 0; i < n; i++) {
    size_t k = (t->count - n + i) % BS__TAIL_LINES;
    char esc[4 * LINE_KEEP + 8];
    bs__run_text(esc, sizeof esc, t->line[k]);
    size_t l = strlen(esc);
    if ((out[i] = malloc(l + 4)) == NULL) {
      for (size_t j = 0; j < i; j++)
        free(out[j]);
      free(out);
      return BS_ENOMEM;
    }
    memcpy(out[i], esc, l + 1);
    if (t->cut[k])
      memcpy(out[i] + l, "...", 4);
  }
  r->output = out;
  r->noutput = n;
  return BS_OK;
}

bs__tail *bs__tail_new(void) { return calloc(1, sizeof(bs__tail)); }
