/* Benchmark libraries for tests/test_run.c, one per TESTLIB_* variant:
 * OK (two cases with digests), WRONG (a different digest), CRASH, HANG,
 * EXIT, NOSYM (no benchsite_cases), ABI (refuses version 1), EXTRA (one more
 * case than OK), PRINT (writes megabytes to stdout and stderr), FORK
 * (leaves a process running; its pid goes to the file $TESTLIB_PIDFILE).
 * Built with only benchsite/harness.h. */
#include "benchsite/harness.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Exported, so that a copy sharing it with another would be seen: every
 * setup of this copy counts here, and the digest reports the count. */
int testlib_setups;

typedef struct state {
  volatile uint64_t acc;
  int setups_seen;
} state;

static void *setup(void) {
  state *s = calloc(1, sizeof *s);
  if (!s)
    abort();
  s->setups_seen = ++testlib_setups;
  return s;
}

static void teardown(void *p) { free(p); }

static void run_add(void *p, uint64_t n) {
  state *s = p;
  for (uint64_t i = 0; i < n; i++)
    s->acc += i;
#if defined(TESTLIB_CRASH)
  raise(SIGSEGV);
#elif defined(TESTLIB_HANG)
  for (;;)
    sleep(1);
#elif defined(TESTLIB_EXIT)
  _exit(3);
#elif defined(TESTLIB_PRINT)
  static int printed;
  for (int i = 0; !printed && i < 40000; i++) {
    printf("testlib output line %d on stdout\n", i);
    fprintf(stderr, "testlib output line %d on stderr\n", i);
  }
  printed = 1;
  fflush(stdout);
#elif defined(TESTLIB_FORK)
  static int forked;
  if (!forked++) {
    pid_t pid = fork();
    if (pid == 0) {
      sleep(30);
      _exit(0);
    }
    FILE *f = fopen(getenv("TESTLIB_PIDFILE"), "w");
    if (!f)
      abort();
    fprintf(f, "%ld\n", (long)pid);
    fclose(f);
  }
#endif
}

static void run_mul(void *p, uint64_t n) {
  state *s = p;
  for (uint64_t i = 0; i < n; i++)
    s->acc = s->acc * 3 + 1;
}

static uint64_t digest(void *p) {
  state *s = p;
  /* The number of setups this copy saw: 2 (one per case) when copies are
   * private, more when another impl's setups land in the same global. */
  uint64_t d = (uint64_t)testlib_setups * 1000 + (uint64_t)s->setups_seen;
#ifdef TESTLIB_WRONG
  d += 1;
#endif
  return d;
}

#ifndef TESTLIB_NOSYM
static const bs_bench_case cases[] = {
    {"add", "n=8", 8, setup, run_add, digest, teardown},
    {"mul", "", 0, setup, run_mul, digest, teardown},
#ifdef TESTLIB_EXTRA
    {"extra", "only here", 0, NULL, run_mul, NULL, NULL},
#endif
};

#ifdef TESTLIB_ABI
const bs_bench_case *benchsite_cases(int abi, size_t *count) {
  if (abi != BS_HARNESS_ABI + 1)
    return NULL;
  *count = 2;
  return cases;
}
#else
BS_HARNESS_DEFINE_CASES(cases)
#endif
#else
int testlib_not_a_benchmark(void);
int testlib_not_a_benchmark(void) { return 0; }
#endif
