/* What every chart of a report is made with: its registration with the
 * plot batch and the report's list of charts, its default style, and the
 * sentence that says what it shows (its alt text), built in a buffer that
 * keeps its first error. The charts themselves are report_charts.c (the
 * forest and each compared case's) and report_tune_aa_charts.c. */
#include "report_int.h"

#include "grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bs_plot_style bs__chart_style(uint32_t color) {
  bs_plot_style s;
  memset(&s, 0, sizeof s);
  s.color = color;
  return s;
}

size_t bs__new_chart(bs__report *r, const char *file, int w, int h) {
  if (r->st)
    return BS__NO_CHART;
  if (r->ncharts == r->capcharts) {
    bs__rchart *c = BS__GROW(r->charts, r->capcharts, r->ncharts + 1, 32);
    if (!c) {
      r->st = BS_ENOMEM;
      return BS__NO_CHART;
    }
    r->charts = c;
  }
  size_t k = bs_plot_chart(r->plot, file, w, h);
  if (k == (size_t)-1) {
    r->st = BS_EINTERNAL;
    return BS__NO_CHART;
  }
  bs__rchart *c = &r->charts[r->ncharts];
  memset(c, 0, sizeof *c);
  snprintf(c->file, sizeof c->file, "%s", file);
  c->width = w;
  c->height = h;
  return r->ncharts++;
}

void bs__set_alt(bs__report *r, size_t k, char *alt) {
  if (k == BS__NO_CHART) {
    free(alt);
    return;
  }
  if (!alt) {
    r->st = BS_ENOMEM;
    return;
  }
  free(r->charts[k].alt);
  r->charts[k].alt = alt;
}

char *bs__alt_take(bs__buf *b) {
  if (bs__buf_status(b)) {
    bs__buf_release(b);
    return NULL;
  }
  return bs__buf_detach(b, NULL);
}
