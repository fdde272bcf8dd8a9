/* benchsite noise: A/A validation — the noise floor of a setup. Also the
 * reader behind `compare --noise`. */
#include "cli.h"

#include "benchsite/noise.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
    "usage: benchsite noise LOG... [--manifest M] --a A --b B\n"
    "                       [--resamples R] [--level PCT] [--seed N]\n"
    "                       [--block-length L|auto] [--metric wall|cpu|rss]\n"
    "                       [--json F] [--markdown F] [--html DIR]\n"
    "                       [--quiet]\n"
    "\n"
    "A/A validation: A and B are the same code under two impl ids, so every\n"
    "difference found between them is noise the setup invents on its own.\n"
    "Each `run` of a case is one experiment; at least 2 runs are needed.\n"
    "Reports the noise floor (90th percentile of the per-run |paired delta|),\n"
    "what the regression gate says about identical code, tie-split\n"
    "bootstrap confidences, drift and autocorrelation.\n"
    "\n"
    "  --a A, --b B       the two impl ids (default: the manifest's aa_a and\n"
    "                     aa_b keys)\n"
    "  --manifest M       environment manifest (key,value CSV)\n"
    "  --resamples R      bootstrap resamples per confidence (default 10000)\n"
    "  --level PCT        confidence level for false signals in percent,\n"
    "                     50 < c < 100 (default 95)\n"
    "  --seed N           bootstrap seed (default 0); run k uses N+2k and\n"
    "                     N+2k+1\n"
    "  --block-length L   moving block bootstrap of each series with blocks\n"
    "                     of L samples, or 'auto' (round(cbrt(n))); for\n"
    "                     autocorrelated series (above ~0.2)\n"
    "  --metric M         what is validated: wall (wall time per call, the\n"
    "                     default), cpu (CPU time per call; the default for\n"
    "                     command pairs and Google Benchmark programs, as\n"
    "                     compare's) or rss (peak resident\n"
    "                     memory); every confirm row must have it.\n"
    "                     'compare --noise' holds the file to its metric\n"
    "  --json F           write benchsite.noise/1 JSON to F (the input of\n"
    "                     'compare --noise')\n"
    "  --markdown F       write a Markdown summary to F\n"
    "  --html DIR         write the HTML report of this validation (aa.html\n"
    "                     with its charts, at these resamples, level, seed\n"
    "                     and block length) into DIR, replaced atomically;\n"
    "                     an existing DIR must be empty or an earlier\n"
    "                     report. Needs gnuplot\n"
    "  --quiet            no progress on standard error (cases validated:\n"
    "                     a line updated in place on a terminal, else a\n"
    "                     line every 10 s)\n"
    "\n"
    "Without --json/--markdown a report is printed on stdout, with them a\n"
    "one-line summary. The outputs\n"
    "are all or nothing: if the HTML report fails, no --json or --markdown\n"
    "file is written either.\n"
    "Exit status: 0 success, 2 bad input or usage, 3 failure.\n";

static const cli_opt opts[] = {
    {"manifest", 1, 1},     {"a", 1, 0},      {"b", 1, 0},
    {"resamples", 1, 0},    {"level", 1, 0},  {"seed", 1, 0},
    {"block-length", 1, 0}, {"json", 1, 0},   {"markdown", 1, 0},
    {"html", 1, 0},         {"metric", 1, 0}, {"quiet", 0, 0},
};

/* Parses the options that shape the statistics. */
static int parse_options(const cli_args *a, bs_noise_options *o) {
  const char *s;
  int rc;
  bs_noise_options_init(o);
  if ((s = cli_get(a, "resamples"))) {
    unsigned long long v;
    if ((rc = cli_parse_u64("resamples", s, &v)))
      return rc;
    if (v < 1)
      return cli_usage_error("noise: --resamples must be at least 1");
    o->resamples = (uint64_t)v;
  }
  if ((s = cli_get(a, "level"))) {
    /* A percentage, as everywhere; the JSON keeps the fraction. */
    double pct;
    bs_error lerr;
    bs_error_clear(&lerr);
    if ((rc = cli_parse_double("level", s, &pct)))
      return rc;
    if (bs_bootstrap_check_level(pct, &lerr))
      return cli_usage_error("noise: --level %s: %s", s, lerr.message);
    o->level = pct / 100.0;
  }
  if ((rc = cli_get_u64(a, "seed", &o->seed)))
    return rc;
  if ((rc = cli_get_metric(a, "noise", &o->metric)))
    return rc;
  if ((s = cli_get(a, "block-length"))) {
    if (!strcmp(s, "auto")) {
      o->block_mode = BS_BLOCK_AUTO;
    } else {
      unsigned long long v;
      if (!*s || strspn(s, "0123456789") != strlen(s))
        return cli_usage_error("noise: --block-length \"%s\" is not a "
                               "positive integer or auto",
                               s);
      if ((rc = cli_parse_u64("block-length", s, &v)))
        return rc;
      if (v < 1 || v > SIZE_MAX)
        return cli_usage_error("noise: --block-length must be at least 1 "
                               "(or auto)");
      o->block_mode = BS_BLOCK_FIXED;
      o->block_length = (size_t)v;
    }
  }
  bs_error err;
  bs_error_clear(&err);
  if (bs_noise_options_check(o, &err))
    return cli_report(&err);
  return 0;
}

int cli_cmd_noise(int argc, char **argv) {
  cli_cmd cmd;
  int rc = cli_cmd_begin(&cmd, "noise", argc, argv, opts,
                         sizeof opts / sizeof opts[0], usage);
  if (rc || cmd.a.help)
    goto done;
  bs_noise_options o;
  if ((rc = parse_options(&cmd.a, &o)))
    goto done;
  if ((rc = cli_load_native_manifests(&cmd.a, cmd.mf, &cmd.nmf)))
    goto done;
  const bs_manifest *env = cmd.nmf ? cmd.mf[0] : NULL;
  /* The metric compare gates on, so that its --noise file matches. */
  if ((rc = cli_manifest_metric(&cmd.a, "noise", env, &o.metric)))
    goto done;
  const char *ida = cli_get(&cmd.a, "a");
  const char *idb = cli_get(&cmd.a, "b");
  if (!ida)
    ida = bs_manifest_get(env, "aa_a");
  if (!idb)
    idb = bs_manifest_get(env, "aa_b");
  if (!ida || !idb) {
    rc = cli_usage_error("noise: name %s with --%s or the manifest's "
                         "\"%s\" key",
                         ida ? "B" : "A", ida ? "b" : "a",
                         ida ? "aa_b" : "aa_a");
    goto done;
  }
  if ((rc = cli_load_logs(&cmd.a, &cmd.log)))
    goto done;
  if ((rc = cli_require_rows(&cmd.a, cmd.log)))
    goto done;
  /* One validation (pair, resamples, level, seed and block bootstrap)
   * for every output; the --html report is written before the files are
   * renamed into place, so a failed report leaves none of them. */
  bs_analysis_options ao;
  bs_analysis_options_init(&ao);
  ao.sections = BS_ANALYSE_AA;
  ao.aa_a = ida;
  ao.aa_b = idb;
  ao.noise = &o;
  ao.seed = o.seed;
  ao.metric = o.metric;
  if ((rc = cli_cmd_analyse(&cmd, &ao)))
    goto done;
  rc = cli_cmd_render(&cmd, NULL);
done:
  return cli_cmd_end(&cmd, rc);
}

/* Noise files are small; anything larger is not one. */
#define NOISE_FILE_LIMIT ((size_t)64 << 20)

int cli_read_noise_file(const char *path, const bs_manifest *env,
                        bs_metric metric, bs_noise_floors **floors) {
  bs_error err;
  bs_error_clear(&err);
  char *text = NULL;
  size_t len = 0;
  *floors = NULL;
  if (bs_read_file(path, NOISE_FILE_LIMIT, &text, &len, &err))
    return cli_report_input(&err);
  bs_status st = bs_noise_floors_parse(path, text, len, floors, &err);
  free(text);
  if (!st)
    st = bs_noise_floors_check_metric(*floors, path, metric, &err);
  if (!st)
    st = bs_noise_floors_check_environment(*floors, path, env, &err);
  if (st) {
    bs_noise_floors_free(*floors);
    *floors = NULL;
    return cli_report_input(&err);
  }
  return 0;
}

int cli_parse_calibration(const char *path, bs_calibration_summary **out) {
  bs_error err;
  bs_error_clear(&err);
  char *text = NULL;
  size_t len = 0;
  *out = NULL;
  if (bs_read_file(path, NOISE_FILE_LIMIT, &text, &len, &err))
    return cli_report_input(&err);
  bs_status st = bs_calibration_summary_parse(path, text, len, out, &err);
  free(text);
  return st ? cli_report_input(&err) : 0;
}

/* The newest calibration of the directory `dir` measured on env's
 * setup, or none (a warning says why). */
static int pick_calibration(const char *dir, const bs_manifest *env,
                            bs_calibration_summary **out) {
  bs_error err;
  bs_error_clear(&err);
  bs_calibration_pick p;
  if (bs_calibration_pick_dir(dir, env, "this run", &p, &err)) {
    bs_calibration_pick_release(&p);
    return cli_report_input(&err);
  }
  if (p.chosen) {
    *out = p.chosen;
    p.chosen = NULL;
  } else if (!p.read) {
    cli_errorf("warning: %s: no calibration there (*.json); the runner's "
               "figures are left out",
               dir);
  } else {
    cli_errorf("warning: %s: none of its %zu calibration%s was measured on "
               "this run's setup (the newest, %s: %s); the runner's figures "
               "are left out",
               dir, p.read, p.read == 1 ? "" : "s", p.newest_name, p.why);
  }
  bs_calibration_pick_release(&p);
  return 0;
}

int cli_read_calibration(const char *path, const bs_manifest *env,
                         bs_calibration_summary **out) {
  bs_error err;
  bs_error_clear(&err);
  *out = NULL;
  struct stat sb;
  if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
    return pick_calibration(path, env, out);
  int rc = cli_parse_calibration(path, out);
  if (rc)
    return rc;
  if (bs_calibration_summary_check_environment(*out, path, env, &err)) {
    bs_calibration_summary_free(*out);
    *out = NULL;
    return cli_report_input(&err);
  }
  return 0;
}

void cli_warn_missing_floors(const char *path, const bs_compare_result *r) {
  if (r->without_floor)
    cli_errorf("warning: %s: no noise floor for %zu of %zu case%s; they "
               "keep the plain threshold",
               path, r->without_floor, r->ncases, r->ncases == 1 ? "" : "s");
}
