/* The A/A validation as a pull-request comment: the planning paragraph,
 * one table row per case, the footnote on how the figures were made, then
 * each case's readings, cut to GitHub's comment limit (what is cut is
 * counted in a closing line). User text is Markdown-escaped. */
#include "benchsite/markdown.h"

#include "mdw.h"
#include "noise_readings.h"
#include "present.h"
#include "strlist.h"

/* Room left for the line that says what was cut. */
#define NOISE_MD_RESERVE 600

bs_status bs_markdown_noise(const bs_noise_result *r, char **out, size_t *len,
                            bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, BS__CAP_MARKDOWN);
  const bs_noise_options *o = &r->options;
  char mode[64], mphrase[160];
  bs__buf row;
  bs__buf_init(&row, BS__CAP_MARKDOWN);
  size_t cut = 0, cut_readings = 0;
  char expect[48];
  bs__buf_puts(&b, BS_MARKDOWN_MARKER_NOISE
               "\n### benchsite: A/A noise validation — ");
  bs__md_text(&b, r->a);
  bs__buf_puts(&b, " vs ");
  bs__md_text(&b, r->b);
  bs__buf_printf(&b, ", %s\n\n", bs_metric_get(o->metric)->quantity);
  bs__noise_planning(&b, r, bs__md_case);
  bs__buf_puts(&b,
               "\n| case | runs | noise floor | gate (δ 3 %) | "
               "blocks for the gate | "
               "false regressions | unpaired spread (typical, largest) | mean "
               "confidence | ties | drifting runs | autocorrelation | false "
               "signals |\n"
               "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (size_t i = 0; i < r->ncases; i++) {
    const bs_noise_case *c = &r->cases[i];
    bs__buf_puts(&row, "| ");
    bs__md_case(&row, c->benchmark, c->dataset);
    bs__noise_figures g;
    bs__noise_case_figures(&g, c);
    bs__buf_printf(
        &row,
        " | %zu | %s | %s | %llu (now %g) | %s | %s (%s, %s) | %.3f | %s | "
        "%s | %+.2f | %s |\n",
        c->runs, g.paired, c->gate_resolves ? "resolves" : "⚠ does not resolve",
        (unsigned long long)c->blocks_for_gate, c->median_pairs, g.flagged,
        g.floor, g.typical, g.worst, c->mean_confidence, g.ties, g.drifting,
        c->autocorrelation, g.signals);
    bs__md_fit(&b, &row, BS_MARKDOWN_LIMIT - NOISE_MD_RESERVE, &cut);
  }
  bs__buf_printf(
      &b,
      "\n<sub>Metric %s. Every difference an A/A run finds is noise: A "
      "and B are the "
      "same code. Noise floor: 90th percentile of |paired Δ%%| over the "
      "runs, each run paired by block as the gate pairs it (B baseline). "
      "Unpaired spread: 90th percentile of |u|, u = 1 − med(A)/med(B). "
      "Confidences: "
      "unpaired median bootstrap with ties split, %llu resamples, seed "
      "%llu%s; false signals count runs outside [%.2f, %.2f] (%s "
      "expected).</sub>\n",
      bs__metric_phrase(mphrase, sizeof mphrase, o->metric),
      (unsigned long long)o->resamples, (unsigned long long)o->seed,
      bs__noise_block_mode(o, mode, sizeof mode), 1.0 - o->level, o->level,
      bs__fmt_rate_plain(expect, sizeof expect, 200.0 * (1.0 - o->level)));
  for (size_t i = 0; i < r->ncases && !bs__buf_status(&b); i++) {
    const bs_noise_case *c = &r->cases[i];
    char **list = NULL;
    size_t nl = 0;
    bs__buf_puts(&row, "\n**");
    bs__md_case(&row, c->benchmark, c->dataset);
    bs__buf_puts(&row, "**\n\n");
    bs__buf_fail(&row, bs__noise_readings(r, c, 1, &list, &nl));
    for (size_t k = 0; k < nl; k++)
      bs__buf_printf(&row, "- %s\n", list[k]);
    bs__strlist_free(list, nl);
    bs__md_fit(&b, &row, BS_MARKDOWN_LIMIT - NOISE_MD_RESERVE, &cut_readings);
  }
  if (cut || cut_readings)
    bs__buf_printf(&b,
                   "\n**%zu of %zu cases are left out of the table and "
                   "the readings of %zu** to keep this comment under "
                   "GitHub's size limit; the full report is in the "
                   "output of `benchsite noise` (its text report, "
                   "`--json` and `--html` report).\n",
                   cut, r->ncases, cut_readings);
  bs__buf_release(&row);

  return bs__buf_finish(&b, BS_OK, "Markdown", out, len, err);
}
