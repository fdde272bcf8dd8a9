/* benchsite bisect: which commit between a good and a bad one made the
 * cases slower, each probe a paired, interleaved measurement. */
#include "measure.h"
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_head[] =
    "usage: benchsite bisect --good G --bad B [--repo DIR] --build CMD\n"
    "                        (--lib PATH | --cmd COMMAND\n"
    "                         | --google-benchmark COMMAND\n"
    "                         | --pytest-benchmark COMMAND\n"
    "                         | --go-bench COMMAND)\n"
    "                        [--filter TEXT] [--metric wall|cpu|rss]\n"
    "                        [--protocol P] [--blocks M]\n"
    "                        [--threshold PCT] [--max-runs N] [--jobs N]\n"
    "                        [--cache DIR] [--timeout SECONDS]\n"
    "                        [--duet | --sequential] [--seed N]\n"
    "                        [--json F] [--markdown F] [--quiet]\n"
    "\n"
    "Finds the commit that made the cases slower between the good commit G\n"
    "and the bad commit B of the git repository DIR (default: here), on\n"
    "B's first-parent history (G must be on it). Every commit measured is\n"
    "built by CMD in a clean worktree of its own (`git worktree`, never\n"
    "your checkout, whose changes stay as they are); CMD is split as --cmd\n"
    "is (no shell) and runs in that tree, and every {tree} in a word of it\n"
    "stands for the tree. Builds are kept by commit id in\n"
    "benchsite-bisect/ of the repository's git directory (or --cache DIR)\n"
    "and reused by later probes and later bisections with the same CMD; a\n"
    "commit that does not build is skipped and named. The benchmark, one\n"
    "kind as in benchsite run but without IMPL=:\n"
    "  --lib PATH           the library's path inside each tree\n"
    "  --cmd COMMAND, --google-benchmark COMMAND\n"
    "                       a command whose first word is a program inside\n"
    "                       each tree (build/bench --fast), or that writes\n"
    "                       {tree} where the tree goes (python3\n"
    "                       {tree}/bench.py); it runs in the tree\n"
    "  --pytest-benchmark COMMAND, --go-bench COMMAND\n"
    "                       a command run inside each tree as it is\n"
    "\n";
/* The rest of the help (one string literal may hold at most 4095 bytes). */
static const char usage_body[] =
    "The start measures B against G, paired and interleaved as benchsite\n"
    "run measures (the protocol's blocks and runs), and judges every case:\n"
    "slower (a significant regression of at least PCT %, --threshold,\n"
    "default 3), not slower (the interval's upper end below PCT %) or\n"
    "undecided. No case slower and every case not slower is \"no step of at\n"
    "least PCT % between G and B\" (exit 0). Each probe then measures the\n"
    "middle commit of what is left against G and judges the cases the start\n"
    "found slower the same way, each at half its start delta (at most its\n"
    "interval's low end), or at PCT % when --threshold is given. An\n"
    "undecided probe gets more runs in fresh processes, up to --max-runs N\n"
    "(default four times the protocol's runs); still undecided, the search\n"
    "stops and reports the range it could not split (exit 4), never a\n"
    "guessed commit. The culprit is measured once more against its parent\n"
    "before it is named (exit 1). The search assumes one step between G and\n"
    "B.\n"
    "  --protocol P         Development, RegressionGate or Shared (the\n"
    "                       default), as benchsite run; --blocks M overrides\n"
    "                       its blocks per run\n"
    "  --metric wall|cpu|rss  what probes compare: wall time per call (the\n"
    "                       default; CPU time for Google Benchmark), CPU\n"
    "                       time per call (on a machine busy with other\n"
    "                       work, without the time spent waiting for a\n"
    "                       CPU), or a command's peak memory\n"
    "  --duet, --sequential both builds side by side, each on its own CPU\n"
    "                       (the default wherever two CPUs can be had, as\n"
    "                       for run), or one at a time\n"
    "  --jobs N             builds at once: the probe's and those the next\n"
    "                       probes may need (default 1); never during a\n"
    "                       measurement\n"
    "  --json F, --markdown F   the result as JSON (benchsite.bisect/1) or as\n"
    "                       a comment for a pull request or an issue (`-`:\n"
    "                       standard output); the report goes to standard\n"
    "                       output otherwise, and with files its first line\n"
    "  --quiet              no progress on standard error\n"
    "\n"
    "Ctrl-C stops the bisection: the trees being built are removed, the\n"
    "builds already made stay in the cache.\n"
    "Exit status: 1 the culprit found, 0 no step, 4 a range the search could\n"
    "not split, 2 bad usage, refs that are not commits, or a good or bad\n"
    "commit that does not build or measure, 3 an internal or I/O failure.\n";

static const cli_opt opts[] = {{"good", 1, 0},
                               {"bad", 1, 0},
                               {"repo", 1, 0},
                               {"build", 1, 0},
                               {"lib", 1, 0},
                               {"cmd", 1, 0},
                               {"google-benchmark", 1, 0},
                               {"pytest-benchmark", 1, 0},
                               {"go-bench", 1, 0},
                               {"filter", 1, 0},
                               {"metric", 1, 0},
                               {"protocol", 1, 0},
                               {"blocks", 1, 0},
                               {"threshold", 1, 0},
                               {"max-runs", 1, 0},
                               {"jobs", 1, 0},
                               {"cache", 1, 0},
                               {"timeout", 1, 0},
                               {"sequential", 0, 0},
                               {"duet", 0, 0},
                               {"seed", 1, 0},
                               {"json", 1, 0},
                               {"markdown", 1, 0},
                               {"quiet", 0, 0}};

/* The display's state: a line of its own whenever the step changes. */
typedef struct display {
  cli_progress p;
  int stage;
  size_t probe;
  uint64_t runs;
  const char *commit;
} display;

static int on_progress(void *ctx, const bs_bisect_progress *s) {
  display *d = ctx;
  if (cli_interrupted())
    return 1;
  char spent[32], what[160], where[96] = "", step[96] = "";
  bs_date_duration(spent, sizeof spent, cli_progress_elapsed(&d->p));
  int event = (int)s->stage != d->stage || s->probe != d->probe ||
              s->runs != d->runs || s->commit != d->commit;
  d->stage = (int)s->stage;
  d->probe = s->probe;
  d->runs = s->runs;
  d->commit = s->commit;
  if (s->stage == BS_BISECT_PREPARING) {
    if (event)
      cli_progress_event(&d->p, "benchsite bisect: reading the history");
    return 0;
  }
  if (s->role == BS_BISECT_START)
    snprintf(where, sizeof where, "the start, probe 1 of about %zu",
             s->expected);
  else if (s->role == BS_BISECT_CONFIRM)
    snprintf(where, sizeof where, "the culprit against its parent, probe %zu",
             s->probe);
  else
    snprintf(where, sizeof where, "probe %zu of about %zu, %zu commits left",
             s->probe, s->expected, s->left);
  if (s->stage == BS_BISECT_BUILDING) {
    snprintf(what, sizeof what, "building %.12s%s", s->commit ? s->commit : "",
             s->building > 1 ? " and others" : "");
  } else {
    snprintf(what, sizeof what, "measuring %.12s against %s%s",
             s->commit ? s->commit : "",
             s->role == BS_BISECT_CONFIRM ? "its parent" : "good",
             s->runs ? ", more runs (undecided)" : "");
    if (s->run && !s->run->calibrating)
      snprintf(step, sizeof step, "; run %llu/%llu, block %llu/%llu",
               (unsigned long long)s->runs + s->run->run + 1,
               (unsigned long long)s->runs + s->run->runs,
               (unsigned long long)s->run->block + 1,
               (unsigned long long)s->run->blocks);
  }
  if (event)
    cli_progress_event(&d->p, "benchsite bisect: %s: %s, %s elapsed", where,
                       what, spent);
  else
    cli_progress_show(&d->p, 0, "benchsite bisect: %s: %s%s, %s elapsed", where,
                      what, step, spent);
  return 0;
}

int cli_cmd_bisect(int argc, char **argv) {
  static const bs_run_mode modes[] = {BS_RUN_LIBRARY, BS_RUN_COMMAND,
                                      BS_RUN_GOOGLE_BENCHMARK,
                                      BS_RUN_PYTEST_BENCHMARK, BS_RUN_GO_BENCH};
  static const char *const kinds[] = {"lib", "cmd", "google-benchmark",
                                      "pytest-benchmark", "go-bench"};
  cli_args a;
  bs_error err;
  bs_error_clear(&err);
  bs_bisect_result *r = NULL;
  cli_output outs[2];
  size_t nouts = 0;
  char *text = NULL;
  size_t text_len = 0;
  memset(outs, 0, sizeof outs);
  static char usage[sizeof usage_head + sizeof usage_body - 1];
  memcpy(usage, usage_head, sizeof usage_head - 1);
  memcpy(usage + sizeof usage_head - 1, usage_body, sizeof usage_body);
  int rc = cli_start(argc, argv, opts, sizeof opts / sizeof opts[0], usage, &a);
  if (rc || a.help)
    return cli_finish(&a, rc);
  if (a.npos) {
    rc = cli_usage_error("bisect: unexpected argument \"%s\" (see benchsite "
                         "bisect --help)",
                         a.positional[0]);
    goto done;
  }
  bs_bisect_options o;
  bs_bisect_options_init(&o);
  o.good = cli_get(&a, "good");
  o.bad = cli_get(&a, "bad");
  o.repo = cli_get(&a, "repo");
  o.build = cli_get(&a, "build");
  if (!o.good || !o.bad || !o.build) {
    rc = cli_usage_error("bisect: --good, --bad and --build are required "
                         "(see benchsite bisect --help)");
    goto done;
  }
  int kind = -1;
  for (int k = 0; k < (int)(sizeof kinds / sizeof kinds[0]); k++) {
    if (!cli_get(&a, kinds[k]))
      continue;
    if (kind >= 0) {
      rc = cli_usage_error("bisect: --%s and --%s: name one benchmark",
                           kinds[kind], kinds[k]);
      goto done;
    }
    kind = k;
  }
  if (kind < 0) {
    rc = cli_usage_error("bisect: name the benchmark: --lib, --cmd, "
                         "--google-benchmark, --pytest-benchmark or "
                         "--go-bench");
    goto done;
  }
  o.mode = modes[kind];
  o.bench = cli_get(&a, kinds[kind]);
  o.filter = cli_get(&a, "filter");
  if ((rc = cli_get_metric(&a, "bisect", &o.metric)))
    goto done;
  /* A harness that reports CPU time (Google Benchmark) runs side by side
   * and is gated on its CPU time, as run's manifest says: its wall time
   * side by side is not comparable under load (run_harness.c). Commands
   * keep wall time, on which the bisection lab and its real regression
   * were measured. */
  if (!cli_get(&a, "metric") && bs_run_harness_name(o.mode))
    o.metric = bs_run_gate_metric(o.mode);
  o.protocol = cli_get(&a, "protocol");
  o.cache = cli_get(&a, "cache");
  if (cli_flag(&a, "duet") && cli_flag(&a, "sequential")) {
    rc = cli_usage_error("bisect: --duet and --sequential exclude each other");
    goto done;
  }
  o.duet = cli_flag(&a, "duet") ? 1 : cli_flag(&a, "sequential") ? -1 : 0;
  uint64_t jobs = 1;
  if ((rc = cli_get_u64(&a, "blocks", &o.blocks)) ||
      (rc = cli_get_u64(&a, "max-runs", &o.max_runs)) ||
      (rc = cli_get_u64(&a, "jobs", &jobs)) ||
      (rc = cli_get_u64(&a, "seed", &o.seed)))
    goto done;
  if (cli_get(&a, "blocks") && (o.blocks < 1 || o.blocks > 1000000)) {
    rc = cli_usage_error("bisect: --blocks must be 1 to 1000000");
    goto done;
  }
  if (cli_get(&a, "max-runs") && (o.max_runs < 1 || o.max_runs > 10000)) {
    rc = cli_usage_error("bisect: --max-runs must be 1 to 10000");
    goto done;
  }
  if (jobs < 1 || jobs > 64) {
    rc = cli_usage_error("bisect: --jobs must be 1 to 64");
    goto done;
  }
  o.jobs = (size_t)jobs;
  const char *v = cli_get(&a, "threshold");
  if (v && ((rc = cli_parse_double("threshold", v, &o.threshold_pct)) ||
            o.threshold_pct <= 0)) {
    if (!rc)
      rc = cli_usage_error("bisect: --threshold: \"%s\" is not a positive "
                           "percentage",
                           v);
    goto done;
  }
  if (v && o.threshold_pct < BS_MIN_THRESHOLD_PCT) {
    rc = cli_usage_error("bisect: --threshold is a percentage: %s %% is "
                         "probably a fraction (did you mean %g?)",
                         v, o.threshold_pct * 100);
    goto done;
  }
  v = cli_get(&a, "timeout");
  if (v && ((rc = cli_parse_double("timeout", v, &o.timeout_s)) ||
            !(o.timeout_s > 0 && o.timeout_s <= 1e9))) {
    if (!rc)
      rc = cli_usage_error("--timeout: \"%s\" is not a positive number of "
                           "seconds",
                           v);
    goto done;
  }
  /* Outputs are checked before anything is built. */
  static const char *const fmts[] = {"json", "markdown"};
  for (size_t i = 0; i < 2; i++) {
    const char *path = cli_get(&a, fmts[i]);
    if (path && (rc = cli_measure_check_path(fmts[i], path)))
      goto done;
  }

  display d;
  memset(&d, 0, sizeof d);
  d.stage = -1;
  cli_progress_init(&d.p, cli_flag(&a, "quiet"), 10.0);
  o.progress = on_progress;
  o.progress_ctx = &d;
  cli_signals sig;
  cli_signals_catch(&sig);
  bs_status st = bs_bisect_run(&o, &r, &err);
  cli_signals_restore(&sig);
  cli_progress_end(&d.p);
  if (st) {
    if (cli_interrupted()) {
      fputs("benchsite bisect: interrupted; the trees being built were "
            "removed, the builds made stay in the cache\n",
            stderr);
      rc = CLI_FAILURE;
    } else {
      rc = cli_report(&err);
    }
    goto done;
  }

  int to_stdout = 0;
  for (size_t i = 0; i < 2; i++) {
    const char *path = cli_get(&a, fmts[i]);
    if (!path)
      continue;
    outs[nouts].path = path;
    st = i == 0
             ? bs_bisect_json(r, &outs[nouts].data, &outs[nouts].len, &err)
             : bs_bisect_markdown(r, &outs[nouts].data, &outs[nouts].len, &err);
    if (st) {
      rc = cli_report(&err);
      goto done;
    }
    to_stdout |= !strcmp(path, "-");
    nouts++;
  }
  if (!to_stdout && (nouts ? bs_bisect_summary(r, &text, &text_len, &err)
                           : bs_bisect_text(r, &text, &text_len, &err))) {
    rc = cli_report(&err);
    goto done;
  }
  rc = cli_outputs_commit(outs, nouts);
  nouts = 0;
  if (rc)
    goto done;
  if (text)
    fwrite(text, 1, text_len, stdout);
  rc = bs_bisect_exit_status(r);
done:
  for (size_t i = 0; i < nouts; i++)
    free(outs[i].data);
  free(text);
  bs_bisect_result_free(r);
  rc = cli_finish(&a, rc);
  cli_reraise_signal();
  return rc;
}
