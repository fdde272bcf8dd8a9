#include "pairs.h"
#include "oom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bs__keyed_cmp(const void *a, const void *b) {
  const bs__keyed *x = a, *y = b;
  if (x->run != y->run)
    return x->run < y->run ? -1 : 1;
  return (x->block > y->block) - (x->block < y->block);
}

bs_status bs__pairs_gather(bs__pairs *p, const bs_log *log, const bs_case *lc,
                           const char *x, const char *y, bs_error *err) {
  const bs_row *rows = bs_log_rows(log);
  p->log = log;
  p->nx = p->ny = 0;
  free(p->x);
  free(p->y);
  /* Either impl may own every row of the case. */
  p->x = malloc((lc->nrows ? lc->nrows : 1) * sizeof *p->x);
  p->y = malloc((lc->nrows ? lc->nrows : 1) * sizeof *p->y);
  if (!p->x || !p->y)
    return bs__oom(err);
  for (size_t k = 0; k < lc->nrows; k++) {
    const bs_row *row = &rows[lc->rows[k]];
    if (row->phase != BS_PHASE_CONFIRM)
      continue;
    bs__keyed key = {bs_row_run(log, row), bs_row_block(log, row), row};
    if (!strcmp(row->impl, x))
      p->x[p->nx++] = key;
    else if (!strcmp(row->impl, y))
      p->y[p->ny++] = key;
  }
  return BS_OK;
}

void bs__pairs_release(bs__pairs *p) {
  free(p->x);
  free(p->y);
  p->x = p->y = NULL;
  p->nx = p->ny = 0;
}

void bs__keyed_describe(char *msg, size_t cap, size_t *used, const bs_log *log,
                        const bs__keyed *k, int with_run, size_t *listed) {
  if (*listed >= 8) {
    (*listed)++;
    return;
  }
  int n = with_run
              ? snprintf(msg + *used, cap - *used,
                         "%s%s run %llu block %lld (%s:%ld)",
                         *listed ? ", " : "", k->row->impl,
                         (unsigned long long)k->run, (long long)k->block,
                         bs_log_row_file(log, k->row), (long)k->row->line)
              : snprintf(msg + *used, cap - *used, "%s%s block %lld (%s:%ld)",
                         *listed ? ", " : "", k->row->impl, (long long)k->block,
                         bs_log_row_file(log, k->row), (long)k->row->line);
  if (n > 0 && (size_t)n < cap - *used)
    *used += (size_t)n;
  (*listed)++;
}

bs_status bs__pairs_deltas(bs__pairs *p, bs_metric metric, const char *label,
                           double **d, size_t *m, bs_error *err) {
  *d = NULL;
  *m = 0;
  qsort(p->x, p->nx, sizeof *p->x, bs__keyed_cmp);
  qsort(p->y, p->ny, sizeof *p->y, bs__keyed_cmp);
  size_t i = 0, j = 0, n = 0, listed = 0, used = 0;
  const bs_row *first = NULL;
  char list[600];
  list[0] = '\0';
  while (i < p->nx || j < p->ny) {
    int c = i == p->nx   ? 1
            : j == p->ny ? -1
                         : bs__keyed_cmp(&p->x[i], &p->y[j]);
    if (c == 0) {
      p->x[n] = p->x[i++];
      p->y[n] = p->y[j++];
      n++;
      continue;
    }
    const bs__keyed *lone = c < 0 ? &p->x[i++] : &p->y[j++];
    if (!first)
      first = lone->row;
    bs__keyed_describe(list, sizeof list, &used, p->log, lone, 1, &listed);
  }
  if (first)
    return bs_error_set(
        err, BS_EMISMATCH, bs_log_row_file(p->log, first), (long)first->line,
        "mismatched pairs in case %s: %zu row%s without a partner: %s%s", label,
        listed, listed == 1 ? "" : "s", list, listed > 8 ? ", ..." : "");
  double *v = malloc((n ? n : 1) * sizeof *v);
  if (!v)
    return bs__oom(err);
  for (size_t k = 0; k < n; k++)
    v[k] = bs__row_value(p->log, p->y[k].row, metric) -
           bs__row_value(p->log, p->x[k].row, metric);
  *d = v;
  *m = n;
  return BS_OK;
}
