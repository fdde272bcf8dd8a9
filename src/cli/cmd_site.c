/* benchsite site: the static site of a whole run archive. */
#include "cli.h"
#include "progress.h"

#include "benchsite/site.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
    "usage: benchsite site --archive DIR --out DIR [--templates DIR]\n"
    "                      [--seed N] [--metric wall|cpu|rss]\n"
    "                      [--gnuplot PROGRAM] [--full]\n"
    "                      [--detail-runs K] [--jobs N] [--static DIR]\n"
    "                      [--calibration F] [--quiet]\n"
    "\n"
    "Builds a static site of every run in the archive: each run's report,\n"
    "an index of runs (newest first) with their verdicts, and per case a\n"
    "history page with the median and its 95 % bootstrap interval per run,\n"
    "separate series for runs that are not comparable, acknowledgements\n"
    "from the archive's acks.csv and a Spearman drift test over the last\n"
    "30 comparable runs. No JavaScript; open DIR/index.html from file://.\n"
    "\n"
    "  --archive DIR      the run archive ('benchsite archive add')\n"
    "  --out DIR          output directory, replaced atomically; an existing\n"
    "                     DIR must be empty or an earlier site\n"
    "  --templates DIR    page templates (default: the installed ones)\n"
    "  --seed N           bootstrap seed (default 0)\n"
    "  --metric M         what every run is analysed with, in every\n"
    "                     environment: wall (wall time per call, default),\n"
    "                     cpu (CPU time per call) or rss (peak memory); a\n"
    "                     run that did not record it is drawn without it\n"
    "                     and its pages say so\n"
    "  --gnuplot PROGRAM  gnuplot to run (default: gnuplot from PATH)\n"
    "  --full             rebuild everything, ignoring the previous build\n"
    "  --detail-runs K    full reports (every chart, per-case pages) for the\n"
    "                     newest K runs (default 30) and for every run with a\n"
    "                     significant regression, an acknowledgement, or that\n"
    "                     is the newest of its environment; the other runs\n"
    "                     get a compact page ('benchsite report' remakes the\n"
    "                     rest from the archive, given the same --metric)\n"
    "  --jobs N           CPUs to use: runs analysed, then gnuplot processes\n"
    "                     rendering charts, N at once (default: the CPUs)\n"
    "  --static DIR       files copied into the site on every build, e.g.\n"
    "                     CNAME and .nojekyll for GitHub Pages\n"
    "  --calibration F    JSON from 'benchsite calibrate': the index and the\n"
    "                     regressions page say what the gate sees on this\n"
    "                     runner; one measured on a setup other than the\n"
    "                     newest run's is named there as not applying.\n"
    "                     Default: the newest of the archive's\n"
    "                     calibrations/*.json of the newest run's setup\n"
    "  --quiet            no progress on standard error (runs analysed,\n"
    "                     reports, pages, charts: a line updated in place on\n"
    "                     a terminal, else a line every 10 s)\n"
    "\n"
    "The build is incremental: each run's analysis is kept in the site and\n"
    "reused while the run and this build of benchsite are unchanged, and\n"
    "only the reports, charts and pages whose bytes change are written.\n"
    "They are prepared beside DIR and moved in one file at a time, each\n"
    "page after everything it links, so no page ever links a missing file;\n"
    "an interruption leaves the previous site, or the new one, or a mix of\n"
    "the two that the next build completes. The result is the same as a\n"
    "clean build.\n"
    "Exit status: 0 site written, 2 bad input or usage, 3 failure.\n";

static const cli_opt opts[] = {
    {"archive", 1, 0},     {"out", 1, 0},     {"templates", 1, 0},
    {"seed", 1, 0},        {"gnuplot", 1, 0}, {"full", 0, 0},
    {"detail-runs", 1, 0}, {"jobs", 1, 0},    {"static", 1, 0},
    {"metric", 1, 0},      {"quiet", 0, 0},   {"calibration", 1, 0},
};

/* The build's stages, each counted once: the library reports the runs
 * twice under "runs", analysed and then their reports written, each time
 * counting up from 0 (a count that does not grow starts the second). */
typedef struct site_prog {
  cli_progress p;
  int reports;     /* the second pass over the runs has begun */
  int seen;        /* a "runs" step was seen */
  size_t last_run; /* its count */
} site_prog;

static int on_progress(void *ctx, const char *stage, size_t done,
                       size_t total) {
  site_prog *sp = ctx;
  if (cli_interrupted())
    return 1;
  if (!strcmp(stage, "runs")) {
    if (sp->seen && done <= sp->last_run)
      sp->reports = 1;
    sp->seen = 1;
    sp->last_run = done;
    cli_progress_count(&sp->p, "site",
                       sp->reports ? "writing run reports" : "analysing runs",
                       done, total);
  } else if (!strcmp(stage, "reports")) {
    cli_progress_count(&sp->p, "site", "writing run reports", done, total);
  } else if (!strcmp(stage, "charts")) {
    cli_progress_count(&sp->p, "site", "rendering charts", done, total);
  } else if (total > 1) {
    cli_progress_count(&sp->p, "site", "writing pages", done, total);
  } else {
    cli_progress_show(&sp->p, 1, "benchsite site: %s",
                      done ? "publishing" : "writing pages");
  }
  return 0;
}

int cli_cmd_site(int argc, char **argv) {
  cli_args a;
  bs_error err;
  bs_error_clear(&err);
  char tbuf[CLI_PATH_MAX], abuf[CLI_PATH_MAX];
  site_prog prog;
  memset(&prog, 0, sizeof prog);
  cli_signals old;
  int handlers = 0;
  bs_calibration_summary *cal = NULL;
  int rc = cli_start(argc, argv, opts, sizeof opts / sizeof opts[0], usage, &a);
  if (rc || a.help)
    goto done;
  /* On a terminal one line in place; in a CI log a line every 10 s. */
  cli_progress_init(&prog.p, cli_flag(&a, "quiet"), 10.0);
  if (a.npos) {
    rc = cli_usage_error("site: unexpected argument \"%s\"", a.positional[0]);
    goto done;
  }
  const char *archive = cli_get(&a, "archive");
  const char *out = cli_get(&a, "out");
  if (!archive || !out || !out[0]) {
    rc = cli_usage_error("site: --archive DIR and --out DIR are required");
    goto done;
  }
  bs_site_options o;
  bs_site_options_init(&o);
  if ((rc = cli_get_u64(&a, "seed", &o.seed)) ||
      (rc = cli_get_metric(&a, "site", &o.metric)))
    goto done;
  uint64_t k = o.detail_runs, jobs = 0;
  if ((rc = cli_get_u64(&a, "detail-runs", &k)) ||
      (rc = cli_get_u64(&a, "jobs", &jobs)))
    goto done;
  if (k > 1000000 || jobs > 1024 || (cli_get(&a, "jobs") && jobs == 0)) {
    rc = cli_usage_error("site: --detail-runs wants 0..1000000 and --jobs "
                         "1..1024");
    goto done;
  }
  o.detail_runs = (size_t)k;
  o.jobs = (size_t)jobs;
  o.static_dir = cli_get(&a, "static");
  struct stat sb;
  if (o.static_dir && (stat(o.static_dir, &sb) != 0 || !S_ISDIR(sb.st_mode))) {
    rc = cli_usage_error("site: --static %s: not a directory", o.static_dir);
    goto done;
  }
  if ((o.calibration_name = cli_get(&a, "calibration")) &&
      (rc = cli_parse_calibration(o.calibration_name, &cal)))
    goto done;
  o.calibration = cal;
  o.gnuplot = cli_get(&a, "gnuplot");
  o.full = cli_flag(&a, "full");
  o.templates_dir = cli_get(&a, "templates");
  if (o.templates_dir && !cli_is_dir_with(o.templates_dir, "site_index.html")) {
    rc = cli_usage_error("site: --templates %s: no site_index.html there",
                         o.templates_dir);
    goto done;
  }
  if (!o.templates_dir &&
      !(o.templates_dir = cli_find_data_dir("templates", "site_index.html",
                                            tbuf, sizeof tbuf))) {
    fputs("benchsite: site: cannot find the page templates; give "
          "--templates DIR\n",
          stderr);
    rc = CLI_FAILURE;
    goto done;
  }
  if (!(o.assets_dir =
            cli_find_data_dir("site", "style.css", abuf, sizeof abuf))) {
    fputs("benchsite: site: cannot find the site assets (style.css)\n", stderr);
    rc = CLI_FAILURE;
    goto done;
  }

  /* An interrupt cancels the build through the progress hook, so the
   * temporary directory is removed and the previous site stays. */
  cli_signals_catch(&old);
  handlers = 1;
  o.progress = on_progress;
  o.progress_ctx = &prog;
  bs_site_summary sum;
  bs_status st = bs_site_build(archive, out, &o, &sum, &err);
  cli_progress_end(&prog.p);
  if (cli_interrupted()) {
    fputs("benchsite: site: interrupted; the previous site is unchanged\n",
          stderr);
    rc = CLI_FAILURE;
    goto done;
  }
  if (st) {
    rc = cli_report_input(&err);
    if (st == BS_EIO || st == BS_EPLOT || st == BS_ENOMEM || st == BS_EINTERNAL)
      rc = CLI_FAILURE;
    goto done;
  }
  /* Two lines: what the site says, then what the build did. */
  cli_linef(stdout, BS_TEXT_LINE_START,
            "%s/index.html: %zu run%s, %zu case%s, %zu comparability "
            "group%s; %zu open regression%s in the newest run, %zu drifting "
            "case%s, %zu creeping",
            out, sum.runs, sum.runs == 1 ? "" : "s", sum.cases,
            sum.cases == 1 ? "" : "s", sum.groups, sum.groups == 1 ? "" : "s",
            sum.open_regressions, sum.open_regressions == 1 ? "" : "s",
            sum.drifting, sum.drifting == 1 ? "" : "s", sum.creeping);
  cli_linef(stdout, 0, /* numbers and our words only */
            "  analyses %zu built, %zu reused; reports %zu built, %zu reused "
            "(%zu compact runs); history charts %zu rendered, %zu reused; "
            "pages %zu written, %zu unchanged",
            sum.analyses_built, sum.analyses_reused, sum.reports_built,
            sum.reports_reused, sum.compact, sum.charts_rendered,
            sum.charts_reused, sum.pages_written, sum.pages_reused);
done:
  if (handlers)
    cli_signals_restore(&old);
  bs_calibration_summary_free(cal);
  rc = cli_finish(&a, rc);
  return rc;
}
