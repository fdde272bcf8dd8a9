/* Background load for the verdict lab (bench/verdict_lab.sh), which starts
 * every copy under `timeout` and kills it by its PID:
 *
 *   hog spin        one CPU busy with arithmetic, nothing in memory
 *   hog copy MIB    a streaming copy between two buffers of MIB MiB each
 *                   (far larger than the last-level cache): memory
 *                   bandwidth taken from everything else
 *
 * Runs until killed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  fprintf(stderr, "usage: hog spin | hog copy MIB\n");
  return 2;
}
