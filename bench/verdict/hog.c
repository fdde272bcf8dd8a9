/* Background load for the verdict lab (bench/verdict_lab.sh), which starts
 * every copy under `timeout` and kills it by its PID:
 *
 *   hog spin        one CPU busy with arithmetic, nothing in memory
 *   hog copy MIB    a streaming copy between two buffers of MIB MiB each
 *                   (far larger than the last-level cache): memory
 *                   bandwidth taken from everything else
 *   hog bursty SEED one CPU busy in bursts of 10-200 ms (uniform), each
 *                   followed by a pause that keeps the duty near 30 %
 *                   (a build step, a test, a log shipper); the lengths
 *                   come from SEED, so a cell can be run again alike
 *
 * Runs until killed. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void sleep_ms(double ms) {
  struct timespec t;
  t.tv_sec = (time_t)(ms / 1e3);
  t.tv_nsec = (long)((ms - (double)t.tv_sec * 1e3) * 1e6);
  nanosleep(&t, NULL);
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "spin") == 0) {
    volatile uint64_t x = 1;
    for (;;)
      x = x * 6364136223846793005u + 1442695040888963407u;
  }
  if (argc >= 3 && strcmp(argv[1], "copy") == 0) {
    size_t n = (size_t)strtoul(argv[2], 0, 10) << 20;
    if (n == 0)
      return 2;
    char *a = malloc(n), *b = malloc(n);
    if (!a || !b)
      return 3;
    memset(a, 1, n);
    memset(b, 2, n);
    for (;;) {
      memcpy(b, a, n);
      __asm__ volatile("" ::: "memory");
      memcpy(a, b, n);
      __asm__ volatile("" ::: "memory");
    }
  }
  if (argc >= 3 && strcmp(argv[1], "bursty") == 0) {
    uint64_t s = strtoull(argv[2], 0, 10) | 1;
    volatile uint64_t x = 1;
    for (;;) {
      s ^= s >> 12, s ^= s << 25, s ^= s >> 27; /* xorshift64 */
      double burst = 10.0 + (double)((s * 0x2545F4914F6CDD1Dull) >> 11) /
                                9007199254740992.0 * 190.0;
      double end = now_ms() + burst;
      while (now_ms() < end)
        for (int i = 0; i < 10000; i++)
          x = x * 6364136223846793005u + 1442695040888963407u;
      sleep_ms(burst * 7.0 / 3.0); /* busy 30 % of the time */
    }
  }
  fprintf(stderr, "usage: hog spin | hog copy MIB | hog bursty SEED\n");
  return 2;
}
