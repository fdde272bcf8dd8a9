/* benchsite: the measuring child of `benchsite run` in library and command
 * mode. benchsite forks it once; it loads every benchmark library (each a
 * private copy) or holds every command's argv, and runs the batches the
 * parent asks for over a socket, one at a time. The parent waits for each
 * answer at most the timeout, so a crash or a hang is the child's end and
 * an error naming the impl and the case, never benchsite's. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* memfd_create */
#endif
#include "run_int.h"

#include "benchsite/harness.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/mman.h>
#include <sys/prctl.h>
#endif

#ifndef _GNU_SOURCE /* <unistd.h> declares it then */
extern char **environ;
#endif

typedef struct req {
  uint32_t op, impl, kase, pad;
  uint64_t n;
} req;

/* status: 0 done; 1 a command failed (code: its wait status); 2 a
 * command could not start (code: errno). */
typedef struct rep {
  uint32_t status, code;
  uint64_t value;
} rep;

#define NAME_MAX_BYTES 4096

/* ---- the child ----------------------------------------------------------- */

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
  /* The memory file stays open until the child ends: the loader knows a
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

static void child_lib(int fd, const bs_run_options *o) {
  size_t k = o->nimpls;
  const bs_bench_case **tab = calloc(k, sizeof(const bs_bench_case *));
  size_t *cnt = calloc(k, sizeof *cnt);
  void ***state = calloc(k, sizeof *state);
  if (!tab || !cnt || !state)
    fail_start(fd, "out of memory");
  for (size_t i = 0; i < k; i++) {
    const char *impl = o->impls[i].name;
    char esc[256];
    bs__run_esc(esc, sizeof esc, o->impls[i].target);
    void *h = load_copy(fd, impl, o->impls[i].target);
    typedef const bs_bench_case *(*cases_fn)(int, size_t *);
    cases_fn fn;
    void *sym = dlsym(h, "benchsite_cases");
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
    for (size_t c = 0; c < n; c++) {
      const bs_bench_case *bc = &tab[i][c];
      if (!bc->benchmark || !bc->benchmark[0])
        fail_start(fd, "%s: %s: case %zu has no benchmark name", impl, esc, c);
      if (!bc->run)
        fail_start(fd, "%s: %s: case %zu has no run function", impl, esc, c);
      if (!isfinite(bc->scale) || bc->scale < 0)
        fail_start(fd, "%s: %s: case %zu has a scale that is not >= 0", impl,
                   esc, c);
      if (strlen(bc->benchmark) > NAME_MAX_BYTES ||
          (bc->dataset && strlen(bc->dataset) > NAME_MAX_BYTES))
        fail_start(fd, "%s: %s: case %zu has a name over %d bytes", impl, esc,
                   c, NAME_MAX_BYTES);
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
    for (size_t c = 0; c < cnt[i]; c++) {
      const bs_bench_case *bc = &tab[i][c];
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
    req q;
    rep a = {0, 0, 0};
    if (get(fd, &q, sizeof q) || q.impl >= k || q.kase >= cnt[q.impl])
      _exit(0);
    const bs_bench_case *bc = &tab[q.impl][q.kase];
    void **st = &state[q.impl][q.kase];
    struct timespec t0, t1;
    switch (q.op) {
    case BS__OP_SETUP:
      *st = bc->setup ? bc->setup() : NULL;
      break;
    case BS__OP_RUN:
      clock_gettime(CLOCK_MONOTONIC, &t0);
      bc->run(*st, q.n);
      clock_gettime(CLOCK_MONOTONIC, &t1);
      a.value = ns_between(&t0, &t1);
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

static void child_cmd(int fd, const bs_run_options *o, char **const *argvs) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (!o->show_output) {
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
  }
  uint32_t ok = 1;
  if (put(fd, &ok, sizeof ok))
    _exit(0);
  for (;;) {
    req q;
    rep a = {0, 0, 0};
    if (get(fd, &q, sizeof q) || q.impl >= o->nimpls)
      _exit(0);
    if (q.op == BS__OP_RUN) {
      char *const *argv = argvs[q.impl];
      struct timespec t0, t1;
      clock_gettime(CLOCK_MONOTONIC, &t0);
      for (uint64_t i = 0; i < q.n; i++) {
        pid_t pid;
        int st = 0;
        int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
        if (rc) {
          a.status = 2;
          a.code = (uint32_t)rc;
          break;
        }
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
          ;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
          a.status = 1;
          a.code = (uint32_t)st;
          a.value = i;
          break;
        }
      }
      clock_gettime(CLOCK_MONOTONIC, &t1);
      if (!a.status)
        a.value = ns_between(&t0, &t1);
    }
    if (put(fd, &a, sizeof a))
      _exit(0);
  }
}

/* ---- the parent ---------------------------------------------------------- */

/* Reads n bytes within `timeout_s`: 0, or 1 when the child is gone, 2 on
 * the timeout. */
static int get_within(int fd, void *p, size_t n, double timeout_s) {
  char *c = p;
  double end = bs__run_now() + timeout_s;
  while (n > 0) {
    double left = end - bs__run_now();
    if (left <= 0)
      return 2;
    struct pollfd pfd = {fd, POLLIN, 0};
    double ms = ceil(left * 1000.0);
    int pr = poll(&pfd, 1, ms > 2e9 ? 2000000000 : (int)ms);
    if (pr < 0 && errno == EINTR)
      continue;
    if (pr < 0)
      return 1;
    if (pr == 0)
      continue;
    ssize_t r = read(fd, c, n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return 1;
    c += r;
    n -= (size_t)r;
  }
  return 0;
}

static void reap(bs__exec *e, int kill_it, int *wstatus) {
  int st = 0;
  if (e->pid <= 0)
    return;
  if (kill_it) {
    kill(-e->pid, SIGKILL);
    kill(e->pid, SIGKILL);
  }
  while (waitpid(e->pid, &st, 0) < 0 && errno == EINTR)
    ;
  e->pid = -1;
  if (wstatus)
    *wstatus = st;
}

/* The error of a child that stopped answering: rc 1 (gone) or 2 (timed
 * out) while doing `what`. */
static bs_status child_lost(bs__exec *e, int rc, const char *what,
                            bs_error *err) {
  int st = 0;
  char why[160], how[120];
  if (rc == 2) {
    reap(e, 1, NULL);
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: did not finish within %g s (--timeout); the "
                        "benchmark was killed",
                        what, e->timeout_s);
  }
  reap(e, 1, &st);
  if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
    snprintf(why, sizeof why, "was killed (signal 9)");
  else if (WIFSIGNALED(st))
    snprintf(why, sizeof why, "crashed: it %s",
             bs__run_wait_text(how, sizeof how, st));
  else
    bs__run_wait_text(why, sizeof why, st);
  return bs_error_set(err, BS_EINPUT, NULL, 0,
                      "%s: the measuring process %s; nothing was written", what,
                      why);
}

bs_status bs__exec_start(bs__exec *e, const bs_run_options *o,
                         char **const *argvs, bs_error *err) {
  int sv[2];
  memset(e, 0, sizeof *e);
  e->pid = -1;
  e->fd = -1;
  e->timeout_s = o->timeout_s;
  e->nimpls = o->nimpls;
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
    return bs_error_set(err, BS_EIO, NULL, 0, "cannot make a socket: %s",
                        strerror(errno));
  fflush(NULL);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int en = errno;
    close(sv[0]);
    close(sv[1]);
    return bs_error_set(err, BS_EIO, NULL, 0,
                        "cannot start the measuring process: %s", strerror(en));
  }
  if (pid == 0) {
    /* Its own process group: a timeout kills it and every command it
     * started. */
    close(sv[0]);
    setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL);
    (void)parent;
#ifdef __linux__
    /* In its own process group it misses a ^C meant for benchsite: it
     * dies with benchsite instead, even inside a hung batch. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
      _exit(0);
#endif
    /* Standard output is benchsite's (the log, with --out -): whatever a
     * benchmark prints goes to standard error instead. */
    dup2(2, 1);
    if (o->mode == BS_RUN_LIBRARY)
      child_lib(sv[1], o);
    else
      child_cmd(sv[1], o, argvs);
    _exit(0);
  }
  setpgid(pid, pid);
  close(sv[1]);
  e->pid = pid;
  e->fd = sv[0];
  fcntl(e->fd, F_SETFD, FD_CLOEXEC);

  uint32_t ok = 0;
  const char *loading =
      o->mode == BS_RUN_LIBRARY ? "loading the libraries" : "starting";
  int rc = get_within(e->fd, &ok, sizeof ok, o->timeout_s);
  if (rc)
    return child_lost(e, rc, loading, err);
  if (!ok) {
    uint32_t len = 0;
    char msg[1100];
    if ((rc = get_within(e->fd, &len, sizeof len, o->timeout_s)) ||
        len >= sizeof msg || (rc = get_within(e->fd, msg, len, o->timeout_s))) {
      return child_lost(e, rc ? rc : 1, loading, err);
    }
    msg[len] = '\0';
    reap(e, 1, NULL);
    return bs_error_set(err, BS_EINPUT, NULL, 0, "%s", msg);
  }
  if (o->mode != BS_RUN_LIBRARY)
    return BS_OK;
  e->cases = calloc(o->nimpls, sizeof(bs__exec_case *));
  e->ncases = calloc(o->nimpls, sizeof *e->ncases);
  if (!e->cases || !e->ncases)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  for (size_t i = 0; i < o->nimpls; i++) {
    uint32_t n = 0;
    if ((rc = get_within(e->fd, &n, sizeof n, o->timeout_s)))
      return child_lost(e, rc, loading, err);
    if (!(e->cases[i] = calloc(n ? n : 1, sizeof *e->cases[i])))
      return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    e->ncases[i] = n;
    for (uint32_t c = 0; c < n; c++) {
      bs__exec_case *ec = &e->cases[i][c];
      uint32_t len = 0, hd = 0;
      for (int w = 0; w < 2; w++) {
        char **dst = w ? &ec->dataset : &ec->benchmark;
        if ((rc = get_within(e->fd, &len, sizeof len, o->timeout_s)))
          return child_lost(e, rc, loading, err);
        if (len > NAME_MAX_BYTES || !(*dst = malloc((size_t)len + 1)))
          return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
        if ((rc = get_within(e->fd, *dst, len, o->timeout_s)))
          return child_lost(e, rc, loading, err);
        (*dst)[len] = '\0';
      }
      if ((rc =
               get_within(e->fd, &ec->scale, sizeof ec->scale, o->timeout_s)) ||
          (rc = get_within(e->fd, &hd, sizeof hd, o->timeout_s)))
        return child_lost(e, rc, loading, err);
      ec->has_digest = hd != 0;
    }
  }
  return BS_OK;
}

bs_status bs__exec_call(bs__exec *e, int op, size_t impl, size_t kase,
                        uint64_t n, const char *what, uint64_t *value,
                        bs_error *err) {
  req q = {(uint32_t)op, (uint32_t)impl, (uint32_t)kase, 0, n};
  rep a;
  if (e->pid <= 0)
    return bs_error_set(err, BS_EINTERNAL, NULL, 0, "%s: no measuring process",
                        what);
  ssize_t w;
  do
    w = send(e->fd, &q, sizeof q, MSG_NOSIGNAL);
  while (w < 0 && errno == EINTR);
  if (w != (ssize_t)sizeof q)
    return child_lost(e, 1, what, err);
  int rc = get_within(e->fd, &a, sizeof a, e->timeout_s);
  if (rc)
    return child_lost(e, rc, what, err);
  if (a.status == 1) {
    char why[128];
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: execution %llu of the command %s", what,
                        (unsigned long long)a.value + 1,
                        bs__run_wait_text(why, sizeof why, (int)a.code));
  }
  if (a.status == 2)
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: the command cannot be started: %s", what,
                        strerror((int)a.code));
  if (value)
    *value = a.value;
  return BS_OK;
}

void bs__exec_stop(bs__exec *e) {
  if (e->fd >= 0)
    close(e->fd);
  e->fd = -1;
  /* The child waits for a request (every error while it was busy has
   * reaped it already): it and whatever a benchmark started and left
   * running in its process group end here, so nothing outlives the run
   * (a process left behind would hold benchsite's output open). */
  reap(e, 1, NULL);
  for (size_t i = 0; e->cases && i < e->nimpls; i++) {
    for (size_t c = 0; c < e->ncases[i]; c++) {
      free(e->cases[i][c].benchmark);
      free(e->cases[i][c].dataset);
    }
    free(e->cases[i]);
  }
  free(e->cases);
  free(e->ncases);
  e->cases = NULL;
  e->ncases = NULL;
}
