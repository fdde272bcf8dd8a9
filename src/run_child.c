/* benchsite: the measuring process of `benchsite run` in library and
 * command mode. It is benchsite's own executable started again (a new
 * process image, so a new address layout for every run or block), told
 * what to load by a hello on its socket: every benchmark library it is
 * given (each a private copy) or every command's argv. Then it runs the
 * batches benchsite asks for, one at a time, timing each with
 * CLOCK_MONOTONIC and its CPU cost (the thread's CPU clock, or the
 * commands' rusage). benchsite waits for each answer at most the
 * timeout, so a crash or a hang is this process's end and an error naming
 * the impl and the case, never benchsite's. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* memfd_create, sched_setaffinity */
#endif
#include "run_common.h"
#include "run_int.h"
#include "spawn_proc.h"

#include "benchsite/harness.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NAME_MAX_BYTES 4096
#define TARGET_MAX_BYTES 65536

static int put(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n > 0) {
    ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    c += w;
    n -= (size_t)w;
  }
  return 0;
}

static int get(int fd, void *p, size_t n) {
  char *c = p;
  while (n > 0) {
    ssize_t r = read(fd, c, n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return -1;
    c += r;
    n -= (size_t)r;
  }
  return 0;
}

/* The startup message: ok = 0 and a text, or ok = 1 and the tables. */
static void fail_start(int fd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3), noreturn))
#endif
    ;
static void fail_start(int fd, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  uint32_t ok = 0, len = (uint32_t)strlen(msg);
  if (!put(fd, &ok, sizeof ok) && !put(fd, &len, sizeof len))
    put(fd, msg, len);
  _exit(0);
}

static uint64_t ns_between(const struct timespec *a, const struct timespec *b) {
  int64_t ns = (int64_t)(b->tv_sec - a->tv_sec) * 1000000000 +
               (int64_t)(b->tv_nsec - a->tv_nsec);
  return ns > 0 ? (uint64_t)ns : 1;
}

/* Copies the file open as `in` to `out`: 0, or -1 with errno set. */
static int copy_fd(int in, int out) {
  char buf[65536];
  for (;;) {
    ssize_t r = read(in, buf, sizeof buf);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0 || (r > 0 && put(out, buf, (size_t)r)))
      return -1;
    if (r == 0)
      return 0;
  }
}

/* A private copy of the library at `path`: the file is copied and loaded
 * from the copy, so the dynamic loader sees a different object every time
 * (two builds with one soname, or one path given twice, get their own
 * globals). On Linux the copy is an anonymous memory file, which has no
 * name to leave behind, whatever kills the process, and needs no writable
 * $TMPDIR; elsewhere it is a temporary file, unlinked once loaded. */
static void *load_copy(int fd, const char *impl, const char *path) {
  char esc[256], tmp[4096];
  bs__run_esc(esc, sizeof esc, path);
  int in = open(path, O_RDONLY | O_CLOEXEC);
  if (in < 0)
    fail_start(fd, "%s: cannot open the library %s: %s", impl, esc,
               strerror(errno));
  int out = -1;
  const char *unlink_me = NULL;
#if defined(__linux__) && defined(MFD_CLOEXEC)
  out = memfd_create("benchsite-lib", MFD_CLOEXEC);
  if (out >= 0)
    snprintf(tmp, sizeof tmp, "/proc/self/fd/%d", out);
#endif
  if (out < 0) {
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
      dir = "/tmp";
    snprintf(tmp, sizeof tmp, "%s/benchsite-lib-XXXXXX", dir);
    out = mkstemp(tmp);
    if (out < 0)
      fail_start(fd, "%s: cannot copy the library %s: %s", impl, esc,
                 strerror(errno));
    unlink_me = tmp;
  }
  if (copy_fd(in, out)) {
    int e = errno;
    if (unlink_me)
      unlink(unlink_me);
    fail_start(fd, "%s: cannot copy the library %s: %s", impl, esc,
               strerror(e));
  }
  close(in);
  if (unlink_me) {
    fchmod(out, 0700);
    close(out);
  }
  void *h = dlopen(tmp, RTLD_NOW | RTLD_LOCAL);
  /* The memory file stays open until the process ends: the loader knows a
   * loaded object by its name too, and a closed descriptor's number (the
   * name) would come back for the next copy and get this one. */
  if (unlink_me)
    unlink(unlink_me);
  if (!h) {
    char why[512];
    const char *e = dlerror();
    /* dlerror names the copy: say the library instead. */
    bs__run_esc(why, sizeof why, e ? e : "unknown error");
    fail_start(fd, "%s: cannot load the library %s: %s", impl, esc, why);
  }
  return h;
}

/* ---- what every batch shares: the CPU it runs on, the duet barrier ---- */

typedef struct child {
  int fd;
  int pinned; /* the CPU this process is pinned to, -1: none */
  _Atomic uint64_t *barrier;
} child;

/* Pins the process to `cpu` (-1: leave it): 0, or an errno. */
static int pin(child *c, int cpu) {
  if (cpu < 0 || cpu == c->pinned)
    return 0;
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET((size_t)cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set))
    return errno ? errno : EINVAL;
  c->pinned = cpu;
  return 0;
#else
  return ENOSYS;
#endif
}

/* Round `seq` of the duet barrier: each process adds one and waits until
 * both have, spinning (each has its own CPU), so the two batches start
 * within the time one store takes to reach the other CPU. */
static void barrier_wait(child *c, uint64_t seq) {
  if (!c->barrier || !seq)
    return;
  atomic_fetch_add_explicit(c->barrier, 1, memory_order_acq_rel);
  while (atomic_load_explicit(c->barrier, memory_order_acquire) < 2 * seq)
    ;
}

/* The CPU clock of this thread, or an errno. */
static int cpu_now(struct timespec *t) {
  return clock_gettime(CLOCK_THREAD_CPUTIME_ID, t) ? (errno ? errno : EINVAL)
                                                   : 0;
}

/* ---- library mode -------------------------------------------------------- */

static void serve_lib(child *c, const bs__hello *h, char **targets,
                      const uint32_t *load) {
  int fd = c->fd;
  size_t k = h->nimpls;
  const bs_bench_case **tab = calloc(k, sizeof(const bs_bench_case *));
  size_t *cnt = calloc(k, sizeof *cnt);
  void ***state = calloc(k, sizeof *state);
  if (!tab || !cnt || !state)
    fail_start(fd, "out of memory");
  for (size_t i = 0; i < k; i++) {
    if (!load[i])
      continue;
    const char *impl = targets[2 * i];
    const char *path = targets[2 * i + 1];
    if (!impl || !path)
      _exit(0);
    char esc[256];
    bs__run_esc(esc, sizeof esc, path);
    void *lib = load_copy(fd, impl, path);
    typedef const bs_bench_case *(*cases_fn)(int, size_t *);
    cases_fn fn;
    void *sym = dlsym(lib, "benchsite_cases");
    if (!sym)
      fail_start(fd,
                 "%s: the library %s does not define benchsite_cases (is it "
                 "built against benchsite/harness.h?)",
                 impl, esc);
    memcpy(&fn, &sym, sizeof fn);
    size_t n = 0;
    tab[i] = fn(BS_HARNESS_ABI, &n);
    if (!tab[i])
      fail_start(fd,
                 "%s: the library %s refuses harness ABI version %d (it was "
                 "built against another benchsite/harness.h; rebuild it)",
                 impl, esc, BS_HARNESS_ABI);
    if (n == 0)
      fail_start(fd, "%s: the library %s defines no benchmark case", impl, esc);
    for (size_t q = 0; q < n; q++) {
      const bs_bench_case *bc = &tab[i][q];
      if (!bc->benchmark || !bc->benchmark[0])
        fail_start(fd, "%s: %s: case %zu has no benchmark name", impl, esc, q);
      if (!bc->run)
        fail_start(fd, "%s: %s: case %zu has no run function", impl, esc, q);
      if (!isfinite(bc->scale) || bc->scale < 0)
        fail_start(fd, "%s: %s: case %zu has a scale that is not >= 0", impl,
                   esc, q);
      if (strlen(bc->benchmark) > NAME_MAX_BYTES ||
          (bc->dataset && strlen(bc->dataset) > NAME_MAX_BYTES))
        fail_start(fd, "%s: %s: case %zu has a name over %d bytes", impl, esc,
                   q, NAME_MAX_BYTES);
    }
    cnt[i] = n;
    if (!(state[i] = calloc(n, sizeof *state[i])))
      fail_start(fd, "out of memory");
  }
  uint32_t ok = 1;
  if (put(fd, &ok, sizeof ok))
    _exit(0);
  for (size_t i = 0; i < k; i++) {
    uint32_t n = (uint32_t)cnt[i];
    if (put(fd, &n, sizeof n))
      _exit(0);
    for (size_t q = 0; q < cnt[i]; q++) {
      const bs_bench_case *bc = &tab[i][q];
      const char *ds = bc->dataset ? bc->dataset : "";
      uint32_t bl = (uint32_t)strlen(bc->benchmark), dl = (uint32_t)strlen(ds);
      uint32_t hd = bc->digest != NULL;
      double sc = bc->scale;
      if (put(fd, &bl, sizeof bl) || put(fd, bc->benchmark, bl) ||
          put(fd, &dl, sizeof dl) || put(fd, ds, dl) ||
          put(fd, &sc, sizeof sc) || put(fd, &hd, sizeof hd))
        _exit(0);
    }
  }
  for (;;) {
    bs__req q;
    bs__rep a;
    memset(&a, 0, sizeof a);
    if (get(fd, &q, sizeof q) || q.impl >= k || q.kase >= cnt[q.impl])
      _exit(0);
    const bs_bench_case *bc = &tab[q.impl][q.kase];
    void **st = &state[q.impl][q.kase];
    struct timespec t0, t1, c0, c1;
    int e;
    switch (q.op) {
    case BS__OP_SETUP:
      *st = bc->setup ? bc->setup() : NULL;
      break;
    case BS__OP_RUN:
      if ((e = pin(c, q.cpu))) {
        a.status = BS__REP_NOPIN;
        a.code = (uint32_t)e;
        break;
      }
      /* The barrier's spin comes before the CPU clock is read: it is
       * not the benchmark's CPU time. */
      barrier_wait(c, q.seq);
      if ((e = cpu_now(&c0))) {
        a.status = BS__REP_NOCLOCK;
        a.code = (uint32_t)e;
        break;
      }
      clock_gettime(CLOCK_MONOTONIC, &t0);
      bc->run(*st, q.n);
      clock_gettime(CLOCK_MONOTONIC, &t1);
      if ((e = cpu_now(&c1))) {
        a.status = BS__REP_NOCLOCK;
        a.code = (uint32_t)e;
        break;
      }
      a.value = ns_between(&t0, &t1);
      a.cpu_ns = ns_between(&c0, &c1);
      break;
    case BS__OP_DIGEST:
      a.value = bc->digest ? bc->digest(*st) : 0;
      break;
    case BS__OP_TEARDOWN:
      if (bc->teardown)
        bc->teardown(*st);
      *st = NULL;
      break;
    default:
      _exit(0);
    }
    if (put(fd, &a, sizeof a))
      _exit(0);
  }
}

/* ---- command mode -------------------------------------------------------- */

static void serve_cmd(child *c, const bs__hello *h, char **targets) {
  int fd = c->fd;
  size_t k = h->nimpls;
  char ***argvs = calloc(k, sizeof *argvs);
  char **progs = calloc(k, sizeof *progs);
  int *missing = calloc(k, sizeof *missing);
  if (!argvs || !progs || !missing)
    fail_start(fd, "out of memory");
  for (size_t i = 0; i < k; i++) {
    bs_error err;
    if (bs_run_split_command(targets[2 * i + 1], &argvs[i], NULL, &err))
      fail_start(fd, "%s: %s", targets[2 * i], err.message);
    /* Found once (bs__spawn_resolve): the batch then times the
     * command, not a search of PATH. */
    missing[i] = bs__spawn_resolve(argvs[i][0], NULL, &progs[i]);
  }
  uint32_t ok = 1;
  if (put(fd, &ok, sizeof ok))
    _exit(0);
  for (;;) {
    bs__req q;
    bs__rep a;
    memset(&a, 0, sizeof a);
    if (get(fd, &q, sizeof q) || q.impl >= k)
      _exit(0);
    if (q.op == BS__OP_RUN) {
      bs__spawn_opts so;
      bs__spawn_opts_init(&so, (const char *const *)argvs[q.impl]);
      so.path = progs[q.impl];
      if (h->show_output)
        so.io[1] = so.io[2] = BS__IO_INHERIT;
      struct timespec t0, t1;
      int e;
      if ((e = pin(c, q.cpu))) {
        a.status = BS__REP_NOPIN;
        a.code = (uint32_t)e;
        goto answer;
      }
      if (missing[q.impl]) {
        a.status = BS__REP_NOSTART;
        a.code = (uint32_t)missing[q.impl];
        goto answer;
      }
      barrier_wait(c, q.seq);
      clock_gettime(CLOCK_MONOTONIC, &t0);
      for (uint64_t i = 0; i < q.n; i++) {
        bs__child ch;
        bs__child_end end;
        if (bs__spawn(&ch, &so, NULL)) {
          a.status = BS__REP_NOSTART;
          a.code = (uint32_t)ch.error;
          break;
        }
        /* No limit here: benchsite bounds the batch. Whatever the
         * command left running ends with it. */
        bs__child_wait(&ch, -1, &end);
        /* The commands' own CPU time, user and system: what they cost,
         * whoever else wanted the CPU meanwhile. ru_maxrss is KiB on
         * Linux. */
        a.cpu_ns += end.cpu_ns;
        if (end.maxrss_kib > 0 && (uint64_t)end.maxrss_kib > a.maxrss_kib)
          a.maxrss_kib = (uint64_t)end.maxrss_kib;
        if (!WIFEXITED(end.status) || WEXITSTATUS(end.status) != 0) {
          a.status = BS__REP_FAILED;
          a.code = (uint32_t)end.status;
          a.value = i;
          break;
        }
      }
      clock_gettime(CLOCK_MONOTONIC, &t1);
      if (!a.status)
        a.value = ns_between(&t0, &t1);
    }
  answer:
    if (put(fd, &a, sizeof a))
      _exit(0);
  }
}

void bs__run_child_main(int fd) {
  child c = {fd, -1, NULL};
  bs__hello h;
  /* Standard output is benchsite's (the log, with --out -): the process
   * was started with it on standard error, and SIGPIPE as benchsite had
   * it is not what a benchmark expects. */
  signal(SIGPIPE, SIG_DFL);
  if (get(fd, &h, sizeof h) || h.magic != BS__HELLO_MAGIC || h.nimpls == 0 ||
      h.nimpls > 1000)
    _exit(0);
  char **targets = calloc(2 * (size_t)h.nimpls, sizeof *targets);
  uint32_t *load = calloc(h.nimpls, sizeof *load);
  if (!targets || !load)
    fail_start(fd, "out of memory");
  for (size_t i = 0; i < 2 * (size_t)h.nimpls; i++) {
    uint32_t len;
    if ((i % 2 == 0 && get(fd, &load[i / 2], sizeof load[i / 2])) ||
        get(fd, &len, sizeof len) || len > TARGET_MAX_BYTES ||
        !(targets[i] = malloc((size_t)len + 1)) || get(fd, targets[i], len))
      _exit(0);
    targets[i][len] = '\0';
  }
  if (h.barrier) {
    void *p =
        mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, BS__BARRIER_FD, 0);
    if (p == MAP_FAILED)
      fail_start(fd, "cannot map the duet barrier: %s", strerror(errno));
    c.barrier = p;
  }
  if (h.mode == BS_RUN_LIBRARY)
    serve_lib(&c, &h, targets, load);
  else
    serve_cmd(&c, &h, targets);
  _exit(0);
}
