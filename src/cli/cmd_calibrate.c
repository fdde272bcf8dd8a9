/* benchsite calibrate: what the gate can see on this runner -- A/A runs
 * and planted slowdowns of the user's own benchmark, judged by the gate. */
#include "measure.h"
#include "progress.h"

#include "benchsite/calibrate.h"
#include "benchsite/compare.h"
#include "benchsite/output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage_head[] =
    "usage: benchsite calibrate (--lib BASE=PATH.so | --cmd BASE=COMMAND\n"
    "                            | --HARNESS BASE=COMMAND)\n"
    "                           [--plants 3,5,10] [--reps N] [--budget "
    "SECONDS]\n"
    "                           [--protocol P] [--blocks M] [--runs N]\n"
    "                           [--seed N] [--filter TEXT] [--timeout S]\n"
    "                           [--fresh run|block] [--layout random|fixed]\n"
    "                           [--duet | --sequential] [--dir DIR]\n"
    "                           [--benchmark NAME] [--dataset D]\n"
    "                           [--show-output] [manifest options]\n"
    "                           [--json F] [--html DIR] [--quiet]\n"
    "\n"
    "Measures what the regression gate can see on this machine: the build\n"
    "BASE against itself (A/A: every flag is a false alarm) and against\n"
    "planted slowdowns of p % (--plants, default 3,5,10), N times (--reps,\n"
    "default 40), each run measured as benchsite run measures (the same\n"
    "protocol, blocks and runs options; default the Shared protocol) and\n"
    "judged by the gate unchanged (compare's confirmatory mode, delta 3 %).\n"
    "Per case and for the suite it prints how often identical code was\n"
    "flagged and how often each plant was found, each with an exact\n"
    "one-sided 95 % bound (Clopper-Pearson), and the time it took.\n"
    "  --lib BASE=PATH.so   library mode: a plant is real work -- the\n"
    "                       planted copy's batch of n calls makes\n"
    "                       ceil(n p / 100) more calls, timed with the n.\n"
    "                       Where run would measure two impls side by side\n"
    "                       (duet: --duet, or two CPUs and no --sequential)\n"
    "                       each rep is 1 + plants duet runs: the library\n"
    "                       beside a copy of itself, and beside each planted\n"
    "                       copy; with --sequential one run measures it\n"
    "                       twice and once per plant, interleaved in the\n"
    "                       same blocks (2 + plants impls). Either way a\n"
    "                       rep gives an A/A judgement and one per plant,\n"
    "                       and the manifest records duet as run's would\n"
    "  --cmd BASE=COMMAND, --google-benchmark, --pytest-benchmark,\n"
    "  --go-bench BASE=COMMAND\n"
    "                       command and harness modes: every run measures\n"
    "                       the command twice (an A/A pair, side by side\n"
    "                       where run would); a plant multiplies the second\n"
    "                       copy's observations of that run by 1 + p/100\n"
    "                       (scaled observations, not measured work; every\n"
    "                       output says so)\n";
static const char usage_body[] =
    "  --plants LIST        plant sizes in %, ascending, each in (0, 100],\n"
    "                       at most 8\n"
    "  --reps N             reps (A/A judgements, and judgements per plant);\n"
    "                       default 40\n"
    "  --budget SECONDS     start no new rep after this long (at least two\n"
    "                       reps are measured); the outputs say so\n"
    "  --dir DIR            where the command runs (command and harness\n"
    "                       modes)\n"
    "  manifest options     --profile, --dtype, --target, --commit, --set\n"
    "                       KEY=VALUE ... as benchsite manifest takes them:\n"
    "                       the calibration records this machine's manifest,\n"
    "                       and compare --calibration refuses it for a run\n"
    "                       whose manifest differs on a comparability key\n"
    "  --json F             the calibration as JSON (benchsite.calibration/1;\n"
    "                       `-`: standard output), for compare --calibration\n"
    "                       and site --calibration\n"
    "  --html DIR           a page (DIR/index.html) with a chart of the share\n"
    "                       found against the plant size, per case\n"
    "  --quiet              no progress on standard error\n"
    "\n"
    "A library rep costs, for 9 cases under Shared (5 runs of 10 blocks)\n"
    "and 3 plants: duet, 4 two-impl runs x 5 runs x 9 cases x 10 blocks x\n"
    "0.5 ms (both batches at once) = 0.9 s of timed batches; sequential, 5\n"
    "runs x 9 cases x 10 blocks x 5 impls x 0.5 ms = 1.1 s; plus\n"
    "calibration, measuring processes and setup, of which a duet rep has\n"
    "more (4 runs, two processes each). bench/bench_calibrate.sh prints\n"
    "what a calibration takes on this machine. --reps and --budget trade\n"
    "time for narrower bounds.\n"
    "Nothing is written unless the whole calibration succeeds.\n"
    "Exit status: 0 calibrated, 2 bad usage or a benchmark that fails,\n"
    "3 an internal or I/O failure.\n";

static const cli_opt opts_fixed[] = {
    {"lib", 1, 0},         {"cmd", 1, 0},       {"plants", 1, 0},
    {"reps", 1, 0},        {"budget", 1, 0},    {"protocol", 1, 0},
    {"blocks", 1, 0},      {"runs", 1, 0},      {"seed", 1, 0},
    {"filter", 1, 0},      {"timeout", 1, 0},   {"fresh", 1, 0},
    {"layout", 1, 0},      {"duet", 0, 0},      {"sequential", 0, 0},
    {"dir", 1, 0},         {"benchmark", 1, 0}, {"dataset", 1, 0},
    {"show-output", 0, 0}, {"json", 1, 0},      {"html", 1, 0},
    {"quiet", 0, 0},       CLI_MANIFEST_OPTS};

typedef struct display {
  cli_progress p;
} display;

static int on_progress(void *ctx, const bs_calibrate_progress *s) {
  display *d = ctx;
  if (cli_interrupted())
    return 1;
  char spent[32], left[48] = "estimating the time left", step[160] = "";
  bs_date_duration(spent, sizeof spent, s->elapsed_s);
  if (s->rep > 0) {
    char t[32];
    double per = s->elapsed_s / (double)s->rep;
    snprintf(left, sizeof left, "about %s left",
             bs_date_duration(t, sizeof t, per * (double)(s->reps - s->rep)));
  }
  char pair[48] = "";
  if (s->pairs > 1 && s->pair)
    snprintf(pair, sizeof pair, ", plant %zu/%zu", s->pair, s->pairs - 1);
  else if (s->pairs > 1)
    snprintf(pair, sizeof pair, ", A/A pair");
  if (s->run && s->run->ncases)
    snprintf(step, sizeof step, "%s, its run %llu/%llu, case %zu/%zu", pair,
             (unsigned long long)s->run->run + 1,
             (unsigned long long)s->run->runs, s->run->kase + 1,
             s->run->ncases);
  else
    snprintf(step, sizeof step, "%s", pair);
  cli_progress_show(
      &d->p, 0, "benchsite calibrate: %s elapsed, %s; run %llu/%llu%s", spent,
      left, (unsigned long long)s->rep + 1, (unsigned long long)s->reps, step);
  return 0;
}

/* "3,5,10" into plants (at most max). */
static int parse_plants(const char *s, double *plants, size_t max, size_t *n) {
  *n = 0;
  const char *p = s;
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char word[64];
    if (!len || len >= sizeof word || *n == max)
      return cli_usage_error("calibrate: --plants \"%s\" is not a list of at "
                             "most %zu sizes in %% (3,5,10)",
                             s, max);
    memcpy(word, p, len);
    word[len] = 0;
    int rc = cli_parse_double("plants", word, &plants[(*n)++]);
    if (rc)
      return rc;
    if (!comma)
      return 0;
    p = comma + 1;
  }
}

typedef struct html_step {
  const bs_calibration *c;
  const char *dir;
} html_step;

/* The page into a fresh directory, put in place of DIR only when whole. */
static int write_html(void *ctx) {
  html_step *h = ctx;
  if (!h->dir)
    return 0;
  bs_error err;
  bs_error_clear(&err);
  bs_output_dir *d = NULL;
  bs_status st = bs_output_dir_open(h->dir, "--html", "calibration",
                                    ".benchsite-calibration", 0, &d, &err);
  if (!st)
    st = bs_output_dir_start(d, &err);
  char marker[CLI_PATH_MAX];
  if (!st &&
      (size_t)snprintf(marker, sizeof marker, "%s/.benchsite-calibration",
                       bs_output_dir_path(d)) >= sizeof marker)
    st = bs_error_set(&err, BS_EIO, h->dir, 0, "path too long");
  if (!st)
    st = bs_write_file_atomic(marker, "benchsite calibration\n", 22, &err);
  if (!st)
    st = bs_calibration_html(h->c, bs_output_dir_path(d), NULL, &err);
  if (!st)
    st = bs_output_dir_commit(d, &err);
  bs_output_dir_free(d);
  return st ? cli_report(&err) : 0;
}

int cli_cmd_calibrate(int argc, char **argv) {
  bs_run_mode modes[CLI_MAX_OPTS] = {BS_RUN_LIBRARY, BS_RUN_COMMAND};
  const char *kinds[CLI_MAX_OPTS] = {"lib", "cmd"};
  int nkinds = 2;
  cli_opt opts[CLI_MAX_OPTS];
  size_t nopts = 0;
  for (size_t i = 0; i < sizeof opts_fixed / sizeof opts_fixed[0]; i++)
    opts[nopts++] = opts_fixed[i];
  bs_run_harness h;
  for (size_t i = 0; bs_run_harness_get(i, &h) && nkinds < CLI_MAX_OPTS &&
                     nopts < CLI_MAX_OPTS;
       i++) {
    modes[nkinds] = h.mode;
    kinds[nkinds++] = h.name;
    opts[nopts++] = (cli_opt){h.name, 1, 0};
  }
  static char usage[sizeof usage_head + sizeof usage_body - 1];
  memcpy(usage, usage_head, sizeof usage_head - 1);
  memcpy(usage + sizeof usage_head - 1, usage_body, sizeof usage_body);
  cli_args a;
  bs_error err;
  bs_error_clear(&err);
  bs_calibration *cal = NULL;
  bs_manifest *env = NULL;
  char *name = NULL, *mtext = NULL, *text = NULL;
  size_t mlen = 0, text_len = 0;
  cli_output out;
  size_t nouts = 0;
  memset(&out, 0, sizeof out);
  int rc = cli_start(argc, argv, opts, nopts, usage, &a);
  if (rc || a.help)
    return cli_finish(&a, rc);
  if (a.npos) {
    rc = cli_usage_error("calibrate: unexpected argument \"%s\" (see "
                         "benchsite calibrate --help)",
                         a.positional[0]);
    goto done;
  }
  bs_calibrate_options o;
  bs_calibrate_options_init(&o);
  bs_run_impl impl = {NULL, NULL, NULL};
  int kind = -1;
  for (int k = 0; k < nkinds; k++) {
    const char *v = cli_get(&a, kinds[k]);
    if (!v)
      continue;
    if (kind >= 0) {
      rc = cli_usage_error("calibrate: --%s and --%s: calibrate one build",
                           kinds[kind], kinds[k]);
      goto done;
    }
    kind = k;
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1]) {
      rc = cli_usage_error("calibrate: --%s \"%s\" is not BASE=%s", kinds[k], v,
                           k == 0 ? "PATH.so" : "COMMAND");
      goto done;
    }
    if (!(name = strndup(v, (size_t)(eq - v)))) {
      rc = cli_out_of_memory();
      goto done;
    }
    impl.name = name;
    impl.target = eq + 1;
  }
  if (kind < 0) {
    rc = cli_usage_error("calibrate: nothing to measure: give --lib, --cmd "
                         "or a harness option with BASE=... (see benchsite "
                         "calibrate --help)");
    goto done;
  }
  o.run.mode = modes[kind];
  o.run.impls = &impl;
  o.run.nimpls = 1;
  int harness = bs_run_harness_name(o.run.mode) != NULL;
  if (o.run.mode != BS_RUN_COMMAND &&
      (cli_get(&a, "benchmark") || cli_get(&a, "dataset"))) {
    rc = cli_usage_error("calibrate: --benchmark and --dataset label a --cmd "
                         "calibration");
    goto done;
  }
  if (o.run.mode == BS_RUN_LIBRARY &&
      (cli_flag(&a, "show-output") || cli_get(&a, "dir"))) {
    rc = cli_usage_error("calibrate: --show-output and --dir are for "
                         "commands and harnesses");
    goto done;
  }
  const char *dir = cli_get(&a, "dir");
  struct stat sd;
  if (dir && (stat(dir, &sd) != 0 || !S_ISDIR(sd.st_mode))) {
    rc = cli_usage_error("calibrate: --dir: \"%s\" is not a directory", dir);
    goto done;
  }
  impl.dir = dir;

  double plants[BS_CALIBRATE_MAX_PLANTS];
  const char *v = cli_get(&a, "plants");
  if (v) {
    if ((rc = parse_plants(v, plants, BS_CALIBRATE_MAX_PLANTS, &o.nplants)))
      goto done;
    o.plants = plants;
  }
  if ((rc = cli_get_u64(&a, "reps", &o.reps)))
    goto done;
  v = cli_get(&a, "budget");
  if (v && ((rc = cli_parse_double("budget", v, &o.budget_s)) ||
            !(o.budget_s > 0 && o.budget_s <= 1e9))) {
    if (!rc)
      rc = cli_usage_error("calibrate: --budget: \"%s\" is not a positive "
                           "number of seconds",
                           v);
    goto done;
  }

  const char *fresh = cli_get(&a, "fresh");
  if (fresh && ((strcmp(fresh, "run") && strcmp(fresh, "block")) || harness)) {
    rc = cli_usage_error("calibrate: --fresh is run or block, for --lib and "
                         "--cmd");
    goto done;
  }
  o.run.fresh =
      fresh && !strcmp(fresh, "block") ? BS_RUN_FRESH_BLOCK : BS_RUN_FRESH_RUN;
  const char *layout = cli_get(&a, "layout");
  if (layout &&
      ((strcmp(layout, "random") && strcmp(layout, "fixed")) || harness)) {
    rc = cli_usage_error("calibrate: --layout is random or fixed, for --lib "
                         "and --cmd");
    goto done;
  }
  o.run.layout_fixed = layout && !strcmp(layout, "fixed");
  if (cli_flag(&a, "duet") && cli_flag(&a, "sequential")) {
    rc = cli_usage_error("calibrate: --duet and --sequential exclude each "
                         "other");
    goto done;
  }
  /* Side by side where run would put two impls of this build side by
   * side (run's rule): command and harness modes measure their A/A pair
   * so, library mode the A/A pair and each plant, a duet run each. */
  {
    bs_run_impl two[2] = {impl, impl};
    bs_run_options probe = o.run;
    probe.impls = two;
    probe.nimpls = 2;
    o.run.duet =
        cli_flag(&a, "duet") || (!harness && !cli_flag(&a, "sequential") &&
                                 bs_run_duet_possible(&probe));
  }
  const char *protocol = cli_get(&a, "protocol");
  if (!protocol)
    protocol = BS_PROTOCOL_DEFAULT;
  if (bs_run_protocol(protocol, &o.run.target_us, &o.run.blocks, &o.run.runs,
                      &err)) {
    rc = cli_usage_error("calibrate: --protocol: %s", err.message);
    goto done;
  }
  o.protocol = protocol;
  if ((rc = cli_get_u64(&a, "blocks", &o.run.blocks)) ||
      (rc = cli_get_u64(&a, "runs", &o.run.runs)) ||
      (rc = cli_get_u64(&a, "seed", &o.run.seed)))
    goto done;
  if (harness && !cli_get(&a, "runs")) {
    if (!cli_get(&a, "blocks"))
      o.run.blocks *= o.run.runs;
    o.run.runs = 1;
  }
  if (o.run.blocks < 1 || o.run.blocks > 1000000 || o.run.runs < 1 ||
      o.run.runs > 1000000) {
    rc = cli_usage_error("calibrate: --blocks and --runs must be 1 to "
                         "1000000");
    goto done;
  }
  v = cli_get(&a, "timeout");
  if (v && ((rc = cli_parse_double("timeout", v, &o.run.timeout_s)) ||
            !(o.run.timeout_s > 0 && o.run.timeout_s <= 1e9))) {
    if (!rc)
      rc = cli_usage_error("--timeout: \"%s\" is not a positive number of "
                           "seconds",
                           v);
    goto done;
  }
  o.run.filter = cli_get(&a, "filter");
  o.run.show_output = cli_flag(&a, "show-output");
  o.run.benchmark = cli_get(&a, "benchmark");
  o.run.dataset = cli_get(&a, "dataset");

  /* The outputs and this machine's manifest before anything is measured. */
  const char *json = cli_get(&a, "json");
  const char *html = cli_get(&a, "html");
  if (json && (rc = cli_measure_check_path("json", json)))
    goto done;
  if (html && !html[0]) {
    rc = cli_usage_error("calibrate: --html needs a directory");
    goto done;
  }
  cli_manifest_fill fill;
  memset(&fill, 0, sizeof fill);
  fill.protocol = protocol;
  if (harness) {
    fill.harness = bs_run_harness_name(o.run.mode);
  } else {
    fill.batch_rule = "least-of-three";
    fill.fresh = o.run.fresh == BS_RUN_FRESH_BLOCK ? "block" : "run";
    fill.layout = o.run.layout_fixed ? "fixed" : "random";
  }
  if (o.run.duet) {
    fill.duet = "1";
    if (!harness)
      fill.duet_swap = "half-batch";
  }
  if ((rc = cli_manifest_render(&a, &fill, &mtext, &mlen)))
    goto done;
  if (!(env = bs_manifest_new())) {
    rc = cli_out_of_memory();
    goto done;
  }
  if (bs_manifest_read_buffer(env, "this machine's manifest", mtext, mlen,
                              &err)) {
    rc = cli_report(&err);
    goto done;
  }
  o.environment = env;

  display d;
  memset(&d, 0, sizeof d);
  cli_progress_init(&d.p, cli_flag(&a, "quiet"), 10.0);
  o.progress = on_progress;
  o.progress_ctx = &d;
  cli_signals sig;
  cli_signals_catch(&sig);
  bs_status st = bs_calibrate_run(&o, &cal, &err);
  cli_signals_restore(&sig);
  cli_progress_end(&d.p);
  if (st) {
    rc = cli_interrupted() ? CLI_FAILURE : cli_report(&err);
    goto done;
  }
  if (json) {
    out.path = json;
    if (bs_calibration_json(cal, &out.data, &out.len, &err)) {
      rc = cli_report(&err);
      goto done;
    }
    nouts = 1;
  }
  if ((!json || strcmp(json, "-")) &&
      bs_calibration_text(cal, &text, &text_len, &err)) {
    rc = cli_report(&err);
    goto done;
  }
  html_step hs = {cal, html};
  rc = cli_outputs_commit_with(&out, nouts, write_html, &hs);
  nouts = 0;
  if (!rc && text)
    fwrite(text, 1, text_len, stdout);
done:
  if (nouts)
    free(out.data);
  free(text);
  free(mtext);
  free(name);
  bs_manifest_free(env);
  bs_calibration_free(cal);
  rc = cli_finish(&a, rc);
  cli_reraise_signal();
  return rc;
}
