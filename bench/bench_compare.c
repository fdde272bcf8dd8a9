/* Times the confirmatory analysis (m = 20, R = 10000) of one case and of a
 * whole 200-case log. Prints figures; asserts nothing (bench/README.md).
 *
 *   bench_compare OUTDIR   writes OUTDIR/deltas.txt (the one case's d, for
 *                          the scipy peer) and OUTDIR/log200.csv */
#include "benchsite/benchsite.h"
#include "resample.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Deterministic timing-like data: baseline ~ 100 us with 2 % noise and a
 * long right tail; candidate 4 % slower. */
static double sample(bs_rng *r, double base) {
  double u = (double)(bs_rng_next(r) >> 11) * 0x1.0p-53;
  double v = (double)(bs_rng_next(r) >> 11) * 0x1.0p-53;
  return base * (1.0 + 0.04 * (u + v - 1.0) + (u > 0.97 ? 0.2 * v : 0.0));
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: bench_compare OUTDIR\n");
    return 2;
  }
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
  for (int e = BS_NOISE_ENGINE_PORTABLE; e <= BS_NOISE_ENGINE_AVX512 + 1; e++) {
    bs_noise_engine want =
        e > BS_NOISE_ENGINE_AVX512 ? BS_NOISE_ENGINE_AUTO : (bs_noise_engine)e;
    bs_noise_engine used = BS_NOISE_ENGINE_AUTO;
    int reps = 0;
    double t0 = now_s(), t1;
    do {
      bs__bootstrap_median_ci_engine(d, M, 10000, 95.0, 7, want, &used, &lo,
                                     &hi, NULL, NULL);
      reps++;
      t1 = now_s();
    } while (t1 - t0 < 1.0);
    if (want != BS_NOISE_ENGINE_AUTO && used != want)
      continue; /* not on this CPU */
    if (e == BS_NOISE_ENGINE_PORTABLE) {
      first_lo = lo;
      first_hi = hi;
    } else if (lo != first_lo || hi != first_hi) {
      fprintf(stderr, "bench_compare: engine %s disagrees\n", names[used]);
      return 3;
    }
    per_case = (t1 - t0) / reps;
    printf("one case (m=20, R=10000), engine %-8s%s: %.4f ms per case over "
           "%d runs (interval [%.4f, %.4f] us)\n",
           names[used], want == BS_NOISE_ENGINE_AUTO ? " (auto)" : "",
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
  } while (t1 - t0 < 3.0);
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
  for (int e = BS_NOISE_ENGINE_PORTABLE; e <= BS_NOISE_ENGINE_AVX512; e++) {
    bs_noise_engine used = BS_NOISE_ENGINE_AUTO;
    int reps = 0;
    double c0 = now_s(), c1;
    do {
      bs__bootstrap_median_ci_engine(d380, M380, 10000, 95.0, 7,
                                     (bs_noise_engine)e, &used, &lo, &hi, NULL,
                                     NULL);
      reps++;
      c1 = now_s();
    } while (c1 - c0 < 1.0);
    if (used != (bs_noise_engine)e)
      continue; /* not on this CPU */
    if (e == BS_NOISE_ENGINE_PORTABLE) {
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

  printf("RESULT per_case_ms=%.6f per_log_ms=%.4f\n", per_case * 1e3,
         per_log * 1e3);
  return 0;
}
