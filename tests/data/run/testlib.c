/* Benchmark libraries for tests/test_run.c, one per TESTLIB_* variant:
 * OK (two cases with digests), WRONG (a different digest), CRASH, HANG,
 * EXIT, NOSYM (no benchsite_cases), ABI (refuses version 1), EXTRA (one more
 * case than OK), PRINT (writes megabytes to stdout and stderr), FORK
 * (leaves a process running; its pid goes to the file $TESTLIB_PIDFILE),
 * PROBE and SLOW (the cases below, which record in the file
 * $TESTLIB_PROBEFILE where and when they ran; SLOW's "ratio" does 20 times
 * PROBE's work per call, and "bypath" 20 times its work in every copy set
 * up after the first in a process), ESCAPE (its first setup starts a process
 * that leaves the process group and session with setsid() and starts another;
 * both pids go to $TESTLIB_PIDFILE), FORKRUN (its first run forks and both
 * processes return), STRAY (its first run writes on descriptor 3, the
 * runner's socket), HOSTILE (one more case than OK, named with a line
 * separator, a C1 control and "##["), CLOSE (its first run closes every
 * descriptor from 3 up and puts /dev/null on 3, the socket's), ADAPT (the
 * cases "steady", a fixed amount of work, and "noisy", whose batches do 1
 * to 4 times that, drawn per batch from the process's own generator, so
 * identical builds give a wide interval). Built with only
 * benchsite/harness.h. */
#if defined(TESTLIB_PROBE) || defined(TESTLIB_SLOW)
#define _GNU_SOURCE /* sched_getcpu */
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#endif
#ifdef TESTLIB_CLOSE
#include <fcntl.h>
#endif
#ifdef TESTLIB_ESCAPE
#include <time.h>
#endif
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

#ifdef TESTLIB_ESCAPE
/* Appends "PID\n" to $TESTLIB_PIDFILE. */
static void note_pid(void) {
  FILE *f = fopen(getenv("TESTLIB_PIDFILE"), "a");
  if (!f)
    abort();
  fprintf(f, "%ld\n", (long)getpid());
  fclose(f);
}

/* How many pids $TESTLIB_PIDFILE holds. */
static int pids_noted(void) {
  FILE *f = fopen(getenv("TESTLIB_PIDFILE"), "r");
  int n = 0, c;
  if (!f)
    return 0;
  while ((c = getc(f)) != EOF)
    n += c == '\n';
  fclose(f);
  return n;
}

/* A daemon's escape: out of the process group and the session, then one
 * more fork; both sleep long past the run. The setup returns once both
 * have noted their pids (at most 10 s): a short run must not end them
 * before the test can know them. */
static void escape(void) {
  (void)setsid(); /* refused: the measuring process leads its group */
  pid_t pid = fork();
  if (pid != 0) {
    for (int i = 0; i < 10000 && pids_noted() < 2; i++)
      nanosleep(&(struct timespec){0, 1000000}, NULL);
    return;
  }
  setsid();
  note_pid();
  if (fork() == 0)
    note_pid();
  sleep(30);
  _exit(0);
}
#endif

static void *setup(void) {
  state *s = calloc(1, sizeof *s);
  if (!s)
    abort();
  s->setups_seen = ++testlib_setups;
#ifdef TESTLIB_ESCAPE
  if (testlib_setups == 1)
    escape();
#endif
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
#elif defined(TESTLIB_FORKRUN)
  static int forked;
  if (!forked++)
    (void)fork(); /* both processes go on */
#elif defined(TESTLIB_STRAY)
  static int wrote;
  if (!wrote++ && write(3, "garbage!", 8) < 0)
    abort();
#elif defined(TESTLIB_CLOSE)
  /* Closes every descriptor it did not open, then puts /dev/null where
   * benchsite's socket was: what it sends goes nowhere, what it reads is
   * the end of a file. */
  static int closed;
  if (!closed++) {
    for (int fd = 3; fd < 64; fd++)
      close(fd);
    int null = open("/dev/null", O_RDWR);
    if (null >= 0 && null != 3) {
      dup2(null, 3);
      close(null);
    }
  }
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

#if defined(TESTLIB_PROBE) || defined(TESTLIB_SLOW)
/* One line appended to $TESTLIB_PROBEFILE (a write of its own, so lines
 * of two processes never mix). */
static void record(const char *line) {
  const char *path = getenv("TESTLIB_PROBEFILE");
  if (!path)
    return;
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0)
    abort();
  if (write(fd, line, strlen(line)) < 0)
    abort();
  close(fd);
}

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Where this process keeps things: its pid, a stack address, the state on
 * the heap and this copy's global. A new process image (a new address
 * layout) moves the stack; a fork would not. */
static void *setup_probe(void) {
  char line[256];
  int on_stack = 0;
  state *s = setup();
#ifdef TESTLIB_SLOW
  const char *variant = "slow";
#else
  const char *variant = "probe";
#endif
  snprintf(line, sizeof line, "setup %ld %p %p %p %s\n", (long)getpid(),
           (void *)&on_stack, (void *)s, (void *)&testlib_setups, variant);
  record(line);
  return s;
}

static void spin(state *s, uint64_t n, uint64_t work) {
  for (uint64_t i = 0; i < n; i++)
    for (uint64_t w = 0; w < work; w++)
      s->acc += w;
}

/* Every batch: "run PID CPU START_NS END_NS N GLOBAL" (GLOBAL: this
 * copy's global, as setup prints it: which impl ran). */
static void run_probe(void *p, uint64_t n) {
  char line[256];
  uint64_t t0 = now_ns();
  int cpu = sched_getcpu();
  spin(p, n, 20);
  snprintf(line, sizeof line, "run %ld %d %llu %llu %llu %p\n", (long)getpid(),
           cpu, (unsigned long long)t0, (unsigned long long)now_ns(),
           (unsigned long long)n, (void *)&testlib_setups);
  record(line);
}

/* With TESTLIB_SLOW_ODD_CPU set, a batch on an odd-numbered CPU does
 * twice the work: a machine one of whose CPUs is slower for a while. */
static void run_busy(void *p, uint64_t n) {
  spin(p, n, getenv("TESTLIB_SLOW_ODD_CPU") && sched_getcpu() % 2 ? 400 : 200);
}

static void run_sleep(void *p, uint64_t n) {
  (void)p;
  for (uint64_t i = 0; i < n; i++)
    nanosleep(&(struct timespec){0, 1000000}, NULL);
}

static void run_ratio(void *p, uint64_t n) {
#ifdef TESTLIB_SLOW
  spin(p, n, 4000);
#else
  spin(p, n, 200);
#endif
}

/* 20 times the work per call in every copy of the library set up after
 * the first in a process (each impl's copy has globals of its own; the
 * process's environment is shared): copies of the same bytes that time
 * differently, as identical builds do when one is measured on a loaded
 * CPU. */
static int bypath_slow = -1;

static void *setup_bypath(void) {
  if (bypath_slow < 0) {
    bypath_slow = getenv("TESTLIB_BYPATH_FIRST") != NULL;
    setenv("TESTLIB_BYPATH_FIRST", "1", 1);
  }
  return setup();
}

static void run_bypath(void *p, uint64_t n) {
  spin(p, n, bypath_slow > 0 ? 4000 : 200);
}

/* The copy set up first in a process runs cold: 20 times the work per
 * call until it has spent 1.5 ms in its calls (as a case right after its
 * setup runs before its page tables and caches are warm); every other
 * copy, and that one afterwards, as "busy" without TESTLIB_SLOW_ODD_CPU. */
static int cold_first = -1;
static uint64_t cold_ns;

static void *setup_cold(void) {
  if (cold_first < 0) {
    cold_first = getenv("TESTLIB_COLD_FIRST") == NULL;
    setenv("TESTLIB_COLD_FIRST", "1", 1);
  }
  return setup();
}

static void run_cold(void *p, uint64_t n) {
  uint64_t t0 = now_ns();
  spin(p, n, cold_first > 0 && cold_ns < 1500000 ? 4000 : 200);
  cold_ns += now_ns() - t0;
}

/* A setup that takes 300 ms: "slowsetup PID START_NS END_NS". */
static void *setup_slow(void) {
  char line[256];
  uint64_t t0 = now_ns();
  struct timespec q = {0, 300000000L};
  while (nanosleep(&q, &q) != 0)
    ;
  snprintf(line, sizeof line, "slowsetup %ld %llu %llu\n", (long)getpid(),
           (unsigned long long)t0, (unsigned long long)now_ns());
  record(line);
  return setup();
}

static const bs_bench_case cases[] = {
    {"probe", "", 0, setup_probe, run_probe, NULL, teardown},
    {"slowsetup", "", 0, setup_slow, run_busy, NULL, teardown},
    {"bypath", "", 0, setup_bypath, run_bypath, NULL, teardown},
    {"cold", "", 0, setup_cold, run_cold, NULL, teardown},
    {"busy", "", 0, setup, run_busy, NULL, teardown},
    {"sleep", "", 0, setup, run_sleep, NULL, teardown},
    {"same", "", 0, setup, run_busy, NULL, teardown},
    {"ratio", "", 0, setup, run_ratio, NULL, teardown},
};
BS_HARNESS_DEFINE_CASES(cases)
#elif defined(TESTLIB_ADAPT)
static void spin_adapt(state *s, uint64_t n, uint64_t work) {
  for (uint64_t i = 0; i < n; i++)
    for (uint64_t w = 0; w < work; w++)
      s->acc += w;
}

static void run_steady(void *p, uint64_t n) { spin_adapt(p, n, 200); }

static void run_noisy(void *p, uint64_t n) {
  static uint64_t x;
  if (!x)
    x = (uint64_t)getpid() * 0x9E3779B97F4A7C15u | 1;
  x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
  spin_adapt(p, n, 200 * (1 + (x * 0x2545F4914F6CDD1Du >> 62)));
}

static const bs_bench_case cases[] = {
    {"steady", "", 0, setup, run_steady, NULL, teardown},
    {"noisy", "", 0, setup, run_noisy, NULL, teardown},
};
BS_HARNESS_DEFINE_CASES(cases)
#elif !defined(TESTLIB_NOSYM)
static const bs_bench_case cases[] = {
    {"add", "n=8", 8, setup, run_add, digest, teardown},
    {"mul", "", 0, setup, run_mul, digest, teardown},
#ifdef TESTLIB_EXTRA
    {"extra", "only here", 0, NULL, run_mul, NULL, NULL},
#endif
#ifdef TESTLIB_HOSTILE
    /* U+2028, a C1 NEL (U+0085) and GitHub's "##[" in a name */
    {"evil\xe2\x80\xa8line\xc2\x85##[error]x", "##[group]d", 0, NULL, run_mul,
     NULL, NULL},
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
