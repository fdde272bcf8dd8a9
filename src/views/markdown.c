#include "benchsite/markdown.h"

#include "buf.h"
#include "grow.h"
#include "mdw.h"
#include "present.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *bs_format_time_us(double us, char *buf, size_t n) {
  return bs__fmt_time_plain(buf, n, us);
}

/* Room left for the lines that say what was cut. */
#define MD_RESERVE 1200

bs_status bs_markdown_tune(const bs_tune_result *r, char **out, size_t *len,
                           bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, BS__CAP_MARKDOWN);
  char t[48];
  bs__buf row;
  bs__buf_init(&row, BS__CAP_MARKDOWN);
  size_t cut = 0, cut_cross = 0;
  const bs_metric_info *mi = bs_metric_get(r->metric);
  bs__buf_printf(&b,
                 BS_MARKDOWN_MARKER_TUNE
                 "\n### benchsite: %s implementation per "
                 "case (%s)\n\n| case | scale | best | "
                 "median %s | others | win |\n"
                 "|---|---:|---|---:|---|---|\n",
                 mi->best, mi->quantity, mi->quantity);
  for (size_t i = 0; i < r->ncases; i++) {
    const bs_tune_case *c = &r->cases[i];
    double best = 0;
    bs__buf_reset(&row);
    bs__buf_puts(&row, "| ");
    bs__md_case(&row, c->benchmark, c->dataset);
    if (c->has_scale)
      bs__buf_printf(&row, " | %g | ", c->scale);
    else
      bs__buf_puts(&row, " | | ");
    bs__md_text(&row, c->best);
    for (size_t u = 0; u < c->nmedians; u++)
      if (c->medians[u].impl == c->best)
        best = c->medians[u].median_us;
    bs__buf_printf(&row, " | %s | ",
                   bs__fmt_val_plain(t, sizeof t, r->metric, best));
    for (size_t u = 0, k = 0; u < c->nmedians; u++) {
      if (c->medians[u].impl == c->best)
        continue;
      bs__buf_puts(&row, k++ ? ", " : "");
      bs__md_text(&row, c->medians[u].impl);
      bs__buf_printf(&row, " ×%.2f", c->medians[u].median_us / best);
    }
    bs__buf_puts(&row, !c->runner_up ? " | only one impl |\n"
                       : c->decisive ? " | decisive |\n"
                                     : " | = tie |\n");
    bs__md_fit(&b, &row, BS_MARKDOWN_LIMIT - MD_RESERVE, &cut);
  }
  bs__buf_printf(&b,
                 "\n<sub>Metric %s. A win is decisive when the 95 %% "
                 "paired "
                 "interval of med(best − runner-up) lies below zero "
                 "(2000 resamples); otherwise it is a tie.</sub>\n",
                 bs__metric_phrase(t, sizeof t, r->metric));
  for (int pass = 0; pass < 2; pass++) {
    size_t shown = 0;
    for (size_t i = 0; i < r->ncrossovers; i++) {
      const bs_crossover *c = &r->crossovers[i];
      if ((c->decisive != 0) != (pass == 0))
        continue;
      if (shown++ == 0)
        bs__buf_puts(
            &b, pass == 0
                    ? "\n**Crossovers** (log-log interpolation)\n\n"
                      "| benchmark | a | b | scale |\n|---|---|---|---:|\n"
                    : "\n**Crossovers that are ties** (not decisive: the "
                      "paired interval includes zero at one of the two "
                      "scales)\n\n"
                      "| benchmark | a | b | scale |\n|---|---|---|---:|\n");
      bs__buf_reset(&row);
      bs__buf_puts(&row, "| ");
      bs__md_text(&row, c->benchmark);
      bs__buf_puts(&row, " | ");
      bs__md_text(&row, c->a);
      bs__buf_puts(&row, " | ");
      bs__md_text(&row, c->b);
      bs__buf_printf(&row, " | %.4g |\n", c->scale);
      bs__md_fit(&b, &row, BS_MARKDOWN_LIMIT - MD_RESERVE, &cut_cross);
    }
  }
  if (cut || cut_cross)
    bs__buf_printf(&b,
                   "\n**%zu of %zu cases and %zu of %zu crossovers are "
                   "left out** to keep this comment under GitHub's size "
                   "limit; the full tables are in the output of "
                   "`benchsite tune` (its text table, `--json` and "
                   "`--html` report).\n",
                   cut, r->ncases, cut_cross, r->ncrossovers);
  bs__buf_release(&row);
  return bs__buf_finish(&b, BS_OK, "Markdown", out, len, err);
}

static bs_status cell(bs__buf *b, const char *s, size_t width, int right) {
  return bs__text_cell(b, s, width, right, 0);
}

bs_status bs_summary_tune(const bs_tune_result *r, char **out, size_t *len,
                          bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, BS__CAP_TEXT);
  char mphrase[160];
  bs__buf_printf(&b, "%zu case%s tuned, %zu crossover%s (metric %s)\n",
                 r->ncases, r->ncases == 1 ? "" : "s", r->ncrossovers,
                 r->ncrossovers == 1 ? "" : "s",
                 bs__metric_phrase(mphrase, sizeof mphrase, r->metric));
  return bs__buf_finish(&b, BS_OK, "the summary", out, len, err);
}

static bs_status crossover_text(bs__buf *b, const bs_crossover *c);

bs_status bs_text_tune(const bs_tune_result *r, char **out, size_t *len,
                       bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, BS__CAP_TEXT);
  size_t w0 = 4;
  char label[200], t[48];
  for (size_t i = 0; i < r->ncases; i++) {
    const bs_tune_case *c = &r->cases[i];
    snprintf(label, sizeof label, c->dataset[0] ? "%s [%s]" : "%s",
             c->benchmark, c->dataset);
    if (bs__text_width(label, BS_TEXT_LINE_START) > w0)
      w0 = bs__text_width(label, BS_TEXT_LINE_START);
  }
  bs__text_cell(&b, "case", w0, 0, BS_TEXT_LINE_START);
  bs__buf_printf(&b, "  best  (median %s; others as ratio)\n",
                 bs_metric_get(r->metric)->quantity);
  for (size_t i = 0; i < r->ncases; i++) {
    const bs_tune_case *c = &r->cases[i];
    snprintf(label, sizeof label, c->dataset[0] ? "%s [%s]" : "%s",
             c->benchmark, c->dataset);
    double best = 0;
    for (size_t u = 0; u < c->nmedians; u++)
      if (c->medians[u].impl == c->best)
        best = c->medians[u].median_us;
    bs__text_cell(&b, label, w0, 0, BS_TEXT_LINE_START);
    bs__buf_puts(&b, "  ");
    cell(&b, c->best, 0, 0);
    bs__buf_printf(&b, " (%s)",
                   bs__fmt_val_plain(t, sizeof t, r->metric, best));
    for (size_t u = 0; u < c->nmedians; u++) {
      if (c->medians[u].impl == c->best)
        continue;
      bs__buf_puts(&b, "  ");
      cell(&b, c->medians[u].impl, 0, 0);
      bs__buf_printf(&b, " x%.2f", c->medians[u].median_us / best);
    }
    if (c->runner_up) {
      bs__buf_puts(&b, c->decisive ? "  [decisive over " : "  [= tie with ");
      cell(&b, c->runner_up, 0, 0);
      bs__buf_putc(&b, ']');
    }
    bs__buf_putc(&b, '\n');
  }
  for (int pass = 0; pass < 2; pass++) {
    size_t shown = 0;
    for (size_t i = 0; i < r->ncrossovers; i++) {
      const bs_crossover *c = &r->crossovers[i];
      if ((c->decisive != 0) != (pass == 0))
        continue;
      if (shown++ == 0)
        bs__buf_puts(&b, pass == 0 ? "\ncrossovers:\n"
                                   : "\ncrossovers that are ties (not "
                                     "decisive at both scales):\n");
      crossover_text(&b, c);
    }
  }
  for (size_t i = 0; i < r->nwarnings; i++) {
    bs__buf_puts(&b, "warning: ");
    cell(&b, r->warnings[i], 0, 0);
    bs__buf_putc(&b, '\n');
  }
  return bs__buf_finish(&b, BS_OK, "the table", out, len, err);
}

static bs_status crossover_text(bs__buf *b, const bs_crossover *c) {
  bs__buf_puts(b, "  ");
  cell(b, c->benchmark, 0, 0);
  bs__buf_puts(b, ": ");
  cell(b, c->a, 0, 0);
  bs__buf_puts(b, " / ");
  cell(b, c->b, 0, 0);
  bs__buf_printf(b, " cross at scale %.4g (between %g and %g)\n", c->scale,
                 c->scale_low, c->scale_high);
  return bs__buf_status(b);
}
