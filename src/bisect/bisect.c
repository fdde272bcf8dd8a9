/* benchsite bisect: the search. The start measures the bad commit against
 * the good one; each probe measures a commit of the first-parent path
 * between them against the good one, as `run` measures (paired,
 * interleaved, side by side where it can be), and is judged slower, not
 * slower or undecided; an undecided probe gets more runs in fresh
 * processes, and one still undecided ends the search with the range it
 * could not split. The culprit is measured once more against its parent
 * before it is named. */
#include "benchsite/bisect.h"
#include "benchsite/compare.h"
#include "benchsite/log.h"
#include "benchsite/protocol.h"

#include "bisect_int.h"
#include "buf.h"
#include "oom.h"
#include "strlist.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *bs_bisect_outcome_name(bs_bisect_outcome o) {
  switch (o) {
  case BS_BISECT_FOUND:
    return "found";
  case BS_BISECT_NO_STEP:
    return "no-step";
  case BS_BISECT_UNDECIDED:
    return "undecided-range";
  }
  return "?";
}

const char *bs_bisect_verdict_name(bs_bisect_verdict v) {
  switch (v) {
  case BS_BISECT_SLOWER:
    return "slower";
  case BS_BISECT_NOT_SLOWER:
    return "not slower";
  case BS_BISECT_UNDECIDED_AT:
    return "undecided";
  case BS_BISECT_SKIPPED:
    return "skipped";
  }
  return "?";
}

const char *bs_bisect_role_name(bs_bisect_role r) {
  switch (r) {
  case BS_BISECT_START:
    return "start";
  case BS_BISECT_PROBE:
    return "probe";
  case BS_BISECT_CONFIRM:
    return "confirm";
  }
  return "?";
}

int bs_bisect_exit_status(const bs_bisect_result *r) {
  return r->outcome == BS_BISECT_FOUND       ? 1
         : r->outcome == BS_BISECT_UNDECIDED ? 4
                                             : 0;
}

void bs_bisect_options_init(bs_bisect_options *o) {
  memset(o, 0, sizeof *o);
  o->mode = BS_RUN_LIBRARY;
  o->jobs = 1;
}

static void free_probe(bs_bisect_probe *p) {
  for (size_t i = 0; i < p->ncases; i++) {
    free(p->cases[i].benchmark);
    free(p->cases[i].dataset);
  }
  free(p->cases);
  free(p->commit);
  free(p->against);
  free(p->reason);
}

void bs_bisect_result_free(bs_bisect_result *r) {
  if (!r)
    return;
  for (size_t i = 0; i < r->nprobes; i++)
    free_probe(&r->probes[i]);
  free(r->probes);
  for (size_t i = 0; i < r->nskipped; i++) {
    free(r->skipped[i].commit);
    free(r->skipped[i].subject);
    free(r->skipped[i].reason);
  }
  free(r->skipped);
  bs__strlist_free(r->notes, r->nnotes);
  free(r->good);
  free(r->bad);
  free(r->protocol);
  free(r->culprit);
  free(r->culprit_subject);
  free(r->parent);
  free(r->range_first);
  free(r->range_last);
  free(r->cache);
  free(r);
}

/* ---- State ----------------------------------------------------------------
 */

/* What is known of a commit of the path. */
enum { UNKNOWN = 0, SLOWER, NOT_SLOWER, SKIPPED };

/* A case the start found slower: followed by every probe. */
typedef struct tracked {
  char *benchmark, *dataset;
  double threshold_pct; /* delta_b */
  double start_low_pct; /* the start's interval, low end */
  double start_delta_pct;
} tracked;

typedef struct state {
  const bs_bisect_options *o;
  bs__env env;
  bs__repo repo;
  bs__poll poll;
  bs__cache cache;
  int cache_open;
  char **ids; /* ids[0] good .. ids[n] bad; one block each */
  size_t n;
  int *known;    /* per index */
  int *built;    /* per index: 1 built in this bisection or found ready */
  int *reused;   /* per index: found ready in the cache */
  size_t lo, hi; /* lo not slower (good), hi slower (bad) */
  bs_bisect_result *r;
  tracked *cases;
  size_t ncases;
  double start_pct; /* the start's threshold */
  double target_us;
  uint64_t blocks, runs0, max_runs;
  const char *protocol;
  bs_bisect_progress prog;
  double t0;
} state;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static size_t ceil_log2(size_t n) {
  size_t k = 0;
  while (((size_t)1 << k) < n && k < 63)
    k++;
  return k;
}

/* Where the search stands before probe number `probe` (1-based): about
 * how many probes in all -- those made, the start when it is this one,
 * the halvings of what is left (this one included) and the
 * confirmation. */
static void update_expected(state *s, size_t probe, bs_bisect_role role) {
  s->prog.probe = probe;
  s->prog.role = role;
  s->prog.left = s->hi - s->lo;
  s->prog.expected =
      (probe - 1) + (role == BS_BISECT_START) + ceil_log2(s->hi - s->lo) + 1;
}

static int on_poll(void *ctx, size_t running) {
  state *s = ctx;
  if (!s->o->progress)
    return 0;
  s->prog.building = running;
  return s->o->progress(s->o->progress_ctx, &s->prog);
}

static int on_run_progress(void *ctx, const bs_run_progress *p) {
  state *s = ctx;
  if (!s->o->progress)
    return 0;
  s->prog.stage = BS_BISECT_MEASURING;
  s->prog.run = p;
  int rc = s->o->progress(s->o->progress_ctx, &s->prog);
  s->prog.run = NULL;
  return rc;
}

/* Whether the progress callback asks to stop (outside builds and runs). */
static int cancelled(state *s) { return bs__poll_now(&s->poll, 0); }

/* ---- The benchmark in a tree ---------------------------------------------
 */

/* Harness modes whose command runs inside its tree as it is (its first
 * word not taken as a path in the tree). */
static int runs_as_is(bs_run_mode m) {
  return m == BS_RUN_PYTEST_BENCHMARK || m == BS_RUN_GO_BENCH;
}

static int has_tree_mark(const char *s) { return strstr(s, "{tree}") != NULL; }

/* A word quoted for bs_run_split_command: single quotes, a quote inside as
 * '\''. */
static void quote_word(bs__buf *b, const char *w) {
  bs__buf_putc(b, '\'');
  for (const char *p = w; *p; p++) {
    if (*p == '\'')
      bs__buf_puts(b, "'\\''");
    else
      bs__buf_putc(b, *p);
  }
  bs__buf_putc(b, '\'');
}

/* The impl target of the benchmark in `tree`: a library path, or a
 * command line (its words quoted). */
static bs_status bench_target(const state *s, const char *tree, char **out,
                              bs_error *err) {
  const char *bench = s->o->bench;
  *out = NULL;
  if (s->o->mode == BS_RUN_LIBRARY) {
    if (has_tree_mark(bench)) {
      /* One path: "{tree}" replaced, nothing split. */
      bs__buf b;
      bs__buf_init(&b, BS__CAP_TEXT);
      for (const char *p = bench; *p;) {
        if (!strncmp(p, "{tree}", 6)) {
          bs__buf_puts(&b, tree);
          p += 6;
        } else {
          bs__buf_putc(&b, *p++);
        }
      }
      return bs__buf_finish(&b, BS_OK, "the library path", out, NULL, err);
    }
    *out = bs__strdupf("%s/%s", tree, bench);
    return *out ? BS_OK : bs__oom(err);
  }
  char **argv = NULL;
  bs_status st = bs__split_with_tree(bench, tree, &argv, err);
  if (st)
    return st;
  bs__buf b;
  bs__buf_init(&b, BS__CAP_TEXT);
  for (size_t i = 0; argv[i]; i++) {
    if (i)
      bs__buf_putc(&b, ' ');
    if (i == 0 && !runs_as_is(s->o->mode) && !has_tree_mark(bench)) {
      char *prog = bs__strdupf("%s/%s", tree, argv[0]);
      if (!prog)
        bs__buf_fail(&b, BS_ENOMEM);
      else
        quote_word(&b, prog);
      free(prog);
    } else {
      quote_word(&b, argv[i]);
    }
  }
  free(argv);
  return bs__buf_finish(&b, BS_OK, "the benchmark command", out, NULL, err);
}

/* The file a build must leave for the benchmark: the library, or the
 * program when it is a path in the tree; NULL when there is none to
 * check. */
static char *needed_file(const state *s, const char *tree) {
  if (s->o->mode == BS_RUN_LIBRARY) {
    char *t = NULL;
    bench_target(s, tree, &t, NULL);
    return t;
  }
  if (runs_as_is(s->o->mode) || has_tree_mark(s->o->bench))
    return NULL;
  char **argv = NULL;
  if (bs__split_with_tree(s->o->bench, NULL, &argv, NULL))
    return NULL;
  char *p = bs__strdupf("%s/%s", tree, argv[0]);
  free(argv);
  return p;
}

static int check_build(void *ctx, const char *tree, char *why, size_t cap) {
  const state *s = ctx;
  char *f = needed_file(s, tree);
  if (!f)
    return 1;
  struct stat sb;
  int ok = stat(f, &sb) == 0 && S_ISREG(sb.st_mode) &&
           (s->o->mode == BS_RUN_LIBRARY || access(f, X_OK) == 0);
  if (!ok) {
    const char *rel = f + strlen(tree);
    snprintf(why, cap, "the build made no %s", *rel == '/' ? rel + 1 : rel);
  }
  free(f);
  return ok;
}

/* ---- Building ---------------------------------------------------------------
 */

static bs_status add_skip(state *s, size_t i, const char *reason,
                          bs_error *err) {
  bs_bisect_result *r = s->r;
  bs_bisect_skip *k = realloc(r->skipped, (r->nskipped + 1) * sizeof *k);
  if (!k)
    return bs__oom(err);
  r->skipped = k;
  k += r->nskipped;
  memset(k, 0, sizeof *k);
  r->nskipped++;
  k->commit = bs__strdup(s->ids[i]);
  k->subject = bs__git_subject(&s->repo, s->ids[i]);
  k->reason = bs__strdup(reason);
  if (!k->commit || !k->reason)
    return bs__oom(err);
  if (!k->subject && !(k->subject = bs__strdup("")))
    return bs__oom(err);
  s->known[i] = SKIPPED;
  return BS_OK;
}

/* The next commit the search would probe in (lo, hi), nearest to the
 * middle and not skipped; 0 when there is none. */
static size_t pick(const state *s, size_t lo, size_t hi) {
  if (hi - lo < 2)
    return 0;
  size_t mid = lo + (hi - lo) / 2;
  for (size_t d = 0; d < hi - lo; d++) {
    if (mid + d < hi && s->known[mid + d] != SKIPPED)
      return mid + d;
    if (d && mid - d > lo && s->known[mid - d] != SKIPPED)
      return mid - d;
  }
  return 0;
}

/* Adds to list (up to cap) the commits the search may probe after
 * probing m in (lo, hi): breadth first, the likelier ones first. */
static void plan(const state *s, size_t lo, size_t hi, size_t *list, size_t *n,
                 size_t cap) {
  size_t qlo[64], qhi[64], head = 0, tail = 0;
  qlo[tail] = lo;
  qhi[tail++] = hi;
  while (head < tail && *n < cap) {
    size_t a = qlo[head], b = qhi[head++];
    size_t m = pick(s, a, b);
    if (!m)
      continue;
    int have = 0;
    for (size_t i = 0; i < *n; i++)
      have |= list[i] == m;
    if (!have && !s->built[m])
      list[(*n)++] = m;
    if (tail + 2 <= 64) {
      qlo[tail] = a;
      qhi[tail++] = m;
      qlo[tail] = m;
      qhi[tail++] = b;
    }
  }
}

/* Builds the commits of need[] (those not built yet) and, with --jobs
 * above 1, those the next probes may need. Builds that fail are skipped
 * (named in the result). */
static bs_status build(state *s, const size_t *need, size_t nneed,
                       bs_bisect_role role, bs_error *err) {
  size_t cap = s->o->jobs > nneed ? s->o->jobs : nneed;
  if (cap > 64)
    cap = 64;
  size_t list[64], n = 0;
  for (size_t i = 0; i < nneed && n < 64; i++)
    if (!s->built[need[i]] && s->known[need[i]] != SKIPPED)
      list[n++] = need[i];
  if (n == 0)
    return BS_OK;
  if (role != BS_BISECT_CONFIRM)
    plan(s, s->lo, s->hi, list, &n, cap);
  bs__build b[64];
  memset(b, 0, sizeof b);
  for (size_t i = 0; i < n; i++)
    b[i].id = s->ids[list[i]];
  s->prog.stage = BS_BISECT_BUILDING;
  s->prog.commit = s->ids[list[0]];
  bs_status st = bs__cache_build(&s->cache, b, n, check_build, s, err);
  for (size_t i = 0; !st && i < n; i++) {
    size_t k = list[i];
    if (b[i].ok) {
      s->built[k] = 1;
      s->reused[k] = b[i].reused;
      if (b[i].reused)
        s->r->builds_reused++;
      else
        s->r->builds_made++;
    } else {
      st = add_skip(s, k, b[i].reason, err);
    }
  }
  for (size_t i = 0; i < n; i++)
    bs__build_release(&b[i]);
  return st;
}

/* ---- Measuring --------------------------------------------------------------
 */

/* CPU ticks since boot, in all and idle (idle and iowait), from the first
 * line of /proc/stat; 0 when it cannot be read. */
static int cpu_ticks(double *total, double *idle) {
  FILE *f = fopen("/proc/stat", "r");
  if (!f)
    return 0;
  char line[512];
  int ok = fgets(line, sizeof line, f) && !strncmp(line, "cpu ", 4);
  fclose(f);
  if (!ok)
    return 0;
  *total = *idle = 0;
  char *p = line + 4;
  for (int k = 0; k < 10; k++) {
    char *end;
    double v = strtod(p, &end);
    if (end == p)
      break;
    *total += v;
    if (k == 3 || k == 4)
      *idle += v;
    p = end;
  }
  return *total > 0;
}

/* How many CPUs were idle over the last quarter second (the online CPUs
 * times the idle share of their ticks), or 0 when it cannot be told. */
static double idle_cpus(void) {
  double t0, i0, t1, i1;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1 || !cpu_ticks(&t0, &i0))
    return 0;
  struct timespec q = {0, 250000000L};
  while (nanosleep(&q, &q) != 0)
    ;
  if (!cpu_ticks(&t1, &i1) || t1 <= t0)
    return 0;
  return (double)n * (i1 - i0) / (t1 - t0);
}

static void csv_field(bs__buf *b, const char *s) {
  bs__buf_putc(b, '"');
  for (const char *p = s; *p; p++) {
    if (*p == '"')
      bs__buf_putc(b, '"');
    bs__buf_putc(b, *p);
  }
  bs__buf_putc(b, '"');
}

/* Appends the confirm rows of one measurement (the log `text`) to `all`
 * with `offset` added to their run, so that the runs of every look of a
 * probe are distinct runs of one log: wall time, and metric m's column
 * when it is another (left empty where a row lacks it, which compare
 * then names). */
static bs_status append_look(bs__buf *all, const char *text, size_t len,
                             uint64_t offset, bs_metric m, bs_error *err) {
  bs_log *log = bs_log_new();
  if (!log)
    return bs__oom(err);
  bs_status st = bs_log_read_buffer(log, "measurement", text, len, err);
  if (st) {
    bs_log_free(log);
    return st;
  }
  const bs_row *rows = bs_log_rows(log);
  for (size_t i = 0; i < bs_log_count(log); i++) {
    const bs_row *w = &rows[i];
    if (w->phase != BS_PHASE_CONFIRM)
      continue;
    const bs_case *c = bs_log_row_case(log, w);
    csv_field(all, c->benchmark);
    bs__buf_putc(all, ',');
    csv_field(all, c->dataset);
    bs__buf_putc(all, ',');
    csv_field(all, w->impl);
    bs__buf_printf(all, ",%llu,%lld,confirm,",
                   (unsigned long long)bs_row_run(log, w) +
                       (unsigned long long)offset,
                   (long long)bs_row_block(log, w));
    if (w->iterations)
      bs__buf_printf(all, "%llu", (unsigned long long)w->iterations);
    bs__buf_printf(all, ",%.17g", w->per_call_us);
    if (m != BS_METRIC_WALL) {
      bs__buf_putc(all, ',');
      if (w->metrics & (1u << m))
        bs__buf_printf(all, "%.17g", bs_log_value(log, w, m));
    }
    bs__buf_putc(all, '\n');
  }
  bs_log_free(log);
  return bs__buf_status(all) ? bs__oom(err) : BS_OK;
}

static const tracked *find_tracked(const state *s, const char *benchmark,
                                   const char *dataset) {
  for (size_t i = 0; i < s->ncases; i++)
    if (!strcmp(s->cases[i].benchmark, benchmark) &&
        !strcmp(s->cases[i].dataset, dataset))
      return &s->cases[i];
  return NULL;
}

static bs_bisect_verdict judge_case(const bs_case_compare *c, double thr) {
  if (c->delta_pct >= thr && c->ci_low_us > 0)
    return BS_BISECT_SLOWER;
  if (bs_compare_upper_pct(c) < thr)
    return BS_BISECT_NOT_SLOWER;
  return BS_BISECT_UNDECIDED_AT;
}

/* Fills p's cases and verdict from the comparison of its log: every case
 * at the start, the tracked ones after. A tracked case the log lacks makes
 * *missing point to its name. */
static bs_status judge(state *s, bs_bisect_probe *p,
                       const bs_compare_result *cr, const tracked **missing,
                       bs_error *err) {
  for (size_t i = 0; i < p->ncases; i++) {
    free(p->cases[i].benchmark);
    free(p->cases[i].dataset);
  }
  free(p->cases);
  p->cases = NULL;
  p->ncases = 0;
  *missing = NULL;
  size_t want = p->role == BS_BISECT_START ? cr->ncases : s->ncases;
  p->cases = calloc(want ? want : 1, sizeof *p->cases);
  if (!p->cases)
    return bs__oom(err);
  int any_slower = 0, all_not = 1;
  double best = -HUGE_VAL;
  for (size_t i = 0; i < cr->ncases; i++) {
    const bs_case_compare *c = &cr->cases[i];
    double thr = s->start_pct;
    if (p->role != BS_BISECT_START) {
      const tracked *t = find_tracked(s, c->benchmark, c->dataset);
      if (!t)
        continue;
      thr = t->threshold_pct;
    }
    bs_bisect_case *k = &p->cases[p->ncases++];
    k->benchmark = bs__strdup(c->benchmark);
    k->dataset = bs__strdup(c->dataset);
    if (!k->benchmark || !k->dataset)
      return bs__oom(err);
    k->threshold_pct = thr;
    k->delta_pct = c->delta_pct;
    k->ci_low_pct = 100.0 * (c->ci_low_us / c->median_baseline_us);
    k->ci_high_pct = bs_compare_upper_pct(c);
    k->blocks = c->blocks;
    k->verdict = judge_case(c, thr);
    any_slower |= k->verdict == BS_BISECT_SLOWER;
    all_not &= k->verdict == BS_BISECT_NOT_SLOWER;
  }
  if (p->role != BS_BISECT_START && p->ncases < s->ncases) {
    for (size_t t = 0; t < s->ncases; t++) {
      int seen = 0;
      for (size_t i = 0; i < p->ncases; i++)
        seen |= !strcmp(p->cases[i].benchmark, s->cases[t].benchmark) &&
                !strcmp(p->cases[i].dataset, s->cases[t].dataset);
      if (!seen) {
        *missing = &s->cases[t];
        break;
      }
    }
  }
  p->verdict = any_slower             ? BS_BISECT_SLOWER
               : all_not && p->ncases ? BS_BISECT_NOT_SLOWER
                                      : BS_BISECT_UNDECIDED_AT;
  /* The case a line shows: of those with the probe's verdict, the one
   * furthest past (or nearest to) its threshold. */
  p->shown = 0;
  for (size_t i = 0; i < p->ncases; i++) {
    const bs_bisect_case *k = &p->cases[i];
    if (k->verdict != p->verdict && p->verdict != BS_BISECT_UNDECIDED_AT)
      continue;
    double score =
        (p->verdict == BS_BISECT_NOT_SLOWER ? k->ci_high_pct : k->delta_pct) /
        k->threshold_pct;
    if (score > best) {
      best = score;
      p->shown = i;
    }
  }
  return BS_OK;
}

/* A start that found a step too imprecisely to set the probes' threshold:
 * half its delta lies below its interval's low end on some slower case
 * (the threshold would then be taken from that low end, and may fall so
 * far below the step that probes before it cannot rule it out). More runs
 * narrow it. Not when --threshold sets the probes' threshold. */
static int imprecise_start(const state *s, const bs_bisect_probe *p) {
  if (p->role != BS_BISECT_START || s->o->threshold_pct > 0)
    return 0;
  for (size_t i = 0; i < p->ncases; i++)
    if (p->cases[i].verdict == BS_BISECT_SLOWER &&
        p->cases[i].ci_low_pct < p->cases[i].delta_pct / 2)
      return 1;
  return 0;
}

static bs_bisect_probe *new_probe(state *s, bs_bisect_role role, size_t idx,
                                  size_t ref, bs_error *err) {
  bs_bisect_result *r = s->r;
  bs_bisect_probe *p = realloc(r->probes, (r->nprobes + 1) * sizeof *p);
  if (!p) {
    bs__oom(err);
    return NULL;
  }
  r->probes = p;
  p += r->nprobes++;
  memset(p, 0, sizeof *p);
  p->role = role;
  p->index = idx;
  p->commit = bs__strdup(s->ids[idx]);
  p->against = bs__strdup(s->ids[ref]);
  p->built = !s->reused[idx];
  if (!p->commit || !p->against) {
    bs__oom(err);
    return NULL;
  }
  return p;
}

/* Measures commit idx against commit ref (both built) into a new probe
 * *out: runs in fresh processes until the verdict is decided or the runs
 * reach max_runs. A benchmark that fails at idx makes a skipped probe. */
static bs_status measure(state *s, bs_bisect_role role, size_t idx, size_t ref,
                         bs_bisect_probe **out, bs_error *err) {
  bs_bisect_probe *p = new_probe(s, role, idx, ref, err);
  if (!p)
    return BS_ENOMEM;
  *out = p;
  update_expected(s, s->r->nprobes, role);
  s->prog.commit = s->ids[idx];
  s->prog.stage = BS_BISECT_MEASURING;
  char *tref = bs__cache_tree(&s->cache, s->ids[ref]);
  char *tidx = bs__cache_tree(&s->cache, s->ids[idx]);
  char *aref = NULL, *aidx = NULL;
  bs__buf all;
  bs__buf_init(&all, BS__BUF_DEFAULT_LIMIT);
  bs_status st = BS_OK;
  bs_log *log = NULL;
  bs_compare_result *cr = NULL;
  bs_run_result res;
  bs_run_result_init(&res);
  double t0 = now_s();
  if (!tref || !tidx) {
    st = bs__oom(err);
    goto done;
  }
  if ((st = bench_target(s, tref, &aref, err)) ||
      (st = bench_target(s, tidx, &aidx, err)))
    goto done;
  /* The impls' names are what messages of the run call them. */
  char short_id[16];
  snprintf(short_id, sizeof short_id, "%.12s", s->ids[idx]);
  const char *nref = role == BS_BISECT_CONFIRM ? "parent" : "good";
  const char *nidx = role == BS_BISECT_START     ? "bad"
                     : role == BS_BISECT_CONFIRM ? "culprit"
                                                 : short_id;
  bs_run_impl impls[2] = {{nref, aref, NULL}, {nidx, aidx, NULL}};
  if (s->o->mode != BS_RUN_LIBRARY) {
    impls[0].dir = tref;
    impls[1].dir = tidx;
  }
  bs__buf_puts(&all, "benchmark,dataset,impl,run,block,phase,iterations,"
                     "per_call_us");
  if (s->o->metric != BS_METRIC_WALL)
    bs__buf_printf(&all, ",%s", bs_metric_get(s->o->metric)->column);
  bs__buf_putc(&all, '\n');
  uint64_t look_runs = s->runs0;
  for (;;) {
    bs_run_options ro;
    bs_run_options_init(&ro);
    ro.mode = s->o->mode;
    ro.impls = impls;
    ro.nimpls = 2;
    ro.target_us = s->target_us;
    ro.blocks = s->blocks;
    ro.runs = look_runs;
    ro.seed = s->o->seed + p->runs;
    ro.filter = s->o->filter;
    if (s->o->timeout_s > 0)
      ro.timeout_s = s->o->timeout_s;
    ro.duet = s->o->duet >= 0 && bs_run_duet_possible(&ro) &&
              (s->o->duet > 0 || idle_cpus() >= 1.8);
    p->duet |= ro.duet;
    ro.progress = on_run_progress;
    ro.progress_ctx = s;
    s->r->duet |= ro.duet;
    s->prog.runs = p->runs;
    bs_error why;
    bs_error_clear(&why);
    bs_run_result_release(&res);
    bs_run_result_init(&res);
    st = bs_run_measure(&ro, &res, &why);
    if (st && cancelled(s)) {
      st = bs_error_set(err, BS_EIO, NULL, 0, "cancelled");
      goto done;
    }
    if (st && (res.wrong_result || st == BS_EINPUT)) {
      /* The benchmark at fault at this commit: skipped, as a commit that
       * does not build. */
      p->verdict = BS_BISECT_SKIPPED;
      char reason[1000];
      if (res.wrong_result)
        snprintf(reason, sizeof reason,
                 "its benchmark computes a different result from %.12s's "
                 "(%s)",
                 s->ids[ref], why.message);
      else
        snprintf(reason, sizeof reason, "its benchmark fails (%s)",
                 why.message);
      p->reason = bs__strdup(reason);
      st = p->reason ? BS_OK : bs__oom(err);
      goto done;
    }
    if (st) {
      *err = why;
      goto done;
    }
    if ((st = append_look(&all, res.log, res.log_len, p->runs, s->o->metric,
                          err)))
      goto done;
    p->runs += look_runs;
    p->looks++;
    bs_log_free(log);
    bs_compare_result_free(cr);
    cr = NULL;
    if (!(log = bs_log_new())) {
      st = bs__oom(err);
      goto done;
    }
    if ((st = bs_log_read_buffer(log, "measurement", all.data, all.len, err)))
      goto done;
    bs_compare_options co;
    bs_compare_options_init(&co, BS_MODE_HOTSPOT);
    co.threshold_pct = BS_GATE_THRESHOLD_PCT;
    co.resamples = BS_GATE_RESAMPLES;
    /* Each look spends part of the one-sided 2.5 % as run's adaptive
     * looks do (the first a 96 % interval, every later one 99.3 %): that
     * identical code looks slower, or a slower commit not slower, at some
     * look stays as unlikely as at a single one. */
    co.level_pct = bs_compare_look_level((unsigned)p->looks);
    co.metric = s->o->metric;
    co.seed = s->o->seed;
    if ((st = bs_compare_run(log, nref, nidx, &co, &cr, &why))) {
      if (st == BS_EUSAGE) {
        /* No case in common: the commit lacks every case measured. */
        p->verdict = BS_BISECT_SKIPPED;
        p->reason = bs__strdupf("its benchmark has none of the cases (%s)",
                                why.message);
        st = p->reason ? BS_OK : bs__oom(err);
      } else {
        *err = why;
      }
      goto done;
    }
    const tracked *missing = NULL;
    if ((st = judge(s, p, cr, &missing, err)))
      goto done;
    if (missing) {
      p->verdict = BS_BISECT_SKIPPED;
      p->reason =
          bs__strdupf("its benchmark lacks the case %s%s%s%s",
                      missing->benchmark, missing->dataset[0] ? " [" : "",
                      missing->dataset, missing->dataset[0] ? "]" : "");
      st = p->reason ? BS_OK : bs__oom(err);
      goto done;
    }
    if ((p->verdict != BS_BISECT_UNDECIDED_AT && !imprecise_start(s, p)) ||
        p->runs >= s->max_runs || p->looks > BS_LOG_MAX_LOOK)
      break;
    if (cancelled(s)) {
      st = bs_error_set(err, BS_EIO, NULL, 0, "cancelled");
      goto done;
    }
    /* More runs in rounds of a third of what max_runs allows beyond the
     * planned ones, as run's adaptive runs take them: looks at one, two,
     * three and four times the planned runs by default. */
    uint64_t round =
        (s->max_runs - s->runs0 + BS_LOG_MAX_LOOK - 1) / BS_LOG_MAX_LOOK;
    look_runs = round < s->max_runs - p->runs ? round : s->max_runs - p->runs;
  }
done:
  p->seconds = now_s() - t0;
  bs_compare_result_free(cr);
  bs_log_free(log);
  bs_run_result_release(&res);
  bs__buf_release(&all);
  free(aref);
  free(aidx);
  free(tref);
  free(tidx);
  return st;
}

/* ---- The search
 * ---------------------------------------------------------------
 */

static bs_status note(state *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static bs_status note(state *s, const char *fmt, ...) {
  char text[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  return bs__strlist_addf(&s->r->notes, &s->r->nnotes, "%s", text);
}

static bs_status check_ref(const char *opt, const char *ref, bs_error *err) {
  if (!ref || !ref[0])
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "--%s: name a commit", opt);
  if (ref[0] == '-')
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "--%s: \"%s\" looks like an option, not a commit", opt,
                        ref);
  for (const char *p = ref; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f)
      return bs_error_set(err, BS_EUSAGE, NULL, 0,
                          "--%s: a commit name holds no control characters",
                          opt);
  if (strlen(ref) > 1024)
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "--%s: the name is too long",
                        opt);
  return BS_OK;
}

/* The full id of ref (a commit), malloc'd into *id. */
static bs_status resolve(state *s, const char *opt, const char *ref, char **id,
                         bs_error *err) {
  bs_status st = check_ref(opt, ref, err);
  if (st)
    return st;
  char *spec = bs__strdupf("%s^{commit}", ref);
  if (!spec)
    return bs__oom(err);
  const char *args[] = {"rev-parse",        "--verify", "--quiet",
                        "--end-of-options", spec,       NULL};
  int status = 0;
  char *out = NULL;
  st = bs__git(&s->repo, args, &out, NULL, &status, err);
  free(spec);
  if (st)
    return st;
  out[strcspn(out, "\r\n")] = '\0';
  if (status != 0 || !bs__is_commit_id(out)) {
    free(out);
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "--%s: \"%s\" is not a commit of the repository", opt,
                        ref);
  }
  *id = out;
  return BS_OK;
}

/* The first-parent path from good to bad into s->ids. */
static bs_status read_path(state *s, bs_error *err) {
  const char *good = s->r->good, *bad = s->r->bad;
  if (!strcmp(good, bad))
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "--good and --bad are the same commit %.12s", good);
  const char *anc[] = {"merge-base", "--is-ancestor", good, bad, NULL};
  int status = 0;
  bs_status st = bs__git(&s->repo, anc, NULL, NULL, &status, err);
  if (st)
    return st;
  if (status == 1)
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "the good commit %.12s is not an ancestor of the bad "
                        "commit %.12s",
                        good, bad);
  if (status != 0)
    return bs_error_set(err, BS_EIO, NULL, 0,
                        "git merge-base failed (exit status %d)", status);
  char *not_good = bs__strdupf("^%s", good);
  if (!not_good)
    return bs__oom(err);
  const char *list[] = {"rev-list", "--first-parent", "--parents", "--reverse",
                        bad,        not_good,         NULL};
  char *out = NULL;
  size_t len = 0;
  st = bs__git(&s->repo, list, &out, &len, NULL, err);
  free(not_good);
  if (st)
    return st;
  size_t lines = 0;
  for (size_t i = 0; i < len; i++)
    lines += out[i] == '\n';
  s->ids = calloc(lines + 2, sizeof *s->ids);
  s->known = calloc(lines + 2, sizeof *s->known);
  s->built = calloc(lines + 2, sizeof *s->built);
  s->reused = calloc(lines + 2, sizeof *s->reused);
  if (!s->ids || !s->known || !s->built || !s->reused) {
    free(out);
    return bs__oom(err);
  }
  if (!(s->ids[0] = bs__strdup(good))) {
    free(out);
    return bs__oom(err);
  }
  size_t n = 0;
  char *line = out;
  while (*line) {
    char *end = strchr(line, '\n');
    if (end)
      *end = '\0';
    char *sp = strchr(line, ' ');
    if (sp)
      *sp = '\0';
    char *parent = sp ? sp + 1 : NULL;
    if (parent)
      parent[strcspn(parent, " ")] = '\0';
    if (!bs__is_commit_id(line) || !parent || strcmp(parent, s->ids[n])) {
      int off_path = n == 0 && bs__is_commit_id(line);
      free(out);
      if (off_path)
        return bs_error_set(err, BS_EINPUT, NULL, 0,
                            "the good commit %.12s is not on the first-parent "
                            "history of the bad commit %.12s (it came in "
                            "through a merge): choose a commit of that "
                            "history",
                            good, bad);
      return bs_error_set(err, BS_EIO, NULL, 0,
                          "unexpected output from git rev-list");
    }
    if (!(s->ids[++n] = bs__strdup(line))) {
      free(out);
      return bs__oom(err);
    }
    if (!end)
      break;
    line = end + 1;
  }
  free(out);
  if (n == 0 || strcmp(s->ids[n], bad))
    return bs_error_set(err, BS_EIO, NULL, 0,
                        "unexpected output from git rev-list");
  s->n = n;
  return BS_OK;
}

/* The cases the start found slower, with their probe thresholds. */
static bs_status track(state *s, const bs_bisect_probe *start, bs_error *err) {
  s->cases = calloc(start->ncases, sizeof *s->cases);
  if (!s->cases)
    return bs__oom(err);
  size_t undecided = 0;
  char names[600] = "";
  for (size_t i = 0; i < start->ncases; i++) {
    const bs_bisect_case *c = &start->cases[i];
    if (c->verdict == BS_BISECT_UNDECIDED_AT) {
      if (undecided++ < 4) {
        size_t u = strlen(names);
        snprintf(names + u, sizeof names - u, "%s%s%s%s%s",
                 undecided > 1 ? ", " : "", c->benchmark,
                 c->dataset[0] ? " [" : "", c->dataset,
                 c->dataset[0] ? "]" : "");
      }
      continue;
    }
    if (c->verdict != BS_BISECT_SLOWER)
      continue;
    tracked *t = &s->cases[s->ncases++];
    t->benchmark = bs__strdup(c->benchmark);
    t->dataset = bs__strdup(c->dataset);
    if (!t->benchmark || !t->dataset)
      return bs__oom(err);
    /* Half the step the start measured; but a noisy start can
     * overestimate it, and a threshold above the true step would make
     * the probes after it undecided: never above what the start shows
     * with confidence (its interval's low end), nor below half the
     * start's own threshold (a step that small was not asked for). */
    double half = c->delta_pct / 2;
    if (half > c->ci_low_pct)
      half = c->ci_low_pct;
    if (half < s->start_pct / 2)
      half = s->start_pct / 2;
    t->threshold_pct = s->o->threshold_pct > 0 ? s->o->threshold_pct : half;
    t->start_low_pct = c->ci_low_pct;
    t->start_delta_pct = c->delta_pct;
  }
  if (undecided)
    return note(s,
                "%zu case%s could neither be shown slower nor ruled out "
                "between good and bad and %s not followed: %s%s",
                undecided, undecided == 1 ? "" : "s",
                undecided == 1 ? "was" : "were", names,
                undecided > 4 ? ", ..." : "");
  return BS_OK;
}

static bs_status set_range(state *s, size_t first, size_t last, bs_error *err) {
  s->r->outcome = BS_BISECT_UNDECIDED;
  s->r->range_first = bs__strdup(s->ids[first]);
  s->r->range_last = bs__strdup(s->ids[last]);
  return s->r->range_first && s->r->range_last ? BS_OK : bs__oom(err);
}

static bs_status search(state *s, bs_error *err) {
  bs_bisect_result *r = s->r;
  bs_status st;
  bs_bisect_probe *p = NULL;
  /* The start: good and bad, each must build and measure. */
  s->lo = 0;
  s->hi = s->n;
  update_expected(s, 1, BS_BISECT_START);
  size_t ends[2] = {0, s->n};
  if ((st = build(s, ends, 2, BS_BISECT_START, err)))
    return st;
  for (size_t k = 0; k < r->nskipped; k++) {
    const bs_bisect_skip *e = &r->skipped[k];
    int good = !strcmp(e->commit, r->good);
    if (good || !strcmp(e->commit, r->bad))
      return bs_error_set(err, BS_EINPUT, NULL, 0, "the %s commit %.12s %s",
                          good ? "good" : "bad", e->commit, e->reason);
  }
  if ((st = measure(s, BS_BISECT_START, s->n, 0, &p, err)))
    return st;
  if (p->verdict == BS_BISECT_SKIPPED)
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "bad %.12s against good %.12s cannot be measured: %s",
                        s->ids[s->n], s->ids[0], p->reason);
  if (p->verdict == BS_BISECT_NOT_SLOWER) {
    r->outcome = BS_BISECT_NO_STEP;
    return BS_OK;
  }
  if (p->verdict == BS_BISECT_UNDECIDED_AT) {
    if ((st = note(s,
                   "good against bad could neither show a step of %g %% "
                   "nor rule one out in %llu runs",
                   s->start_pct, (unsigned long long)p->runs)))
      return st;
    return set_range(s, 1, s->n, err);
  }
  if ((st = track(s, p, err)))
    return st;
  /* The halvings. */
  while (s->hi - s->lo > 1) {
    size_t m = pick(s, s->lo, s->hi);
    if (!m) {
      if ((st = note(s,
                     "every commit between %.12s and %.12s was skipped: "
                     "the step is at one of them or at %.12s",
                     s->ids[s->lo], s->ids[s->hi], s->ids[s->hi])))
        return st;
      return set_range(s, s->lo + 1, s->hi, err);
    }
    update_expected(s, r->nprobes + 1, BS_BISECT_PROBE);
    if ((st = build(s, &m, 1, BS_BISECT_PROBE, err)))
      return st;
    if (s->known[m] == SKIPPED) {
      /* In the trail too, measured as nothing. */
      bs_bisect_probe *q = new_probe(s, BS_BISECT_PROBE, m, 0, err);
      if (!q)
        return BS_ENOMEM;
      q->verdict = BS_BISECT_SKIPPED;
      q->built = 0;
      if (!(q->reason = bs__strdup(r->skipped[r->nskipped - 1].reason)))
        return bs__oom(err);
      continue;
    }
    if ((st = measure(s, BS_BISECT_PROBE, m, 0, &p, err)))
      return st;
    switch (p->verdict) {
    case BS_BISECT_SKIPPED:
      if ((st = add_skip(s, m, p->reason, err)))
        return st;
      break;
    case BS_BISECT_SLOWER:
      s->known[m] = SLOWER;
      s->hi = m;
      break;
    case BS_BISECT_NOT_SLOWER:
      s->known[m] = NOT_SLOWER;
      s->lo = m;
      break;
    case BS_BISECT_UNDECIDED_AT:
      if ((st = note(s,
                     "%.12s could not be judged in %llu runs: the step is "
                     "between %.12s and %.12s",
                     s->ids[m], (unsigned long long)p->runs, s->ids[s->lo + 1],
                     s->ids[s->hi])))
        return st;
      return set_range(s, s->lo + 1, s->hi, err);
    }
  }
  /* The end: the culprit against its parent, directly. */
  size_t c = s->hi, par = s->hi - 1;
  size_t both[2] = {par, c};
  update_expected(s, r->nprobes + 1, BS_BISECT_CONFIRM);
  if ((st = build(s, both, 2, BS_BISECT_CONFIRM, err)))
    return st;
  if ((st = measure(s, BS_BISECT_CONFIRM, c, par, &p, err)))
    return st;
  if (p->verdict == BS_BISECT_SLOWER) {
    r->outcome = BS_BISECT_FOUND;
    r->culprit = bs__strdup(s->ids[c]);
    r->parent = bs__strdup(s->ids[par]);
    r->culprit_subject = bs__git_subject(&s->repo, s->ids[c]);
    if (!r->culprit_subject)
      r->culprit_subject = bs__strdup("");
    if (!r->culprit || !r->parent || !r->culprit_subject)
      return bs__oom(err);
    /* A culprit that explains less than the start saw: more steps. */
    const bs_bisect_case *k = &p->cases[p->shown];
    const tracked *t = find_tracked(s, k->benchmark, k->dataset);
    if (t && k->ci_high_pct < t->start_low_pct &&
        (st = note(s,
                   "%s%s%s%s: the culprit's %+.2f %% is less than the %+.2f "
                   "%% between good and bad: the range may hold more "
                   "steps, and the search finds one",
                   k->benchmark, k->dataset[0] ? " [" : "", k->dataset,
                   k->dataset[0] ? "]" : "", k->delta_pct, t->start_delta_pct)))
      return st;
    return BS_OK;
  }
  if ((st = note(s,
                 "%.12s against its parent %.12s is %s: the slowdown "
                 "between good and bad may be spread over several commits, "
                 "or a probe misled the search",
                 s->ids[c], s->ids[par], bs_bisect_verdict_name(p->verdict))))
    return st;
  return set_range(s, c, c, err);
}

bs_status bs_bisect_run(const bs_bisect_options *o, bs_bisect_result **out,
                        bs_error *err) {
  *out = NULL;
  state s;
  memset(&s, 0, sizeof s);
  s.o = o;
  s.t0 = now_s();
  s.cache.lock_fd = -1;
  bs_status st;
  if (!o->build || !o->build[0])
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "--build: name the command that builds a commit");
  if (!o->bench || !o->bench[0])
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "name the benchmark");
  if ((st = check_ref("good", o->good, err)) ||
      (st = check_ref("bad", o->bad, err)))
    return st;
  char **argv = NULL;
  if ((st = bs__split_with_tree(o->build, "", &argv, err)))
    return st;
  free(argv);
  if (o->mode != BS_RUN_LIBRARY) {
    if ((st = bs__split_with_tree(o->bench, "", &argv, err)))
      return st;
    int absolute = argv[0][0] == '/';
    free(argv);
    if (absolute && !runs_as_is(o->mode) && !has_tree_mark(o->bench))
      return bs_error_set(err, BS_EUSAGE, NULL, 0,
                          "the benchmark command starts with an absolute "
                          "path, the same program at every commit: give its "
                          "path inside the tree, or write {tree} where the "
                          "tree goes");
  } else if (o->bench[0] == '/' && !has_tree_mark(o->bench)) {
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "--lib %s is an absolute path, the same library at "
                        "every commit: give its path inside the tree, or "
                        "write {tree} where the tree goes",
                        o->bench);
  }
  if (!bs_metric_get(o->metric))
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "unknown metric");
  s.protocol = o->protocol ? o->protocol : BS_PROTOCOL_DEFAULT;
  if ((st =
           bs_run_protocol(s.protocol, &s.target_us, &s.blocks, &s.runs0, err)))
    return st;
  if (o->blocks)
    s.blocks = o->blocks;
  s.max_runs = o->max_runs ? o->max_runs : 4 * s.runs0;
  if (s.max_runs < s.runs0 || s.max_runs > 4 * s.runs0)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "--max-runs %llu: from the %llu runs of the protocol "
                        "%s to four times as many (the levels of the looks "
                        "hold that far)",
                        (unsigned long long)s.max_runs,
                        (unsigned long long)s.runs0, s.protocol);
  if (o->threshold_pct != 0 &&
      !(o->threshold_pct >= BS_MIN_THRESHOLD_PCT && o->threshold_pct < 1e6))
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "--threshold %g: a percentage of at least %g, please",
                        o->threshold_pct, BS_MIN_THRESHOLD_PCT);
  s.start_pct = o->threshold_pct > 0 ? o->threshold_pct : BS_GATE_THRESHOLD_PCT;
  s.poll.fn = on_poll;
  s.poll.ctx = &s;
  s.prog.stage = BS_BISECT_PREPARING;
  s.r = calloc(1, sizeof *s.r);
  if (!s.r)
    return bs__oom(err);
  s.r->threshold_pct = s.start_pct;
  s.r->threshold_given = o->threshold_pct > 0;
  s.r->metric = o->metric;
  if (!(s.r->protocol = bs__strdup(s.protocol))) {
    st = bs__oom(err);
    goto done;
  }
  if ((st = bs__env_init(&s.env, err)))
    goto done;
  s.repo.dir = o->repo ? o->repo : ".";
  s.repo.env = &s.env;
  s.repo.poll = &s.poll;
  if ((st = bs__repo_open(&s.repo, err)))
    goto done;
  if ((st = resolve(&s, "good", o->good, &s.r->good, err)) ||
      (st = resolve(&s, "bad", o->bad, &s.r->bad, err)) ||
      (st = read_path(&s, err)))
    goto done;
  s.r->commits = s.n;
  char *cache = o->cache ? bs__strdup(o->cache)
                         : bs__strdupf("%s/benchsite-bisect", s.repo.common);
  if (!cache) {
    st = bs__oom(err);
    goto done;
  }
  st = bs__cache_open(&s.cache, cache, &s.repo, o->build, err);
  free(cache);
  if (st)
    goto done;
  if (!(s.r->cache = bs__strdup(s.cache.dir))) {
    st = bs__oom(err);
    goto done;
  }
  if ((st = note(&s, "the search assumes one step between good and bad")))
    goto done;
  st = search(&s, err);
done:
  bs__cache_close(&s.cache);
  bs__repo_release(&s.repo);
  bs__env_release(&s.env);
  for (size_t i = 0; s.ids && i <= s.n; i++)
    free(s.ids[i]);
  free(s.ids);
  free(s.known);
  free(s.built);
  free(s.reused);
  for (size_t i = 0; i < s.ncases; i++) {
    free(s.cases[i].benchmark);
    free(s.cases[i].dataset);
  }
  free(s.cases);
  if (st) {
    bs_bisect_result_free(s.r);
    return st;
  }
  s.r->seconds = now_s() - s.t0;
  *out = s.r;
  return BS_OK;
}
