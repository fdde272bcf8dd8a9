/* The benchmark library bench/bench_run.sh times with `benchsite run
 * --lib`: an empty body and a body of about 10 ns, each behind a call the
 * compiler cannot inline or delete. bench_run (the hand-written loop)
 * calls the same exported functions. */
#include "benchsite/harness.h"

#include <stdint.h>

uint64_t overhead_sink;

__attribute__((noinline)) void overhead_empty(void);
__attribute__((noinline)) void overhead_10ns(void);

void overhead_empty(void) { __asm__ volatile("" ::: "memory"); }

/* About 40 dependent multiply-adds: some 10 ns at 3-4 GHz. */
void overhead_10ns(void) {
  uint64_t x = overhead_sink;
  for (int i = 0; i < 10; i++) {
    x = x * 0x2545F4914F6CDD1Du + 1;
    __asm__ volatile("" : "+r"(x));
  }
  overhead_sink = x;
}

static void run_empty(void *s, uint64_t n) {
  (void)s;
  for (uint64_t i = 0; i < n; i++)
    overhead_empty();
}

static void run_10ns(void *s, uint64_t n) {
  (void)s;
  for (uint64_t i = 0; i < n; i++)
    overhead_10ns();
}

static const bs_bench_case cases[] = {
    {"empty", "", 0, 0, run_empty, 0, 0},
    {"body10ns", "", 0, 0, run_10ns, 0, 0},
};

BS_HARNESS_DEFINE_CASES(cases)
