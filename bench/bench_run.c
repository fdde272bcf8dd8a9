/* The peers of bench/bench_run.sh, timed the way a careful hand-written
 * harness would:
 *   bench_run loop LIB SYMBOL N REPS   a loop of N calls of the library's
 *                                      exported void SYMBOL(void), REPS times
 *   bench_run spawn PROGRAM N REPS     N posix_spawn + waitpid of PROGRAM
 * Prints "RESULT median_ns_per_call=... min_ns_per_call=..." (loop) or
 * the same per execution in microseconds (spawn), over the REPS
 * batches. */
#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fputs("usage: bench_run loop LIB SYMBOL N REPS | spawn PROGRAM - N REPS\n",
          stderr);
    return 2;
  }
  uint64_t n = strtoull(argv[4], NULL, 10);
  size_t reps = (size_t)strtoull(argv[5], NULL, 10);
  double *t = calloc(reps ? reps : 1, sizeof *t);
  if (!t || !n || !reps) {
    free(t);
    return 2;
  }
  if (!strcmp(argv[1], "loop")) {
    void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    void *sym = h ? dlsym(h, argv[3]) : NULL;
    void (*fn)(void);
    if (!sym) {
      fprintf(stderr, "bench_run: %s\n", dlerror());
      free(t);
      return 2;
    }
    memcpy(&fn, &sym, sizeof fn);
    for (size_t r = 0; r < reps; r++) {
      double a = now_ns();
      for (uint64_t i = 0; i < n; i++)
        fn();
      t[r] = (now_ns() - a) / (double)n;
    }
    qsort(t, reps, sizeof *t, cmp);
    printf("RESULT median_ns_per_call=%.4f min_ns_per_call=%.4f\n", t[reps / 2],
           t[0]);
  } else {
    char *args[] = {argv[2], NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    for (size_t r = 0; r < reps; r++) {
      double a = now_ns();
      for (uint64_t i = 0; i < n; i++) {
        pid_t pid;
        int st;
        if (posix_spawn(&pid, argv[2], &fa, NULL, args, environ)) {
          free(t);
          return 2;
        }
        waitpid(pid, &st, 0);
      }
      t[r] = (now_ns() - a) / (double)n / 1e3;
    }
    qsort(t, reps, sizeof *t, cmp);
    printf("RESULT median_us_per_exec=%.4f min_us_per_exec=%.4f\n", t[reps / 2],
           t[0]);
  }
  free(t);
  return 0;
}
