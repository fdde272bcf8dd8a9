/* The A/A validation for a terminal or CI log: the report `noise` prints
 * (the suite's planning in words, then each case's figures and their
 * readings, wrapped at 78 columns) and the one-line summary it prints
 * when its results go to files. Every name is escaped for a terminal. */
#include "benchsite/markdown.h"

#include "lmath.h"
#include "mdw.h"
#include "noise_readings.h"
#include "present.h"
#include "strlist.h"

#include <math.h>
#include <stdint.h>

static void blocks_range(const bs_noise_case *c, size_t *lo, size_t *hi) {
  *lo = SIZE_MAX;
  *hi = 0;
  for (size_t k = 0; k < c->runs; k++) {
    size_t m = c->experiments[k].na;
    if (m < *lo)
      *lo = m;
    if (m > *hi)
      *hi = m;
  }
}

/* Untrusted text for a terminal or CI log (bs_text_escape). */
static bs_status text_plain(bs__buf *b, const char *s) {
  return bs__buf_term(b, s, 0);
}

/* A case label for the terminal. */
static bs_status text_case(bs__buf *b, const char *benchmark,
                           const char *dataset) {
  char label[512];
  bs__case_label(label, sizeof label, benchmark, dataset);
  return text_plain(b, label);
}

bs_status bs_text_noise(const bs_noise_result *r, char **out, size_t *len,
                        bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, BS__CAP_TEXT);
  const bs_noise_options *o = &r->options;
  char mode[64], mphrase[160];
  bs__buf_puts(&b, "A/A validation of ");
  text_plain(&b, r->a);
  bs__buf_puts(&b, " against ");
  text_plain(&b, r->b);
  bs__buf_printf(&b,
                 " (metric %s; %llu resamples, level %.2f, seed "
                 "%llu%s)\n",
                 bs__metric_phrase(mphrase, sizeof mphrase, o->metric),
                 (unsigned long long)o->resamples, o->level,
                 (unsigned long long)o->seed,
                 bs__noise_block_mode(o, mode, sizeof mode));
  bs__buf para;
  bs__buf_init(&para, BS__CAP_TEXT);
  bs__noise_planning(&para, r, text_case);
  if (para.len && para.data[para.len - 1] == '\n')
    para.data[--para.len] = '\0'; /* bs__text_wrap ends the line itself */
  bs__buf_putc(&b, '\n');
  if (!bs__buf_fail(&b, bs__buf_status(&para)))
    bs__text_wrap(&b, para.data ? para.data : "", "", "", 78);
  bs__buf_release(&para);
  for (size_t i = 0; i < r->ncases && !bs__buf_status(&b); i++) {
    const bs_noise_case *c = &r->cases[i];
    char label[512];
    size_t lo, hi;
    bs__case_label(label, sizeof label, c->benchmark, c->dataset);
    blocks_range(c, &lo, &hi);
    bs__buf_puts(&b, "\n");
    bs__buf_term(&b, label, BS_TEXT_LINE_START);
    if (lo == hi)
      bs__buf_printf(&b, ": %zu runs of %zu blocks\n", c->runs, lo);
    else
      bs__buf_printf(&b, ": %zu runs of %zu to %zu blocks\n", c->runs, lo, hi);
    bs__noise_figures g;
    bs__noise_case_figures(&g, c);
    char expect[48];
    bs__fmt_rate_plain(expect, sizeof expect, 200.0 * (1.0 - o->level));
    bs__buf_printf(&b,
                   "  noise floor        %s of paired Δ%% (gate δ 3 %%: %s)\n"
                   "  unpaired spread    %s (typical %s, largest %s)\n"
                   "  gate on A/A        %s of runs flagged a regression\n"
                   "  blocks for gate    %llu (now %g per run)\n"
                   "  mean confidence    %.3f (0.500 expected, ties split)\n"
                   "  median confidence  %.3f\n"
                   "  tied replicates    %s\n"
                   "  drifting runs      %s (median |shift| %s)\n"
                   "  autocorrelation    %+.3f (blocks worthwhile above ~0.2)\n"
                   "  false signals      %s at level %.2f (%s expected)\n",
                   g.paired, c->gate_resolves ? "resolves" : "does not resolve",
                   g.floor, g.typical, g.worst, g.flagged,
                   (unsigned long long)c->blocks_for_gate, c->median_pairs,
                   c->mean_confidence, c->median_confidence, g.ties, g.drifting,
                   g.shift, c->autocorrelation, g.signals, o->level, expect);
    char **list = NULL;
    size_t nl = 0;
    bs__buf_fail(&b, bs__noise_readings(r, c, 0, &list, &nl));
    bs__buf_puts(&b, "  reading:\n");
    for (size_t k = 0; k < nl; k++)
      bs__text_wrap(&b, list[k], "    - ", "      ", 78);
    bs__strlist_free(list, nl);
  }
  return bs__buf_finish(&b, BS_OK, "the report", out, len, err);
}

bs_status bs_summary_noise(const bs_noise_result *r, char **out, size_t *len,
                           bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, BS__CAP_TEXT);
  double lo = HUGE_VAL, hi = -HUGE_VAL;
  size_t resolves = 0;
  for (size_t i = 0; i < r->ncases; i++) {
    const bs_noise_case *c = &r->cases[i];
    lo = bs__fmin(lo, c->paired_noise_floor_pct);
    hi = bs__fmax(hi, c->paired_noise_floor_pct);
    resolves += c->gate_resolves != 0;
  }
  char mphrase[160];
  bs__buf_printf(&b, "A/A validation of %zu case%s (metric %s)", r->ncases,
                 r->ncases == 1 ? "" : "s",
                 bs__metric_phrase(mphrase, sizeof mphrase, r->options.metric));
  char f0[48], f1[48];
  if (r->ncases)
    bs__buf_printf(&b,
                   ": noise floor %s to %s, the gate's "
                   "δ = 3 %% resolves %zu of %zu",
                   bs__fmt_floor_plain(f0, sizeof f0, lo),
                   bs__fmt_floor_plain(f1, sizeof f1, hi), resolves, r->ncases);
  bs__buf_putc(&b, '\n');
  return bs__buf_finish(&b, BS_OK, "the summary", out, len, err);
}
