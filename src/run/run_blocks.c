/* benchsite: `benchsite run` in library and command mode -- calibration,
 * one batch size per case, rotated (or duet) blocks, fresh measuring
 * processes, digests. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sched_getaffinity */
#endif
#include "benchsite/protocol.h"
#include "benchsite/run.h"

#include "oom.h"
#include "run_common.h"
#include "run_int.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rcase {
  const char *benchmark, *dataset; /* owned by the exec (or the options) */
  double scale;
  size_t *idx;     /* per impl: its index in that impl's table */
  uint64_t *batch; /* per impl: the confirm batch size of the current run */
  double *cal_pc;  /* per impl: its calibrated per-call time (fastest step) */
  int has_digest;  /* every impl has a digest */
  int live;        /* set up in the current measuring process(es) */
} rcase;

typedef struct sched {
  const bs_run_options *o;
  bs__exec ex;
  rcase *cases;
  size_t ncases;
  bs__buf log;
  int rss; /* the log has max_rss_kib (command mode) */
  bs_run_result *r;
  int cpu[2]; /* duet: the two CPUs */
  double done, total;
} sched;

static int case_matches(const bs_run_options *o, const char *benchmark,
                        const char *dataset) {
  bs__filter f;
  bs__filter_parse(&f, o->filter);
  return bs__filter_match(&f, benchmark, strlen(benchmark), dataset,
                          strlen(dataset));
}

static bs_status new_case(rcase *rc, size_t k) {
  k = k ? k : 1;
  rc->idx = calloc(k, sizeof *rc->idx);
  rc->batch = calloc(k, sizeof *rc->batch);
  rc->cal_pc = calloc(k, sizeof *rc->cal_pc);
  if (rc->idx && rc->batch && rc->cal_pc)
    return BS_OK;
  free(rc->idx);
  free(rc->batch);
  free(rc->cal_pc);
  memset(rc, 0, sizeof *rc);
  return BS_ENOMEM;
}

static void free_case(rcase *rc) {
  free(rc->idx);
  free(rc->batch);
  free(rc->cal_pc);
  memset(rc, 0, sizeof *rc);
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
  if (block < 0)
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
                         double *per_call, bs_error *err) {
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
  /* Calibration rows keep the columns of a confirm row, empty. */
  w.cpu_per_call_us = block < 0 ? -1 : (double)a->cpu_ns / 1e3 / (double)n;
  w.has_rss = block >= 0 && s->rss;
  w.max_rss_kib = a->maxrss_kib;
  if (per_call)
    *per_call = w.per_call_us;
  bs__run_cols cols = {1, s->rss, NULL};
  bs_status st = bs__run_log_row(&s->log, &w, &cols);
  if (st)
    return bs_error_set(err, st, NULL, 0, "cannot build the log");
  s->r->nrows++;
  return BS_OK;
}

static bs_status batch(sched *s, size_t impl, rcase *c, uint64_t n,
                       uint64_t run, long long block, int cpu, double *per_call,
                       bs_error *err) {
  char doing[160], w[600];
  batch_doing(doing, sizeof doing, s, n, run, block);
  bs__req q = {0, BS__OP_RUN, (uint32_t)impl, (uint32_t)c->idx[impl], cpu,
               n, 0};
  bs__rep a;
  bs_status st =
      bs__exec_call(&s->ex, &q, what(w, sizeof w, s, impl, c, doing), &a, err);
  return st ? st : put_row(s, impl, c, n, run, block, &a, per_call, err);
}

/* Block j of a duet: both impls' batches at once, impl i on CPU
 * cpu[(i + j) mod 2], rows in the rotated order. */
static bs_status duet_block(sched *s, rcase *c, uint64_t run, uint64_t j,
                            bs_error *err) {
  char doing[2][160], w[2][600];
  const char *whats[2];
  bs__req q[2];
  bs__rep a[2];
  for (size_t i = 0; i < 2; i++) {
    batch_doing(doing[i], sizeof doing[i], s, c->batch[i], run, (long long)j);
    whats[i] = what(w[i], sizeof w[i], s, i, c, doing[i]);
    q[i] = (bs__req){0,
                     BS__OP_RUN,
                     (uint32_t)i,
                     (uint32_t)c->idx[i],
                     s->cpu[(i + j) % 2],
                     c->batch[i],
                     0};
  }
  bs_status st = bs__exec_duet(&s->ex, q, whats, a, err);
  size_t off = (size_t)(s->o->seed % 2);
  for (size_t p = 0; !st && p < 2; p++) {
    size_t i = (size_t)((j + off + p) % 2);
    st = put_row(s, i, c, c->batch[i], run, (long long)j, &a[i], NULL, err);
  }
  return st;
}

static bs_status calibrate(sched *s, size_t impl, rcase *c, uint64_t run,
                           bs_error *err) {
  const bs_run_options *o = s->o;
  int cpu = o->duet ? s->cpu[impl % 2] : -1;
  uint64_t n = 1;
  for (;;) {
    double pc;
    bs_status st = batch(s, impl, c, n, run, -1, cpu, &pc, err);
    if (st)
      return st;
    double t = (double)n * pc;
    /* The calibrated per-call time is the fastest step's: a batch that
     * lost its CPU to other work only ever looks slower, and one such
     * batch must not split the case's batch size. */
    if (n == 1 || pc < c->cal_pc[impl])
      c->cal_pc[impl] = pc;
    if (!(t < o->target_us && n < o->n_max))
      break;
    n = bs_run_next_batch(n, t, o->target_us, o->n_max);
  }
  c->batch[impl] = n;
  return BS_OK;
}

/* One batch size per case: the largest calibrated n for every impl,
 * unless the calibrated per-call times are too far apart for one size
 * (then each keeps its own). Batches of different sizes bias the paired
 * difference under load: fixed costs per batch and the cache state a
 * batch leaves differ with its length. */
static void one_batch_size(const sched *s, rcase *c) {
  size_t k = s->o->nimpls;
  double pmin = c->cal_pc[0], pmax = c->cal_pc[0];
  uint64_t nmax = c->batch[0];
  for (size_t i = 1; i < k; i++) {
    pmin = c->cal_pc[i] < pmin ? c->cal_pc[i] : pmin;
    pmax = c->cal_pc[i] > pmax ? c->cal_pc[i] : pmax;
    nmax = c->batch[i] > nmax ? c->batch[i] : nmax;
  }
  if (bs_protocol_sizes_apart(pmin, pmax))
    return;
  for (size_t i = 0; i < k; i++)
    c->batch[i] = nmax;
}

static bs_status simple_op(sched *s, int op, size_t impl, rcase *c,
                           const char *doing, uint64_t *value, bs_error *err) {
  char w[600];
  bs__req q = {0, (uint32_t)op, (uint32_t)impl, (uint32_t)c->idx[impl], -1, 0,
               0};
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
  if (s->o->mode != BS_RUN_LIBRARY || c->live)
    return BS_OK;
  for (size_t i = 0; !st && i < s->o->nimpls; i++)
    st = simple_op(s, BS__OP_SETUP, i, c, "its setup", NULL, err);
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

static bs_status schedule(sched *s, bs_error *err) {
  const bs_run_options *o = s->o;
  size_t k = o->nimpls;
  size_t off = (size_t)(o->seed % k);
  int per_block = o->fresh == BS_RUN_FRESH_BLOCK;
  bs_status st = BS_OK;
  s->total = (double)o->runs * (double)s->ncases * (double)k *
             ((double)o->blocks + 2.0);
  for (uint64_t run = 0; !st && run < o->runs; run++) {
    if (!per_block)
      st = gen_start(s, err);
    for (size_t c = 0; !st && c < s->ncases; c++) {
      rcase *rc = &s->cases[c];
      if (!(st = report(s, c, run, 0, 1, err)))
        st = gen_start(s, err);
      if (!st)
        st = setup_case(s, rc, err);
      for (size_t p = 0; !st && p < k; p++) {
        st = calibrate(s, (off + p) % k, rc, run, err);
        s->done += 2;
      }
      if (!st)
        one_batch_size(s, rc);
      if (!st && per_block)
        st = gen_end(s, err);
      for (uint64_t j = 0; !st && j < o->blocks; j++) {
        if (!(st = report(s, c, run, j, 0, err)))
          st = gen_start(s, err);
        if (!st)
          st = setup_case(s, rc, err);
        if (!st && o->duet) {
          st = duet_block(s, rc, run, j, err);
          s->done += 2;
        }
        for (size_t p = 0; !st && !o->duet && p < k; p++) {
          size_t i = (size_t)((j + off + p) % k);
          st = batch(s, i, rc, rc->batch[i], run, (long long)j, -1, NULL, err);
          s->done += 1;
        }
        if (!st && per_block)
          st = gen_end(s, err);
      }
    }
    if (!st && !per_block)
      st = gen_end(s, err);
  }
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
  s.rss = o->mode == BS_RUN_COMMAND;
  bs__buf_init(&s.log, BS__BUF_DEFAULT_LIMIT);
  char **argvs[1000];
  memset(argvs, 0, sizeof argvs);
  bs__exec_init(&s.ex, o, argvs);

  if (o->duet && (st = duet_cpus(&s, err)))
    goto done;
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
  bs__run_cols cols = {1, s.rss, NULL};
  if ((st = bs__run_log_header(&s.log, &cols))) {
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
  for (size_t i = 0; i < o->nimpls && i < 1000; i++)
    free(argvs[i]);
  if (st)
    r->nrows = 0;
  return st;
}
