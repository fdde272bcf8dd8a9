/* The bisection lab's benchmark library (bench/bisect_lab.sh copies it
 * into every commit of its synthetic repositories, beside the commit's
 * cost.h): one case, a walk of a dependent chain of table loads (about
 * 3 us a call) whose length is known per commit.
 *
 *   COST_PCT  the commit's cost in percent over the first commit's: the
 *             walk takes round(STEPS * COST_PCT / 100) more steps (after
 *             the result is taken, through an opaque sink, so the compiler
 *             keeps them and the digest stays the first commit's): a step
 *             of +5 % is 5 % more of the same work, not a sleep
 *   NOISY     each batch walks STEPS * u / 100 steps more or fewer, u drawn
 *             from the clock uniformly in -40..40: the commit's median
 *             cost stays COST_PCT's, its batches spread by +-40 % (noise
 *             no pairing cancels)
 *
 * Needs only benchsite/harness.h: cc -O2 -fPIC -shared. */
#include "benchsite/harness.h"
#include "cost.h"

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#ifndef COST_PCT
#define COST_PCT 0
#endif

#define STEPS 2000
#define RESULT 500 /* the steps whose end is the result (the digest) */
#define EXTRA ((STEPS * COST_PCT + 50) / 100)
#define TABLE 4096 /* 16 KiB: the walk stays in L1 */

/* Keeps the compiler from seeing through a value. */
#define OPAQUE(x) __asm__ volatile("" : "+r"(x))

typedef struct chain {
  uint32_t next[TABLE];
  uint64_t last;
} chain;

static uint64_t xorshift(uint64_t *s) {
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1Du;
}

/* One cycle through every slot, in an order from a fixed seed. */
static void *setup(void) {
  chain *c = malloc(sizeof *c);
  if (!c)
    abort();
  static uint32_t order[TABLE];
  uint64_t s = 0x9E3779B97F4A7C15u;
  for (uint32_t i = 0; i < TABLE; i++)
    order[i] = i;
  for (uint32_t i = TABLE - 1; i > 0; i--) {
    uint32_t j = (uint32_t)(xorshift(&s) % (i + 1));
    uint32_t t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (uint32_t i = 0; i < TABLE; i++)
    c->next[order[i]] = order[(i + 1) % TABLE];
  c->last = 0;
  return c;
}

static void teardown(void *p) { free(p); }

static uint64_t digest(void *p) { return ((chain *)p)->last; }

static void run(void *p, uint64_t n) {
  chain *c = p;
  /* The steps after the result. */
  int64_t rest = STEPS - RESULT + EXTRA;
#ifdef NOISY
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  uint64_t s = (uint64_t)t.tv_nsec * 0x9E3779B97F4A7C15u | 1;
  rest += (int64_t)(xorshift(&s) % 81) * STEPS / 100 - STEPS * 40 / 100;
#endif
  uint32_t pos = 0;
  for (uint64_t k = 0; k < n; k++) {
    pos = 0;
    for (uint32_t i = 0; i < RESULT; i++)
      pos = c->next[pos];
    uint32_t end = pos;
    for (int64_t i = 0; i < rest; i++)
      end = c->next[end];
    OPAQUE(end);
    OPAQUE(pos);
  }
  c->last = pos;
}

static const bs_bench_case cases[] = {
    {"chain", "", 0, setup, run, digest, teardown}};
BS_HARNESS_DEFINE_CASES(cases)
