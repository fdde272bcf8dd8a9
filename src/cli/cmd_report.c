/* benchsite report: the static HTML report of one run. */
#include "cli.h"

#include "benchsite/report.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
    "usage: benchsite report LOG... --manifest M [--manifest M2]... --out DIR\n"
    "                        [--templates DIR] [--baseline B --candidate C]\n"
    "                        [--seed N] [--gnuplot PROGRAM]\n"
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
    "  --gnuplot PROGRAM  gnuplot to run (default: gnuplot from PATH)\n"
    "\n"
    "The report is built beside DIR and renamed into place, so a failure or\n"
    "an interruption leaves an earlier report intact. The exit status does\n"
    "not gate: use 'benchsite compare' for that.\n"
    "Exit status: 0 report written, 2 bad input or usage, 3 failure.\n";

static const cli_opt opts[] = {
    {"manifest", 1, 1}, {"out", 1, 0},       {"templates", 1, 0},
    {"baseline", 1, 0}, {"candidate", 1, 0}, {"seed", 1, 0},
    {"gnuplot", 1, 0},
};

static volatile sig_atomic_t got_signal;

static void on_signal(int sig) { got_signal = sig; }

typedef struct progress {
  int tty;
  int shown;
  double last_ms;
  char last[96];
} progress;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int on_progress(void *ctx, const char *stage, size_t done,
                       size_t total) {
  progress *p = ctx;
  if (got_signal)
    return 1;
  if (!p->tty)
    return 0;
  char line[96];
  if (!strcmp(stage, "charts"))
    snprintf(line, sizeof line, "benchsite: rendering charts %zu/%zu", done,
             total);
  else if (!strcmp(stage, "pages"))
    snprintf(line, sizeof line, "benchsite: writing pages");
  else
    snprintf(line, sizeof line, "benchsite: %s", stage);
  /* At most ten updates a second, and always the last one of a stage. */
  double t = now_ms();
  if (strcmp(line, p->last) && (done == total || t - p->last_ms >= 100)) {
    p->last_ms = t;
    fprintf(stderr, "\r%s\033[K", line);
    fflush(stderr);
    memcpy(p->last, line, sizeof line);
    p->shown = 1;
  }
  return 0;
}

static int is_dir_with(const char *dir, const char *file) {
  char path[4096];
  struct stat st;
  int n = snprintf(path, sizeof path, "%s/%s", dir, file);
  if (n < 0 || (size_t)n >= sizeof path)
    return 0;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The source tree's copy first (it matches this build), then the
 * installed one. */
static const char *find_data_dir(const char *sub, const char *probe, char *buf,
                                 size_t n) {
  int k;
#ifdef BENCHSITE_SOURCE_DIR
  k = snprintf(buf, n, "%s/%s", BENCHSITE_SOURCE_DIR, sub);
  if (k > 0 && (size_t)k < n && is_dir_with(buf, probe))
    return buf;
#endif
#ifdef BENCHSITE_DATADIR
  k = snprintf(buf, n, "%s/%s", BENCHSITE_DATADIR, sub);
  if (k > 0 && (size_t)k < n && is_dir_with(buf, probe))
    return buf;
#endif
  (void)k;
  return NULL;
}

int cli_cmd_report(int argc, char **argv) {
  cli_args a;
  bs_log *log = NULL;
  bs_manifest *mf[CLI_MAX_VALUES];
  size_t nmf = 0;
  bs_error err;
  bs_error_clear(&err);
  char tbuf[4096], abuf[4096];
  struct sigaction sa, old_int, old_term, old_hup;
  int handlers = 0;
  progress prog;
  memset(&prog, 0, sizeof prog);
  int rc = cli_parse(argc, argv, opts, sizeof opts / sizeof opts[0], &a);
  if (rc)
    goto done;
  if (a.help) {
    fputs(usage, stdout);
    goto done;
  }
  bs_report_options o;
  bs_report_options_init(&o);
  const char *out = cli_get(&a, "out");
  if (!out || !out[0]) {
    rc = cli_usage_error("report: --out DIR is required");
    goto done;
  }
  const char *s;
  if ((s = cli_get(&a, "seed"))) {
    unsigned long long seed;
    if ((rc = cli_parse_u64("seed", s, &seed)))
      goto done;
    o.seed = (uint64_t)seed;
  }
  o.baseline = cli_get(&a, "baseline");
  o.candidate = cli_get(&a, "candidate");
  o.gnuplot = cli_get(&a, "gnuplot");
  o.templates_dir = cli_get(&a, "templates");
  if (o.templates_dir && !is_dir_with(o.templates_dir, "index.html")) {
    rc = cli_usage_error("report: --templates %s: no index.html there",
                         o.templates_dir);
    goto done;
  }
  if (!o.templates_dir &&
      !(o.templates_dir =
            find_data_dir("templates", "index.html", tbuf, sizeof tbuf))) {
    fputs("benchsite: report: cannot find the page templates; give "
          "--templates DIR\n",
          stderr);
    rc = CLI_FAILURE;
    goto done;
  }
  if (!(o.assets_dir = find_data_dir("site", "style.css", abuf, sizeof abuf))) {
    fputs("benchsite: report: cannot find the site assets (style.css)\n",
          stderr);
    rc = CLI_FAILURE;
    goto done;
  }
  const char *const *mpaths;
  if (cli_getall(&a, "manifest", &mpaths) == 0) {
    rc = cli_usage_error("report: --manifest M is required");
    goto done;
  }
  if ((rc = cli_load_manifests(&a, mf, &nmf)))
    goto done;
  if ((rc = cli_load_logs(&a, &log)))
    goto done;

  /* An interrupt cancels the report through the progress hook, so the
   * temporary directory is removed and the old report stays. */
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  sigaction(SIGHUP, &sa, &old_hup);
  handlers = 1;
  prog.tty = isatty(2);
  o.progress = on_progress;
  o.progress_ctx = &prog;
  bs_report_summary sum;
  bs_status st = bs_report_write(log, (const bs_manifest *const *)mf, nmf, out,
                                 &o, &sum, &err);
  if (prog.shown) {
    fputs("\r\033[K", stderr);
    fflush(stderr);
  }
  if (got_signal) {
    fputs("benchsite: report: interrupted; the previous report is "
          "unchanged\n",
          stderr);
    rc = CLI_FAILURE;
    goto done;
  }
  if (st) {
    rc = cli_report(&err);
    goto done;
  }
  printf("%s/index.html: %zu case%s, %zu significant regression%s, %zu "
         "chart%s, %zu page%s\n",
         out, sum.cases, sum.cases == 1 ? "" : "s", sum.regressions,
         sum.regressions == 1 ? "" : "s", sum.charts,
         sum.charts == 1 ? "" : "s", sum.pages, sum.pages == 1 ? "" : "s");
done:
  if (handlers) {
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
  }
  bs_log_free(log);
  cli_free_manifests(mf, nmf);
  cli_args_free(&a);
  if (fflush(stdout) != 0 && rc == CLI_OK)
    rc = CLI_FAILURE;
  if (got_signal) {
    int sig = (int)got_signal;
    signal(sig, SIG_DFL);
    raise(sig);
  }
  return rc;
}
