/* benchsite compare: paired verdicts and the regression gate. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_head[] =
    "usage: benchsite compare LOG... [--manifest M]... --baseline B "
    "--candidate C\n"
    "                         [--mode confirmatory|hotspot] [--threshold "
    "PCT]\n"
    "                         [--level PCT] [--seed N] [--noise NOISE.json]\n"
    "                         [--calibration CAL.json]\n"
    "                         [--metric wall|cpu|rss] [--family-wise]\n"
    "                         [--fail-inconclusive] [--link-base URL]\n"
    "                         [--quiet]\n"
    "                         [--json F] [--markdown F] [--html DIR]\n"
    "\n"
    "Pairs baseline and candidate rows by (run, block) in every case, and\n"
    "bootstraps the median paired difference d = candidate - baseline.\n"
    "\n"
    "  --baseline B, --candidate C  impl ids (default: the manifest's\n"
    "                     baseline and candidate keys)\n"
    "  --manifest M       environment manifest (key,value CSV); give it more\n"
    "                     than once to check runs are comparable\n"
    "  --mode MODE        confirmatory (default: the gate; delta 3 %, 10000\n"
    "                     resamples, 95 %, none of them settable) or hotspot\n"
    "                     (exploratory; 2000 resamples)\n"
    "  --threshold PCT    hotspot only: practical threshold delta (default 3)\n"
    "  --level PCT        hotspot only: confidence level in percent, 50 < c <\n"
    "                     100 (default 95)\n"
    "  --seed N           bootstrap seed (default 0)\n"
    "  --metric M         what is compared: wall (wall time per call, the\n"
    "                     default), cpu (CPU time per call, column\n"
    "                     cpu_per_call_us; the default for command pairs\n"
    "                     and Google Benchmark programs, whose manifest\n"
    "                     from run says gate_metric,cpu) or\n"
    "                     rss (peak resident memory, column max_rss_kib);\n"
    "                     every confirm row must have it. Lower is better\n"
    "                     for all three\n"
    "  --noise FILE       JSON from 'benchsite noise' on this setup, of the\n"
    "                     same metric: the noise-aware gate. A case whose\n"
    "                     paired noise floor F is above delta is judged\n"
    "                     significant only at max(delta, F) (its verdict\n"
    "                     keeps delta); cases within their floor are marked.\n"
    "                     Needs --manifest: a file measured on a setup not\n"
    "                     comparable with it, or recorded without a\n"
    "                     manifest, is refused\n"
    "  --calibration FILE JSON from 'benchsite calibrate' on this setup: the\n"
    "                     text and the comment's footer say what the gate\n"
    "                     sees on this runner (identical code flagged in\n"
    "                     <= X % of runs, +5 % found in Y %). Needs\n"
    "                     --manifest: a calibration from another machine or\n"
    "                     setup (comparability keys) is refused. A\n"
    "                     directory (an archive's calibrations/): the\n"
    "                     newest one there of this setup, if any\n"
    "";
/* The rest (one string literal may hold at most 4095 bytes). */
static const char usage_rest[] =
    "  --family-wise      confirmatory only: the exit status counts only\n"
    "                     regressions that survive Holm's correction at\n"
    "                     2.5 % over all the cases (always reported; only\n"
    "                     ever stricter)\n"
    "  --fail-inconclusive  confirmatory only: exit 4 when a case is\n"
    "                     inconclusive: not a significant regression, but\n"
    "                     its interval reaches delta (or its noise floor),\n"
    "                     so the run can neither show a regression of that\n"
    "                     size nor rule one out\n"
    "  --json F           write benchsite.compare/1 JSON to F\n"
    "  --markdown F       write a pull-request comment to F (the headline,\n"
    "                     the cases that matter, the others folded)\n"
    "  --link-base URL    where this log's HTML report is published: the\n"
    "                     comment links URL/index.html and each case's\n"
    "                     page, URL/case-NNNN.html (its place, from 0001)\n"
    "  --quiet            no progress on standard error\n"
    "  --html DIR         write the HTML report of this comparison (its mode\n"
    "                     and parameters, no tuning or A/A pages) into DIR,\n"
    "                     replaced atomically; an existing DIR must be empty\n"
    "                     or an earlier report. Needs gnuplot\n"
    "\n"
    "Without --json/--markdown a table is printed on stdout, with them the\n"
    "one-line headline (the first line of the table, the second of the\n"
    "comment). The outputs are all or nothing: if the HTML report fails,\n"
    "no --json or --markdown file is written either.\n"
    "Every output names the metric and counts the inconclusive cases.\n"
    "Exit status: confirmatory mode 0 no significant regression, 1 one\n"
    "(--family-wise: one that survives Holm), 4 inconclusive cases and no\n"
    "significant regression (--fail-inconclusive); hotspot mode always 0;\n"
    "2 bad input or usage (an option the mode cannot honour too), 3\n"
    "failure.\n";

static const cli_opt opts[] = {
    {"manifest", 1, 1},    {"baseline", 1, 0},  {"candidate", 1, 0},
    {"mode", 1, 0},        {"threshold", 1, 0}, {"level", 1, 0},
    {"seed", 1, 0},        {"noise", 1, 0},     {"calibration", 1, 0},
    {"json", 1, 0},        {"markdown", 1, 0},  {"html", 1, 0},
    {"family-wise", 0, 0}, {"metric", 1, 0},    {"fail-inconclusive", 0, 0},
    {"link-base", 1, 0},   {"quiet", 0, 0},
};

/* Each mode and its exit rules; the options a mode cannot honour are
 * refused when given, naming the option and the mode. The first row is
 * the default. */
typedef struct compare_mode {
  const char *name;
  bs_mode mode;
  int gates; /* exit 1 on a significant regression, 4 on an inconclusive
              * case under --fail-inconclusive; else always 0 */
  const char *refused[2];
  const char *why;
} compare_mode;

static const compare_mode modes[] = {
    {"confirmatory",
     BS_MODE_CONFIRMATORY,
     1,
     {"threshold", "level"},
     "the confirmatory gate fixes the threshold at 3 % and the level at "
     "95 %; --threshold and --level belong to hotspot mode"},
    {"hotspot",
     BS_MODE_HOTSPOT,
     0,
     {"fail-inconclusive", "family-wise"},
     "hotspot mode is exploratory and exits 0 whatever it finds; "
     "--fail-inconclusive and --family-wise set the exit status of the "
     "confirmatory gate"},
};

int cli_cmd_compare(int argc, char **argv) {
  static char usage[sizeof usage_head + sizeof usage_rest - 1];
  memcpy(usage, usage_head, sizeof usage_head - 1);
  memcpy(usage + sizeof usage_head - 1, usage_rest, sizeof usage_rest);
  bs_noise_floors *floors = NULL;
  bs_calibration_summary *cal = NULL;
  char note[256];
  bs_markdown_options md_options;
  memset(&md_options, 0, sizeof md_options);
  bs_error err;
  bs_error_clear(&err);
  cli_cmd cmd;
  int rc = cli_cmd_begin(&cmd, "compare", argc, argv, opts,
                         sizeof opts / sizeof opts[0], usage);
  if (rc || cmd.a.help)
    goto done;

  const char *mode = cli_get(&cmd.a, "mode");
  const compare_mode *m = NULL;
  for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
    if (!strcmp(mode ? mode : modes[0].name, modes[i].name))
      m = &modes[i];
  if (!m) {
    rc = cli_usage_error("compare: --mode \"%s\" is not confirmatory or "
                         "hotspot",
                         mode);
    goto done;
  }
  for (size_t i = 0; i < sizeof m->refused / sizeof m->refused[0]; i++) {
    const char *opt = m->refused[i];
    if (opt && cli_get(&cmd.a, opt)) {
      rc = cli_usage_error("compare: --%s cannot be used with --mode %s%s: "
                           "%s",
                           opt, m->name, mode ? "" : " (the default)", m->why);
      goto done;
    }
  }
  bs_compare_options o;
  bs_compare_options_init(&o, m->mode);
  const char *s;
  if ((s = cli_get(&cmd.a, "threshold")) &&
      (rc = cli_parse_double("threshold", s, &o.threshold_pct)))
    goto done;
  if ((s = cli_get(&cmd.a, "level")) &&
      (rc = cli_parse_double("level", s, &o.level_pct)))
    goto done;
  if ((rc = cli_get_u64(&cmd.a, "seed", &o.seed)))
    goto done;
  o.family_wise = cli_flag(&cmd.a, "family-wise");
  if ((md_options.link_base = cli_get(&cmd.a, "link-base")) &&
      bs_markdown_check_link_base(md_options.link_base, &err)) {
    rc = cli_report(&err);
    goto done;
  }
  if ((rc = cli_get_metric(&cmd.a, "compare", &o.metric)))
    goto done;
  if (bs_compare_options_check(&o, &err)) {
    rc = cli_report(&err);
    goto done;
  }

  if ((rc = cli_load_native_manifests(&cmd.a, cmd.mf, &cmd.nmf)))
    goto done;
  const bs_manifest *env = cmd.nmf ? cmd.mf[0] : NULL;
  /* gate_metric: cpu for command pairs and Google Benchmark programs,
   * whose wall time a process busy on one CPU of two turned around in
   * the verdict lab (bs_run_gate_metric). */
  if ((rc = cli_manifest_metric(&cmd.a, "compare", env, &o.metric)))
    goto done;
  const char *baseline = cli_get(&cmd.a, "baseline");
  const char *candidate = cli_get(&cmd.a, "candidate");
  if (!baseline)
    baseline = bs_manifest_get(env, "baseline");
  if (!candidate)
    candidate = bs_manifest_get(env, "candidate");
  if (!baseline || !candidate) {
    rc = cli_usage_error("compare: name the %s with --%s or the manifest's "
                         "\"%s\" key",
                         baseline ? "candidate" : "baseline",
                         baseline ? "candidate" : "baseline",
                         baseline ? "candidate" : "baseline");
    goto done;
  }
  if ((rc = cli_load_logs(&cmd.a, &cmd.log)))
    goto done;
  if ((rc = cli_require_rows(&cmd.a, cmd.log)))
    goto done;
  if ((s = cli_get(&cmd.a, "noise")) &&
      (rc = cli_read_noise_file(s, env, o.metric, &floors)))
    goto done;
  const char *cal_path = cli_get(&cmd.a, "calibration");
  if (cal_path && (rc = cli_read_calibration(cal_path, env, &cal)))
    goto done;
  if (cal) {
    bs_calibration_note(cal, note, sizeof note);
    md_options.footer_note = note;
  }

  /* One comparison (its mode, delta, level, seed and noise floors) for
   * every output. The --html report's case pages chart the bootstrap
   * distributions, so they are kept when it is asked for. The report is
   * written after the files' temporary copies and before their renames,
   * so a failed report (no gnuplot, a DIR that is not a report) leaves no
   * file behind either. */
  o.keep_bootstrap = cmd.html.dir != NULL;
  bs_analysis_options ao;
  bs_analysis_options_init(&ao);
  ao.sections = BS_ANALYSE_COMPARE;
  ao.baseline = baseline;
  ao.candidate = candidate;
  ao.compare = &o;
  ao.seed = o.seed;
  ao.metric = o.metric;
  if (floors) {
    ao.noise_lookup = bs_noise_floors_lookup;
    ao.noise_ctx = floors;
  }
  if ((rc = cli_cmd_analyse(&cmd, &ao)))
    goto done;
  const bs_compare_result *res = cmd.an->compare;
  /* The text report lists them itself; with only files and the summary
   * line on stdout, stderr says so. */
  if (s && (cli_get(&cmd.a, "json") || cli_get(&cmd.a, "markdown")))
    cli_warn_missing_floors(s, res);
  if ((rc = cli_cmd_render(&cmd, &md_options)))
    goto done;
  if (m->gates && bs_compare_gate_failures(res) > 0)
    rc = CLI_REGRESSION;
  else if (m->gates && cli_flag(&cmd.a, "fail-inconclusive") &&
           res->inconclusive > 0)
    rc = CLI_INCONCLUSIVE;
  else
    rc = CLI_OK;
done:
  rc = cli_cmd_end(&cmd, rc);
  bs_noise_floors_free(floors);
  bs_calibration_summary_free(cal);
  return rc;
}
