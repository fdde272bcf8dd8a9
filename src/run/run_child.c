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
#include "fsutil.h"
#include "run_common.h"
#include "run_int.h"
#include "spawn_proc.h"

#include "benchsite/harness.h"
#include "oom.h"

#include <alloca.h>
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
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What the process knows of itself: its socket, its pid (a copy that a
 * benchmark forks has another), its CPU, the duet barrier. */
typedef struct child {
  int fd;
  pid_t self;
  int pinned; /* the CPU this process is pinned to, -1: none */
  _Atomic uint64_t *barrier;
} child;

/* Sends a message to benchsite, its head filled: this process's pid as it
 * is now, the kind, the request id. A copy of this process that a
 * benchmark forked and that came back into this loop has sent what
 * benchsite needs to see it (an answer from another pid) and ends here,
 * before it can read a request meant for the process benchsite started.
 * Ends the process when benchsite is gone. */
static void send_msg(const child *c, void *msg, size_t n, uint32_t kind,
                     uint64_t id) {
  bs__head *h = msg;
  h->pid = (int32_t)getpid();
  h->kind = kind;
  h->id = id;
  if (bs__msg_send(c->fd, msg, n) || h->pid != (int32_t)c->self)
    _exit(0);
}

/* One message from benchsite of exactly n bytes (up to n with `upto`):
 * its length. Anything else ends the process. */
static size_t recv_msg(const child *c, void *buf, size_t n, int upto) {
  size_t len = 0;
  if (bs__msg_recv_within(c->fd, buf, n, &len, -1) || (!upto && len != n))
    _exit(0);
  return len;
}

/* The startup message: ok = 0 and a text, or ok = 1 and the tables. */
static void fail_start(const child *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3), noreturn))
#endif
    ;
static void fail_start(const child *c, const char *fmt, ...) {
  struct {
    bs__start s;
    char text[1024];
  } m;
  memset(&m, 0, sizeof m);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m.text, sizeof m.text, fmt, ap);
  va_end(ap);
  m.s.ok = 0;
  m.s.len = (uint32_t)strlen(m.text);
  send_msg(c, &m, sizeof m.s + m.s.len, BS__MSG_START, 0);
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
    if (r < 0 || (r > 0 && bs__write_all(out, buf, (size_t)r)))
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
static void *load_copy(const child *c, const char *impl, const char *path) {
  char esc[256], tmp[4096];
  bs__run_text(esc, sizeof esc, path);
  int in = open(path, O_RDONLY | O_CLOEXEC);
  if (in < 0)
    fail_start(c, "%s: cannot open the library %s: %s", impl, esc,
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
      fail_start(c, "%s: cannot copy the library %s: %s", impl, esc,
                 strerror(errno));
    unlink_me = tmp;
  }
  if (copy_fd(in, out)) {
    int e = errno;
    if (unlink_me)
      unlink(unlink_me);
    fail_start(c, "%s: cannot copy the library %s: %s", impl, esc, strerror(e));
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
    bs__run_text(why, sizeof why, e ? e : "unknown error");
    fail_start(c, "%s: cannot load the library %s: %s", impl, esc, why);
  }
  return h;
}

/* ---- what every batch shares: the CPU it runs on, the duet barrier ---- */

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

/* How often this thread has lost its CPU to other work so far
 * (involuntary context switches; 0 where that cannot be told). */
static uint64_t preempted(void) {
#if defined(__linux__) && defined(RUSAGE_THREAD)
  struct rusage ru;
  if (!getrusage(RUSAGE_THREAD, &ru) && ru.ru_nivcsw > 0)
    return (uint64_t)ru.ru_nivcsw;
#endif
  return 0;
}

/* Layout randomisation: `pages` of address space nobody uses, reserved
 * (never touched) so that what is mapped next lands elsewhere. */
static void reserve_gap(uint32_t pages) {
  if (pages)
    (void)mmap(NULL, (size_t)pages * 4096, PROT_NONE,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

/* ---- library mode -------------------------------------------------------- */

/* The start answer: ok, then per impl its case table (an empty one for an
 * impl this process did not load). */
static void send_tables(const child *c, size_t k,
                        const bs_bench_case *const *tab, const size_t *cnt) {
  bs__start ok;
  memset(&ok, 0, sizeof ok);
  ok.ok = 1;
  send_msg(c, &ok, sizeof ok, BS__MSG_START, 0);
  struct {
    bs__case_msg m;
    char names[2 * BS__NAME_MAX];
  } cm;
  for (size_t i = 0; i < k; i++) {
    bs__table t;
    memset(&t, 0, sizeof t);
    t.count = cnt[i];
    send_msg(c, &t, sizeof t, BS__MSG_TABLE, 0);
    for (size_t q = 0; q < cnt[i]; q++) {
      const bs_bench_case *bc = &tab[i][q];
      const char *ds = bc->dataset ? bc->dataset : "";
      size_t bl = strlen(bc->benchmark), dl = strlen(ds);
      memset(&cm.m, 0, sizeof cm.m);
      cm.m.scale = bc->scale;
      cm.m.blen = (uint32_t)bl;
      cm.m.dlen = (uint32_t)dl;
      cm.m.has_digest = bc->digest != NULL;
      memcpy(cm.names, bc->benchmark, bl);
      memcpy(cm.names + bl, ds, dl);
      send_msg(c, &cm, sizeof cm.m + bl + dl, BS__MSG_CASE, 0);
    }
  }
}

static void serve_lib(child *c, const bs__hello *h, char **targets,
                      const bs__target *tg) {
  size_t k = h->nimpls;
  const bs_bench_case **tab = calloc(k, sizeof(const bs_bench_case *));
  size_t *cnt = calloc(k, sizeof *cnt);
  void ***state = calloc(k, sizeof *state);
  void ***pads = calloc(k, sizeof *pads);
  if (!tab || !cnt || !state || !pads)
    fail_start(c, BS__OOM_TEXT);
  for (size_t i = 0; i < k; i++) {
    if (!tg[i].load)
      continue;
    const char *impl = targets[3 * i];
    const char *path = targets[3 * i + 1];
    char esc[256];
    bs__run_text(esc, sizeof esc, path);
    reserve_gap(tg[i].map_gap);
    void *lib = load_copy(c, impl, path);
    typedef const bs_bench_case *(*cases_fn)(int, size_t *);
    cases_fn fn;
    void *sym = dlsym(lib, "benchsite_cases");
    if (!sym)
      fail_start(c,
                 "%s: the library %s does not define benchsite_cases (is it "
                 "built against benchsite/harness.h?)",
                 impl, esc);
    memcpy(&fn, &sym, sizeof fn);
    size_t n = 0;
    tab[i] = fn(BS_HARNESS_ABI, &n);
    if (!tab[i])
      fail_start(c,
                 "%s: the library %s refuses harness ABI version %d (it was "
                 "built against another benchsite/harness.h; rebuild it)",
                 impl, esc, BS_HARNESS_ABI);
    if (n == 0)
      fail_start(c, "%s: the library %s defines no benchmark case", impl, esc);
    for (size_t q = 0; q < n; q++) {
      const bs_bench_case *bc = &tab[i][q];
      if (!bc->benchmark || !bc->benchmark[0])
        fail_start(c, "%s: %s: case %zu has no benchmark name", impl, esc, q);
      if (!bc->run)
        fail_start(c, "%s: %s: case %zu has no run function", impl, esc, q);
      if (!isfinite(bc->scale) || bc->scale < 0)
        fail_start(c, "%s: %s: case %zu has a scale that is not >= 0", impl,
                   esc, q);
      if (strlen(bc->benchmark) > BS__NAME_MAX ||
          (bc->dataset && strlen(bc->dataset) > BS__NAME_MAX))
        fail_start(c, "%s: %s: case %zu has a name over %d bytes", impl, esc, q,
                   BS__NAME_MAX);
    }
    cnt[i] = n;
    if (!(state[i] = calloc(n, sizeof *state[i])) ||
        !(pads[i] = calloc(n, sizeof *pads[i])))
      fail_start(c, BS__OOM_TEXT);
  }
  send_tables(c, k, tab, cnt);
  for (;;) {
    bs__req q;
    bs__rep a;
    memset(&a, 0, sizeof a);
    recv_msg(c, &q, sizeof q, 0);
    a.op = q.op;
    a.impl = q.impl;
    a.kase = q.kase;
    if (q.op == BS__OP_END) {
      send_msg(c, &a, sizeof a, BS__MSG_REPLY, q.id);
      continue;
    }
    if (q.impl >= k || q.kase >= cnt[q.impl])
      _exit(0);
    const bs_bench_case *bc = &tab[q.impl][q.kase];
    void **st = &state[q.impl][q.kase];
    void **pad = &pads[q.impl][q.kase];
    struct timespec t0, t1, c0, c1;
    uint64_t v0;
    int e;
    switch (q.op) {
    case BS__OP_SETUP:
      /* Layout randomisation: what setup allocates starts elsewhere in
       * the heap than in the last process, and elsewhere for each impl. */
      *pad = tg[q.impl].heap_pad ? malloc(tg[q.impl].heap_pad) : NULL;
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
      barrier_wait(c, q.round);
      if ((e = cpu_now(&c0))) {
        a.status = BS__REP_NOCLOCK;
        a.code = (uint32_t)e;
        break;
      }
      v0 = preempted();
      clock_gettime(CLOCK_MONOTONIC, &t0);
      bc->run(*st, q.n + q.extra);
      clock_gettime(CLOCK_MONOTONIC, &t1);
      a.nivcsw = preempted() - v0;
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
      free(*pad);
      *pad = NULL;
      break;
    default:
      _exit(0);
    }
    send_msg(c, &a, sizeof a, BS__MSG_REPLY, q.id);
  }
}

/* ---- command mode -------------------------------------------------------- */

static void serve_cmd(child *c, const bs__hello *h, char **targets,
                      const bs__target *tg) {
  size_t k = h->nimpls;
  char ***argvs = calloc(k, sizeof *argvs);
  char **progs = calloc(k, sizeof *progs);
  int *missing = calloc(k, sizeof *missing);
  if (!argvs || !progs || !missing)
    fail_start(c, BS__OOM_TEXT);
  for (size_t i = 0; i < k; i++) {
    if (!tg[i].load)
      continue; /* a duet: the other process's */
    bs_error err;
    if (bs_run_split_command(targets[3 * i + 1], &argvs[i], NULL, &err))
      fail_start(c, "%s: %s", targets[3 * i], err.message);
    /* Found once (bs__spawn_resolve): the batch then times the command,
     * not a search of PATH. */
    const char *dir = targets[3 * i + 2][0] ? targets[3 * i + 2] : NULL;
    missing[i] = bs__spawn_resolve(argvs[i][0], dir, &progs[i]);
  }
  bs__start ok;
  memset(&ok, 0, sizeof ok);
  ok.ok = 1;
  send_msg(c, &ok, sizeof ok, BS__MSG_START, 0);
  for (;;) {
    bs__req q;
    bs__rep a;
    memset(&a, 0, sizeof a);
    recv_msg(c, &q, sizeof q, 0);
    a.op = q.op;
    a.impl = q.impl;
    a.kase = q.kase;
    if (q.op != BS__OP_END && (q.impl >= k || !argvs[q.impl]))
      _exit(0);
    if (q.op == BS__OP_RUN) {
      bs__spawn_opts so;
      bs__spawn_opts_init(&so, (const char *const *)argvs[q.impl]);
      so.path = progs[q.impl];
      so.dir = targets[3 * q.impl + 2][0] ? targets[3 * q.impl + 2] : NULL;
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
      barrier_wait(c, q.round);
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
        if (end.nivcsw > 0)
          a.nivcsw += (uint64_t)end.nivcsw;
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
    send_msg(c, &a, sizeof a, BS__MSG_REPLY, q.id);
  }
}

void bs__run_child_main(int fd) {
  child c = {fd, getpid(), -1, NULL};
  bs__hello h;
  /* Standard output is benchsite's (the log, with --out -): the process
   * was started with it on standard error, and SIGPIPE as benchsite had
   * it is not what a benchmark expects. */
  signal(SIGPIPE, SIG_DFL);
  recv_msg(&c, &h, sizeof h, 0);
  if (h.magic != BS__HELLO_MAGIC || h.nimpls == 0 || h.nimpls > 1000)
    _exit(0);
  /* Per impl: its name, its target, its directory ("": none). */
  char **targets = calloc(3 * (size_t)h.nimpls, sizeof *targets);
  bs__target *tg = calloc(h.nimpls, sizeof *tg);
  char *buf = malloc(BS__MSG_MAX);
  if (!targets || !tg || !buf)
    fail_start(&c, BS__OOM_TEXT);
  for (size_t i = 0; i < h.nimpls; i++) {
    size_t len = recv_msg(&c, buf, BS__MSG_MAX, 1);
    bs__target t;
    if (len < sizeof t)
      _exit(0);
    memcpy(&t, buf, sizeof t);
    size_t lens[3] = {t.nlen, t.tlen, t.dlen}, at = sizeof t;
    if ((size_t)t.nlen + t.tlen + t.dlen != len - sizeof t)
      _exit(0);
    tg[i] = t;
    for (size_t w = 0; w < 3; w++) {
      if (!(targets[3 * i + w] = malloc(lens[w] + 1)))
        fail_start(&c, BS__OOM_TEXT);
      memcpy(targets[3 * i + w], buf + at, lens[w]);
      targets[3 * i + w][lens[w]] = '\0';
      at += lens[w];
    }
  }
  free(buf);
  if (h.barrier) {
    void *p =
        mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, BS__BARRIER_FD, 0);
    if (p == MAP_FAILED)
      fail_start(&c, "cannot map the duet barrier: %s", strerror(errno));
    c.barrier = p;
  }
  /* Layout randomisation: every frame of the benchmarks' calls lies this
   * much further down the stack than the system put it. */
  if (h.stack_pad && h.stack_pad <= 4096) {
    volatile char *pad = alloca(h.stack_pad);
    pad[0] = 0;
  }
  if (h.mode == BS_RUN_LIBRARY)
    serve_lib(&c, &h, targets, tg);
  else
    serve_cmd(&c, &h, targets, tg);
  _exit(0);
}
