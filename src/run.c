/* benchsite: `benchsite run` in library and command mode -- calibration,
 * rotated blocks, digests -- and what every mode shares. */
#include "benchsite/run.h"

#include "csvin.h"
#include "run_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

void bs_run_options_init(bs_run_options *o) {
  memset(o, 0, sizeof *o);
  o->mode = BS_RUN_LIBRARY;
  o->target_us = 5000.0;
  o->n_max = BS_RUN_NMAX;
  o->blocks = 10;
  o->runs = 1;
  o->timeout_s = 600.0;
}

bs_status bs_run_protocol(const char *name, double *target_us, uint64_t *blocks,
                          bs_error *err) {
  if (!strcmp(name, "Development")) {
    *target_us = 5000.0;
    *blocks = 10;
  } else if (!strcmp(name, "RegressionGate")) {
    *target_us = 10000.0;
    *blocks = 20;
  } else {
    char esc[128];
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "unknown protocol \"%s\" (Development or "
                        "RegressionGate)",
                        bs__run_esc(esc, sizeof esc, name));
  }
  return BS_OK;
}

/* The rule of the measuring protocol, written as `benchsite check`
 * recomputes it: t is n times the per-call time read back from the log. */
uint64_t bs_run_next_batch(uint64_t n, double t_us, double target_us,
                           uint64_t n_max) {
  double want = ceil((double)n * target_us / t_us);
  uint64_t next = n + 1;
  if (want >= (double)n_max)
    return n_max;
  if (want > (double)next)
    next = (uint64_t)want;
  return next < n_max ? next : n_max;
}

void bs_run_result_init(bs_run_result *r) { memset(r, 0, sizeof *r); }

void bs_run_result_release(bs_run_result *r) {
  if (!r)
    return;
  free(r->log);
  for (size_t i = 0; i < r->nwarnings; i++)
    free(r->warnings[i]);
  free(r->warnings);
  memset(r, 0, sizeof *r);
}

/* ---- shared helpers ------------------------------------------------------ */

const char *bs__run_esc(char *out, size_t n, const char *s) {
  size_t o = 0;
  for (; *s && o + 8 < n; s++) {
    unsigned char c = (unsigned char)*s;
    if (o > 80) {
      memcpy(out + o, "...", 3);
      o += 3;
      break;
    }
    if (c < 0x20 || c == 0x7f)
      o += (size_t)snprintf(out + o, n - o, "\\x%02x", c);
    else
      out[o++] = (char)c;
  }
  out[o] = '\0';
  return out;
}

const char *bs__run_case_label(char *out, size_t n, const char *benchmark,
                               const char *dataset) {
  char b[128], d[128];
  bs__run_esc(b, sizeof b, benchmark);
  if (!dataset || !dataset[0])
    snprintf(out, n, "%s", b);
  else
    snprintf(out, n, "%s [%s]", b, bs__run_esc(d, sizeof d, dataset));
  return out;
}

bs_status bs__run_warn(bs_run_result *r, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  char **w = realloc(r->warnings, (r->nwarnings + 1) * sizeof *w);
  if (!w)
    return BS_ENOMEM;
  r->warnings = w;
  if (!(w[r->nwarnings] = strdup(msg)))
    return BS_ENOMEM;
  r->nwarnings++;
  return BS_OK;
}

static bs_status put_field(bs__buf *b, const char *s) {
  bs_status st = bs__buf_putc(b, '"');
  for (; !st && *s; s++)
    st = *s == '"' ? bs__buf_puts(b, "\"\"") : bs__buf_putc(b, *s);
  return st ? st : bs__buf_putc(b, '"');
}

bs_status bs__run_log_header(bs__buf *b) {
  return bs__buf_puts(b, "benchmark,dataset,scale,impl,run,block,phase,"
                         "iterations,per_call_us\n");
}

bs_status bs__run_log_row(bs__buf *b, const char *benchmark,
                          const char *dataset, double scale, const char *impl,
                          uint64_t run, long long block, uint64_t iterations,
                          double per_call_us) {
  bs_status st = put_field(b, benchmark);
  if (!st)
    st = bs__buf_putc(b, ',');
  if (!st)
    st = put_field(b, dataset);
  if (!st)
    st =
        scale > 0 ? bs__buf_printf(b, ",%.17g,", scale) : bs__buf_puts(b, ",,");
  if (!st)
    st = put_field(b, impl);
  if (!st && block < 0)
    st = bs__buf_printf(b, ",%llu,,calibration,%llu,%.17g\n",
                        (unsigned long long)run, (unsigned long long)iterations,
                        per_call_us);
  else if (!st)
    st = bs__buf_printf(b, ",%llu,%lld,confirm,%llu,%.17g\n",
                        (unsigned long long)run, block,
                        (unsigned long long)iterations, per_call_us);
  return st;
}

const char *bs__run_wait_text(char *out, size_t n, int st) {
  if (WIFEXITED(st))
    snprintf(out, n, "exited with status %d", WEXITSTATUS(st));
  else if (WIFSIGNALED(st))
    snprintf(out, n, "was killed by signal %d (%s)", WTERMSIG(st),
             strsignal(WTERMSIG(st)));
  else
    snprintf(out, n, "stopped (wait status %d)", st);
  return out;
}

const char *bs__run_basename(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

double bs__run_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int valid_utf8(const char *s) {
  size_t n = strlen(s);
  return bs__utf8_invalid_at((const unsigned char *)s, n) == n;
}

/* ---- library and command mode -------------------------------------------- */

typedef struct rcase {
  const char *benchmark, *dataset; /* owned by the exec (or the options) */
  double scale;
  size_t *idx;     /* per impl: its index in that impl's table */
  uint64_t *batch; /* per impl: the calibrated n of the current run */
  int has_digest;  /* every impl has a digest */
} rcase;

typedef struct sched {
  const bs_run_options *o;
  bs__exec ex;
  rcase *cases;
  size_t ncases;
  bs__buf log;
  bs_run_result *r;
} sched;

static int case_matches(const bs_run_options *o, const char *benchmark,
                        const char *dataset) {
  if (!o->filter || !o->filter[0])
    return 1;
  size_t bl = strlen(benchmark), dl = strlen(dataset);
  char *full = malloc(bl + dl + 2);
  if (!full)
    return 1;
  snprintf(full, bl + dl + 2, "%s/%s", benchmark, dataset);
  int m = strstr(dl ? full : benchmark, o->filter) != NULL;
  free(full);
  return m;
}

static long find_case(const bs__exec_case *t, size_t n, const char *benchmark,
                      const char *dataset) {
  for (size_t c = 0; c < n; c++)
    if (!strcmp(t[c].benchmark, benchmark) && !strcmp(t[c].dataset, dataset))
      return (long)c;
  return -1;
}

/* The cases every impl has, in the first impl's order; the others are
 * warnings. */
static bs_status match_cases(sched *s, bs_error *err) {
  const bs_run_options *o = s->o;
  size_t k = o->nimpls;
  bs__exec *e = &s->ex;
  char label[300];
  for (size_t i = 0; i < k; i++) {
    for (size_t c = 0; c < e->ncases[i]; c++) {
      const bs__exec_case *ec = &e->cases[i][c];
      if (!valid_utf8(ec->benchmark) || !valid_utf8(ec->dataset))
        return bs_error_set(err, BS_EINPUT, NULL, 0,
                            "%s: case %s: its name is not valid UTF-8",
                            o->impls[i].name,
                            bs__run_case_label(label, sizeof label,
                                               ec->benchmark, ec->dataset));
      if (find_case(e->cases[i], c, ec->benchmark, ec->dataset) >= 0)
        return bs_error_set(err, BS_EINPUT, NULL, 0,
                            "%s: case %s is defined twice", o->impls[i].name,
                            bs__run_case_label(label, sizeof label,
                                               ec->benchmark, ec->dataset));
    }
  }
  s->cases = calloc(e->ncases[0] ? e->ncases[0] : 1, sizeof *s->cases);
  if (!s->cases)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  for (size_t c = 0; c < e->ncases[0]; c++) {
    const bs__exec_case *ec = &e->cases[0][c];
    if (!case_matches(o, ec->benchmark, ec->dataset))
      continue;
    rcase *rc = &s->cases[s->ncases];
    rc->idx = calloc(k ? k : 1, sizeof *rc->idx);
    rc->batch = calloc(k ? k : 1, sizeof *rc->batch);
    if (!rc->idx || !rc->batch) {
      free(rc->idx);
      free(rc->batch);
      return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    }
    rc->benchmark = ec->benchmark;
    rc->dataset = ec->dataset;
    rc->scale = ec->scale;
    rc->has_digest = 1;
    const char *missing = NULL;
    for (size_t i = 0; i < k; i++) {
      long j = find_case(e->cases[i], e->ncases[i], ec->benchmark, ec->dataset);
      if (j < 0) {
        missing = o->impls[i].name;
        break;
      }
      rc->idx[i] = (size_t)j;
      if (!e->cases[i][j].has_digest)
        rc->has_digest = 0;
    }
    if (missing) {
      char esc[128];
      free(rc->idx);
      free(rc->batch);
      memset(rc, 0, sizeof *rc);
      if (bs__run_warn(s->r, "case %s: impl %s lacks it; skipped",
                       bs__run_case_label(label, sizeof label, ec->benchmark,
                                          ec->dataset),
                       bs__run_esc(esc, sizeof esc, missing)))
        return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
      continue;
    }
    s->ncases++;
  }
  for (size_t i = 1; i < k; i++) {
    for (size_t c = 0; c < e->ncases[i]; c++) {
      const bs__exec_case *ec = &e->cases[i][c];
      if (find_case(e->cases[0], e->ncases[0], ec->benchmark, ec->dataset) >=
              0 ||
          !case_matches(o, ec->benchmark, ec->dataset))
        continue;
      char esc[128];
      if (bs__run_warn(s->r, "case %s: only impl %s has it; skipped",
                       bs__run_case_label(label, sizeof label, ec->benchmark,
                                          ec->dataset),
                       bs__run_esc(esc, sizeof esc, o->impls[i].name)))
        return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    }
  }
  return BS_OK;
}

/* "IMPL: CASE: a confirm batch of N calls, block J of run R". */
static const char *what(char *out, size_t n, const sched *s, size_t impl,
                        const rcase *c, const char *doing) {
  char esc[128], label[300];
  snprintf(out, n, "%s: %s: %s",
           bs__run_esc(esc, sizeof esc, s->o->impls[impl].name),
           bs__run_case_label(label, sizeof label, c->benchmark, c->dataset),
           doing);
  return out;
}

static bs_status batch(sched *s, size_t impl, rcase *c, uint64_t n,
                       uint64_t run, long long block, double *per_call,
                       bs_error *err) {
  char doing[160], w[600];
  const char *unit = s->o->mode == BS_RUN_COMMAND ? "runs" : "calls";
  if (block < 0)
    snprintf(doing, sizeof doing, "a calibration batch of %llu %s, run %llu",
             (unsigned long long)n, unit, (unsigned long long)run);
  else
    snprintf(doing, sizeof doing,
             "a confirm batch of %llu %s, block %lld of run %llu",
             (unsigned long long)n, unit, block, (unsigned long long)run);
  uint64_t ns = 0;
  bs_status st = bs__exec_call(&s->ex, BS__OP_RUN, impl, c->idx[impl], n,
                               what(w, sizeof w, s, impl, c, doing), &ns, err);
  if (st)
    return st;
  /* The per-call time as the log will hold it (%.17g reads back exactly),
   * so the calibration below decides on the number `check` sees. */
  *per_call = (double)ns / 1e3 / (double)n;
  st = bs__run_log_row(&s->log, c->benchmark, c->dataset, c->scale,
                       s->o->impls[impl].name, run, block, n, *per_call);
  if (st)
    return bs_error_set(err, st, NULL, 0, "cannot build the log");
  s->r->nrows++;
  return BS_OK;
}

static bs_status calibrate(sched *s, size_t impl, rcase *c, uint64_t run,
                           bs_error *err) {
  const bs_run_options *o = s->o;
  uint64_t n = 1;
  for (;;) {
    double pc;
    bs_status st = batch(s, impl, c, n, run, -1, &pc, err);
    if (st)
      return st;
    double t = (double)n * pc;
    if (!(t < o->target_us && n < o->n_max))
      break;
    n = bs_run_next_batch(n, t, o->target_us, o->n_max);
  }
  c->batch[impl] = n;
  return BS_OK;
}

static bs_status simple_op(sched *s, int op, size_t impl, rcase *c,
                           const char *doing, uint64_t *value, bs_error *err) {
  char w[600];
  return bs__exec_call(&s->ex, op, impl, c->idx[impl], 0,
                       what(w, sizeof w, s, impl, c, doing), value, err);
}

static bs_status check_digests(sched *s, bs_error *err) {
  const bs_run_options *o = s->o;
  size_t k = o->nimpls;
  uint64_t *d = calloc(k, sizeof *d);
  bs_status st = BS_OK;
  if (!d)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  for (size_t c = 0; !st && c < s->ncases; c++) {
    rcase *rc = &s->cases[c];
    for (size_t i = 0; !st && rc->has_digest && i < k; i++)
      st = simple_op(s, BS__OP_DIGEST, i, rc, "its digest", &d[i], err);
    for (size_t i = 0; !st && i < k; i++)
      st = simple_op(s, BS__OP_TEARDOWN, i, rc, "its teardown", NULL, err);
    for (size_t i = 1; !st && rc->has_digest && i < k; i++) {
      if (d[i] != d[0]) {
        char a[128], b[128], label[300];
        s->r->wrong_result = 1;
        st = bs_error_set(
            err, BS_EINPUT, NULL, 0,
            "%s computes a different result from %s on %s (digest "
            "%016llx, not %016llx); nothing was written",
            bs__run_esc(a, sizeof a, o->impls[i].name),
            bs__run_esc(b, sizeof b, o->impls[0].name),
            bs__run_case_label(label, sizeof label, rc->benchmark, rc->dataset),
            (unsigned long long)d[i], (unsigned long long)d[0]);
      }
    }
  }
  free(d);
  return st;
}

static bs_status schedule(sched *s, bs_error *err) {
  const bs_run_options *o = s->o;
  size_t k = o->nimpls;
  size_t off = (size_t)(o->seed % k);
  bs_status st = BS_OK;
  for (uint64_t run = 0; !st && run < o->runs; run++) {
    for (size_t c = 0; !st && c < s->ncases; c++) {
      rcase *rc = &s->cases[c];
      if (run == 0 && o->mode == BS_RUN_LIBRARY)
        for (size_t i = 0; !st && i < k; i++)
          st = simple_op(s, BS__OP_SETUP, i, rc, "its setup", NULL, err);
      for (size_t p = 0; !st && p < k; p++)
        st = calibrate(s, (off + p) % k, rc, run, err);
      for (uint64_t j = 0; !st && j < o->blocks; j++) {
        for (size_t p = 0; !st && p < k; p++) {
          size_t i = (size_t)((j + off + p) % k);
          double pc;
          st = batch(s, i, rc, rc->batch[i], run, (long long)j, &pc, err);
        }
      }
    }
  }
  if (!st && o->mode == BS_RUN_LIBRARY)
    st = check_digests(s, err);
  return st;
}

static bs_status check_options(const bs_run_options *o, bs_error *err) {
  if (o->nimpls < 1)
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "no impl to measure");
  if (o->nimpls > 1000)
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "more than 1000 impls");
  if (!(isfinite(o->target_us) && o->target_us > 0) || o->n_max < 1 ||
      o->blocks < 1 || o->runs < 1 || o->blocks > 1000000 ||
      o->runs > 1000000 || !(o->timeout_s > 0 && o->timeout_s <= 1e9))
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "bad run options (T, n_max, blocks, runs and the "
                        "timeout must be positive)");
  for (size_t i = 0; i < o->nimpls; i++) {
    char esc[128];
    const char *name = o->impls[i].name;
    if (!name || !name[0])
      return bs_error_set(err, BS_EUSAGE, NULL, 0, "empty impl name");
    if (!valid_utf8(name))
      return bs_error_set(err, BS_EUSAGE, NULL, 0,
                          "impl name \"%s\" is not valid UTF-8",
                          bs__run_esc(esc, sizeof esc, name));
    if (!o->impls[i].target || !o->impls[i].target[0])
      return bs_error_set(err, BS_EUSAGE, NULL, 0, "impl %s: nothing to run",
                          bs__run_esc(esc, sizeof esc, name));
    for (size_t j = 0; j < i; j++)
      if (!strcmp(o->impls[j].name, name))
        return bs_error_set(err, BS_EUSAGE, NULL, 0,
                            "impl %s is given twice (the same code under two "
                            "ids needs two names, e.g. A and B)",
                            bs__run_esc(esc, sizeof esc, name));
  }
  const char *labels[] = {o->benchmark, o->dataset, o->filter};
  for (size_t i = 0; i < 3; i++)
    if (labels[i] && !valid_utf8(labels[i]))
      return bs_error_set(err, BS_EUSAGE, NULL, 0,
                          "--benchmark, --dataset and --filter must be valid "
                          "UTF-8");
  if (o->benchmark && !o->benchmark[0])
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "empty --benchmark");
  return BS_OK;
}

bs_status bs_run_measure(const bs_run_options *o, bs_run_result *r,
                         bs_error *err) {
  bs_status st = check_options(o, err);
  if (st)
    return st;
  if (o->mode == BS_RUN_GOOGLE_BENCHMARK)
    return bs__run_gbench(o, r, err);

  sched s;
  memset(&s, 0, sizeof s);
  s.o = o;
  s.r = r;
  s.ex.pid = -1;
  s.ex.fd = -1;
  bs__buf_init(&s.log, BS__BUF_DEFAULT_LIMIT);
  char **argvs[1000];
  memset(argvs, 0, sizeof argvs);
  bs__exec_case cmd_case;
  memset(&cmd_case, 0, sizeof cmd_case);
  size_t cmd_idx[1000];
  uint64_t cmd_batch[1000];

  if (o->mode == BS_RUN_COMMAND) {
    for (size_t i = 0; i < o->nimpls; i++) {
      char esc[128];
      if (bs_run_split_command(o->impls[i].target, &argvs[i], NULL, err)) {
        char why[sizeof err->message];
        snprintf(why, sizeof why, "%s", err->message);
        st = bs_error_set(err, BS_EUSAGE, NULL, 0, "impl %s: %s",
                          bs__run_esc(esc, sizeof esc, o->impls[i].name), why);
        goto done;
      }
    }
  }
  if ((st = bs__exec_start(&s.ex, o, argvs, err)))
    goto done;
  if (o->mode == BS_RUN_LIBRARY) {
    if ((st = match_cases(&s, err)))
      goto done;
  } else {
    /* One case: every command measures the same thing. */
    const char *b = o->benchmark ? o->benchmark : bs__run_basename(argvs[0][0]);
    const char *d = o->dataset ? o->dataset : "";
    if (!b[0] || !valid_utf8(b)) {
      st = bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "the program's name is no benchmark name: give "
                        "--benchmark NAME");
      goto done;
    }
    memset(cmd_idx, 0, sizeof cmd_idx);
    s.cases = calloc(1, sizeof *s.cases);
    if (!s.cases) {
      st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
      goto done;
    }
    if (case_matches(o, b, d)) {
      s.cases[0].benchmark = b;
      s.cases[0].dataset = d;
      s.cases[0].idx = cmd_idx;
      s.cases[0].batch = cmd_batch;
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
  if ((st = bs__run_log_header(&s.log))) {
    st = bs_error_set(err, st, NULL, 0, "cannot build the log");
    goto done;
  }
  if ((st = schedule(&s, err)))
    goto done;
  r->log = bs__buf_detach(&s.log, &r->log_len);

done:
  bs__exec_stop(&s.ex);
  for (size_t c = 0; o->mode == BS_RUN_LIBRARY && c < s.ncases; c++) {
    free(s.cases[c].idx);
    free(s.cases[c].batch);
  }
  free(s.cases);
  bs__buf_release(&s.log);
  for (size_t i = 0; i < o->nimpls && i < 1000; i++)
    free(argvs[i]);
  if (st)
    r->nrows = 0;
  return st;
}
