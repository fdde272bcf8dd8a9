/* Times the confirmatory analysis (m = 20, R = 10000) of one case and of a
 * whole 200-case log, and one case at m = 8 ... 24 beside a floor: the same
 * work done the simplest fast way. Prints figures; asserts nothing
 * (bench/README.md).
 *
 *   bench_compare OUTDIR   writes OUTDIR/deltas.txt (the one case's d, for
 *                          the scipy peer) and OUTDIR/log200.csv */
#include "benchsite/benchsite.h"
#include "resample_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this thread: what the case costs when the machine is busy. */
static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* --- The floor: the same work done the simplest fast way ----------------
 * One case's bootstrap as a competent hand-written kernel would do it: the
 * spec's draws (xorshift64*, index = draw() % m, R resamples from one
 * generator, here run as eight generators in the lanes of an AVX-512
 * vector, each jumped ahead to its own stretch of the one sequence), the
 * resample's values picked out of d by a permute, the median of each
 * resample by a selection network over the eight resamples at once, then
 * all R theta* sorted (LSD radix sort), the type-7 quantiles and the count
 * of theta* <= 0. It must give benchsite's interval and p-value count bit
 * for bit (checked before it is timed). The networks are Batcher's
 * odd-even merge sort for the next power of two, cut to m inputs (the
 * padding above m never moves) and to the comparators the two middle
 * outputs depend on: 17, 35, 53, 84 and 108 comparators for m = 8, 12,
 * 16, 20 and 24 (the best known full sorting network for 20 has 91). */
#if defined(__GNUC__) && defined(__x86_64__)
#define HAVE_FLOOR 1
#include <immintrin.h>

#define FLOOR_TARGET __attribute__((target("avx512f,avx512dq")))
#define FLOOR_LANES 8

/* clang-format off */
#define NET8 CE(0, 1) CE(2, 3) CE(4, 5) CE(6, 7) CE(0, 2) CE(1, 3) CE(4, 6) \
  CE(5, 7) CE(1, 2) CE(5, 6) CE(0, 4) CE(1, 5) CE(2, 6) CE(3, 7) CE(2, 4) \
  CE(3, 5) CE(3, 4)
#define NET12 CE(0, 1) CE(2, 3) CE(4, 5) CE(6, 7) CE(8, 9) CE(10, 11) \
  CE(0, 2) CE(1, 3) CE(4, 6) CE(5, 7) CE(8, 10) CE(9, 11) CE(1, 2) CE(5, 6) \
  CE(9, 10) CE(0, 4) CE(1, 5) CE(2, 6) CE(3, 7) CE(2, 4) CE(3, 5) CE(1, 2) \
  CE(3, 4) CE(5, 6) CE(9, 10) CE(0, 8) CE(1, 9) CE(2, 10) CE(3, 11) CE(4, 8) \
  CE(5, 9) CE(6, 10) CE(3, 5) CE(6, 8) CE(5, 6)
#define NET16 CE(0, 1) CE(2, 3) CE(4, 5) CE(6, 7) CE(8, 9) CE(10, 11) \
  CE(12, 13) CE(14, 15) CE(0, 2) CE(1, 3) CE(4, 6) CE(5, 7) CE(8, 10) \
  CE(9, 11) CE(12, 14) CE(13, 15) CE(1, 2) CE(5, 6) CE(9, 10) CE(13, 14) \
  CE(0, 4) CE(1, 5) CE(2, 6) CE(3, 7) CE(8, 12) CE(9, 13) CE(10, 14) \
  CE(11, 15) CE(2, 4) CE(3, 5) CE(10, 12) CE(11, 13) CE(1, 2) CE(3, 4) \
  CE(5, 6) CE(9, 10) CE(11, 12) CE(13, 14) CE(0, 8) CE(1, 9) CE(2, 10) \
  CE(3, 11) CE(4, 12) CE(5, 13) CE(6, 14) CE(7, 15) CE(4, 8) CE(5, 9) \
  CE(6, 10) CE(7, 11) CE(6, 8) CE(7, 9) CE(7, 8)
#define NET20 CE(0, 1) CE(2, 3) CE(4, 5) CE(6, 7) CE(8, 9) CE(10, 11) \
  CE(12, 13) CE(14, 15) CE(16, 17) CE(18, 19) CE(0, 2) CE(1, 3) CE(4, 6) \
  CE(5, 7) CE(8, 10) CE(9, 11) CE(12, 14) CE(13, 15) CE(16, 18) CE(17, 19) \
  CE(1, 2) CE(5, 6) CE(9, 10) CE(13, 14) CE(17, 18) CE(0, 4) CE(1, 5) \
  CE(2, 6) CE(3, 7) CE(8, 12) CE(9, 13) CE(10, 14) CE(11, 15) CE(2, 4) \
  CE(3, 5) CE(10, 12) CE(11, 13) CE(1, 2) CE(3, 4) CE(5, 6) CE(9, 10) \
  CE(11, 12) CE(13, 14) CE(17, 18) CE(0, 8) CE(1, 9) CE(2, 10) CE(3, 11) \
  CE(4, 12) CE(5, 13) CE(6, 14) CE(7, 15) CE(4, 8) CE(5, 9) CE(6, 10) \
  CE(7, 11) CE(2, 4) CE(3, 5) CE(6, 8) CE(7, 9) CE(10, 12) CE(11, 13) \
  CE(1, 2) CE(3, 4) CE(5, 6) CE(7, 8) CE(9, 10) CE(11, 12) CE(17, 18) \
  CE(0, 16) CE(1, 17) CE(2, 18) CE(3, 19) CE(8, 16) CE(9, 17) CE(10, 18) \
  CE(11, 19) CE(5, 9) CE(6, 10) CE(7, 11) CE(12, 16) CE(7, 9) CE(10, 12) \
  CE(9, 10)
#define NET24 CE(0, 1) CE(2, 3) CE(4, 5) CE(6, 7) CE(8, 9) CE(10, 11) \
  CE(12, 13) CE(14, 15) CE(16, 17) CE(18, 19) CE(20, 21) CE(22, 23) CE(0, 2) \
  CE(1, 3) CE(4, 6) CE(5, 7) CE(8, 10) CE(9, 11) CE(12, 14) CE(13, 15) \
  CE(16, 18) CE(17, 19) CE(20, 22) CE(21, 23) CE(1, 2) CE(5, 6) CE(9, 10) \
  CE(13, 14) CE(17, 18) CE(21, 22) CE(0, 4) CE(1, 5) CE(2, 6) CE(3, 7) \
  CE(8, 12) CE(9, 13) CE(10, 14) CE(11, 15) CE(16, 20) CE(17, 21) CE(18, 22) \
  CE(19, 23) CE(2, 4) CE(3, 5) CE(10, 12) CE(11, 13) CE(18, 20) CE(19, 21) \
  CE(1, 2) CE(3, 4) CE(5, 6) CE(9, 10) CE(11, 12) CE(13, 14) CE(17, 18) \
  CE(19, 20) CE(21, 22) CE(0, 8) CE(1, 9) CE(2, 10) CE(3, 11) CE(4, 12) \
  CE(5, 13) CE(6, 14) CE(7, 15) CE(4, 8) CE(5, 9) CE(6, 10) CE(7, 11) \
  CE(2, 4) CE(3, 5) CE(6, 8) CE(7, 9) CE(10, 12) CE(11, 13) CE(18, 20) \
  CE(19, 21) CE(1, 2) CE(3, 4) CE(5, 6) CE(7, 8) CE(9, 10) CE(11, 12) \
  CE(13, 14) CE(17, 18) CE(19, 20) CE(21, 22) CE(0, 16) CE(1, 17) CE(2, 18) \
  CE(3, 19) CE(4, 20) CE(5, 21) CE(6, 22) CE(7, 23) CE(8, 16) CE(9, 17) \
  CE(10, 18) CE(11, 19) CE(12, 20) CE(13, 21) CE(6, 10) CE(7, 11) CE(12, 16) \
  CE(13, 17) CE(10, 12) CE(11, 13) CE(11, 12)
/* clang-format on */

#define CE(a, b)                                                               \
  do {                                                                         \
    __m512d t_ = _mm512_min_pd(v[a], v[b]);                                    \
    v[b] = _mm512_max_pd(v[a], v[b]);                                          \
    v[a] = t_;                                                                 \
  } while (0);

/* theta* of `per` resamples from each of the eight generators st[] (m <= 24
 * values d, at most 24 padded with zeros) into th[8 * r + lane]: per draw,
 * one xorshift64* step of the eight, the draw reduced mod m exactly in
 * double precision (src/stats/resample.c's median band proves the expression),
 * the values permuted out of d; per resample, the network and the type-7
 * median with the expression of bs_quantile_sorted. */
/* M is a constant and NET a statement list: no parentheses. */
// NOLINTBEGIN(bugprone-macro-parentheses)
#define DEFINE_FLOOR(M, NET)                                                   \
  FLOOR_TARGET static void floor_thetas_##M(const double *d, uint64_t *st,     \
                                            size_t per, double *th) {          \
    double pad[24] = {0};                                                      \
    memcpy(pad, d, M * sizeof *d);                                             \
    const __m512d d0 = _mm512_loadu_pd(pad), d1 = _mm512_loadu_pd(pad + 8),    \
                  d2 = _mm512_loadu_pd(pad + 16);                              \
    uint64_t c = (UINT64_C(1) << 32) % M;                                      \
    const __m512i c2 =                                                         \
        _mm512_set1_epi64((long long)((UINT64_C(1) << 32) - (c ? c : M)));     \
    const __m512i dv = _mm512_set1_epi64(M);                                   \
    const __m512d inv = _mm512_set1_pd(1.0 / M);                               \
    const __m512d half_inv = _mm512_set1_pd(0.5 / M);                          \
    const __m512i mult = _mm512_set1_epi64(0x2545F4914F6CDD1D);                \
    const __m512i sixteen = _mm512_set1_epi64(16);                             \
    const __m512d frac = _mm512_set1_pd(M % 2 ? 0.0 : 0.5);                    \
    __m512i g = _mm512_loadu_si512((const void *)st);                          \
    for (size_t r = 0; r < per; r++) {                                         \
      __m512d v[M];                                                            \
      for (int k = 0; k < M; k++) {                                            \
        g = _mm512_xor_si512(g, _mm512_srli_epi64(g, 12));                     \
        g = _mm512_xor_si512(g, _mm512_slli_epi64(g, 25));                     \
        g = _mm512_xor_si512(g, _mm512_srli_epi64(g, 27));                     \
        __m512i x = _mm512_mullo_epi64(g, mult);                               \
        __m512i t = _mm512_sub_epi64(                                          \
            x, _mm512_mul_epu32(_mm512_srli_epi64(x, 32), c2));                \
        __m512i q = _mm512_cvttpd_epu64(                                       \
            _mm512_fmadd_pd(_mm512_cvtepu64_pd(t), inv, half_inv));            \
        __m512i i = _mm512_sub_epi64(t, _mm512_mullo_epi64(q, dv));            \
        __m512d y = _mm512_permutex2var_pd(d0, i, d1);                         \
        if (M > 16)                                                            \
          y = _mm512_mask_permutexvar_pd(                                      \
              y, _mm512_cmpge_epu64_mask(i, sixteen), i, d2);                  \
        v[k] = y;                                                              \
      }                                                                        \
      NET __m512d a = v[(M - 1) / 2], b = v[M / 2];                            \
      _mm512_storeu_pd(                                                        \
          th + FLOOR_LANES * r,                                                \
          _mm512_add_pd(a, _mm512_mul_pd(frac, _mm512_sub_pd(b, a))));         \
    }                                                                          \
    _mm512_storeu_si512((void *)st, g);                                        \
  }
// NOLINTEND(bugprone-macro-parentheses)

DEFINE_FLOOR(8, NET8)
DEFINE_FLOOR(12, NET12)
DEFINE_FLOOR(16, NET16)
DEFINE_FLOOR(20, NET20)
DEFINE_FLOOR(24, NET24)
#undef CE

/* Sorts n doubles (no NaN) ascending: an LSD radix sort, 11 bits at a
 * time, on keys that order as the doubles do, skipping the digits all keys
 * share. */
#define RADIX_BITS 11
#define RADIX_PASSES 6 /* ceil(64 / 11) */
static void radix_sort_doubles(double *x, size_t n, uint64_t *k0,
                               uint64_t *k1) {
  static uint32_t cnt[RADIX_PASSES][1 << RADIX_BITS];
  const uint64_t mask = (1 << RADIX_BITS) - 1;
  memset(cnt, 0, sizeof cnt);
  for (size_t i = 0; i < n; i++) {
    uint64_t u;
    memcpy(&u, &x[i], sizeof u);
    u ^= (u >> 63) ? ~UINT64_C(0) : UINT64_C(1) << 63;
    k0[i] = u;
    for (int b = 0; b < RADIX_PASSES; b++)
      cnt[b][(u >> (RADIX_BITS * b)) & mask]++;
  }
  uint64_t *src = k0, *dst = k1;
  for (int b = 0; b < RADIX_PASSES; b++) {
    unsigned sh = (unsigned)(RADIX_BITS * b);
    if (cnt[b][(src[0] >> sh) & mask] == n)
      continue; /* every key has this digit */
    uint32_t sum = 0;
    for (size_t j = 0; j <= mask; j++) {
      uint32_t c = cnt[b][j];
      cnt[b][j] = sum;
      sum += c;
    }
    for (size_t i = 0; i < n; i++)
      dst[cnt[b][(src[i] >> sh) & mask]++] = src[i];
    uint64_t *t = src;
    src = dst;
    dst = t;
  }
  for (size_t i = 0; i < n; i++) {
    uint64_t u = src[i];
    u ^= (u >> 63) ? UINT64_C(1) << 63 : ~UINT64_C(0);
    memcpy(&x[i], &u, sizeof u);
  }
}

typedef struct floor_work {
  double *th;
  uint64_t *k0, *k1;
} floor_work;

/* The floor's whole case: R (a multiple of 8) resamples of m (8, 12, 16,
 * 20 or 24) values at 95 %, seed as the spec's generator; with sort 0 only
 * the draws and the medians (to show where the floor's time goes). */
static void floor_case(const double *d, size_t m, size_t R, uint64_t seed,
                       floor_work *w, int sort, double *lo, double *hi,
                       uint64_t *np) {
  size_t per = R / FLOOR_LANES;
  uint64_t st[FLOOR_LANES];
  st[0] = seed ? seed : UINT64_C(0x9E3779B97F4A7C15);
  for (size_t c = 1; c < FLOOR_LANES; c++)
    st[c] = bs__xorshift_jump(st[c - 1], (uint64_t)(per * m));
  switch (m) {
  case 8:
    floor_thetas_8(d, st, per, w->th);
    break;
  case 12:
    floor_thetas_12(d, st, per, w->th);
    break;
  case 16:
    floor_thetas_16(d, st, per, w->th);
    break;
  case 20:
    floor_thetas_20(d, st, per, w->th);
    break;
  default:
    floor_thetas_24(d, st, per, w->th);
    break;
  }
  if (!sort)
    return;
  radix_sort_doubles(w->th, R, w->k0, w->k1);
  double alpha = (100.0 - 95.0) / 200.0;
  *lo = bs_quantile_sorted(w->th, R, alpha);
  *hi = bs_quantile_sorted(w->th, R, 1.0 - alpha);
  size_t n = 0;
  while (n < R && w->th[n] <= 0)
    n++;
  *np = n;
}
#else
#define HAVE_FLOOR 0
#endif

#if HAVE_FLOOR
/* One case of m values at R = 10 000: benchsite's bootstrap (what compare
 * calls) and the floor, in alternate batches of `batch` cases for about
 * `seconds` of CPU time each, the per-case CPU time of every batch kept;
 * prints the least and the median of each and their ratios. */
static int floor_vs_benchsite(const double *d, size_t m, double seconds,
                              double *ratio) {
  enum { R = 10000, ROUNDS_MAX = 4096 };
  const uint64_t seed = 7;
  floor_work w;
  w.th = malloc(R * sizeof *w.th);
  w.k0 = malloc(R * sizeof *w.k0);
  w.k1 = malloc(R * sizeof *w.k1);
  double *tb = malloc(ROUNDS_MAX * sizeof *tb);
  double *tf = malloc(ROUNDS_MAX * sizeof *tf);
  double *td = malloc(ROUNDS_MAX * sizeof *td);
  if (!w.th || !w.k0 || !w.k1 || !tb || !tf || !td)
    return 3; // NOLINT(clang-analyzer-unix.Malloc): the bench exits
  double blo = 0, bhi = 0, flo = 0, fhi = 0;
  uint64_t bnp = 0, fnp = 0;
  if (bs_bootstrap_median_ci_count(d, m, R, 95.0, seed, &blo, &bhi, NULL, &bnp,
                                   NULL))
    return 3;
  floor_case(d, m, R, seed, &w, 1, &flo, &fhi, &fnp);
  /* Bit-identical is the claim, so the bits are compared. */
  // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison,cert-exp42-c,cert-flp37-c)
  if (memcmp(&blo, &flo, sizeof blo) || memcmp(&bhi, &fhi, sizeof bhi) ||
      bnp != fnp) {
    fprintf(stderr,
            "bench_compare: the floor disagrees at m=%zu: [%.17g, %.17g] %llu "
            "against benchsite's [%.17g, %.17g] %llu\n",
            m, flo, fhi, (unsigned long long)fnp, blo, bhi,
            (unsigned long long)bnp);
    return 3;
  }
  const int batch = 10;
  size_t rounds = 0;
  double spent = 0;
  while (rounds < ROUNDS_MAX && spent < seconds) {
    double lo, hi, t0 = cpu_s();
    uint64_t np;
    for (int k = 0; k < batch; k++)
      bs_bootstrap_median_ci_count(d, m, R, 95.0, seed, &lo, &hi, NULL, &np,
                                   NULL);
    double t1 = cpu_s();
    for (int k = 0; k < batch; k++)
      floor_case(d, m, R, seed, &w, 1, &lo, &hi, &np);
    double t2 = cpu_s();
    for (int k = 0; k < batch; k++)
      floor_case(d, m, R, seed, &w, 0, &lo, &hi, &np);
    double t3 = cpu_s();
    tb[rounds] = (t1 - t0) / batch;
    tf[rounds] = (t2 - t1) / batch;
    td[rounds] = (t3 - t2) / batch;
    rounds++;
    spent = t3 - t0 + spent;
  }
  qsort(tb, rounds, sizeof *tb, cmp_double);
  qsort(tf, rounds, sizeof *tf, cmp_double);
  qsort(td, rounds, sizeof *td, cmp_double);
  double bmed = tb[rounds / 2], fmed = tf[rounds / 2];
  double dmed = td[rounds / 2];
  printf("m=%-2zu R=10000, CPU ms per case (min / median of %zu batches of "
         "%d): benchsite %.4f / %.4f, floor %.4f / %.4f (its draws and "
         "medians alone %.4f / %.4f): %.2fx the floor (min %.2fx), %.2fx its "
         "draws and medians alone\n",
         m, rounds, batch, tb[0] * 1e3, bmed * 1e3, tf[0] * 1e3, fmed * 1e3,
         td[0] * 1e3, dmed * 1e3, bmed / fmed, tb[0] / tf[0], bmed / dmed);
  *ratio = bmed / fmed;
  free(w.th);
  free(w.k0);
  free(w.k1);
  free(tb);
  free(tf);
  free(td);
  return 0;
}
#endif

/* Deterministic timing-like data: baseline ~ 100 us with 2 % noise and a
 * long right tail; candidate 4 % slower. */
static double sample(bs_rng *r, double base) {
  double u = (double)(bs_rng_next(r) >> 11) * 0x1.0p-53;
  double v = (double)(bs_rng_next(r) >> 11) * 0x1.0p-53;
  return base * (1.0 + 0.04 * (u + v - 1.0) + (u > 0.97 ? 0.2 * v : 0.0));
}

int main(int argc, char **argv) {
  if (argc != 2 && !(argc == 3 && !strcmp(argv[2], "floor"))) {
    fprintf(stderr, "usage: bench_compare OUTDIR [floor]\n");
    return 2;
  }
  /* "floor": the floor comparisons alone (the other timings run once). */
  double dur = argc == 3 ? 0.0 : 1.0;
  const char *dir = argv[1];
  char path[4096];
  bs_rng g;
  bs_rng_seed(&g, 12345);

  /* One case. */
  enum { M = 20 };
  double d[M];
  for (int j = 0; j < M; j++)
    d[j] = sample(&g, 104.0) - sample(&g, 100.0);
  snprintf(path, sizeof path, "%s/deltas.txt", dir);
  FILE *f = fopen(path, "w");
  if (!f)
    return 3;
  for (int j = 0; j < M; j++)
    fprintf(f, "%.17g\n", d[j]);
  fclose(f);

  /* Each engine this CPU has (the same interval from all), then the one
   * the library picks. */
  static const char *const names[] = {"auto", "portable", "avx2", "avx512"};
  double lo = 0, hi = 0, first_lo = 0, first_hi = 0, per_case = 0;
  for (int e = BS_RESAMPLE_ENGINE_PORTABLE; e <= BS_RESAMPLE_ENGINE_AVX512 + 1;
       e++) {
    bs_resample_engine want = e > BS_RESAMPLE_ENGINE_AVX512
                                  ? BS_RESAMPLE_ENGINE_AUTO
                                  : (bs_resample_engine)e;
    bs_resample_engine used = BS_RESAMPLE_ENGINE_AUTO;
    int reps = 0;
    double t0 = now_s(), t1;
    do {
      bs__bootstrap_median_ci_engine(d, M, 10000, 95.0, 7, want, &used, &lo,
                                     &hi, NULL, NULL);
      reps++;
      t1 = now_s();
    } while (t1 - t0 < dur);
    if (want != BS_RESAMPLE_ENGINE_AUTO && used != want)
      continue; /* not on this CPU */
    if (e == BS_RESAMPLE_ENGINE_PORTABLE) {
      first_lo = lo;
      first_hi = hi;
    } else if (lo != first_lo || hi != first_hi) {
      fprintf(stderr, "bench_compare: engine %s disagrees\n", names[used]);
      return 3;
    }
    per_case = (t1 - t0) / reps;
    printf("one case (m=20, R=10000), engine %-8s%s: %.4f ms per case over "
           "%d runs (interval [%.4f, %.4f] us)\n",
           names[used], want == BS_RESAMPLE_ENGINE_AUTO ? " (auto)" : "",
           per_case * 1e3, reps, lo, hi);
  }

  /* A 200-case log, 20 blocks, rotated order. */
  snprintf(path, sizeof path, "%s/log200.csv", dir);
  f = fopen(path, "w");
  if (!f)
    return 3;
  fprintf(f, "benchmark,dataset,impl,block,per_call_us\n");
  for (int c = 0; c < 200; c++)
    for (int j = 0; j < M; j++)
      for (int k = 0; k < 2; k++) {
        int which = (j + k) % 2;
        fprintf(f, "bench%03d,n=%d,%s,%d,%.6f\n", c, 1 << (c % 16),
                which ? "pr" : "main", j,
                sample(&g, which ? 50.0 + c : 48.0 + c));
      }
  fclose(f);

  int logreps = 0;
  size_t regressions = 0;
  double t0 = now_s(), t1;
  do {
    bs_log *log = bs_log_new();
    bs_compare_options o;
    bs_compare_options_init(&o, BS_MODE_CONFIRMATORY);
    bs_compare_result *r = NULL;
    if (bs_log_read_file(log, path, NULL) ||
        bs_compare_run(log, "main", "pr", &o, &r, NULL)) {
      fprintf(stderr, "bench_compare: analysis failed\n");
      return 3;
    }
    regressions = r->regressions;
    bs_compare_result_free(r);
    bs_log_free(log);
    logreps++;
    t1 = now_s();
  } while (t1 - t0 < 3.0 * dur);
  double per_log = (t1 - t0) / logreps;
  printf("200-case log (read + confirmatory compare): %.2f ms per log, "
         "%.4f ms per case (%zu regressions)\n",
         per_log * 1e3, per_log * 1e3 / 200, regressions);
  /* The shape of the cases of bench_ingest's 100 MB log (19 runs x 20
   * blocks = 380 pairs), where the AVX-512 engine counts through the
   * median band: per case and per draw (380 x 10 000 of them). */
  enum { M380 = 380 };
  double d380[M380];
  for (int j = 0; j < M380; j++)
    d380[j] = sample(&g, 104.0) - sample(&g, 100.0);
  for (int e = BS_RESAMPLE_ENGINE_PORTABLE; e <= BS_RESAMPLE_ENGINE_AVX512;
       e++) {
    bs_resample_engine used = BS_RESAMPLE_ENGINE_AUTO;
    int reps = 0;
    double c0 = now_s(), c1;
    do {
      bs__bootstrap_median_ci_engine(d380, M380, 10000, 95.0, 7,
                                     (bs_resample_engine)e, &used, &lo, &hi,
                                     NULL, NULL);
      reps++;
      c1 = now_s();
    } while (c1 - c0 < dur);
    if (used != (bs_resample_engine)e)
      continue; /* not on this CPU */
    if (e == BS_RESAMPLE_ENGINE_PORTABLE) {
      first_lo = lo;
      first_hi = hi;
    } else if (lo != first_lo || hi != first_hi) {
      fprintf(stderr, "bench_compare: engine %s disagrees\n", names[used]);
      return 3;
    }
    double s = (c1 - c0) / reps;
    printf("one case (m=380, R=10000), engine %-8s: %.4f ms per case, "
           "%.3f ns per draw over %d runs (interval [%.4f, %.4f] us)\n",
           names[used], s * 1e3, s / (M380 * 10000.0) * 1e9, reps, lo, hi);
  }

  /* One case at each of m = 8 ... 24 (below the median band) beside the
   * floor, m = 20 (the usual CI case) the longest. */
  double ratio20 = 0;
#if HAVE_FLOOR
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) {
    static const size_t fms[] = {20, 8, 12, 16, 24};
    double dm[24];
    for (size_t j = 0; j < 24; j++)
      dm[j] = sample(&g, 104.0) - sample(&g, 100.0);
    for (size_t i = 0; i < sizeof fms / sizeof fms[0]; i++) {
      double ratio = 0;
      int rc = floor_vs_benchsite(fms[i] == M ? d : dm, fms[i],
                                  fms[i] == M ? 3.0 : 1.0, &ratio);
      if (rc)
        return rc;
      if (fms[i] == M)
        ratio20 = ratio;
    }
  } else {
    printf("floor: needs AVX-512 (F, DQ), which this CPU lacks\n");
  }
#else
  printf("floor: needs x86-64 with GCC or Clang\n");
#endif

  printf("RESULT per_case_ms=%.6f per_log_ms=%.4f floor_ratio_m20=%.3f\n",
         per_case * 1e3, per_log * 1e3, ratio20);
  return 0;
}
