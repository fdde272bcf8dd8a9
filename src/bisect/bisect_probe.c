/* benchsite bisect: a probe. The benchmark in a built tree (a library
 * path or a command line, "{tree}" replaced), measured against another
 * tree as `run` measures (paired, interleaved, side by side where two
 * CPUs can be had), look after look in fresh processes until it is decided,
 * and judged case by case against the thresholds the start set. The
 * search that asks for the probes is bisect.c. */
#include "bisect_probe.h"

#include "benchsite/compare.h"
#include "benchsite/log.h"

#include "buf.h"
#include "oom.h"
#include "strlist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double bs__bisect_now(void) {
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
void bs__bisect_expect(bs__bisect_state *s, size_t probe, bs_bisect_role role) {
  s->prog.probe = probe;
  s->prog.role = role;
  s->prog.left = s->hi - s->lo;
  s->prog.expected =
      (probe - 1) + (role == BS_BISECT_START) + ceil_log2(s->hi - s->lo) + 1;
}

static int on_run_progress(void *ctx, const bs_run_progress *p) {
  bs__bisect_state *s = ctx;
  if (!s->o->progress)
    return 0;
  s->prog.stage = BS_BISECT_MEASURING;
  s->prog.run = p;
  int rc = s->o->progress(s->o->progress_ctx, &s->prog);
  s->prog.run = NULL;
  return rc;
}

/* Whether the progress callback asks to stop (outside builds and runs). */
int bs__bisect_cancelled(bs__bisect_state *s) {
  return bs__poll_now(&s->poll, 0);
}

/* ---- The benchmark in a tree ---------------------------------------------
 */

/* Harness modes whose command runs inside its tree as it is (its first
 * word not taken as a path in the tree). */
int bs__bisect_runs_as_is(bs_run_mode m) {
  return m == BS_RUN_PYTEST_BENCHMARK || m == BS_RUN_GO_BENCH;
}

int bs__bisect_has_tree_mark(const char *s) {
  return strstr(s, "{tree}") != NULL;
}

/* The impl target of the benchmark in `tree`: a library path, or a
 * command line (its words quoted). */
static bs_status bench_target(const bs__bisect_state *s, const char *tree,
                              char **out, bs_error *err) {
  const char *bench = s->o->bench;
  *out = NULL;
  if (s->o->mode == BS_RUN_LIBRARY) {
    if (bs__bisect_has_tree_mark(bench)) {
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
    if (i == 0 && !bs__bisect_runs_as_is(s->o->mode) &&
        !bs__bisect_has_tree_mark(bench)) {
      char *prog = bs__strdupf("%s/%s", tree, argv[0]);
      if (!prog)
        bs__buf_fail(&b, BS_ENOMEM);
      else
        bs__buf_put_quoted(&b, prog);
      free(prog);
    } else {
      bs__buf_put_quoted(&b, argv[i]);
    }
  }
  free(argv);
  return bs__buf_finish(&b, BS_OK, "the benchmark command", out, NULL, err);
}

/* The file a build must leave for the benchmark: the library, or the
 * program when it is a path in the tree; NULL when there is none to
 * check. */
static char *needed_file(const bs__bisect_state *s, const char *tree) {
  if (s->o->mode == BS_RUN_LIBRARY) {
    char *t = NULL;
    bench_target(s, tree, &t, NULL);
    return t;
  }
  if (bs__bisect_runs_as_is(s->o->mode) ||
      bs__bisect_has_tree_mark(s->o->bench))
    return NULL;
  char **argv = NULL;
  if (bs__split_with_tree(s->o->bench, NULL, &argv, NULL))
    return NULL;
  char *p = bs__strdupf("%s/%s", tree, argv[0]);
  free(argv);
  return p;
}

int bs__bisect_check_build(void *ctx, const char *tree, char *why, size_t cap) {
  const bs__bisect_state *s = ctx;
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
/* ---- Measuring --------------------------------------------------------------
 */

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

const bs__tracked *bs__bisect_find_tracked(const bs__bisect_state *s,
                                           const char *benchmark,
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
static bs_status judge(bs__bisect_state *s, bs_bisect_probe *p,
                       const bs_compare_result *cr, const bs__tracked **missing,
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
      const bs__tracked *t =
          bs__bisect_find_tracked(s, c->benchmark, c->dataset);
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
static int imprecise_start(const bs__bisect_state *s,
                           const bs_bisect_probe *p) {
  if (p->role != BS_BISECT_START || s->o->threshold_pct > 0)
    return 0;
  for (size_t i = 0; i < p->ncases; i++)
    if (p->cases[i].verdict == BS_BISECT_SLOWER &&
        p->cases[i].ci_low_pct < p->cases[i].delta_pct / 2)
      return 1;
  return 0;
}

bs_bisect_probe *bs__bisect_new_probe(bs__bisect_state *s, bs_bisect_role role,
                                      size_t idx, size_t ref, bs_error *err) {
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
bs_status bs__bisect_measure(bs__bisect_state *s, bs_bisect_role role,
                             size_t idx, size_t ref, bs_bisect_probe **out,
                             bs_error *err) {
  bs_bisect_probe *p = bs__bisect_new_probe(s, role, idx, ref, err);
  if (!p)
    return BS_ENOMEM;
  *out = p;
  bs__bisect_expect(s, s->r->nprobes, role);
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
  double t0 = bs__bisect_now();
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
    ro.duet = s->o->duet >= 0 && bs_run_duet_possible(&ro);
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
    if (st && bs__bisect_cancelled(s)) {
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
    const bs__tracked *missing = NULL;
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
    if (bs__bisect_cancelled(s)) {
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
  p->seconds = bs__bisect_now() - t0;
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
