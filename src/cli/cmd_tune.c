/* benchsite tune: fastest implementation per case and crossovers. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>

static const char usage[] =
    "usage: benchsite tune LOG... [--seed N] [--metric wall|cpu|rss]\n"
    "                      [--json F] [--markdown F] [--html DIR]\n"
    "                      [--manifest M]... [--quiet]\n"
    "\n"
    "Scores every impl of every case by the median of its confirm samples;\n"
    "the smallest wins (exact ties: impl id in byte order). For each pair\n"
    "of impls of a benchmark, finds the scales where the faster one changes\n"
    "(log-log interpolation between adjacent scales).\n"
    "A win is decisive when the paired interval of med(best - runner-up)\n"
    "lies below zero (2000 resamples, 95 %), a crossover when the paired\n"
    "interval excludes zero at both of its scales; the others are ties.\n"
    "\n"
    "  --seed N       bootstrap seed (default 0)\n"
    "  --metric M     what is scored: wall (wall time per call, the\n"
    "                 default), cpu (CPU time per call) or rss (peak\n"
    "                 resident memory); every confirm row must have it\n"
    "  --json F       write benchsite.tune/1 JSON to F\n"
    "  --markdown F   write a Markdown summary to F\n"
    "  --html DIR     write the HTML report of the tuning (tuning.html with\n"
    "                 its crossover charts; no comparison or A/A pages)\n"
    "                 into DIR, replaced atomically; an existing DIR must\n"
    "                 be empty or an earlier report. Needs gnuplot\n"
    "  --manifest M   with --html: the environment manifest the report\n"
    "                 shows (key,value CSV); may be repeated\n"
    "  --quiet        no progress on standard error (with --html: charts\n"
    "                 and pages)\n"
    "\n"
    "Without --json/--markdown a table is printed on stdout, with them a\n"
    "one-line summary. The outputs\n"
    "are all or nothing: if the HTML report fails, no --json or --markdown\n"
    "file is written either.\n"
    "Exit status: 0 success, 2 bad input or usage, 3 failure.\n";

static const cli_opt opts[] = {
    {"json", 1, 0}, {"markdown", 1, 0}, {"html", 1, 0},  {"manifest", 1, 1},
    {"seed", 1, 0}, {"metric", 1, 0},   {"quiet", 0, 0},
};

int cli_cmd_tune(int argc, char **argv) {
  cli_cmd cmd;
  int rc = cli_cmd_begin(&cmd, "tune", argc, argv, opts,
                         sizeof opts / sizeof opts[0], usage);
  if (rc || cmd.a.help)
    goto done;
  /* The manifests only describe the environment in the HTML report. */
  if (cmd.html.dir && (rc = cli_load_manifests(&cmd.a, cmd.mf, &cmd.nmf)))
    goto done;
  if ((rc = cli_load_logs(&cmd.a, &cmd.log)))
    goto done;
  if ((rc = cli_require_rows(&cmd.a, cmd.log)))
    goto done;
  /* One tuning for every output; the --html report is written before
   * the files are renamed into place, so a failed report leaves none of
   * them. */
  bs_analysis_options ao;
  bs_analysis_options_init(&ao);
  ao.sections = BS_ANALYSE_TUNE;
  if ((rc = cli_get_u64(&cmd.a, "seed", &ao.seed)))
    goto done;
  if ((rc = cli_get_metric(&cmd.a, "tune", &ao.metric)))
    goto done;
  if ((rc = cli_cmd_analyse(&cmd, &ao)))
    goto done;
  rc = cli_cmd_render(&cmd, NULL);
done:
  return cli_cmd_end(&cmd, rc);
}
