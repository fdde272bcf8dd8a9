/* benchsite report: the static HTML report of one run. */
#include "cli.h"

#include "benchsite/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: benchsite report LOG... --manifest M [--manifest M2]... --out DIR\n"
    "                        [--templates DIR] [--baseline B --candidate C]\n"
    "                        [--seed N] [--metric wall|cpu|rss]\n"
    "                        [--gnuplot PROGRAM] [--quiet]\n"
    "\n"
    "Writes a static HTML report of one run into DIR: the confirmatory\n"
    "comparison (when a baseline and a candidate are named), tuning (when\n"
    "the log has several implementations or scales) and A/A validation\n"
    "(when a manifest names aa_a and aa_b), with gnuplot SVG charts. No\n"
    "JavaScript, no external requests; open DIR/index.html from file://.\n"
    "\n"
    "  --manifest M       environment manifest (key,value CSV); the first is\n"
    "                     the run's, further ones are shown beside it\n"
    "  --out DIR          output directory, replaced atomically; an existing\n"
    "                     DIR must be empty or an earlier report\n"
    "  --templates DIR    page templates (default: the installed ones)\n"
    "  --baseline B, --candidate C  impl ids (default: the manifest's\n"
    "                     baseline and candidate keys)\n"
    "  --seed N           bootstrap seed (default 0)\n"
    "  --metric M         what every analysis uses: wall (wall time per\n"
    "                     call), cpu (CPU time per call) or rss (peak\n"
    "                     resident memory); every confirm row must have it.\n"
    "                     Default: the gate's metric, as compare's (cpu when\n"
    "                     the manifest says gate_metric,cpu), else wall\n"
    "  --gnuplot PROGRAM  gnuplot to run (default: gnuplot from PATH)\n"
    "  --quiet            no progress on standard error (cases compared,\n"
    "                     charts rendered, pages written: a line updated in\n"
    "                     place on a terminal, else a line every 10 s)\n"
    "\n"
    "The report is built beside DIR and renamed into place, so a failure or\n"
    "an interruption leaves an earlier report intact. The exit status does\n"
    "not gate: use 'benchsite compare' for that.\n"
    "Exit status: 0 report written, 2 bad input or usage, 3 failure.\n";

static const cli_opt opts[] = {
    {"manifest", 1, 1}, {"out", 1, 0},       {"templates", 1, 0},
    {"baseline", 1, 0}, {"candidate", 1, 0}, {"seed", 1, 0},
    {"gnuplot", 1, 0},  {"metric", 1, 0},    {"quiet", 0, 0},
};

int cli_cmd_report(int argc, char **argv) {
  char tbuf[CLI_PATH_MAX], abuf[CLI_PATH_MAX];
  cli_cmd cmd;
  int rc = cli_cmd_begin(&cmd, "report", argc, argv, opts,
                         sizeof opts / sizeof opts[0], usage);
  if (rc || cmd.a.help)
    goto done;
  bs_report_options o;
  bs_report_options_init(&o);
  bs_analysis_options ao;
  bs_analysis_options_init(&ao);
  const char *out = cli_get(&cmd.a, "out");
  if (!out || !out[0]) {
    rc = cli_usage_error("report: --out DIR is required");
    goto done;
  }
  if ((rc = cli_get_u64(&cmd.a, "seed", &ao.seed)))
    goto done;
  if ((rc = cli_get_metric(&cmd.a, "report", &ao.metric)))
    goto done;
  ao.baseline = cli_get(&cmd.a, "baseline");
  ao.candidate = cli_get(&cmd.a, "candidate");
  o.gnuplot = cli_get(&cmd.a, "gnuplot");
  o.templates_dir = cli_get(&cmd.a, "templates");
  if (o.templates_dir && !cli_is_dir_with(o.templates_dir, "index.html")) {
    rc = cli_usage_error("report: --templates %s: no index.html there",
                         o.templates_dir);
    goto done;
  }
  if ((rc = cli_report_data_dirs("report", &o, tbuf, abuf)))
    goto done;
  const char *const *mpaths;
  if (cli_getall(&cmd.a, "manifest", &mpaths) == 0) {
    rc = cli_usage_error("report: --manifest M is required");
    goto done;
  }
  if ((rc = cli_load_manifests(&cmd.a, cmd.mf, &cmd.nmf)))
    goto done;
  /* The run's metric, as compare and noise take it: a report of a run
   * gated on CPU time (command pairs, Google Benchmark programs) shows
   * the verdicts the gate gave, not wall time's. */
  if ((rc = cli_manifest_metric(&cmd.a, "report", cmd.nmf ? cmd.mf[0] : NULL,
                                &ao.metric)))
    goto done;
  if ((rc = cli_load_logs(&cmd.a, &cmd.log)))
    goto done;
  if ((rc = cli_require_rows(&cmd.a, cmd.log)))
    goto done;

  /* Every analysis the inputs allow, made once, then its report. */
  if ((rc = cli_cmd_analyse(&cmd, &ao)))
    goto done;
  bs_report_summary sum;
  if ((rc = cli_report_write("report", &cmd.prog, cmd.an, out, &o, &sum)))
    goto done;
  /* What the report holds: a log without a comparison (A/A or tuning
   * only) says so rather than "0 cases". */
  char what[160] = "", part[64];
  if (sum.has_compare)
    snprintf(what, sizeof what, "%zu case%s, %zu significant regression%s",
             sum.cases, sum.cases == 1 ? "" : "s", sum.regressions,
             sum.regressions == 1 ? "" : "s");
  else
    snprintf(what, sizeof what, "no comparison");
  if (sum.has_aa && cmd.an->aa) {
    snprintf(part, sizeof part, ", A/A validation of %zu case%s",
             cmd.an->aa->ncases, cmd.an->aa->ncases == 1 ? "" : "s");
    strncat(what, part, sizeof what - strlen(what) - 1);
  }
  if (sum.has_tuning && cmd.an->tune) {
    snprintf(part, sizeof part, ", %zu case%s tuned", cmd.an->tune->ncases,
             cmd.an->tune->ncases == 1 ? "" : "s");
    strncat(what, part, sizeof what - strlen(what) - 1);
  }
  cli_linef(stdout, BS_TEXT_LINE_START,
            "%s/index.html: %s, %zu chart%s, %zu page%s", out, what, sum.charts,
            sum.charts == 1 ? "" : "s", sum.pages, sum.pages == 1 ? "" : "s");
done:
  return cli_cmd_end(&cmd, rc);
}
