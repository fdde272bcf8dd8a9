/* An example benchmark library for `benchsite run --lib`, in two versions
 * from one source: BENCH_VERSION 1 is the baseline, BENCH_VERSION 2 the
 * head of a change with a planted regression (its `sum` keeps a debugging
 * check: it re-sums the data four times through a volatile accumulator,
 * many times the work for the same result). It needs
 * only benchsite/harness.h and links no benchsite library. */
#include "benchsite/harness.h"

#include <stdint.h>
#include <stdlib.h>

#ifndef BENCH_VERSION
#define BENCH_VERSION 1
#endif

typedef struct state {
  uint64_t *data;
  size_t n;
  uint64_t last; /* the result of the last call: the digest */
} state;

/* xorshift64*: the same input data in every build and every run. */
static void *make(size_t n) {
  state *s = malloc(sizeof *s);
  if (!s)
    abort();
  s->n = n;
  s->last = 0;
  s->data = malloc(n * sizeof *s->data);
  if (!s->data)
    abort();
  uint64_t x = 0x9E3779B97F4A7C15u;
  for (size_t i = 0; i < n; i++) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    s->data[i] = x * 0x2545F4914F6CDD1Du;
  }
  return s;
}

static void *setup_4096(void) { return make(4096); }
static void *setup_1024(void) { return make(1024); }

static void teardown(void *p) {
  state *s = p;
  free(s->data);
  free(s);
}

static uint64_t digest(void *p) { return ((state *)p)->last; }

/* The compiler must not see across calls: the loop below would otherwise
 * compute once and multiply. */
#define OPAQUE(x) __asm__ volatile("" : "+r"(x))

static uint64_t sum(const uint64_t *a, size_t n) {
  uint64_t t = 0;
  for (size_t i = 0; i < n; i++)
    t += a[i];
#if BENCH_VERSION >= 2
  /* The planted regression: a debugging check left in. */
  for (int check = 0; check < 4; check++) {
    volatile uint64_t u = 0;
    for (size_t i = 0; i < n; i++)
      u += a[i];
    if (u != t)
      abort();
  }
#endif
  return t;
}

/* FNV-1a over the bytes. */
static uint64_t hash(const uint64_t *a, size_t n) {
  const unsigned char *b = (const unsigned char *)a;
  uint64_t h = 0xcbf29ce484222325u;
  for (size_t i = 0; i < n * sizeof *a; i++)
    h = (h ^ b[i]) * 0x100000001b3u;
  return h;
}

static uint64_t count_above(const uint64_t *a, size_t n) {
  uint64_t c = 0;
  for (size_t i = 0; i < n; i++)
    c += a[i] > (UINT64_MAX / 3);
  return c;
}

#define RUNNER(name, fn)                                                       \
  static void name(void *p, uint64_t iterations) {                             \
    state *s = p;                                                              \
    uint64_t r = 0;                                                            \
    for (uint64_t i = 0; i < iterations; i++) {                                \
      uint64_t *d = s->data;                                                   \
      OPAQUE(d);                                                               \
      r = fn(d, s->n);                                                         \
      OPAQUE(r);                                                               \
    }                                                                          \
    s->last = r;                                                               \
  }

RUNNER(run_sum, sum)
RUNNER(run_hash, hash)
RUNNER(run_count, count_above)

static const bs_bench_case cases[] = {
    {"sum", "n=4096", 4096, setup_4096, run_sum, digest, teardown},
    {"hash", "n=1024", 1024, setup_1024, run_hash, digest, teardown},
    {"count", "n=4096", 4096, setup_4096, run_count, digest, teardown},
};

BS_HARNESS_DEFINE_CASES(cases)
