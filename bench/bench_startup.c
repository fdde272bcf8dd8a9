/* The timer of bench/bench_startup.sh: whole processes, interleaved.
 *
 *   bench_startup ROUNDS -- NAME PROGRAM [ARG...] [-- NAME PROGRAM ...]
 *
 * Each round starts every command once, in the order given (so a busy
 * spell of a shared machine falls on all of them alike), with standard
 * input, output and error on /dev/null, and reads its CPU time (user +
 * system, its reaped children included) and minor page faults from
 * getrusage(RUSAGE_CHILDREN) across its reaping. One warm-up round is not
 * counted. Per command it prints the least, the median and the 90th percentile
 * of the CPU time in ms, the median page faults and wall time, and the ratio to
 * the first command: of the medians, and the median of the ratios paired round
 * by round. The exit statuses seen are printed; none is judged. */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

typedef struct cmd {
  const char *name;
  char **argv;
  double *cpu, *wall, *flt;
  int status_seen[257]; /* exit 0..255, 256: killed by a signal */
} cmd;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static double ms(const struct timeval *t) {
  return (double)t->tv_sec * 1e3 + (double)t->tv_usec / 1e3;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The q-quantile of v[0..n-1] (sorted in place), nearest rank. */
static double quantile(double *v, size_t n, double q) {
  qsort(v, n, sizeof *v, cmp);
  size_t k = (size_t)(q * (double)(n - 1) + 0.5);
  return v[k < n ? k : n - 1];
}

static int run_one(cmd *c, size_t round, int count) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  double t0 = now_ms();
  pid_t pid;
  int rc = posix_spawn(&pid, c->argv[0], &fa, NULL, c->argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc) {
    fprintf(stderr, "bench_startup: cannot start %s: %s\n", c->argv[0],
            strerror(rc));
    return -1;
  }
  /* The child's share of RUSAGE_CHILDREN: the difference across its
   * reaping (POSIX; its own reaped children are in it too). */
  struct rusage before, after;
  getrusage(RUSAGE_CHILDREN, &before);
  int ws;
  if (waitpid(pid, &ws, 0) != pid) {
    perror("bench_startup: waitpid");
    return -1;
  }
  double wall = now_ms() - t0;
  getrusage(RUSAGE_CHILDREN, &after);
  if (!count)
    return 0;
  c->cpu[round] = ms(&after.ru_utime) - ms(&before.ru_utime) +
                  ms(&after.ru_stime) - ms(&before.ru_stime);
  c->wall[round] = wall;
  c->flt[round] = (double)(after.ru_minflt - before.ru_minflt);
  c->status_seen[WIFEXITED(ws) ? WEXITSTATUS(ws) : 256] = 1;
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 5 || strcmp(argv[2], "--")) {
    fputs("usage: bench_startup ROUNDS -- NAME PROGRAM [ARG...] "
          "[-- NAME PROGRAM [ARG...]]...\n",
          stderr);
    return 2;
  }
  size_t rounds = (size_t)strtoull(argv[1], NULL, 10);
  if (rounds < 1 || rounds > 100000)
    return 2;
  cmd cmds[32];
  size_t nc = 0;
  for (int i = 2; i < argc;) {
    /* argv[i] is "--": a name, a program and its arguments follow. */
    if (i + 2 >= argc || nc == sizeof cmds / sizeof cmds[0]) {
      fputs("bench_startup: each -- needs a NAME and a PROGRAM\n", stderr);
      return 2;
    }
    cmd *c = &cmds[nc++];
    memset(c, 0, sizeof *c);
    c->name = argv[i + 1];
    c->argv = &argv[i + 2];
    int j = i + 2;
    while (j < argc && strcmp(argv[j], "--"))
      j++;
    argv[j < argc ? j : argc] = NULL; /* ends this command's argv */
    i = j;
  }
  /* Every figure of every command, and two rows to sort in. */
  double *all = calloc((3 * nc + 2) * rounds, sizeof(double));
  if (!all)
    return 3;
  for (size_t k = 0; k < nc; k++) {
    cmds[k].cpu = all + 3 * k * rounds;
    cmds[k].wall = cmds[k].cpu + rounds;
    cmds[k].flt = cmds[k].wall + rounds;
  }
  double *ratio = all + 3 * nc * rounds, *tmp = ratio + rounds;
  for (size_t k = 0; k < nc; k++)
    if (run_one(&cmds[k], 0, 0)) {
      free(all);
      return 3;
    }
  for (size_t r = 0; r < rounds; r++)
    for (size_t k = 0; k < nc; k++)
      if (run_one(&cmds[k], r, 1)) {
        free(all);
        return 3;
      }
  memcpy(tmp, cmds[0].cpu, rounds * sizeof(double));
  double ref_median = quantile(tmp, rounds, 0.5);
  printf("%-26s %8s %8s %8s %7s %8s %7s %7s  %s\n", "command", "min_ms",
         "med_ms", "p90_ms", "faults", "wall_ms", "med/1st", "paired", "exit");
  for (size_t k = 0; k < nc; k++) {
    cmd *c = &cmds[k];
    for (size_t r = 0; r < rounds; r++)
      ratio[r] = cmds[0].cpu[r] > 0 ? c->cpu[r] / cmds[0].cpu[r] : 0;
    double paired = quantile(ratio, rounds, 0.5);
    memcpy(tmp, c->cpu, rounds * sizeof(double));
    double med = quantile(tmp, rounds, 0.5);
    double p90 = quantile(tmp, rounds, 0.9);
    double mn = tmp[0];
    double flt = quantile(c->flt, rounds, 0.5);
    double wall = quantile(c->wall, rounds, 0.5);
    printf("%-26s %8.3f %8.3f %8.3f %7.0f %8.3f %6.2fx %6.2fx ", c->name, mn,
           med, p90, flt, wall, ref_median > 0 ? med / ref_median : 0, paired);
    for (int s = 0; s < 257; s++)
      if (c->status_seen[s])
        printf(s == 256 ? " signal" : " %d", s);
    printf("\n");
  }
  free(all);
  return 0;
}
