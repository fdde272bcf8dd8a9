/* The size of the verdict lab's plants, measured apart from benchsite
 * (bench/verdict_lab.sh): loads each benchmark library given, sets up the
 * named case in each, and times ROUNDS short batches of it per library,
 * rotating which goes first, on the thread's CPU clock
 * (CLOCK_THREAD_CPUTIME_ID: time spent waiting for a CPU is not counted)
 * and on CLOCK_MONOTONIC. Batches are about 1 ms, shorter than a
 * scheduler slice, so most run unpreempted; the fastest and the median
 * batch per call are printed, and their ratio to the first library's.
 *
 *   plantsize CASE ROUNDS LIB.so...
 *
 * Prints one line per library: path, fastest and median CPU ns per call,
 * fastest and median wall ns per call, and the two fastest ratios. */
#include "benchsite/harness.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct lib {
  const char *path;
  const bs_bench_case *c;
  void *state;
  double *cpu, *wall; /* per call, one a round */
} lib;

static double now(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, size_t n) {
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: plantsize CASE ROUNDS LIB.so...\n");
    return 2;
  }
  const char *name = argv[1];
  size_t rounds = (size_t)strtoul(argv[2], 0, 10);
  size_t k = (size_t)(argc - 3);
  if (rounds == 0)
    return 2;
  lib *libs = calloc(k, sizeof *libs);
  if (!libs)
    return 3;
  for (size_t i = 0; i < k; i++) {
    lib *l = &libs[i];
    l->path = argv[3 + i];
    void *h = dlopen(l->path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      fprintf(stderr, "plantsize: %s\n", dlerror());
      return 2;
    }
    const bs_bench_case *(*get)(int, size_t *);
    void *sym = dlsym(h, "benchsite_cases");
    memcpy(&get, &sym, sizeof get); /* POSIX: dlsym returns functions */
    size_t n = 0;
    const bs_bench_case *cs = sym ? get(BS_HARNESS_ABI, &n) : 0;
    for (size_t j = 0; cs && j < n; j++)
      if (strcmp(cs[j].benchmark, name) == 0)
        l->c = &cs[j];
    if (!l->c) {
      fprintf(stderr, "plantsize: %s has no case %s\n", l->path, name);
      return 2;
    }
    l->state = l->c->setup ? l->c->setup() : 0;
    l->cpu = malloc(rounds * sizeof *l->cpu);
    l->wall = malloc(rounds * sizeof *l->wall);
    if (!l->cpu || !l->wall)
      return 3;
  }
  /* Calls per batch: about 1 ms on the first library. */
  uint64_t n = 1;
  for (;;) {
    double t0 = now(CLOCK_MONOTONIC);
    libs[0].c->run(libs[0].state, n);
    if (now(CLOCK_MONOTONIC) - t0 > 1e6 || n > (1u << 30))
      break;
    n *= 2;
  }
  for (size_t r = 0; r < rounds; r++)
    for (size_t s = 0; s < k; s++) {
      lib *l = &libs[(r + s) % k];
      double c0 = now(CLOCK_THREAD_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
      l->c->run(l->state, n);
      double w1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_THREAD_CPUTIME_ID);
      l->cpu[r] = (c1 - c0) / (double)n;
      l->wall[r] = (w1 - w0) / (double)n;
    }
  double base_cpu = 0, base_wall = 0;
  for (size_t i = 0; i < k; i++) {
    lib *l = &libs[i];
    double min_cpu = l->cpu[0], min_wall = l->wall[0];
    for (size_t r = 1; r < rounds; r++) {
      if (l->cpu[r] < min_cpu)
        min_cpu = l->cpu[r];
      if (l->wall[r] < min_wall)
        min_wall = l->wall[r];
    }
    if (i == 0) {
      base_cpu = min_cpu;
      base_wall = min_wall;
    }
    printf("%s %.3f %.3f %.3f %.3f %+.3f %+.3f %llu\n", l->path, min_cpu,
           median(l->cpu, rounds), min_wall, median(l->wall, rounds),
           100 * (min_cpu / base_cpu - 1), 100 * (min_wall / base_wall - 1),
           (unsigned long long)n);
  }
  for (size_t i = 0; i < k; i++) {
    if (libs[i].c->teardown)
      libs[i].c->teardown(libs[i].state);
    free(libs[i].cpu);
    free(libs[i].wall);
  }
  free(libs);
  return 0;
}
