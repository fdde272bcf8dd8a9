/* Times the A/A validation (issue 3): 40 runs x 2 impls x 100 samples at
 * R = 10000, i.e. 80 unpaired bootstrap confidences. Prints the time per
 * confidence (target: at most 2.5 ms) and the whole bs_noise_run() (which
 * adds the confirmatory gate's paired bootstrap per run).
 *
 * usage: bench_noise [RUNS [SAMPLES [RESAMPLES]]] [--csv FILE]
 * --csv writes the synthetic log so other tools can time the same data. */
#include "benchsite/benchsite.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CPU time of this process: on a shared machine, time spent descheduled
 * is not the program's. */
static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Log-normal-ish timings around 10 us quantized to 1 ns, from
 * xorshift64* so every run of the benchmark times the same data. */
static double sample(bs_rng *g) {
  double u1 = ((double)(bs_rng_next(g) >> 11) + 0.5) / 9007199254740992.0;
  double u2 = ((double)(bs_rng_next(g) >> 11) + 0.5) / 9007199254740992.0;
  double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
  return round(10000.0 * exp(0.01 * z)) / 1000.0;
}

int main(int argc, char **argv) {
  size_t runs = 40, n = 100;
  unsigned long long resamples = 10000;
  const char *csv = NULL;
  size_t posn = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
      csv = argv[++i];
      continue;
    }
    char *end = NULL;
    unsigned long long v = strtoull(argv[i], &end, 10);
    if (!*argv[i] || *end || argv[i][0] == '-') {
      fprintf(stderr, "bench_noise: \"%s\" is not a count\n", argv[i]);
      return 2;
    }
    if (posn == 0)
      runs = (size_t)v;
    else if (posn == 1)
      n = (size_t)v;
    else
      resamples = v;
    posn++;
  }
  if (runs < 2 || n < 1 || resamples < 1) {
    fputs("usage: bench_noise [RUNS [SAMPLES [RESAMPLES]]] [--csv FILE]\n",
          stderr);
    return 2;
  }

  int rc = 3;
  bs_log *log = NULL;
  bs_noise_result *res = NULL;
  size_t cap = 128 + runs * n * 2 * 64;
  char *text = malloc(cap);
  double *a = malloc(runs * n * sizeof *a);
  double *b = malloc(runs * n * sizeof *b);
  if (!text || !a || !b)
    goto done;
  size_t len =
      (size_t)snprintf(text, cap, "benchmark,impl,run,block,per_call_us\n");
  bs_rng g;
  bs_rng_seed(&g, 42);
  for (size_t r = 0; r < runs; r++) {
    for (size_t j = 0; j < n; j++) {
      a[r * n + j] = sample(&g);
      b[r * n + j] = sample(&g);
      len += (size_t)snprintf(text + len, cap - len,
                              "bench,A,%zu,%zu,%.17g\nbench,B,%zu,%zu,%.17g\n",
                              r, j, a[r * n + j], r, j, b[r * n + j]);
    }
  }
  if (csv) {
    FILE *f = fopen(csv, "w");
    int bad = !f || fwrite(text, 1, len, f) != len;
    if (f && fclose(f))
      bad = 1;
    if (bad) {
      fprintf(stderr, "bench_noise: cannot write %s\n", csv);
      goto done;
    }
  }

  /* The 80 confidences alone, as bs_noise_run computes them, with each
   * engine this CPU has (they must agree exactly). */
  static const char *const names[] = {"auto", "portable", "avx2", "avx512"};
  double conf_sum = 0.0, t_conf = 0.0;
  for (int e = BS_RESAMPLE_ENGINE_PORTABLE; e <= BS_RESAMPLE_ENGINE_AVX512;
       e++) {
    double sum = 0.0;
    bs_resample_engine used = BS_RESAMPLE_ENGINE_AUTO;
    double t0 = now_s();
    for (size_t r = 0; r < runs; r++) {
      double c1, c2;
      if (bs_noise_confidence_engine(a + r * n, n, 0, b + r * n, n, 0,
                                     resamples, 2 * r, (bs_resample_engine)e,
                                     &used, &c1, NULL) ||
          bs_noise_confidence_engine(b + r * n, n, 0, a + r * n, n, 0,
                                     resamples, 2 * r + 1,
                                     (bs_resample_engine)e, &used, &c2, NULL))
        goto done;
      sum += c1 + c2;
    }
    double t = now_s() - t0;
    if ((int)used != e)
      continue; /* not available here */
    if (e > BS_RESAMPLE_ENGINE_PORTABLE && sum != conf_sum) {
      fprintf(stderr, "bench_noise: engine %s disagrees\n", names[e]);
      goto done;
    }
    conf_sum = sum;
    t_conf = t;
    printf("engine %-8s: %zu unpaired confidences in %.3f s CPU = %.3f ms "
           "per confidence\n",
           names[e], 2 * runs, t, 1e3 * t / (double)(2 * runs));
  }

  log = bs_log_new();
  bs_error err;
  bs_error_clear(&err);
  if (!log || bs_log_read_buffer(log, "bench.csv", text, len, &err)) {
    fprintf(stderr, "bench_noise: %s\n", err.message);
    goto done;
  }
  bs_noise_options o;
  bs_noise_options_init(&o);
  o.resamples = resamples;
  double t0 = now_s();
  if (bs_noise_run(log, "A", "B", &o, &res, &err)) {
    fprintf(stderr, "bench_noise: %s\n", err.message);
    goto done;
  }
  double t_run = now_s() - t0;

  printf("runs %zu, samples %zu, resamples %llu\n", runs, n, resamples);
  printf("unpaired confidences (fastest engine): %.3f ms per confidence "
         "(target <= 2.5 ms)\n",
         1e3 * t_conf / (double)(2 * runs));
  printf("bs_noise_run (confidences + drift + paired gate): %.3f s CPU\n",
         t_run);
  printf("check: mean confidence %.6f, noise floor %.6f\n",
         conf_sum / (double)(2 * runs), res->cases[0].noise_floor);
  rc = 0;
done:
  bs_noise_result_free(res);
  bs_log_free(log);
  free(text);
  free(a);
  free(b);
  return rc;
}
