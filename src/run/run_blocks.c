/* benchsite: `benchsite run` in library and command mode -- calibration,
 * one batch size per case, rotated (or duet) blocks, fresh measuring
 * processes, digests. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sched_getaffinity */
#endif
#include "benchsite/compare.h"
#include "benchsite/protocol.h"
#include "benchsite/run.h"

#include "lmath.h"
#include "oom.h"
#include "run_common.h"
#include "run_int.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What an impl runs unlogged before its calibration, and every impl
 * before block 0 (warm_up, warm_blocks): at least this many µs. */
#define BS__WARM_US 2000.0

typedef struct rcase {
  const char *benchmark, *dataset; /* owned by the exec (or the options) */
  double scale;
  size_t *idx;     /* per impl: its index in that impl's table */
  uint64_t *batch; /* per impl: the confirm batch size of the current run */
  /* Per impl: its least per-call time over its last three calibration
   * steps, in wall time and in CPU time (0: not measured). */
  double *cal_pc, *cal_cpu;
  int has_digest; /* every impl has a digest */
  int live;       /* set up in the current measuring process(es) */
  int todo;       /* measured in the current run (adaptive rounds) */
} rcase;

typedef struct sched {
  const bs_run_options *o;
  bs__exec ex;
  rcase *cases;
  size_t ncases;
  bs__buf log;
  bs__run_cols cols; /* the log's columns */
  unsigned look;     /* the look of the rows being measured */
  bs__rep *reps;     /* a block's answers, per impl */
  bs_run_result *r;
  int cpu[2];    /* duet: the two CPUs */
  int same;      /* every impl is the same build: one batch size always */
  int warming;   /* the batches are warm_blocks' (unlogged) */
  size_t *order; /* nimpls: the setup or the calibration order of a case */
  double done, total;
} sched;

/* The most times one block is measured: once, then again while one of
 * its batches lost its CPU to other work. Under a load that takes one
 * CPU of two most of the time, three more tries leave a preempted block
 * in about one of sixteen. */
#define BS__TRIES 4

static int case_matches(const bs_run_options *o, const char *benchmark,
                        const char *dataset) {
  bs__filter f;
  bs__filter_parse(&f, o->filter);
  return bs__filter_match(&f, benchmark, strlen(benchmark), dataset,
                          strlen(dataset));
}

static void free_case(rcase *rc) {
  free(rc->idx);
  free(rc->batch);
  free(rc->cal_pc);
  free(rc->cal_cpu);
  memset(rc, 0, sizeof *rc);
}

static bs_status new_case(rcase *rc, size_t k) {
  k = k ? k : 1;
  rc->idx = calloc(k, sizeof *rc->idx);
  rc->batch = calloc(k, sizeof *rc->batch);
  rc->cal_pc = calloc(k, sizeof *rc->cal_pc);
  rc->cal_cpu = calloc(k, sizeof *rc->cal_cpu);
  rc->todo = 1;
  if (rc->idx && rc->batch && rc->cal_pc && rc->cal_cpu)
    return BS_OK;
  free_case(rc);
  return BS_ENOMEM;
}

/* The cases every impl has, in the first impl's order; the others are
 * warnings. Each impl's table is indexed by name (a hash map). */
static bs_status match_cases(sched *s, bs__run_cases *by, bs_error *err) {
  const bs_run_options *o = s->o;
  size_t k = o->nimpls;
  bs__exec *e = &s->ex;
  char label[300];
  for (size_t i = 0; i < k; i++) {
    for (size_t c = 0; c < e->ncases[i]; c++) {
      const bs__exec_case *ec = &e->cases[i][c];
      if (!bs__run_valid_utf8(ec->benchmark) ||
          !bs__run_valid_utf8(ec->dataset))
        return bs_error_set(err, BS_EINPUT, NULL, 0,
                            "%s: case %s: its name is not valid UTF-8",
                            o->impls[i].name,
                            bs__run_case_label(label, sizeof label,
                                               ec->benchmark, ec->dataset));
      int added =
          bs__run_cases_put(&by[i], ec->benchmark, strlen(ec->benchmark),
                            ec->dataset, strlen(ec->dataset), c, NULL);
      if (added < 0)
        return bs__oom(err);
      if (!added)
        return bs_error_set(err, BS_EINPUT, NULL, 0,
                            "%s: case %s is defined twice", o->impls[i].name,
                            bs__run_case_label(label, sizeof label,
                                               ec->benchmark, ec->dataset));
    }
  }
  s->cases = calloc(e->ncases[0] ? e->ncases[0] : 1, sizeof *s->cases);
  if (!s->cases)
    return bs__oom(err);
  for (size_t c = 0; c < e->ncases[0]; c++) {
    const bs__exec_case *ec = &e->cases[0][c];
    if (!case_matches(o, ec->benchmark, ec->dataset))
      continue;
    rcase *rc = &s->cases[s->ncases];
    if (new_case(rc, k))
      return bs__oom(err);
    rc->benchmark = ec->benchmark;
    rc->dataset = ec->dataset;
    rc->scale = ec->scale;
    rc->has_digest = 1;
    const char *missing = NULL;
    for (size_t i = 0; i < k; i++) {
      size_t j = 0;
      int got = bs__run_cases_get(&by[i], ec->benchmark, ec->dataset, &j);
      if (got < 0)
        return bs__oom(err);
      if (!got) {
        missing = o->impls[i].name;
        break;
      }
      rc->idx[i] = j;
      if (!e->cases[i][j].has_digest)
        rc->has_digest = 0;
    }
    if (missing) {
      char esc[128];
      free_case(rc);
      if (bs__run_warn(s->r, "case %s: impl %s lacks it; skipped",
                       bs__run_case_label(label, sizeof label, ec->benchmark,
                                          ec->dataset),
                       bs__run_text(esc, sizeof esc, missing)))
        return bs__oom(err);
      continue;
    }
    s->ncases++;
  }
  for (size_t i = 1; i < k; i++) {
    for (size_t c = 0; c < e->ncases[i]; c++) {
      const bs__exec_case *ec = &e->cases[i][c];
      size_t j;
      int got = bs__run_cases_get(&by[0], ec->benchmark, ec->dataset, &j);
      if (got < 0)
        return bs__oom(err);
      if (got || !case_matches(o, ec->benchmark, ec->dataset))
        continue;
      char esc[128];
      if (bs__run_warn(s->r, "case %s: only impl %s has it; skipped",
                       bs__run_case_label(label, sizeof label, ec->benchmark,
                                          ec->dataset),
                       bs__run_text(esc, sizeof esc, o->impls[i].name)))
        return bs__oom(err);
    }
  }
  return BS_OK;
}

/* "IMPL: CASE: a confirm batch of N calls, block J of run R". */
static const char *what(char *out, size_t n, const sched *s, size_t impl,
                        const rcase *c, const char *doing) {
  char esc[128], label[300];
  snprintf(out, n, "%s: %s: %s",
           bs__run_text(esc, sizeof esc, s->o->impls[impl].name),
           bs__run_case_label(label, sizeof label, c->benchmark, c->dataset),
           doing);
  return out;
}

static void batch_doing(char *out, size_t n, const sched *s, uint64_t calls,
                        uint64_t run, long long block) {
  const char *unit = s->o->mode == BS_RUN_COMMAND ? "runs" : "calls";
  if (s->warming)
    snprintf(out, n, "a warm-up batch of %llu %s before block 0 of run %llu",
             (unsigned long long)calls, unit, (unsigned long long)run);
  else if (block < 0)
    snprintf(out, n, "a calibration batch of %llu %s, run %llu",
             (unsigned long long)calls, unit, (unsigned long long)run);
  else
    snprintf(out, n, "a confirm batch of %llu %s, block %lld of run %llu",
             (unsigned long long)calls, unit, block, (unsigned long long)run);
}

/* The log row of a batch of n calls of impl on c that answered `a`. The
 * per-call time is as the log holds it (%.17g reads back exactly), so the
 * calibration decides on the number `check` sees. */
static bs_status put_row(sched *s, size_t impl, const rcase *c, uint64_t n,
                         uint64_t run, long long block, const bs__rep *a,
                         unsigned tries, double *per_call, bs_error *err) {
  bs__run_row w;
  memset(&w, 0, sizeof w);
  w.benchmark = c->benchmark;
  w.dataset = c->dataset;
  w.scale = c->scale;
  w.impl = s->o->impls[impl].name;
  w.run = run;
  w.block = block;
  w.iterations = n;
  w.per_call_us = (double)a->value / 1e3 / (double)n;
  /* Calibration rows too: the 4x exception asks their CPU time. */
  w.cpu_per_call_us = (double)a->cpu_ns / 1e3 / (double)n;
  w.has_rss = block >= 0 && s->cols.rss;
  w.max_rss_kib = a->maxrss_kib;
  w.look = s->look;
  w.tries = block >= 0 ? tries : 0;
  if (per_call)
    *per_call = w.per_call_us;
  bs_status st = bs__run_log_row(&s->log, &w, &s->cols);
  if (st)
    return bs_error_set(err, st, NULL, 0, "cannot build the log");
  s->r->nrows++;
  return BS_OK;
}

/* The calls impl makes besides a batch of n: a planted slowdown's. */
static uint64_t planted(const sched *s, size_t impl, uint64_t n) {
  const bs_run_options *o = s->o;
  double pct = o->plant_pcts           ? o->plant_pcts[impl]
               : impl == o->plant_impl ? o->plant_pct
                                       : 0;
  if (!(pct > 0))
    return 0;
  return (uint64_t)bs__ceil((double)n * pct / 100.0);
}

/* One batch of n calls of impl on c, its answer into *a. */
static bs_status call_batch(sched *s, size_t impl, rcase *c, uint64_t n,
                            uint64_t run, long long block, int cpu, bs__rep *a,
                            bs_error *err) {
  char doing[160], w[600];
  batch_doing(doing, sizeof doing, s, n, run, block);
  bs__req q = {0, BS__OP_RUN, (uint32_t)impl,     (uint32_t)c->idx[impl], cpu,
               n, 0,          planted(s, impl, n)};
  return bs__exec_call(&s->ex, &q, what(w, sizeof w, s, impl, c, doing), a,
                       err);
}

/* The duet's CPU k (mod 2) of this generation: swapped with the other
 * where the processes are (s->ex.flip), so the CPU impl i calibrates,
 * starts and ends each case on is a draw per run, as the process it is
 * in. */
static int duet_cpu(const sched *s, uint64_t k) {
  return s->cpu[(k + s->ex.flip) % 2];
}

/* One duet round of block j: impl i runs n[i] calls (and extra[i] planted
 * ones) on CPU duet_cpu(i + j + second), both released together;
 * answers into a. The round is the batch's first half, or with `second`
 * its rest, which may take what the first left of --timeout. */
static bs_status duet_round(sched *s, rcase *c, uint64_t run, uint64_t j,
                            int second, const uint64_t n[2],
                            const uint64_t extra[2], long long used_ms,
                            bs__rep a[2], bs_error *err) {
  char doing[2][200], w[2][640];
  const char *whats[2];
  bs__req q[2];
  for (size_t i = 0; i < 2; i++) {
    batch_doing(doing[i], sizeof doing[i], s, c->batch[i], run, (long long)j);
    if (n[i] != c->batch[i])
      snprintf(doing[i] + strlen(doing[i]), sizeof doing[i] - strlen(doing[i]),
               " (its %s %llu)", second ? "last" : "first",
               (unsigned long long)n[i]);
    whats[i] = what(w[i], sizeof w[i], s, i, c, doing[i]);
    q[i] = (bs__req){0,
                     BS__OP_RUN,
                     (uint32_t)i,
                     (uint32_t)c->idx[i],
                     duet_cpu(s, i + j + (uint64_t)second),
                     n[i],
                     0,
                     extra[i]};
  }
  return bs__exec_duet(&s->ex, q, whats, used_ms, a, err);
}

/* Block j of a duet: both impls' batches at once, answers into s->reps.
 * Each impl runs part of its batch on CPU duet_cpu(i + j) and the rest
 * on the other CPU, the two parts each released together, so both impls
 * spend as long on each CPU: on a machine whose CPUs are not equally fast
 * for a while (another guest on one of them, a busy process that settles
 * on one), both are slowed alike, where a whole batch per CPU would put
 * the slow CPU under one impl and the swap every block would turn that
 * into pair differences of +x, -x, +x... Of an odd batch, impl 0 runs the
 * smaller part first and impl 1 the larger, so each runs as many calls
 * on each CPU. A batch of one call runs whole (its CPU swaps every
 * block). */
static bs_status duet_once(sched *s, rcase *c, uint64_t run, uint64_t j,
                           bs_error *err) {
  uint64_t p[2] = {planted(s, 0, c->batch[0]), planted(s, 1, c->batch[1])};
  if (c->batch[0] < 2 || c->batch[1] < 2)
    return duet_round(s, c, run, j, 0, c->batch, p, 0, s->reps, err);
  uint64_t h[2] = {c->batch[0] / 2, c->batch[1] - c->batch[1] / 2};
  uint64_t rest[2] = {c->batch[0] - h[0], c->batch[1] - h[1]};
  uint64_t ph[2] = {p[0] / 2, p[1] - p[1] / 2};
  uint64_t prest[2] = {p[0] - ph[0], p[1] - ph[1]};
  bs__rep second[2];
  long long t0 = bs__now_ms();
  bs_status st = duet_round(s, c, run, j, 0, h, ph, 0, s->reps, err);
  if (!st)
    st = duet_round(s, c, run, j, 1, rest, prest, bs__now_ms() - t0, second,
                    err);
  for (size_t i = 0; !st && i < 2; i++) {
    bs__rep *a = &s->reps[i];
    a->value += second[i].value;
    a->cpu_ns += second[i].cpu_ns;
    a->nivcsw += second[i].nivcsw;
    if (second[i].maxrss_kib > a->maxrss_kib)
      a->maxrss_kib = second[i].maxrss_kib;
  }
  return st;
}

/* Library mode, between the calibrations and block 0: unlogged blocks
 * (side by side in a duet) until the fastest impl has run BS__WARM_US.
 * Without them the impl calibrated last started the blocks warm and the
 * other cold: a 32 MiB pointer chase, identical builds, measured the
 * later one 15 % faster in block 0, 9 % in block 1, then 5, 4, 3 ... 1 %
 * by block 8, in every run, and 19 of 40 A/A runs called it significantly
 * faster. */
static bs_status warm_blocks(sched *s, rcase *c, uint64_t run, bs_error *err) {
  const bs_run_options *o = s->o;
  size_t k = o->nimpls;
  double spent = 0;
  bs_status st = BS_OK;
  s->warming = 1;
  for (uint64_t j = 0; !st && spent < BS__WARM_US; j++) {
    if (o->duet)
      st = duet_once(s, c, run, j, err);
    for (size_t p = 0; !st && !o->duet && p < k; p++) {
      size_t i = (size_t)((j + p) % k);
      st = call_batch(s, i, c, c->batch[i], run, (long long)j, -1, &s->reps[i],
                      err);
    }
    double least = 0;
    for (size_t i = 0; !st && i < k; i++) {
      double t = (double)s->reps[i].value / 1e3;
      least = i == 0 || t < least ? t : least;
    }
    if (!(least > 0))
      break;
    spent += least;
  }
  s->warming = 0;
  return st;
}

/* Block j: every impl's batch, in the rotated order (or side by side in a
 * duet), measured again while one of them lost its CPU to other work
 * (BS__TRIES in all); the last try's rows, in the rotated order. A batch
 * that waited for a CPU measured the wait, not the code: in a duet on a
 * machine where something else takes one CPU, one half of every pair
 * waits, the swap of CPUs each block turns that into noise centred on
 * zero, and the pair's interval is as wide as the wait is long. */
static bs_status block(sched *s, rcase *c, uint64_t run, uint64_t j,
                       bs_error *err) {
  const bs_run_options *o = s->o;
  size_t k = o->nimpls, off = (size_t)(o->seed % k);
  bs_status st = BS_OK;
  unsigned tries = 0;
  int waited;
  do {
    tries++;
    waited = 0;
    if (o->duet) {
      st = duet_once(s, c, run, j, err);
    } else {
      for (size_t p = 0; !st && p < k; p++) {
        size_t i = (size_t)((j + off + p) % k);
        st = call_batch(s, i, c, c->batch[i], run, (long long)j, -1,
                        &s->reps[i], err);
      }
    }
    for (size_t i = 0; !st && i < k; i++)
      waited |= s->reps[i].nivcsw > 0;
  } while (!st && waited && tries < BS__TRIES);
  if (!st && tries > 1)
    s->r->remeasured_blocks++;
  for (size_t p = 0; !st && p < k; p++) {
    size_t i = (size_t)((j + off + p) % k);
    st = put_row(s, i, c, c->batch[i], run, (long long)j, &s->reps[i], tries,
                 NULL, err);
  }
  return st;
}

/* Library mode, before an impl's calibration: the calibration rule run
 * once unlogged, to a batch of at least BS__WARM_US (or T when longer).
 * Right after its setup a case runs cold (a 32 MiB pointer chase took 5x
 * its steady time per call for its first half millisecond: the page
 * tables are not cached yet), and an impl calibrated cold looks more than
 * 4x slower than one calibrated warm, which splits the batch sizes of
 * identical code. */
static bs_status warm_up(sched *s, size_t impl, rcase *c, uint64_t run, int cpu,
                         bs_error *err) {
  const bs_run_options *o = s->o;
  double target = o->target_us > BS__WARM_US ? o->target_us : BS__WARM_US;
  for (uint64_t n = 1;;) {
    bs__rep a;
    bs_status st = call_batch(s, impl, c, n, run, -1, cpu, &a, err);
    if (st)
      return st;
    double t = (double)a.value / 1e3;
    if (!(t < target && n < o->n_max))
      return BS_OK;
    n = bs_run_next_batch(n, t, target, o->n_max);
  }
}

static bs_status calibrate(sched *s, size_t impl, rcase *c, uint64_t run,
                           bs_error *err) {
  const bs_run_options *o = s->o;
  int cpu = o->duet ? duet_cpu(s, impl) : -1;
  uint64_t n = 1;
  if (o->mode == BS_RUN_LIBRARY) {
    bs_status st = warm_up(s, impl, c, run, cpu, err);
    if (st)
      return st;
  }
  /* The last three steps' per-call times, wall and CPU (a ring). */
  double wall[3], cpus[3];
  size_t steps = 0;
  for (;;) {
    double pc;
    bs__rep a;
    bs_status st = call_batch(s, impl, c, n, run, -1, cpu, &a, err);
    if (!st)
      st = put_row(s, impl, c, n, run, -1, &a, 1, &pc, err);
    if (st)
      return st;
    double t = (double)n * pc;
    wall[steps % 3] = pc;
    cpus[steps % 3] = (double)a.cpu_ns / 1e3 / (double)n;
    steps++;
    if (!(t < o->target_us && n < o->n_max))
      break;
    n = bs_run_next_batch(n, t, o->target_us, o->n_max);
  }
  /* A step that lost its CPU to other work only ever looks slower: the
   * least of the last three, and the CPU time, which leaves the wait
   * out, keep one such step from splitting the case's batch size. */
  size_t have = steps < 3 ? steps : 3;
  c->cal_pc[impl] = wall[0];
  c->cal_cpu[impl] = cpus[0];
  for (size_t q = 1; q < have; q++) {
    c->cal_pc[impl] = wall[q] < c->cal_pc[impl] ? wall[q] : c->cal_pc[impl];
    c->cal_cpu[impl] = cpus[q] < c->cal_cpu[impl] ? cpus[q] : c->cal_cpu[impl];
  }
  c->batch[impl] = n;
  return BS_OK;
}

/* Whether files a and b hold the same bytes (0 when either cannot be
 * read, or on no memory). */
static int same_file_bytes(const char *a, const char *b) {
  const size_t CHUNK = 65536;
  FILE *fa = fopen(a, "rb"), *fb = fa ? fopen(b, "rb") : NULL;
  char *x = malloc(2 * CHUNK), *y = x ? x + CHUNK : NULL;
  int same = fa && fb && x;
  while (same) {
    size_t na = fread(x, 1, CHUNK, fa), nb = fread(y, 1, CHUNK, fb);
    same = na == nb && !memcmp(x, y, na) && !ferror(fa) && !ferror(fb);
    if (na < CHUNK)
      break;
  }
  free(x);
  if (fa)
    fclose(fa);
  if (fb)
    fclose(fb);
  return same;
}

/* Whether every impl is one build: libraries of the same bytes, or the
 * same command run in the same directory. Identical code then never
 * keeps split batch sizes, whatever a loaded calibration measured. */
static int same_builds(const bs_run_options *o) {
  if (o->nimpls < 2 || (o->mode != BS_RUN_LIBRARY && o->mode != BS_RUN_COMMAND))
    return 0;
  for (size_t i = 1; i < o->nimpls; i++) {
    const bs_run_impl *a = &o->impls[0], *b = &o->impls[i];
    if (o->mode == BS_RUN_COMMAND) {
      if (strcmp(a->target, b->target) ||
          strcmp(a->dir ? a->dir : "", b->dir ? b->dir : ""))
        return 0;
    } else if (strcmp(a->target, b->target) &&
               !same_file_bytes(a->target, b->target)) {
      return 0;
    }
  }
  return 1;
}

/* One batch size per case: the largest calibrated n for every impl,
 * unless the calibrated per-call times are too far apart for one size
 * (then each keeps its own). Batches of different sizes bias the paired
 * difference under load: fixed costs per batch and the cache state a
 * batch leaves differ with its length. */
static void one_batch_size(const sched *s, rcase *c) {
  size_t k = s->o->nimpls;
  if (!s->same && bs_protocol_batch_apart(c->cal_pc, c->cal_cpu, k))
    return;
  uint64_t nmax = c->batch[0];
  for (size_t i = 1; i < k; i++)
    nmax = c->batch[i] > nmax ? c->batch[i] : nmax;
  for (size_t i = 0; i < k; i++)
    c->batch[i] = nmax;
}

static bs_status simple_op(sched *s, int op, size_t impl, rcase *c,
                           const char *doing, uint64_t *value, bs_error *err) {
  char w[600];
  bs__req q = {
      0, (uint32_t)op, (uint32_t)impl, (uint32_t)c->idx[impl], -1, 0, 0, 0};
  bs__rep a;
  bs_status st =
      bs__exec_call(&s->ex, &q, what(w, sizeof w, s, impl, c, doing), &a, err);
  if (!st && value)
    *value = a.value;
  return st;
}

/* Starts measuring processes unless they run. */
static bs_status gen_start(sched *s, bs_error *err) {
  if (bs__exec_running(&s->ex))
    return BS_OK;
  for (size_t c = 0; c < s->ncases; c++)
    s->cases[c].live = 0;
  return bs__exec_start(&s->ex, err);
}

/* Library mode: the case's setup in the processes that run now. */
static bs_status setup_case(sched *s, rcase *c, bs_error *err) {
  bs_status st = BS_OK;
  size_t k = s->o->nimpls;
  if (s->o->mode != BS_RUN_LIBRARY || c->live)
    return BS_OK;
  if (s->o->duet) {
    /* Both at once, each in its process: neither is set up first (and
     * a slow setup costs its time once, not twice). */
    char w[2][600];
    const char *whats[2];
    bs__req q[2];
    bs__rep a[2];
    for (size_t i = 0; i < 2; i++) {
      whats[i] = what(w[i], sizeof w[i], s, i, c, "its setup");
      q[i] = (bs__req){
          0, BS__OP_SETUP, (uint32_t)i, (uint32_t)c->idx[i], -1, 0, 0, 0};
    }
    st = bs__exec_both(&s->ex, q, whats, a, err);
    c->live = !st;
    return st;
  }
  bs__draw_order(&s->ex, (size_t)(c - s->cases), BS__ORDER_SETUP, s->order, k);
  for (size_t q = 0; !st && q < k; q++)
    st = simple_op(s, BS__OP_SETUP, s->order[q], c, "its setup", NULL, err);
  c->live = !st;
  return st;
}

/* Ends the processes that run now: library mode first compares the
 * digests of every case they set up, and tears the cases down. */
static bs_status gen_end(sched *s, bs_error *err) {
  const bs_run_options *o = s->o;
  size_t k = o->nimpls;
  bs_status st = BS_OK;
  uint64_t *d = calloc(k, sizeof *d);
  if (!d)
    return bs__oom(err);
  for (size_t c = 0; !st && o->mode == BS_RUN_LIBRARY && c < s->ncases; c++) {
    rcase *rc = &s->cases[c];
    if (!rc->live)
      continue;
    for (size_t i = 0; !st && rc->has_digest && i < k; i++)
      st = simple_op(s, BS__OP_DIGEST, i, rc, "its digest", &d[i], err);
    for (size_t i = 0; !st && i < k; i++)
      st = simple_op(s, BS__OP_TEARDOWN, i, rc, "its teardown", NULL, err);
    rc->live = 0;
    for (size_t i = 1; !st && rc->has_digest && i < k; i++) {
      if (d[i] != d[0]) {
        char a[128], b[128], label[300];
        s->r->wrong_result = 1;
        st = bs_error_set(
            err, BS_EINPUT, NULL, 0,
            "%s computes a different result from %s on %s (digest "
            "%016llx, not %016llx); nothing was written",
            bs__run_text(a, sizeof a, o->impls[i].name),
            bs__run_text(b, sizeof b, o->impls[0].name),
            bs__run_case_label(label, sizeof label, rc->benchmark, rc->dataset),
            (unsigned long long)d[i], (unsigned long long)d[0]);
      }
    }
  }
  free(d);
  if (st)
    bs__exec_stop(&s->ex);
  else
    st = bs__exec_end(&s->ex, err);
  return st;
}

static bs_status report(sched *s, size_t c, uint64_t run, uint64_t block,
                        int calibrating, bs_error *err) {
  const bs_run_options *o = s->o;
  if (!o->progress)
    return BS_OK;
  bs_run_progress p = {s->cases[c].benchmark,
                       s->cases[c].dataset,
                       c,
                       s->ncases,
                       run,
                       o->runs,
                       block,
                       o->blocks,
                       calibrating,
                       s->done,
                       s->total};
  if (o->progress(o->progress_ctx, &p))
    return bs_error_set(err, BS_EIO, NULL, 0, "cancelled; nothing was written");
  return BS_OK;
}

/* One run of the cases marked `todo`: per case, calibration of each impl
 * in an order drawn per run (the rotated order with --layout fixed), one
 * batch size, unlogged blocks, then the blocks; measuring
 * processes per run or per block (o->fresh), each with its own layout. */
static bs_status measure_run(sched *s, uint64_t run, bs_error *err) {
  const bs_run_options *o = s->o;
  size_t k = o->nimpls;
  size_t off = (size_t)(o->seed % k);
  int per_block = o->fresh == BS_RUN_FRESH_BLOCK;
  bs_status st = BS_OK;
  s->ex.layout_run = run;
  s->ex.layout_block = -1;
  if (!per_block)
    st = gen_start(s, err);
  for (size_t c = 0; !st && c < s->ncases; c++) {
    rcase *rc = &s->cases[c];
    if (!rc->todo)
      continue;
    s->ex.layout_block = -1;
    if (!(st = report(s, c, run, 0, 1, err)))
      st = gen_start(s, err);
    if (!st)
      st = setup_case(s, rc, err);
    bs__draw_order(&s->ex, c, BS__ORDER_CALIBRATION, s->order, k);
    for (size_t p = 0; !st && p < k; p++) {
      st = calibrate(s, o->layout_fixed ? (off + p) % k : s->order[p], rc, run,
                     err);
      s->done += 2;
    }
    if (!st)
      one_batch_size(s, rc);
    if (!st && !per_block && o->mode == BS_RUN_LIBRARY)
      st = warm_blocks(s, rc, run, err);
    if (!st && per_block)
      st = gen_end(s, err);
    for (uint64_t j = 0; !st && j < o->blocks; j++) {
      s->ex.layout_block = per_block ? (int64_t)j : -1;
      if (!(st = report(s, c, run, j, 0, err)))
        st = gen_start(s, err);
      if (!st)
        st = setup_case(s, rc, err);
      if (!st)
        st = block(s, rc, run, j, err);
      s->done += (double)k;
      if (!st && per_block)
        st = gen_end(s, err);
    }
  }
  if (!st && !per_block)
    st = gen_end(s, err);
  return st;
}

/* The cases an adaptive run measures again: the gate's reading of the log
 * so far, each case at the level of its look, marks every case that is
 * neither a significant regression nor a significant improvement and whose
 * interval still reaches delta or is wider than delta. Returns how many in
 * *n. */
static bs_status undecided(sched *s, size_t *n, bs_error *err) {
  const bs_run_options *o = s->o;
  bs_log *log = bs_log_new();
  bs_compare_result *r = NULL;
  bs_compare_options co;
  bs_compare_options_init(&co, BS_MODE_CONFIRMATORY);
  bs_status st = log ? BS_OK : bs__oom(err);
  if (!st)
    st =
        bs_log_read_buffer(log, "the run so far", s->log.data, s->log.len, err);
  if (!st)
    st = bs_compare_run(log, o->impls[0].name, o->impls[1].name, &co, &r, err);
  *n = 0;
  for (size_t c = 0; c < s->ncases; c++)
    s->cases[c].todo = 0;
  for (size_t i = 0; !st && i < r->ncases; i++) {
    const bs_case_compare *cc = &r->cases[i];
    double lo = 100.0 * (cc->ci_low_us / cc->median_baseline_us);
    double hi = bs_compare_upper_pct(cc);
    if (cc->significant_regression || cc->significant_improvement ||
        (hi < co.threshold_pct && hi - lo <= co.threshold_pct))
      continue;
    for (size_t c = 0; c < s->ncases; c++) {
      rcase *rc = &s->cases[c];
      if (!rc->todo && !strcmp(rc->benchmark, cc->benchmark) &&
          !strcmp(rc->dataset, cc->dataset)) {
        rc->todo = 1;
        (*n)++;
        break;
      }
    }
  }
  bs_compare_result_free(r);
  bs_log_free(log);
  return st;
}

static int adaptive(const bs_run_options *o) { return o->max_runs > o->runs; }

static bs_status schedule(sched *s, bs_error *err) {
  const bs_run_options *o = s->o;
  bs_status st = BS_OK;
  s->total = (double)o->runs * (double)s->ncases * (double)o->nimpls *
             ((double)o->blocks + 2.0);
  for (uint64_t run = 0; !st && run < o->runs; run++)
    st = measure_run(s, run, err);
  if (st || !adaptive(o))
    return st;
  /* Up to three rounds (looks 1-3) of ceil((max - runs) / 3) runs each,
   * of the cases still undecided at the look before. */
  uint64_t per = (o->max_runs - o->runs + 2) / 3, next = o->runs;
  double t0 = bs__run_now();
  for (unsigned look = 1; !st && look <= BS_LOG_MAX_LOOK; look++) {
    size_t n;
    if (next >= o->max_runs || (st = undecided(s, &n, err)) || !n)
      break;
    s->look = look;
    s->total +=
        (double)per * (double)n * (double)o->nimpls * ((double)o->blocks + 2.0);
    for (uint64_t e = 0; !st && e < per && next < o->max_runs; e++) {
      if (o->budget_s > 0 && bs__run_now() - t0 >= o->budget_s) {
        s->r->budget_hit = 1;
        break;
      }
      st = measure_run(s, next++, err);
      s->r->extra_runs++;
      s->r->last_look = look;
      s->r->adaptive_cases =
          n > s->r->adaptive_cases ? n : s->r->adaptive_cases;
    }
    if (s->r->budget_hit)
      break;
  }
  s->r->extra_seconds = bs__run_now() - t0;
  return st;
}

int bs__run_first_two_cpus(int cpu[2]) {
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set))
    return -1;
  int n = 0;
  for (size_t c = 0; c < CPU_SETSIZE && n < 2; c++)
    if (CPU_ISSET(c, &set))
      cpu[n++] = (int)c;
  return n;
#else
  (void)cpu;
  return -1;
#endif
}

/* The two CPUs of a duet: the first two this process may run on. */
static bs_status duet_cpus(sched *s, bs_error *err) {
#ifdef __linux__
  int n = bs__run_first_two_cpus(s->cpu);
  if (n < 0)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "--duet: cannot tell which CPUs this process may use");
  if (n < 2)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "--duet needs two CPUs and this process may use only "
                        "one (see taskset, cgroups); measure without --duet");
  return BS_OK;
#else
  (void)s;
  return bs_error_set(err, BS_EUSAGE, NULL, 0, "--duet needs Linux");
#endif
}

bs_status bs__run_blocks(const bs_run_options *o, bs_run_result *r,
                         bs_error *err) {
  bs_status st = BS_OK;
  sched s;
  memset(&s, 0, sizeof s);
  s.o = o;
  s.r = r;
  s.cols.cpu = 1;
  s.cols.rss = o->mode == BS_RUN_COMMAND;
  s.cols.tries = 1;
  bs__buf_init(&s.log, BS__BUF_DEFAULT_LIMIT);
  char **argvs[1000];
  memset(argvs, 0, sizeof argvs);
  bs__exec_init(&s.ex, o, argvs);

  if (o->duet && (st = duet_cpus(&s, err)))
    goto done;
  s.same = same_builds(o);
  if (o->mode == BS_RUN_COMMAND) {
    for (size_t i = 0; i < o->nimpls; i++) {
      char esc[128];
      if (bs_run_split_command(o->impls[i].target, &argvs[i], NULL, err)) {
        char why[sizeof err->message];
        snprintf(why, sizeof why, "%s", err->message);
        st = bs_error_set(err, BS_EUSAGE, NULL, 0, "impl %s: %s",
                          bs__run_text(esc, sizeof esc, o->impls[i].name), why);
        goto done;
      }
    }
  }
  if ((st = bs__exec_start(&s.ex, err)))
    goto done;
  if (o->mode == BS_RUN_LIBRARY) {
    bs__run_cases *by = calloc(o->nimpls, sizeof *by);
    if (!by) {
      st = bs__oom(err);
      goto done;
    }
    for (size_t i = 0; i < o->nimpls; i++)
      bs__run_cases_init(&by[i]);
    st = match_cases(&s, by, err);
    for (size_t i = 0; i < o->nimpls; i++)
      bs__run_cases_release(&by[i]);
    free(by);
    if (st)
      goto done;
  } else {
    /* One case: every command measures the same thing. */
    const char *b = o->benchmark ? o->benchmark : bs__run_basename(argvs[0][0]);
    const char *d = o->dataset ? o->dataset : "";
    if (!b[0] || !bs__run_valid_utf8(b)) {
      st = bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "the program's name is no benchmark name: give "
                        "--benchmark NAME");
      goto done;
    }
    s.cases = calloc(1, sizeof *s.cases);
    if (!s.cases || new_case(&s.cases[0], o->nimpls)) {
      st = bs__oom(err);
      goto done;
    }
    if (case_matches(o, b, d)) {
      s.cases[0].benchmark = b;
      s.cases[0].dataset = d;
      s.ncases = 1;
    }
  }
  if (s.ncases == 0) {
    st = bs_error_set(err, BS_EINPUT, NULL, 0,
                      o->filter ? "no case matches --filter"
                                : "no case that every impl has");
    goto done;
  }
  r->ncases = s.ncases;
  s.cols.look = adaptive(o);
  if (!(s.reps = calloc(o->nimpls, sizeof *s.reps)) ||
      !(s.order = calloc(o->nimpls, sizeof *s.order))) {
    st = bs__oom(err);
    goto done;
  }
  if ((st = bs__run_log_header(&s.log, &s.cols))) {
    st = bs_error_set(err, st, NULL, 0, "cannot build the log");
    goto done;
  }
  if ((st = schedule(&s, err)))
    goto done;
  r->log = bs__buf_detach(&s.log, &r->log_len);

done:
  bs__exec_release(&s.ex);
  /* Command mode's one case is allocated whether or not it is kept. */
  for (size_t c = 0; s.cases && c < (o->mode == BS_RUN_COMMAND ? 1 : s.ncases);
       c++)
    free_case(&s.cases[c]);
  free(s.cases);
  bs__buf_release(&s.log);
  free(s.reps);
  free(s.order);
  for (size_t i = 0; i < o->nimpls && i < 1000; i++)
    free(argvs[i]);
  if (st)
    r->nrows = 0;
  return st;
}
