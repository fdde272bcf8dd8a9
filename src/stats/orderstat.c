#include "orderstat.h"
#include "lmath.h"

#include <math.h>
#include <stdlib.h>

static int cmp_ranked(const void *a, const void *b) {
  const bs__ranked *x = a, *y = b;
  if (x->v < y->v)
    return -1;
  if (x->v > y->v)
    return 1;
  return (x->i > y->i) - (x->i < y->i);
}

void bs__rank_sort(const double *x, size_t n, bs__ranked *order) {
  for (size_t i = 0; i < n; i++) {
    order[i].v = x[i];
    order[i].i = i;
  }
  qsort(order, n, sizeof *order, cmp_ranked);
}

double bs__type7(double f, size_t n, size_t *lo, size_t *hi) {
  double h = f * (double)(n - 1);
  double fl = bs__floor(h);
  *lo = (size_t)fl;
  *hi = (size_t)bs__ceil(h);
  if (*hi >= n)
    *hi = n - 1;
  return h - fl;
}
