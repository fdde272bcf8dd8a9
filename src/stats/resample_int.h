/* The median resampling engine shared by the paired bootstrap
 * (bootstrap.c, SPEC §2.4) and A/A validation (noise.c, §2.8). Private;
 * benchsite/resample.h names its engines.
 *
 * A series is sorted once; a resample only counts how often each index
 * was drawn, and the type-7 median is read off the cumulative counts in
 * rank order as the pair of ranks (lo, hi) it averages. The order
 * statistics found are the values a sort of the resample would put at
 * those positions, and bs__series_median uses the expression of
 * bs_quantile_sorted, so every median is bit-identical to sorting the
 * resample. Counting also makes the moving block bootstrap cheap: a
 * median ignores the order in which blocks were appended.
 *
 * BS__CHAINS generators run side by side, each on its own stretch of the
 * one xorshift64* sequence the spec defines (bs__xorshift_jump puts them
 * there): a single xorshift chain is a serial run of six dependent shifts
 * and xors per draw, and one generator leaves most of the machine idle.
 * The chains run in registers (portable) or as the lanes of a vector
 * (AVX2, AVX-512), chosen at run time; all engines give the same draws. */
#ifndef BENCHSITE_RESAMPLE_INT_H
#define BENCHSITE_RESAMPLE_INT_H

#include "benchsite/error.h"
#include "benchsite/resample.h"
#include "fastdiv.h"

#include <stddef.h>
#include <stdint.h>

#define BS__CHAINS 8

/* The SIMD engines (AVX2, AVX-512), chosen at run time: x86-64 with GCC or
 * Clang, unless built with BENCHSITE_NO_SIMD. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(BENCHSITE_NO_SIMD)
#define BS__HAVE_SIMD 1
#else
#define BS__HAVE_SIMD 0
#endif

/* xorshift64* on a local state (bs_rng_next, kept in a register). */
#define BS__XS_NEXT(g)                                                         \
  ((g) ^= (g) >> 12, (g) ^= (g) << 25, (g) ^= (g) >> 27,                       \
   (g)*UINT64_C(0x2545F4914F6CDD1D))

/* One series prepared for resampling its median. */
typedef struct bs__series {
  size_t n;
  size_t L;     /* 0: ordinary bootstrap; else the moving block length */
  size_t draws; /* generator draws per resample: n, or ceil(n / L) */
  size_t mod;   /* the divisor: n, or n - L + 1 */
  double *sorted;
  uint32_t *byrank; /* counter offset of the rank-j value (index * CHAINS) */
  bs__fastdiv div;  /* mod `mod` */
  int kind;         /* the divisor's case: 0 power of two, 1 magic, 2 add */
  uint32_t lo, hi;  /* the median's positions */
  double frac;
} bs__series;

/* Sorts x[0..n-1] (n >= 1, L <= n, n <= UINT32_MAX / BS__CHAINS).
 * BS_ENOMEM. */
bs_status bs__series_init(bs__series *s, const double *x, size_t n, size_t L);
void bs__series_release(bs__series *s);

/* The median of a resample from the rank pair it averages. */
static inline double bs__series_median(const bs__series *s, uint32_t jl,
                                       uint32_t jh) {
  double a = s->sorted[jl], b = s->sorted[jh];
  return a + s->frac * (b - a);
}

/* The generator state n draws after s. */
uint64_t bs__xorshift_jump(uint64_t s, uint64_t n);

/* The best engine at most `want` (AUTO: the best) that this build, this
 * CPU and a largest divisor of `max_mod` allow. */
bs_resample_engine bs__resample_engine(size_t max_mod, bs_resample_engine want);

/* Scratch for resampling series of at most n values and `draws` draws. */
typedef struct bs__resample_work {
  uint32_t *counts; /* BS__CHAINS * n, in the block idx points to */
  uint64_t *idx;    /* BS__CHAINS * draws */
} bs__resample_work;

bs_status bs__resample_work_init(bs__resample_work *w, size_t n, size_t draws);
void bs__resample_work_release(bs__resample_work *w);

/* One resample of s from each generator state[c] (advanced past its
 * draws): the rank pair of its median into jl[c], jh[c]. */
void bs__resample_chains(const bs__series *s, bs_resample_engine engine,
                         uint64_t state[BS__CHAINS], bs__resample_work *w,
                         uint32_t jl[BS__CHAINS], uint32_t jh[BS__CHAINS]);

/* One resample of s from the single generator *state. */
void bs__resample_one(const bs__series *s, uint64_t *state,
                      bs__resample_work *w, uint32_t *jl, uint32_t *jh);

/* `width` for tests: the plain engine, neither the median band nor the
 * small-sample path. */
#define BS__WIDTH_PLAIN SIZE_MAX

/* R consecutive resamples of s from the generator at `state`, the rank
 * pair of resample r's median into jl[r], jh[r]. `width` is 0, or for
 * tests the half width of the median band (bs_resample_engine AVX512 only)
 * or BS__WIDTH_PLAIN, which change the time and never the result.
 * BS_ENOMEM. */
bs_status bs__resample_medians(const bs__series *s, bs_resample_engine engine,
                               uint64_t state, size_t R, size_t width,
                               uint32_t *jl, uint32_t *jh);

/* bs__resample_medians on BS__CHAINS generators of bs__resample_chains,
 * each on R / BS__CHAINS consecutive resamples, the last one also on the
 * remainder: the plain path, which every other one falls back to.
 * BS_ENOMEM. */
bs_status bs__resample_medians_chains(const bs__series *s,
                                      bs_resample_engine engine, uint64_t state,
                                      size_t R, uint32_t *jl, uint32_t *jh);

/* The median band (resample_band.c) covers n <= BS__BAND_MAX_N (eight
 * 64-bit words of bitmap in one register) and is chosen unasked from
 * BS__BAND_MIN_N (below it the band spans nearly every rank and the setup
 * outweighs what it saves). */
#define BS__BAND_MAX_N 512u
#define BS__BAND_MIN_N 24u

/* bs__resample_medians on the median band, for a series without blocks of
 * at most BS__BAND_MAX_N values on a CPU with the AVX512 engine; `width`
 * the band's half width (0: 3.5 standard deviations of the count below a
 * rank near the middle). Only in a build with BS__HAVE_SIMD. BS_ENOMEM. */
bs_status bs__resample_band(const bs__series *s, uint64_t state, size_t R,
                            size_t width, uint32_t *jl, uint32_t *jh);

/* Whether `engine` resamples s on the small-sample path (AVX-512 with BW
 * and IFMA, at most 24 values, no blocks), which bs__resample_medians
 * takes at width 0. */
int bs__resample_small(const bs__series *s, bs_resample_engine engine);
/* The small-sample path (resample.c; only in a build with BS__HAVE_SIMD,
 * for a series bs__resample_small accepts): R resamples' median ranks
 * into jl[r], jh[r], or when hist is not NULL only counted,
 * hist[jl * n + jh] += 1. */
void bs__resample_medians_small(const bs__series *s, uint64_t state, size_t R,
                                uint32_t *jl, uint32_t *jh, uint32_t *hist);

/* The rank pairs bs__resample_medians (width 0) finds, only counted:
 * hist[jl * n + jh] += 1 for each of the R resamples (n * n counters, which
 * the caller zeroed). On the small-sample path nothing is allocated.
 * BS_ENOMEM. */
bs_status bs__resample_pair_hist(const bs__series *s, bs_resample_engine engine,
                                 uint64_t state, size_t R, uint32_t *hist);

/* For tests: the first draw of each generator state[c], reduced mod d
 * (1 <= d, and d <= 65536 for the SIMD engines) by `engine`'s own code
 * (PORTABLE, AVX2 or AVX512, which the caller checked this CPU has), into
 * idx[c]. */
void bs__resample_first_draws(bs_resample_engine engine, size_t d,
                              const uint64_t state[BS__CHAINS],
                              uint64_t idx[BS__CHAINS]);

/* For tests: the same by the median band's reduction (1 <= d <= 65536; the
 * caller checked this CPU has the AVX512 engine). */
void bs__resample_band_first_draws(size_t d, const uint64_t state[BS__CHAINS],
                                   uint64_t idx[BS__CHAINS]);

/* bs_bootstrap_median_ci() on the engine bs__resample_engine picks for
 * `want`, which *used (may be NULL) receives; for tests and benchmarks. */
bs_status bs__bootstrap_median_ci_engine(const double *x, size_t m,
                                         uint64_t resamples, double level_pct,
                                         uint64_t seed, bs_resample_engine want,
                                         bs_resample_engine *used, double *low,
                                         double *high, double *thetas,
                                         bs_error *err);

#endif
