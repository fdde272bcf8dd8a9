/* timer: a small benchmark runner that makes benchsite's example inputs by
 * really timing code (the formats and protocol of benchsite(5)).
 *
 * For every case (benchmark, dataset) it calibrates a batch size per impl
 * with the calibration rule of benchsite(5), writing one `phase=calibration`
 * row per step, then measures m blocks; block j runs the K impls in the order
 * (j + o) mod K with o = 0 (the impl at position i is (j + i) mod K), each
 * as one batch of that impl's last calibrated size (`phase=confirm`).
 * Calibration starts at n_0 = 1 with T = 5 ms (Development) or 10 ms
 * (RegressionGate), as named in the manifest's `protocol`. Times come from
 * clock_gettime(CLOCK_MONOTONIC); rows are written in measurement order.
 *
 * Logs:
 *   compare  pr.csv + env.csv          impls main/pr, m = 20
 *   tune     tune.csv + tune-env.csv   sort: insertion/shell/qsort, m = 10
 *   aa       aa.csv + aa-env.csv       one function as A and B, N runs
 *   series   series.csv + series-env.csv   step K of a change series:
 *            the code at commit K-1 as `base`, at commit K as `head`
 *            (--step K; not part of `all`; see examples/series.sh)
 *
 * Standalone, libm only; no benchsite library. */

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define EXIT_USAGE 2
#define EXIT_IO 3

/* Largest batch calibration may reach (n_max of the calibration rule). */
#define N_MAX UINT64_C(100000000)

/* Sort inputs: a pool of at least 16 arrays and POOL_VALUES values. */
#define POOL_VALUES 65536u

/* ---------------------------------------------------------------------- */
/* Workloads and implementations                                          */

typedef struct workload {
  size_t n;
  const double *data;         /* n input values (read only) */
  double *scratch;            /* n values of scratch space (sorts) */
  const unsigned char *bytes; /* n input bytes (hash) */
  size_t npool;               /* sorts: data holds npool inputs of n values */
  size_t *cursor;             /* sorts: the input the next call sorts */
} workload;

typedef uint64_t (*kernel_fn)(const workload *w);

/* Every result lands here, so no call can be optimised away. */
static volatile uint64_t sink;

static uint64_t bits_of(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

/* The total of w's data with four independent accumulators. */
static inline double sum4(const workload *w) {
  const double *x = w->data;
  size_t n = w->n;
  double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    a0 += x[i];
    a1 += x[i + 1];
    a2 += x[i + 2];
    a3 += x[i + 3];
  }
  for (; i < n; i++)
    a0 += x[i];
  return (a0 + a1) + (a2 + a3);
}

/* sum, as on main: four independent accumulators. */
static uint64_t sum_main(const workload *w) { return bits_of(sum4(w)); }

/* sum, as in the pull request: the same four accumulators, but every
 * input is first checked to be finite inside the loop. */
static uint64_t sum_pr(const workload *w) {
  const double *x = w->data;
  size_t n = w->n;
  double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    if (!isfinite(x[i]) || !isfinite(x[i + 1]) || !isfinite(x[i + 2]) ||
        !isfinite(x[i + 3]))
      return bits_of((double)NAN);
    a0 += x[i];
    a1 += x[i + 1];
    a2 += x[i + 2];
    a3 += x[i + 3];
  }
  for (; i < n; i++) {
    if (!isfinite(x[i]))
      return bits_of((double)NAN);
    a0 += x[i];
  }
  return bits_of((a0 + a1) + (a2 + a3));
}

/* hash: 64-bit FNV-1a over the bytes. */
static uint64_t hash_fnv1a(const workload *w) {
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (size_t i = 0; i < w->n; i++) {
    h ^= w->bytes[i];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

/* dot, as on main: indexed loop of x[i] * x[n-1-i]. */
static uint64_t dot_main(const workload *w) {
  const double *x = w->data;
  size_t n = w->n;
  double s = 0.0;
  for (size_t i = 0; i < n; i++)
    s += x[i] * x[n - 1 - i];
  return bits_of(s);
}

/* dot, as in the pull request: the same computation rewritten with two
 * pointers (a refactor that should change nothing). */
static uint64_t dot_pr(const workload *w) {
  const double *p = w->data;
  const double *q = w->data + w->n;
  double s = 0.0;
  while (q != w->data) {
    --q;
    s += *p++ * *q;
  }
  return bits_of(s);
}

/* dot, as it creeps at the end of the series: dot_pr followed by `rounds`
 * dependent multiply-adds (a rounding step, then more), each step about
 * 2 % of the call: none is a significant regression on its own, together
 * they are. */
static double dot_tail(double s, int rounds) {
  for (int r = 0; r < rounds; r++)
    s = s * 0.9999999999999999 + 0x1p-60;
  return s;
}

static uint64_t dot_rounded(const workload *w, int rounds) {
  const double *p = w->data;
  const double *q = w->data + w->n;
  double s = 0.0;
  while (q != w->data) {
    --q;
    s += *p++ * *q;
  }
  return bits_of(dot_tail(s, rounds));
}

static uint64_t dot_round1(const workload *w) { return dot_rounded(w, 10); }
static uint64_t dot_round2(const workload *w) { return dot_rounded(w, 17); }
static uint64_t dot_round3(const workload *w) { return dot_rounded(w, 24); }

/* sum, the fix of the series: the four accumulators of sum_main, and the
 * finiteness check moved out of the loop: a non-finite input makes the
 * total non-finite, so checking the total once is enough. */
static uint64_t sum_checked(const workload *w) {
  double total = sum4(w);
  if (!isfinite(total))
    return bits_of((double)NAN);
  return bits_of(total);
}

/* hash, as changed in the series: FNV-1a that also folds the high half of
 * the state back into the low half after every byte (better avalanche for
 * a power-of-two table, at the price of a shift and an xor per byte). */
static uint64_t hash_fnv1a_fold(const workload *w) {
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (size_t i = 0; i < w->n; i++) {
    h ^= w->bytes[i];
    h *= UINT64_C(0x100000001b3);
    h ^= h >> 32;
  }
  return h;
}

static void insertion_sort(double *a, size_t n) {
  for (size_t i = 1; i < n; i++) {
    double v = a[i];
    size_t j = i;
    while (j > 0 && a[j - 1] > v) {
      a[j] = a[j - 1];
      j--;
    }
    a[j] = v;
  }
}

/* Shell sort with Ciura's gaps (extended by x2.25 past 701). */
static void shell_sort(double *a, size_t n) {
  static const size_t gaps[] = {3937, 1750, 701, 301, 132, 57, 23, 10, 4, 1};
  for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
    size_t gap = gaps[g];
    for (size_t i = gap; i < n; i++) {
      double v = a[i];
      size_t j = i;
      while (j >= gap && a[j - gap] > v) {
        a[j] = a[j - gap];
        j -= gap;
      }
      a[j] = v;
    }
  }
}

static int cmp_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

/* Each sort call copies the next unsorted input of the pool, then sorts
 * the copy. Cycling through many inputs keeps the branch predictor from
 * learning one input by heart, which would flatter insertion sort. */
static void sort_load(const workload *w) {
  size_t k = *w->cursor;
  memcpy(w->scratch, w->data + k * w->n, w->n * sizeof *w->data);
  *w->cursor = k + 1 == w->npool ? 0 : k + 1;
}

static uint64_t sort_result(const workload *w) {
  return bits_of(w->scratch[0]) ^ bits_of(w->scratch[w->n / 2]);
}

static uint64_t sort_insertion(const workload *w) {
  sort_load(w);
  insertion_sort(w->scratch, w->n);
  return sort_result(w);
}

static uint64_t sort_shell(const workload *w) {
  sort_load(w);
  shell_sort(w->scratch, w->n);
  return sort_result(w);
}

static uint64_t sort_qsort(const workload *w) {
  sort_load(w);
  qsort(w->scratch, w->n, sizeof *w->scratch, cmp_double);
  return sort_result(w);
}

typedef struct impl {
  const char *id;
  kernel_fn fn;
} impl;

/* DOUBLES: one array of n values; POOL: many arrays of n values, one per
 * call in turn (sorts); BYTES: n bytes. */
typedef enum input_kind { INPUT_DOUBLES, INPUT_POOL, INPUT_BYTES } input_kind;

typedef struct bench_case {
  const char *benchmark;
  size_t n; /* dataset "n=<n>", scale n */
  input_kind input;
  size_t nimpl;
  impl impls[3];
} bench_case;

/* ---------------------------------------------------------------------- */
/* Deterministic input data: xorshift64* (as benchsite uses)                 */

static uint64_t rng_state;

static uint64_t rng_draw(void) {
  uint64_t s = rng_state;
  s ^= s >> 12;
  s ^= s << 25;
  s ^= s >> 27;
  rng_state = s;
  return s * UINT64_C(0x2545F4914F6CDD1D);
}

/* Uniform in [0, 1) from the top 53 bits. */
static double rng_unit(void) { return (double)(rng_draw() >> 11) * 0x1.0p-53; }

/* ---------------------------------------------------------------------- */
/* Timing                                                                 */

static int64_t now_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
    perror("timer: clock_gettime");
    exit(EXIT_IO);
  }
  return (int64_t)ts.tv_sec * 1000000000 + (int64_t)ts.tv_nsec;
}

/* Runs one batch of n calls; returns the batch time in microseconds. */
static double time_batch(kernel_fn fn, const workload *w, uint64_t n) {
  /* Read through a volatile pointer on every call: the compiler cannot
   * see the callee, so it cannot hoist or merge calls. */
  kernel_fn volatile call = fn;
  int64_t t0 = now_ns();
  for (uint64_t i = 0; i < n; i++)
    sink = call(w);
  int64_t t1 = now_ns();
  int64_t dt = t1 - t0;
  if (dt < 1)
    dt = 1; /* below the clock's resolution: count one tick */
  return (double)dt / 1000.0;
}

/* ---------------------------------------------------------------------- */
/* Output                                                                 */

typedef struct out_file {
  FILE *f;
  char path[4096];
  char tmp[4096];
} out_file;

static void die_io(const char *what, const char *path) {
  fprintf(stderr, "timer: %s %s: %s\n", what, path, strerror(errno));
  exit(EXIT_IO);
}

static void out_open(out_file *o, const char *dir, const char *name) {
  int a = snprintf(o->path, sizeof o->path, "%s/%s", dir, name);
  int b = snprintf(o->tmp, sizeof o->tmp, "%s/.%s.tmp", dir, name);
  if (a < 0 || b < 0 || (size_t)a >= sizeof o->path ||
      (size_t)b >= sizeof o->tmp) {
    fprintf(stderr, "timer: output directory name too long\n");
    exit(EXIT_USAGE);
  }
  o->f = fopen(o->tmp, "w");
  if (!o->f)
    die_io("cannot create", o->tmp);
}

/* Complete the file under its temporary name, then rename it into place. */
static void out_commit(out_file *o) {
  if (ferror(o->f) || fclose(o->f) != 0) {
    remove(o->tmp);
    die_io("cannot write", o->tmp);
  }
  if (rename(o->tmp, o->path) != 0) {
    remove(o->tmp);
    die_io("cannot rename into", o->path);
  }
  fprintf(stderr, "timer: wrote %s\n", o->path);
}

/* One CSV field, quoted per RFC 4180 when it needs to be. */
static void csv_field(FILE *f, const char *s) {
  if (strpbrk(s, ",\"\r\n") == NULL) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static void manifest_pair(FILE *f, const char *key, const char *value) {
  csv_field(f, key);
  fputc(',', f);
  csv_field(f, value);
  fputc('\n', f);
}

/* ---------------------------------------------------------------------- */
/* Protocol                                                               */

typedef struct options {
  const char *outdir;
  const char *log;
  const char *machine;
  const char *commit;
  const char *frequency_policy;
  const char *protocol; /* "Development" or "RegressionGate" */
  double target_us;     /* T */
  unsigned runs;        /* A/A runs */
  unsigned step;        /* series: commit K of the change series */
} options;

static const char LOG_HEADER[] =
    "benchmark,dataset,scale,impl,run,block,phase,iterations,per_call_us\n";

/* Writes one row; returns per_call_us exactly as it reads back from the
 * text, so decisions below use the very numbers a checker will see. */
static double write_row(FILE *f, const bench_case *c, const char *impl_id,
                        unsigned run, long block, uint64_t iterations,
                        double batch_us) {
  char num[64];
  snprintf(num, sizeof num, "%.17g", batch_us / (double)iterations);
  double per_call = strtod(num, NULL);
  fprintf(f, "%s,n=%zu,%zu,%s,%u,", c->benchmark, c->n, c->n, impl_id, run);
  if (block >= 0)
    fprintf(f, "%ld,confirm,", block);
  else
    fputs(",calibration,", f);
  fprintf(f, "%llu,%s\n", (unsigned long long)iterations, num);
  return per_call;
}

/* Calibration (the rule of benchsite(5)) from n_0 = 1:
 * n_{k+1} = min(n_max, max(n_k + 1, ceil(n_k * T / t_k)))
 * while t_k < T and n_k < n_max. Returns the last n. */
static uint64_t calibrate(FILE *f, const bench_case *c, const impl *im,
                          const workload *w, unsigned run, double target_us) {
  uint64_t n = 1;
  for (;;) {
    double batch_us = time_batch(im->fn, w, n);
    double per_call = write_row(f, c, im->id, run, -1, n, batch_us);
    double t = (double)n * per_call;
    if (!(t < target_us) || n >= N_MAX)
      return n;
    double want = ceil((double)n * target_us / t);
    uint64_t next = n + 1;
    if (want >= (double)N_MAX)
      next = N_MAX;
    else if (want > (double)next)
      next = (uint64_t)want;
    n = next;
  }
}

static void die_oom(void) {
  fprintf(stderr, "timer: out of memory\n");
  exit(EXIT_IO);
}

/* One case of one run: calibrate every impl, then m rotated blocks. */
static void measure_case(FILE *f, const bench_case *c, unsigned run,
                         unsigned blocks, unsigned offset, const options *opt) {
  size_t cursor = 0;
  workload w = {c->n, NULL, NULL, NULL, 1, &cursor};
  double *data = NULL, *scratch = NULL;
  unsigned char *bytes = NULL;
  rng_state = UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)c->n;
  if (c->input == INPUT_BYTES) {
    bytes = malloc(c->n);
    if (!bytes)
      die_oom();
    for (size_t i = 0; i < c->n; i++)
      bytes[i] = (unsigned char)(rng_draw() >> 56);
    w.bytes = bytes;
  } else {
    if (c->input == INPUT_POOL)
      w.npool = c->n >= POOL_VALUES / 16 ? 16 : POOL_VALUES / c->n;
    data = malloc(w.npool * c->n * sizeof *data);
    scratch = malloc(c->n * sizeof *scratch);
    if (!data || !scratch)
      die_oom();
    for (size_t i = 0; i < w.npool * c->n; i++)
      data[i] = rng_unit();
    w.data = data;
    w.scratch = scratch;
  }

  uint64_t batch[3];
  for (size_t k = 0; k < c->nimpl; k++)
    batch[k] = calibrate(f, c, &c->impls[k], &w, run, opt->target_us);

  for (unsigned j = 0; j < blocks; j++) {
    for (size_t i = 0; i < c->nimpl; i++) {
      size_t k = (j + offset + i) % c->nimpl;
      double batch_us = time_batch(c->impls[k].fn, &w, batch[k]);
      write_row(f, c, c->impls[k].id, run, (long)j, batch[k], batch_us);
    }
  }

  free(data);
  free(scratch);
  free(bytes);
}

static void utc_now(char *buf, size_t size) {
  time_t t = time(NULL);
  struct tm tm;
  if (t == (time_t)-1 || !gmtime_r(&t, &tm) ||
      strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) {
    fprintf(stderr, "timer: cannot read the clock\n");
    exit(EXIT_IO);
  }
}

static void write_manifest(const options *opt, const char *name,
                           const char *date, const char *extra[][2],
                           size_t nextra) {
  out_file o;
  out_open(&o, opt->outdir, name);
  manifest_pair(o.f, "key", "value");
  manifest_pair(o.f, "target", "native");
  manifest_pair(o.f, "profile", "release");
  manifest_pair(o.f, "dtype", "f64");
  manifest_pair(o.f, "machine", opt->machine);
  manifest_pair(o.f, "frequency_policy", opt->frequency_policy);
  manifest_pair(o.f, "commit", opt->commit);
  manifest_pair(o.f, "date", date);
  manifest_pair(o.f, "protocol", opt->protocol);
  for (size_t i = 0; i < nextra; i++)
    manifest_pair(o.f, extra[i][0], extra[i][1]);
  out_commit(&o);
}

/* ---------------------------------------------------------------------- */
/* The three logs                                                         */

static void run_compare(const options *opt) {
  static const bench_case cases[] = {
      /* regression: pr checks every input inside the summing loop */
      {"sum", 65536, INPUT_DOUBLES, 2, {{"main", sum_main}, {"pr", sum_pr}}},
      /* improvement: insertion sort replaced by shell sort */
      {"sort",
       1024,
       INPUT_POOL,
       2,
       {{"main", sort_insertion}, {"pr", sort_shell}}},
      /* equivalent: literally the same function */
      {"hash",
       4096,
       INPUT_BYTES,
       2,
       {{"main", hash_fnv1a}, {"pr", hash_fnv1a}}},
      /* equivalent: a refactor to the same computation */
      {"dot", 1024, INPUT_DOUBLES, 2, {{"main", dot_main}, {"pr", dot_pr}}},
  };
  char date[32];
  utc_now(date, sizeof date);
  out_file o;
  out_open(&o, opt->outdir, "pr.csv");
  fputs(LOG_HEADER, o.f);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fprintf(stderr, "timer: compare %s/n=%zu\n", cases[i].benchmark,
            cases[i].n);
    measure_case(o.f, &cases[i], 0, 20, 0, opt);
  }
  out_commit(&o);
  const char *extra[][2] = {{"baseline", "main"}, {"candidate", "pr"}};
  write_manifest(opt, "env.csv", date, extra, 2);
}

static void run_tune(const options *opt) {
  char date[32];
  utc_now(date, sizeof date);
  out_file o;
  out_open(&o, opt->outdir, "tune.csv");
  fputs(LOG_HEADER, o.f);
  for (size_t n = 8; n <= 4096; n *= 2) {
    bench_case c = {"sort",
                    n,
                    INPUT_POOL,
                    3,
                    {{"insertion", sort_insertion},
                     {"shell", sort_shell},
                     {"qsort", sort_qsort}}};
    fprintf(stderr, "timer: tune sort/n=%zu\n", n);
    measure_case(o.f, &c, 0, 10, 0, opt);
  }
  out_commit(&o);
  write_manifest(opt, "tune-env.csv", date, NULL, 0);
}

static void run_aa(const options *opt) {
  static const bench_case cases[] = {
      {"sum", 65536, INPUT_DOUBLES, 2, {{"A", sum_main}, {"B", sum_main}}},
      {"hash", 4096, INPUT_BYTES, 2, {{"A", hash_fnv1a}, {"B", hash_fnv1a}}},
  };
  char date[32];
  utc_now(date, sizeof date);
  out_file o;
  out_open(&o, opt->outdir, "aa.csv");
  fputs(LOG_HEADER, o.f);
  /* Each run is the whole experiment again, calibration included. */
  for (unsigned run = 0; run < opt->runs; run++) {
    fprintf(stderr, "timer: aa run %u/%u\n", run + 1, opt->runs);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
      measure_case(o.f, &cases[i], run, 20, 0, opt);
  }
  out_commit(&o);
  const char *extra[][2] = {{"aa_a", "A"}, {"aa_b", "B"}};
  write_manifest(opt, "aa-env.csv", date, extra, 2);
}

/* The change series: the code of the four cases at commits 0 ..
 * SERIES_STEPS of a made-up history. Step K measures commit K-1 as `base`
 * and commit K as `head`, the two builds a CI job on the main branch
 * compares; examples/series.sh runs every step and archives the runs. */
typedef struct series_commit {
  const char *change; /* what the commit did (manifest key `change`) */
  kernel_fn sum, sort, hash, dot;
} series_commit;

static const series_commit series_commits[] = {
    {"initial version", sum_main, sort_insertion, hash_fnv1a, dot_main},
    {"dot: rewrite the indexed loop with two pointers", sum_main,
     sort_insertion, hash_fnv1a, dot_pr},
    {"sort: Shell sort (Ciura gaps) instead of insertion sort", sum_main,
     sort_shell, hash_fnv1a, dot_pr},
    {"docs: explain the dataset labels", sum_main, sort_shell, hash_fnv1a,
     dot_pr},
    {"sum: check that every input is finite inside the loop", sum_pr,
     sort_shell, hash_fnv1a, dot_pr},
    {"build: silence a -Wconversion warning", sum_pr, sort_shell, hash_fnv1a,
     dot_pr},
    {"hash: fold the high half back after every byte", sum_pr, sort_shell,
     hash_fnv1a_fold, dot_pr},
    {"sum: check finiteness once, on the total", sum_checked, sort_shell,
     hash_fnv1a_fold, dot_pr},
    {"tests: cover empty inputs", sum_checked, sort_shell, hash_fnv1a_fold,
     dot_pr},
    {"ci: measure with the RegressionGate protocol", sum_checked, sort_shell,
     hash_fnv1a_fold, dot_pr},
    {"docs: changelog", sum_checked, sort_shell, hash_fnv1a_fold, dot_pr},
    {"dot: round the total", sum_checked, sort_shell, hash_fnv1a_fold,
     dot_round1},
    {"dot: round twice", sum_checked, sort_shell, hash_fnv1a_fold, dot_round2},
    {"dot: round three times", sum_checked, sort_shell, hash_fnv1a_fold,
     dot_round3},
};

#define SERIES_STEPS (sizeof series_commits / sizeof series_commits[0] - 1)

static void run_series(const options *opt) {
  const series_commit *b = &series_commits[opt->step - 1];
  const series_commit *h = &series_commits[opt->step];
  const bench_case cases[] = {
      {"sum", 65536, INPUT_DOUBLES, 2, {{"base", b->sum}, {"head", h->sum}}},
      {"sort", 1024, INPUT_POOL, 2, {{"base", b->sort}, {"head", h->sort}}},
      {"hash", 4096, INPUT_BYTES, 2, {{"base", b->hash}, {"head", h->hash}}},
      {"dot", 1024, INPUT_DOUBLES, 2, {{"base", b->dot}, {"head", h->dot}}},
  };
  char date[32];
  utc_now(date, sizeof date);
  out_file o;
  out_open(&o, opt->outdir, "series.csv");
  fputs(LOG_HEADER, o.f);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fprintf(stderr, "timer: series step %u %s/n=%zu\n", opt->step,
            cases[i].benchmark, cases[i].n);
    measure_case(o.f, &cases[i], 0, 20, 0, opt);
  }
  out_commit(&o);
  /* The baseline is the commit before this one: the site chains the
   * steps through `baseline_commit`. */
  char parent[32];
  snprintf(parent, sizeof parent, "series-%02u", opt->step - 1);
  const char *extra[][2] = {{"baseline", "base"},
                            {"candidate", "head"},
                            {"baseline_commit", parent},
                            {"change", h->change}};
  write_manifest(opt, "series-env.csv", date, extra, 4);
}

/* ---------------------------------------------------------------------- */
/* Command line                                                           */

static void usage(FILE *f) {
  fputs(
      "usage: example_timer [options] OUTDIR LOG\n"
      "\n"
      "Times real code in calibrated, rotated batches (benchsite(5) protocol)\n"
      "and writes observation logs and manifests into OUTDIR.\n"
      "\n"
      "LOG is one of:\n"
      "  compare  pr.csv + env.csv: impls main/pr, 20 blocks, 4 cases\n"
      "  tune     tune.csv + tune-env.csv: sort n=8..4096, 3 impls, 10 "
      "blocks\n"
      "  aa       aa.csv + aa-env.csv: same code as A and B, 20 blocks a "
      "run\n"
      "  all      all three\n"
      "  series   series.csv + series-env.csv: step K (--step) of a change\n"
      "           series, commit K-1 as base and commit K as head, 20 "
      "blocks\n"
      "\n"
      "options:\n"
      "  --protocol P          Development (T = 5 ms, default) or\n"
      "                        RegressionGate (T = 10 ms)\n"
      "  --runs N              A/A runs, 2..1000 (default 20)\n"
      "  --machine LABEL       manifest machine (default ci-runner-1)\n"
      "  --commit ID           manifest commit (default unknown)\n"
      "  --frequency-policy P  manifest frequency_policy (default "
      "performance)\n"
      "  --step K              series: the step, 1..13\n"
      "  -h, --help            this text\n",
      f);
}

static void usage_error(const char *msg, const char *arg) {
  fprintf(stderr, "timer: %s%s%s%s\n", msg, arg ? " \"" : "", arg ? arg : "",
          arg ? "\"" : "");
  fputs("try 'example_timer --help'\n", stderr);
  exit(EXIT_USAGE);
}

/* Manifest labels: non-empty, no control bytes. */
static const char *label_arg(const char *opt_name, const char *v) {
  if (!v)
    usage_error("missing value for", opt_name);
  if (*v == '\0')
    usage_error("empty value for", opt_name);
  for (const unsigned char *p = (const unsigned char *)v; *p; p++)
    if (*p < 0x20 || *p == 0x7f)
      usage_error("control character in value of", opt_name);
  return v;
}

static void parse_args(int argc, char **argv, options *opt) {
  const char *pos[2] = {NULL, NULL};
  int npos = 0;
  int only_positional = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (only_positional || a[0] != '-' || a[1] == '\0') {
      if (npos == 2)
        usage_error("too many arguments:", a);
      pos[npos++] = a;
    } else if (!strcmp(a, "--")) {
      only_positional = 1;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      exit(0);
    } else if (!strcmp(a, "--protocol")) {
      v = label_arg(a, v);
      i++;
      if (!strcmp(v, "Development"))
        opt->target_us = 5000.0;
      else if (!strcmp(v, "RegressionGate"))
        opt->target_us = 10000.0;
      else
        usage_error("protocol must be Development or RegressionGate, not", v);
      opt->protocol = v;
    } else if (!strcmp(a, "--runs")) {
      v = label_arg(a, v);
      i++;
      char *end;
      errno = 0;
      unsigned long r = strtoul(v, &end, 10);
      if (errno || *end || v[0] == '-' || v[0] == '+' || r < 2 || r > 1000)
        usage_error("--runs wants an integer from 2 to 1000, not", v);
      opt->runs = (unsigned)r;
    } else if (!strcmp(a, "--machine")) {
      opt->machine = label_arg(a, v);
      i++;
    } else if (!strcmp(a, "--commit")) {
      opt->commit = label_arg(a, v);
      i++;
    } else if (!strcmp(a, "--step")) {
      v = label_arg(a, v);
      i++;
      char *end;
      errno = 0;
      unsigned long k = strtoul(v, &end, 10);
      if (errno || *end || v[0] == '-' || v[0] == '+' || k < 1 ||
          k > SERIES_STEPS)
        usage_error("--step wants an integer from 1 to 13, not", v);
      opt->step = (unsigned)k;
    } else if (!strcmp(a, "--frequency-policy")) {
      opt->frequency_policy = label_arg(a, v);
      i++;
    } else {
      usage_error("unknown option", a);
    }
  }
  if (npos != 2)
    usage_error("expected OUTDIR and LOG", NULL);
  opt->outdir = pos[0];
  opt->log = pos[1];
  if (strcmp(opt->log, "compare") && strcmp(opt->log, "tune") &&
      strcmp(opt->log, "aa") && strcmp(opt->log, "all") &&
      strcmp(opt->log, "series"))
    usage_error("LOG must be compare, tune, aa, all or series, not", opt->log);
  if (!strcmp(opt->log, "series") != (opt->step != 0))
    usage_error(opt->step ? "--step belongs to the series log"
                          : "the series log needs --step K",
                NULL);
  struct stat st;
  if (stat(opt->outdir, &st) != 0 || !S_ISDIR(st.st_mode))
    usage_error("not a directory:", opt->outdir);
}

int main(int argc, char **argv) {
  options opt = {NULL,
                 NULL,
                 "ci-runner-1",
                 "unknown",
                 "performance",
                 "Development",
                 5000.0,
                 20,
                 0};
  parse_args(argc, argv, &opt);
  int all = !strcmp(opt.log, "all");
  if (all || !strcmp(opt.log, "compare"))
    run_compare(&opt);
  if (all || !strcmp(opt.log, "tune"))
    run_tune(&opt);
  if (all || !strcmp(opt.log, "aa"))
    run_aa(&opt);
  if (!strcmp(opt.log, "series"))
    run_series(&opt);
  return 0;
}
