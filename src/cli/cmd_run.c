/* benchsite run: measure builds, commands or harness programs (the
 * runner's table of harnesses names them) in calibrated, rotated blocks
 * and write the observation log. */
#include "measure.h"
#include "progress.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The usage, around what the table of harnesses (bs_run_harness_get)
 * adds: a synopsis line and a paragraph of help for each. */
static const char usage_synopsis[] =
    "usage: benchsite run --out LOG [--protocol "
    "Development|RegressionGate|Shared]\n"
    "                     [--blocks M] [--runs N] [--seed N] [--filter TEXT]\n"
    "                     [--fresh run|block] [--duet | --sequential]\n"
    "                     [--max-runs N] [--budget SECONDS]\n"
    "                     [--layout random|fixed] [--layout-seed N] [--quiet]\n"
    "                     [--timeout SECONDS] [--show-output]\n"
    "                     [--manifest-out M [manifest options]]\n"
    "                     [--benchmark NAME] [--dataset D] [--dir IMPL=DIR]\n"
    "                     (--lib IMPL=PATH.so | --cmd IMPL=COMMAND";
static const char usage_impls[] =
    "\n"
    "Measures every IMPL on this machine, interleaved, and writes the\n"
    "observation log LOG (`-`: standard output). Give one kind of impl,\n"
    "once per impl, usually twice (the first is the baseline):\n"
    "  --lib IMPL=PATH.so   a benchmark library built against\n"
    "                       benchsite/harness.h; every library is loaded, as\n"
    "                       its own copy, into a measuring process\n"
    "  --cmd IMPL=COMMAND   a command, run n times per batch; COMMAND is "
    "split\n"
    "                       at blanks, with '...' and \"...\" grouping and \\\n"
    "                       escaping, and nothing else (no shell, no $, no\n"
    "                       globs, no ~); --benchmark NAME and --dataset D\n"
    "                       label the case (default: the first program's\n"
    "                       name and \"\"); --show-output keeps its output\n";
static const char usage_dir[] =
    "  --dir IMPL=DIR       run that impl's commands in DIR (each build of a\n"
    "                       harness's project in its own checkout)\n"
    "\n";
static const char usage_body[] =
    "For every case (benchmark, dataset) that every impl has, and every run:\n"
    "each impl is calibrated from n = 1 by n' = min(10^9, max(n + 1,\n"
    "ceil(n T / t))) while the batch time t is below T; then every impl's\n"
    "confirm batches use one n, the largest calibrated one (unless the\n"
    "calibrated times per call differ by more than 4x, when each keeps its\n"
    "own), and M blocks time one batch per impl, block j starting with impl\n"
    "(j + seed) mod K. T, M and the number of runs N come from the\n"
    "protocol: Shared 0.5 ms, 10 blocks and 5 runs (the default: the fewest\n"
    "false alarms measured, on a quiet machine and a busy one), Development\n"
    "5 ms, 10 and 1, RegressionGate 10 ms, 20 and 1; --blocks M and --runs N\n"
    "override them (M is per run: --blocks 30 alone measures 5 runs of 30\n"
    "blocks under Shared). A harness starts anew every block, so for it M\n"
    "counts pairs: --blocks 30 is one run of 30 blocks (without --blocks,\n"
    "one run of the protocol's blocks x runs). Rows are written in\n"
    "measurement order, calibration rows too. Confirm rows also record\n"
    "cpu_per_call_us (the CPU time per call: of the measuring thread, of\n"
    "the commands, or Google Benchmark's cpu_time) and, for --cmd,\n"
    "max_rss_kib (the commands' largest peak resident set). The whole\n"
    "measurement is repeated N times (run 0..N-1), each run in new\n"
    "measuring processes, and compare pairs the blocks of all runs; with\n"
    "the same library under two ids the log is an A/A log for `benchsite\n"
    "noise`. Library digests are compared as each measuring process ends.\n"
    "  --fresh run|block   a new measuring process (a new address layout)\n"
    "                      for every run (the default), or for every block\n"
    "                      of every case, which also repeats the setup\n"
    "  --duet              two impls side by side: each block runs both\n"
    "                      batches at once, each impl in its own process on\n"
    "                      its own CPU, started together, half of each\n"
    "                      batch on each CPU (needs two CPUs). The default\n"
    "                      whenever it can be for two --lib or two --cmd\n"
    "                      impls and two Google Benchmark programs (each\n"
    "                      program on one CPU, the CPUs swapped every\n"
    "                      block; gated on CPU time); go test and pytest\n"
    "                      programs only with --duet\n"
    "  --sequential        one impl at a time, never side by side\n"
    "  --max-runs N        adaptive runs (two --lib or --cmd impls): after\n"
    "                      the N planned runs, the cases the gate cannot\n"
    "                      decide yet get more runs, those cases only, in\n"
    "                      up to three rounds, until N runs in all (default\n"
    "                      4 x the planned runs, the most allowed; the "
    "planned\n"
    "                      runs: none extra). Each look is judged at its own\n"
    "                      level (96 %, then 99.3 %), so looking again never\n"
    "                      flags identical code more often than one look\n"
    "  --budget SECONDS    stop adding runs once they took this long\n"
    "  --layout random|fixed  each measuring process moves its stack, its\n"
    "                      environment and (libraries) its heap and mappings,\n"
    "                      and sets up and calibrates the impls in orders of\n"
    "                      its own (side by side, the two processes and their\n"
    "                      CPUs change places every other run), drawn from\n"
    "                      the run and a seed of each invocation's own (the\n"
    "                      manifest's layout_seed), so a memory layout that\n"
    "                      favours one build is a new draw every run\n"
    "                      (random, the default), or not (fixed)\n"
    "  --layout-seed N     draw the layouts from N (a run's layout_seed lays\n"
    "                      it out again; default: a new seed each time)\n"
    "";
/* The options that follow (again within 4095 bytes). */
static const char usage_tail[] =
    "  --filter TEXT       only cases whose \"benchmark/dataset\" contains "
    "TEXT;\n"
    "                      ^TEXT: starts with it, TEXT$: ends with it,\n"
    "                      ^TEXT$: is it (BM_UFlat/1$ leaves out /10); a\n"
    "                      harness's own -bench, -k or --benchmark_filter\n"
    "                      is kept, and TEXT picks among what it reports\n"
    "  --show-output       what commands and harnesses print, to standard\n"
    "                      error (a failing harness's last 20 lines are\n"
    "                      quoted in any case)\n"
    "  --timeout SECONDS   bound of each batch (default 600)\n"
    "  --quiet             no progress on standard error (a line updated in\n"
    "                      place on a terminal, else one every 10 s)\n"
    "  --manifest-out M    also write the manifest (as `benchsite manifest`,\n"
    "                      whose options follow it), with baseline and\n"
    "                      candidate -- or aa_a and aa_b when both impls are\n"
    "                      the same file or command -- from the impls, and\n"
    "                      how it was measured: batch_rule, fresh, duet,\n"
    "                      layout, max_runs and what the extra runs took\n"
    "\n"
    "Nothing is written unless the whole run succeeds.\n"
    "Exit status: 0 measured, 1 an impl computes a different result (its\n"
    "digest differs from the first impl's), 2 bad usage or a benchmark that\n"
    "fails (cannot be loaded, crashes, hangs, exits non-zero, bad output),\n"
    "or a machine that cannot do what is asked (--duet on one CPU, a CPU\n"
    "clock that cannot be read), 3 an internal or I/O failure.\n";

/* The options; the harnesses' (--NAME IMPL=COMMAND, repeatable) come from
 * the table, after --cmd. */
static const cli_opt opts_before[] = {{"out", 1, 0},     {"protocol", 1, 0},
                                      {"blocks", 1, 0},  {"runs", 1, 0},
                                      {"seed", 1, 0},    {"filter", 1, 0},
                                      {"timeout", 1, 0}, {"manifest-out", 1, 0},
                                      {"lib", 1, 1},     {"cmd", 1, 1}};
static const cli_opt opts_after[] = {
    {"dir", 1, 1},        {"show-output", 0, 0}, {"benchmark", 1, 0},
    {"dataset", 1, 0},    {"fresh", 1, 0},       {"duet", 0, 0},
    {"sequential", 0, 0}, {"max-runs", 1, 0},    {"budget", 1, 0},
    {"layout", 1, 0},     {"layout-seed", 1, 0}, {"quiet", 0, 0},
    CLI_MANIFEST_OPTS};

/* The column where the help of an option begins, and the width of its
 * lines. */
#define HELP_COL 23
#define HELP_WIDTH 72

/* The usage of `run` with the table's harnesses (malloc'd), or NULL. */
static char *usage_text(void) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    return NULL;
  fputs(usage_synopsis, f);
  bs_run_harness h;
  for (size_t i = 0; bs_run_harness_get(i, &h); i++)
    fprintf(f, "\n                      | --%s IMPL=COMMAND", h.name);
  fputs(")...\n", f);
  fputs(usage_impls, f);
  for (size_t i = 0; bs_run_harness_get(i, &h); i++) {
    fprintf(f, "  --%s IMPL=COMMAND\n%*s", h.name, HELP_COL, "");
    cli_fwrap(f, h.help, HELP_COL, HELP_COL, HELP_WIDTH);
  }
  fputs(usage_dir, f);
  fputs(usage_body, f);
  fputs(usage_tail, f);
  if (fclose(f) != 0) {
    free(text);
    return NULL;
  }
  return text;
}

/* The options: opts_before, the harnesses', opts_after. Returns how many
 * (at most CLI_MAX_OPTS). */
static size_t options(cli_opt *opts) {
  size_t n = 0;
  for (size_t i = 0; i < sizeof opts_before / sizeof opts_before[0]; i++)
    opts[n++] = opts_before[i];
  bs_run_harness h;
  for (size_t i = 0; bs_run_harness_get(i, &h) && n < CLI_MAX_OPTS; i++)
    opts[n++] = (cli_opt){h.name, 1, 1};
  for (size_t i = 0;
       i < sizeof opts_after / sizeof opts_after[0] && n < CLI_MAX_OPTS; i++)
    opts[n++] = opts_after[i];
  return n;
}

/* A seed of this invocation's own: from the kernel's random source, or
 * (should it refuse) the clock and the process id, mixed. */
static uint64_t fresh_seed(void) {
  uint64_t x = 0;
  if (getrandom(&x, sizeof x, GRND_NONBLOCK) == (ssize_t)sizeof x)
    return x;
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  x = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
  x ^= (uint64_t)getpid() << 32;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdu;
  x ^= x >> 33;
  return x;
}

/* Whether a and b are the same file (or, when either cannot be found,
 * the same name). NULL is the current directory. */
static int same_file(const char *a, const char *b) {
  struct stat sa, sb;
  if (stat(a ? a : ".", &sa) || stat(b ? b : ".", &sb))
    return !strcmp(a ? a : ".", b ? b : ".");
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Whether two impls are the same code: the same library file, or the same
 * command line run in the same directory. */
static int same_target(bs_run_mode mode, const bs_run_impl *a,
                       const bs_run_impl *b) {
  if (mode == BS_RUN_LIBRARY)
    return same_file(a->target, b->target);
  return !strcmp(a->target, b->target) && same_file(a->dir, b->dir);
}

/* Refuses an output that is a file an impl reads (its library, its
 * program as PATH finds it, a file its command names): the log would
 * overwrite the build it measures. */
static int refuse_own_input(const bs_run_options *o, const char *path,
                            const char *opt) {
  size_t i;
  if (strcmp(path, "-") && bs_run_overwrites_input(o, path, &i))
    return cli_usage_error("run: --%s %s is what impl %s runs: it would be "
                           "overwritten",
                           opt, path, o->impls[i].name);
  return 0;
}

/* Adds what the extra runs took to the manifest rendered before the run
 * (keys no option sets): extra_runs, adaptive_cases, extra_seconds. */
static int append_adaptive(cli_output *m, const bs_run_result *r) {
  char lines[256];
  int n = snprintf(lines, sizeof lines,
                   "extra_runs,%llu\nadaptive_cases,%zu\nextra_seconds,%.1f\n",
                   (unsigned long long)r->extra_runs, r->adaptive_cases,
                   r->extra_seconds);
  char *p = realloc(m->data, m->len + (size_t)n + 1);
  if (!p)
    return cli_out_of_memory();
  memcpy(p + m->len, lines, (size_t)n + 1);
  m->data = p;
  m->len += (size_t)n;
  return 0;
}

/* Where the measurement stands: time spent and left first, then run,
 * block and case, the case's name last (a narrow terminal cuts the line
 * at its end). */
static int on_progress(void *ctx, const bs_run_progress *r) {
  cli_progress *p = ctx;
  char step[64], spent[32], left[48];
  double e = cli_progress_elapsed(p);
  char run[48];
  if (r->run < r->runs)
    snprintf(run, sizeof run, "run %llu/%llu", (unsigned long long)r->run + 1,
             (unsigned long long)r->runs);
  else
    snprintf(run, sizeof run, "extra run %llu",
             (unsigned long long)r->run - r->runs + 1);
  if (r->calibrating)
    snprintf(step, sizeof step, "calibrating");
  else
    snprintf(step, sizeof step, "block %llu/%llu",
             (unsigned long long)r->block + 1, (unsigned long long)r->blocks);
  if (r->done > 0 && r->total > r->done) {
    char d[32];
    snprintf(left, sizeof left, "about %s left",
             bs_date_duration(d, sizeof d, e * (r->total - r->done) / r->done));
  } else {
    snprintf(left, sizeof left, "estimating the time left");
  }
  /* The case's name is untrusted: cli_progress_show escapes the line. */
  if (r->ncases)
    cli_progress_show(p, 0,
                      "benchsite run: %s elapsed, %s; %s, %s, "
                      "case %zu/%zu: %s%s%s%s",
                      bs_date_duration(spent, sizeof spent, e), left, run, step,
                      r->kase + 1, r->ncases, r->benchmark,
                      r->dataset[0] ? " [" : "", r->dataset,
                      r->dataset[0] ? "]" : "");
  else
    cli_progress_show(p, 0, "benchsite run: %s elapsed, %s; %s, %s",
                      bs_date_duration(spent, sizeof spent, e), left, run,
                      step);
  return 0;
}

int cli_cmd_run(int argc, char **argv) {
  /* One option per kind of impl: library, command, and each harness of
   * the table (named as its adapter is). */
  bs_run_mode modes[CLI_MAX_OPTS] = {BS_RUN_LIBRARY, BS_RUN_COMMAND};
  const char *kinds[CLI_MAX_OPTS] = {"lib", "cmd"};
  int nkinds = 2;
  bs_run_harness h;
  for (size_t i = 0; bs_run_harness_get(i, &h) && nkinds < CLI_MAX_OPTS; i++) {
    modes[nkinds] = h.mode;
    kinds[nkinds++] = h.name;
  }
  cli_opt opts[CLI_MAX_OPTS];
  size_t nopts = options(opts);
  cli_args a;
  bs_run_options o;
  bs_run_result res;
  bs_error err;
  bs_run_impl impls[CLI_MAX_VALUES];
  char *names[CLI_MAX_VALUES];
  size_t nimpls = 0;
  cli_output outs[2];
  size_t nouts = 0;
  memset(names, 0, sizeof names);
  memset(outs, 0, sizeof outs);
  bs_error_clear(&err);
  bs_run_options_init(&o);
  bs_run_result_init(&res);
  memset(&a, 0, sizeof a);
  char *usage = usage_text();
  int rc = usage ? cli_start(argc, argv, opts, nopts, usage, &a)
                 : cli_out_of_memory();
  if (rc || a.help)
    goto done;
  if (a.npos) {
    rc = cli_usage_error("run: unexpected argument \"%s\" (see benchsite run "
                         "--help)",
                         a.positional[0]);
    goto done;
  }

  /* The impls: one kind, IMPL=TARGET each. */
  int kind = -1;
  for (int k = 0; k < nkinds; k++) {
    const char *const *v;
    size_t n = cli_getall(&a, kinds[k], &v);
    if (!n)
      continue;
    if (kind >= 0) {
      rc = cli_usage_error("run: --%s and --%s cannot be mixed (one kind of "
                           "impl per run)",
                           kinds[kind], kinds[k]);
      goto done;
    }
    kind = k;
    for (size_t i = 0; i < n; i++) {
      const char *eq = strchr(v[i], '=');
      if (!eq || eq == v[i] || !eq[1]) {
        rc = cli_usage_error("run: --%s \"%s\" is not IMPL=%s", kinds[k], v[i],
                             k == 0 ? "PATH.so" : "COMMAND");
        goto done;
      }
      if (!(names[nimpls] = strndup(v[i], (size_t)(eq - v[i])))) {
        rc = cli_out_of_memory();
        goto done;
      }
      impls[nimpls].name = names[nimpls];
      impls[nimpls].target = eq + 1;
      impls[nimpls].dir = NULL;
      nimpls++;
    }
  }
  if (kind < 0) {
    char list[512];
    size_t at = 0;
    for (int k = 0; k < nkinds && at < sizeof list; k++)
      at += (size_t)snprintf(list + at, sizeof list - at, "%s--%s",
                             k == 0            ? ""
                             : k == nkinds - 1 ? " or "
                                               : ", ",
                             kinds[k]);
    rc = cli_usage_error("run: nothing to measure: give %s IMPL=... (see "
                         "benchsite run --help)",
                         list);
    goto done;
  }
  o.mode = modes[kind];
  o.impls = impls;
  o.nimpls = nimpls;
  if (o.mode != BS_RUN_COMMAND &&
      (cli_get(&a, "benchmark") || cli_get(&a, "dataset"))) {
    rc = cli_usage_error("run: --benchmark and --dataset label a --cmd run");
    goto done;
  }
  if (o.mode == BS_RUN_LIBRARY && cli_flag(&a, "show-output")) {
    rc = cli_usage_error("run: --show-output is for commands and harnesses "
                         "(a library's output is never captured)");
    goto done;
  }
  /* --dir IMPL=DIR: where that impl's commands run. */
  const char *const *dirs;
  size_t ndirs = cli_getall(&a, "dir", &dirs);
  for (size_t d = 0; d < ndirs; d++) {
    const char *eq = strchr(dirs[d], '=');
    size_t i = 0;
    while (eq && i < nimpls &&
           (strlen(impls[i].name) != (size_t)(eq - dirs[d]) ||
            strncmp(impls[i].name, dirs[d], (size_t)(eq - dirs[d]))))
      i++;
    struct stat sd;
    if (!eq || !eq[1] || i == nimpls) {
      rc = cli_usage_error("run: --dir \"%s\" is not IMPL=DIR for an impl "
                           "of this run",
                           dirs[d]);
      goto done;
    }
    if (o.mode == BS_RUN_LIBRARY) {
      rc = cli_usage_error("run: --dir is for commands and harnesses (a "
                           "library is loaded, not run in a directory)");
      goto done;
    }
    if (impls[i].dir) {
      rc = cli_usage_error("run: --dir gives impl %s two directories",
                           impls[i].name);
      goto done;
    }
    if (stat(eq + 1, &sd) != 0 || !S_ISDIR(sd.st_mode)) {
      rc = cli_usage_error("run: --dir %s: \"%s\" is not a directory",
                           impls[i].name, eq + 1);
      goto done;
    }
    impls[i].dir = eq + 1;
  }

  const char *fresh = cli_get(&a, "fresh");
  if (fresh && strcmp(fresh, "run") && strcmp(fresh, "block")) {
    rc = cli_usage_error("run: --fresh: \"%s\" is not run or block", fresh);
    goto done;
  }
  if (fresh && bs_run_harness_name(o.mode)) {
    rc = cli_usage_error("run: --fresh is for --lib and --cmd (a harness "
                         "is started anew every block)");
    goto done;
  }
  o.fresh =
      fresh && !strcmp(fresh, "block") ? BS_RUN_FRESH_BLOCK : BS_RUN_FRESH_RUN;
  if (cli_flag(&a, "duet") && cli_flag(&a, "sequential")) {
    rc = cli_usage_error("run: --duet and --sequential exclude each other");
    goto done;
  }
  /* Side by side by default where it can be (the verdict lab measured it
   * ahead of sequential blocks, quiet and loaded); --duet insists. */
  o.duet = cli_flag(&a, "duet") ||
           (!cli_flag(&a, "sequential") && bs_run_duet_possible(&o));

  const char *protocol = cli_get(&a, "protocol");
  if (!protocol)
    protocol = BS_PROTOCOL_DEFAULT;
  if (bs_run_protocol(protocol, &o.target_us, &o.blocks, &o.runs, &err)) {
    rc = cli_usage_error("run: --protocol: %s", err.message);
    goto done;
  }
  if ((rc = cli_get_u64(&a, "blocks", &o.blocks)) ||
      (rc = cli_get_u64(&a, "runs", &o.runs)) ||
      (rc = cli_get_u64(&a, "seed", &o.seed)))
    goto done;
  /* A harness starts its programs anew every block: its runs are blocks.
   * It measures one run of the protocol's blocks x runs pairs, or of
   * --blocks pairs (N runs of them with --runs N). */
  if (bs_run_harness_name(o.mode) && !cli_get(&a, "runs")) {
    if (!cli_get(&a, "blocks"))
      o.blocks *= o.runs;
    o.runs = 1;
  }
  if (o.blocks < 1 || o.blocks > 1000000 || o.runs < 1 || o.runs > 1000000) {
    rc = cli_usage_error("run: --blocks and --runs must be 1 to 1000000");
    goto done;
  }
  /* Adaptive runs where the gate can judge them: a baseline and a
   * candidate, measured in runs of their own (a harness is started anew
   * every block), not one build under two names (an A/A run for `noise`
   * measures the runs it was asked for). */
  int can_adapt = nimpls == 2 && !bs_run_harness_name(o.mode) &&
                  !same_target(o.mode, &impls[0], &impls[1]);
  o.max_runs = can_adapt ? 4 * o.runs : o.runs;
  if (cli_get(&a, "max-runs")) {
    if ((rc = cli_get_u64(&a, "max-runs", &o.max_runs)))
      goto done;
    if (!can_adapt && o.max_runs != o.runs) {
      rc = cli_usage_error("run: --max-runs is for a baseline and a candidate "
                           "(two different --lib or --cmd impls)");
      goto done;
    }
    if (o.max_runs < o.runs || o.max_runs > 4 * o.runs) {
      rc = cli_usage_error("run: --max-runs %llu: give %llu (no extra runs) "
                           "to %llu (four times the planned runs)",
                           (unsigned long long)o.max_runs,
                           (unsigned long long)o.runs,
                           4 * (unsigned long long)o.runs);
      goto done;
    }
  }
  const char *budget = cli_get(&a, "budget");
  if (budget && ((rc = cli_parse_double("budget", budget, &o.budget_s)) ||
                 !(o.budget_s > 0 && o.budget_s <= 1e9))) {
    if (!rc)
      rc = cli_usage_error("run: --budget: \"%s\" is not a positive number "
                           "of seconds",
                           budget);
    goto done;
  }
  if (budget && o.max_runs == o.runs) {
    rc = cli_usage_error("run: --budget bounds the extra runs, and this run "
                         "has none (--max-runs)");
    goto done;
  }
  const char *layout = cli_get(&a, "layout");
  if (layout && strcmp(layout, "random") && strcmp(layout, "fixed")) {
    rc =
        cli_usage_error("run: --layout: \"%s\" is not random or fixed", layout);
    goto done;
  }
  if (layout && bs_run_harness_name(o.mode)) {
    rc = cli_usage_error("run: --layout is for --lib and --cmd (a harness "
                         "lays out its own programs)");
    goto done;
  }
  o.layout_fixed = layout && !strcmp(layout, "fixed");
  /* The layouts: drawn from a seed of this invocation's own, so that the
   * runs of every invocation are not laid out alike (one layout that
   * favours a build would then bias every gate of it the same way), or
   * from --layout-seed (a run to lay out again). */
  o.layout_seed_set = 1;
  o.layout_seed = fresh_seed();
  if (cli_get(&a, "layout-seed")) {
    if ((rc = cli_get_u64(&a, "layout-seed", &o.layout_seed)))
      goto done;
    if (o.layout_fixed || bs_run_harness_name(o.mode)) {
      rc = cli_usage_error("run: --layout-seed draws random layouts (--lib "
                           "and --cmd, not --layout fixed)");
      goto done;
    }
  }
  const char *timeout = cli_get(&a, "timeout");
  if (timeout && ((rc = cli_parse_double("timeout", timeout, &o.timeout_s)) ||
                  !(o.timeout_s > 0 && o.timeout_s <= 1e9))) {
    if (!rc)
      rc = cli_usage_error("--timeout: \"%s\" is not a positive number of "
                           "seconds",
                           timeout);
    goto done;
  }
  o.filter = cli_get(&a, "filter");
  o.show_output = cli_flag(&a, "show-output");
  o.benchmark = cli_get(&a, "benchmark");
  o.dataset = cli_get(&a, "dataset");

  /* Outputs, and the manifest, before anything is measured: a mistake
   * there costs nothing. */
  const char *out = cli_get(&a, "out");
  const char *mout = cli_get(&a, "manifest-out");
  if (!out) {
    rc = cli_usage_error("run: --out LOG is required (`-` for standard "
                         "output)");
    goto done;
  }
  if ((rc = cli_measure_check_path("out", out)) ||
      (mout && (rc = cli_measure_check_path("manifest-out", mout))))
    goto done;
  if (mout && !strcmp(out, mout)) {
    rc = cli_usage_error("run: --out and --manifest-out are the same file");
    goto done;
  }
  if ((rc = refuse_own_input(&o, out, "out")) ||
      (mout && (rc = refuse_own_input(&o, mout, "manifest-out"))))
    goto done;
  outs[nouts++].path = out;
  if (mout) {
    cli_manifest_fill fill;
    char layout_seed[32];
    memset(&fill, 0, sizeof fill);
    fill.protocol = protocol;
    if (nimpls >= 2 && same_target(o.mode, &impls[0], &impls[1])) {
      fill.aa_a = impls[0].name;
      fill.aa_b = impls[1].name;
    } else if (nimpls >= 2) {
      fill.baseline = impls[0].name;
      fill.candidate = impls[1].name;
    }
    if (bs_run_harness_name(o.mode)) {
      fill.harness = bs_run_harness_name(o.mode);
    } else {
      /* How it was measured: one batch size per case (what `check` then
       * holds the log to) and how often the measuring process is new. */
      fill.batch_rule = "least-of-three";
      fill.fresh = o.fresh == BS_RUN_FRESH_BLOCK ? "block" : "run";
      fill.layout = o.layout_fixed ? "fixed" : "random";
      if (!o.layout_fixed) {
        snprintf(layout_seed, sizeof layout_seed, "%llu",
                 (unsigned long long)o.layout_seed);
        fill.layout_seed = layout_seed;
      }
    }
    /* Command pairs are gated on CPU time (the commands' own, from their
     * rusage): in the verdict lab, at one busy process on a machine of
     * two CPUs, wall time called the slower of two dd commands (+20 %
     * CPU) faster in 6 of 10 runs and flagged it in none; CPU time gated
     * both pairs right 10 of 10. So are harness programs that report CPU
     * time (Google Benchmark; see bs_run_gate_metric). */
    bs_metric gm = bs_run_gate_metric(o.mode);
    if (gm != BS_METRIC_WALL)
      fill.gate_metric = bs_metric_get(gm)->name;
    char max_runs[32];
    snprintf(max_runs, sizeof max_runs, "%llu", (unsigned long long)o.max_runs);
    if (o.max_runs > o.runs)
      fill.max_runs = max_runs;
    if (o.duet) {
      fill.duet = "1";
      if (!bs_run_harness_name(o.mode))
        fill.duet_swap = "half-batch";
    }
    outs[nouts].path = mout;
    if ((rc = cli_manifest_render(&a, &fill, &outs[nouts].data,
                                  &outs[nouts].len)))
      goto done;
    nouts++;
  } else {
    static const char *const mopts[] = {
        "commit",   "baseline-commit", "profile", "dtype", "target",
        "baseline", "candidate",       "aa",      "set"};
    for (size_t i = 0; i < sizeof mopts / sizeof mopts[0]; i++) {
      if (cli_get(&a, mopts[i])) {
        rc = cli_usage_error("run: --%s is a manifest option: give "
                             "--manifest-out M too",
                             mopts[i]);
        goto done;
      }
    }
  }

  cli_progress prog;
  cli_progress_init(&prog, cli_flag(&a, "quiet"), 10.0);
  o.progress = on_progress;
  o.progress_ctx = &prog;
  bs_status st = bs_run_measure(&o, &res, &err);
  cli_progress_end(&prog);
  /* Warnings name cases: untrusted text, escaped as every line is. */
  for (size_t i = 0; i < res.nwarnings; i++)
    cli_linef(stderr, 0, "benchsite: run: warning: %s", res.warnings[i]);
  if (st) {
    rc = cli_report(&err);
    /* A failing harness program's last lines, quoted after the error and
     * escaped as every line is. */
    for (size_t i = 0; i < res.noutput; i++)
      cli_linef(stderr, 0, "benchsite: | %s", res.output[i]);
    if (res.wrong_result)
      rc = CLI_REGRESSION;
    goto done;
  }
  outs[0].data = res.log;
  outs[0].len = res.log_len;
  res.log = NULL;
  if (mout && o.max_runs > o.runs && (rc = append_adaptive(&outs[1], &res)))
    goto done;
  rc = cli_measure_write(outs, nouts);
  nouts = 0;
  if (!rc) {
    FILE *f = strcmp(out, "-") ? stdout : stderr;
    char extra[160] = "";
    if (res.budget_hit && !res.extra_runs)
      snprintf(extra, sizeof extra, " (no extra run: --budget spent)");
    else if (res.extra_runs)
      snprintf(extra, sizeof extra,
               " (and %llu extra run%s of the %zu case%s still undecided, "
               "%.1f s%s)",
               (unsigned long long)res.extra_runs,
               res.extra_runs == 1 ? "" : "s", res.adaptive_cases,
               res.adaptive_cases == 1 ? "" : "s", res.extra_seconds,
               res.budget_hit ? ", stopped by --budget" : "");
    cli_linef(f, 0,
              "benchsite run: %zu case%s, %zu impl%s, %llu run%s of %llu "
              "block%s%s: %zu rows written to %s%s%s",
              res.ncases, res.ncases == 1 ? "" : "s", nimpls,
              nimpls == 1 ? "" : "s", (unsigned long long)o.runs,
              o.runs == 1 ? "" : "s", (unsigned long long)o.blocks,
              o.blocks == 1 ? "" : "s", extra, res.nrows, out,
              mout ? " and the manifest to " : "", mout ? mout : "");
  }
done:
  for (size_t i = 0; i < nouts; i++)
    free(outs[i].data);
  for (size_t i = 0; i < nimpls; i++)
    free(names[i]);
  bs_run_result_release(&res);
  free(usage);
  return cli_finish(&a, rc);
}
