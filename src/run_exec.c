/* benchsite: starting and driving the measuring processes of `benchsite
 * run` in library and command mode (the process's side is run_child.c).
 *
 * A measuring process is this program's own executable started again
 * (/proc/self/exe, started by spawn_proc), not a fork: a fork keeps the
 * parent's address layout, so every run would measure the code at the same
 * addresses and the layout's bias would be one fixed offset, invisible to
 * an A/A test; a new image gets a new layout (ASLR) each time. The new
 * process learns what it is from BS__CHILD_ENV, which a constructor below
 * reads before main: so any program that links the runner (benchsite,
 * the tests, an embedder) can be started this way without a main of its
 * own taking part, and the variable is dropped at once, unseen by the
 * benchmarks. It takes effect only in a child of the process that named
 * itself in it, with the socket in place. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* memfd_create */
#endif
#include "run_common.h"
#include "run_int.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#ifndef _GNU_SOURCE /* <unistd.h> declares it then */
extern char **environ;
#endif

#define NAME_MAX_BYTES 4096
#define SELF_EXE "/proc/self/exe"

#if defined(__GNUC__)
__attribute__((constructor))
#endif
static void
measuring_process_entry(void) {
  const char *v = getenv(BS__CHILD_ENV);
  if (!v)
    return;
  char *end;
  errno = 0;
  long long ppid = strtoll(v, &end, 10);
  int ours = !errno && end != v && !*end && ppid > 1 && ppid == getppid();
  unsetenv(BS__CHILD_ENV);
  struct stat sb;
  if (!ours || fstat(BS__CHILD_FD, &sb) || !S_ISSOCK(sb.st_mode))
    return;
#ifdef __linux__
  /* In its own process group it misses a ^C meant for benchsite: it dies
   * with benchsite instead, even inside a hung batch. */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != ppid)
    _exit(0);
#endif
  bs__run_child_main(BS__CHILD_FD);
}

static int put(int fd, const void *p, size_t n) {
  return bs__msg_send(fd, p, n);
}

/* Reads n bytes within `timeout_s`: 0, or 1 when the process is gone, 2
 * on the timeout. */
static int get_within(int fd, void *p, size_t n, double timeout_s) {
  double ms = ceil(timeout_s * 1000.0);
  return bs__fd_read_within(fd, p, n, ms > 9e15 ? -1 : (long long)ms);
}

static int sock(const bs__exec *e, size_t c) {
  return e->ch[c].fd[BS__CHILD_FD];
}

/* Ends process c: it and whatever a benchmark started and left running
 * (in its process group, or escaped from it) end here, so nothing
 * outlives the run (a process left behind would hold benchsite's output
 * open). Its wait status into *wstatus. */
static void reap(bs__child *c, int *wstatus) {
  bs__child_end end;
  bs__child_wait(c, 0, &end);
  if (wstatus)
    *wstatus = end.status;
}

/* The error of process `c` that stopped answering: rc 1 (gone) or 2
 * (timed out) while doing `what`. The whole generation ends. */
static bs_status lost(bs__exec *e, size_t c, int rc, const char *what,
                      bs_error *err) {
  int st = 0;
  char why[160], how[120];
  reap(&e->ch[c], &st);
  bs__exec_stop(e);
  if (rc == 2)
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: did not finish within %g s (--timeout); the "
                        "benchmark was killed",
                        what, e->o->timeout_s);
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

void bs__exec_init(bs__exec *e, const bs_run_options *o, char **const *argvs) {
  memset(e, 0, sizeof *e);
  e->o = o;
  e->argvs = argvs;
  e->barrier_fd = -1;
  for (size_t c = 0; c < 2; c++) {
    e->ch[c].pid = -1;
    for (int k = 0; k < BS__SPAWN_FDS; k++)
      e->ch[c].fd[k] = -1;
  }
}

int bs__exec_running(const bs__exec *e) { return e->nch > 0; }

/* The environment of a measuring process: ours, less any BS__CHILD_ENV,
 * plus BS__CHILD_ENV naming us. One malloc'd block. */
static char **child_env(void) {
  size_t n = 0, nl = strlen(BS__CHILD_ENV);
  for (char **p = environ; p && *p; p++)
    n++;
  char **env = malloc((n + 2) * sizeof *env + 64 + nl);
  if (!env)
    return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], BS__CHILD_ENV, nl) || environ[i][nl] != '=')
      env[k++] = environ[i];
  char *mine = (char *)(env + n + 2);
  snprintf(mine, 64 + nl, "%s=%ld", BS__CHILD_ENV, (long)getpid());
  env[k++] = mine;
  env[k] = NULL;
  return env;
}

static bs_status spawn_one(bs__exec *e, size_t c, bs_error *err) {
  const bs_run_options *o = e->o;
  char **env = child_env();
  if (!env)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  const char *argv[] = {"benchsite-measure", NULL};
  bs__spawn_opts so;
  bs__spawn_opts_init(&so, argv);
  so.path = SELF_EXE;
  so.envp = (const char *const *)env;
  /* Standard output is benchsite's (the log, with --out -): whatever a
   * benchmark prints goes to standard error instead. */
  so.io[1] = BS__IO_FD;
  so.fd[1] = 2;
  so.io[2] = BS__IO_INHERIT;
  so.io[BS__CHILD_FD] = BS__IO_SOCKET;
  if (e->barrier_fd >= 0) {
    so.io[BS__BARRIER_FD] = BS__IO_FD;
    so.fd[BS__BARRIER_FD] = e->barrier_fd;
  }
  fflush(NULL);
  bs_error why;
  bs_status st = bs__spawn(&e->ch[c], &so, &why);
  free(env);
  if (st)
    return bs_error_set(err, st, NULL, 0,
                        "cannot start the measuring process (%s): %s", SELF_EXE,
                        strerror(e->ch[c].error));
  int mine = sock(e, c);
  e->nch = c + 1;

  /* What to load: in a duet each process holds one impl. */
  bs__hello h = {BS__HELLO_MAGIC, (uint32_t)o->mode, (uint32_t)o->nimpls,
                 (uint32_t)(o->show_output != 0), e->barrier_fd >= 0};
  int bad = put(mine, &h, sizeof h);
  for (size_t i = 0; !bad && i < o->nimpls; i++) {
    uint32_t load = !o->duet || i == c;
    const char *s[2] = {o->impls[i].name, o->impls[i].target};
    bad = put(mine, &load, sizeof load);
    for (size_t w = 0; !bad && w < 2; w++) {
      uint32_t len = (uint32_t)strlen(s[w]);
      bad = put(mine, &len, sizeof len) || put(mine, s[w], len);
    }
  }
  if (bad)
    return lost(e, c, 1, "starting", err);
  return BS_OK;
}

static int same_case(const bs__exec_case *a, const bs__exec_case *b) {
  return !strcmp(a->benchmark, b->benchmark) &&
         !strcmp(a->dataset, b->dataset) && a->has_digest == b->has_digest &&
         (a->scale == b->scale ||
          (a->scale != a->scale && b->scale != b->scale));
}

/* The startup answer of process c: its case tables (library mode). */
static bs_status read_start(bs__exec *e, size_t c, bs_error *err) {
  const bs_run_options *o = e->o;
  int fd = sock(e, c), rc;
  double to = o->timeout_s;
  uint32_t ok = 0;
  const char *loading =
      o->mode == BS_RUN_LIBRARY ? "loading the libraries" : "starting";
  if ((rc = get_within(fd, &ok, sizeof ok, to)))
    return lost(e, c, rc, loading, err);
  if (!ok) {
    uint32_t len = 0;
    char msg[1100];
    if ((rc = get_within(fd, &len, sizeof len, to)) || len >= sizeof msg ||
        (rc = get_within(fd, msg, len, to)))
      return lost(e, c, rc ? rc : 1, loading, err);
    msg[len] = '\0';
    bs__exec_stop(e);
    return bs_error_set(err, BS_EINPUT, NULL, 0, "%s", msg);
  }
  if (o->mode != BS_RUN_LIBRARY)
    return BS_OK;
  if (!e->cases) {
    e->cases = calloc(o->nimpls, sizeof(bs__exec_case *));
    e->ncases = calloc(o->nimpls, sizeof *e->ncases);
    if (!e->cases || !e->ncases) {
      bs__exec_stop(e);
      return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    }
  }
  for (size_t i = 0; i < o->nimpls; i++) {
    uint32_t n = 0;
    if ((rc = get_within(fd, &n, sizeof n, to)))
      return lost(e, c, rc, loading, err);
    int mine = !o->duet || i == c;
    if (!mine && n) {
      bs__exec_stop(e);
      return bs_error_set(
          err, BS_EINTERNAL, NULL, 0,
          "a measuring process loaded an impl it was not given");
    }
    if (!mine)
      continue;
    int known = e->cases[i] != NULL;
    bs__exec_case *t = calloc(n ? n : 1, sizeof *t);
    if (!t) {
      bs__exec_stop(e);
      return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    }
    bs_status st = BS_OK;
    for (uint32_t q = 0; !st && q < n; q++) {
      bs__exec_case *ec = &t[q];
      uint32_t len = 0, hd = 0;
      for (int w = 0; !st && w < 2; w++) {
        char **dst = w ? &ec->dataset : &ec->benchmark;
        rc = get_within(fd, &len, sizeof len, to);
        if (!rc && (len > NAME_MAX_BYTES || !(*dst = malloc((size_t)len + 1))))
          st = BS_ENOMEM;
        if (!rc && !st)
          rc = get_within(fd, *dst, len, to);
        if (rc)
          st = BS_EIO;
        else if (!st)
          (*dst)[len] = '\0';
      }
      if (!st && ((rc = get_within(fd, &ec->scale, sizeof ec->scale, to)) ||
                  (rc = get_within(fd, &hd, sizeof hd, to))))
        st = BS_EIO;
      ec->has_digest = hd != 0;
    }
    int differs = known && n != e->ncases[i];
    for (uint32_t q = 0; !st && known && !differs && q < n; q++)
      differs = !same_case(&t[q], &e->cases[i][q]);
    if (st || known) {
      for (uint32_t q = 0; q < n; q++) {
        free(t[q].benchmark);
        free(t[q].dataset);
      }
      free(t);
    } else {
      e->cases[i] = t;
      e->ncases[i] = n;
    }
    if (st == BS_EIO)
      return lost(e, c, rc, loading, err);
    if (st) {
      bs__exec_stop(e);
      return bs_error_set(err, st, NULL, 0, "out of memory");
    }
    if (differs) {
      char esc[128];
      bs__exec_stop(e);
      return bs_error_set(err, BS_EINPUT, NULL, 0,
                          "%s: the library's cases changed during the run "
                          "(was it rebuilt?); nothing was written",
                          bs__run_esc(esc, sizeof esc, o->impls[i].name));
    }
  }
  return BS_OK;
}

bs_status bs__exec_start(bs__exec *e, bs_error *err) {
  size_t n = e->o->duet ? 2 : 1;
  bs_status st = BS_OK;
  e->seq = 0;
#if defined(__linux__) && defined(MFD_CLOEXEC)
  if (e->o->duet) {
    int fd = memfd_create("benchsite-duet", MFD_CLOEXEC);
    if (fd >= 0 && ftruncate(fd, 4096)) {
      close(fd);
      fd = -1;
    }
    e->barrier_fd = fd;
    if (e->barrier_fd < 0)
      return bs_error_set(err, BS_EIO, NULL, 0,
                          "cannot make the duet's barrier: %s",
                          strerror(errno));
  }
#else
  if (e->o->duet)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "--duet needs Linux (a shared memory file)");
#endif
  for (size_t c = 0; !st && c < n; c++)
    st = spawn_one(e, c, err);
  for (size_t c = 0; !st && c < n; c++)
    st = read_start(e, c, err);
  if (st)
    bs__exec_stop(e);
  return st;
}

/* The error for an answer that is not BS__REP_OK. */
static bs_status rep_error(const bs__req *q, const bs__rep *a, const char *what,
                           bs_error *err) {
  char why[128];
  switch (a->status) {
  case BS__REP_FAILED:
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: execution %llu of the command %s", what,
                        (unsigned long long)a->value + 1,
                        bs__run_wait_text(why, sizeof why, (int)a->code));
  case BS__REP_NOSTART:
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: the command cannot be started: %s", what,
                        strerror((int)a->code));
  case BS__REP_NOCLOCK:
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: cannot read the measuring thread's CPU clock "
                        "(CLOCK_THREAD_CPUTIME_ID): %s; nothing was written",
                        what, strerror((int)a->code));
  case BS__REP_NOPIN:
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: cannot pin the measuring process to CPU %d: %s",
                        what, (int)q->cpu, strerror((int)a->code));
  default:
    return bs_error_set(err, BS_EINTERNAL, NULL, 0,
                        "%s: unknown answer %u from the measuring process",
                        what, (unsigned)a->status);
  }
}

static size_t owner(const bs__exec *e, size_t impl) {
  return e->o->duet ? impl : 0;
}

bs_status bs__exec_call(bs__exec *e, const bs__req *q, const char *what,
                        bs__rep *a, bs_error *err) {
  size_t c = owner(e, q->impl);
  if (c >= e->nch || e->ch[c].pid <= 0)
    return bs_error_set(err, BS_EINTERNAL, NULL, 0, "%s: no measuring process",
                        what);
  if (put(sock(e, c), q, sizeof *q))
    return lost(e, c, 1, what, err);
  int rc = get_within(sock(e, c), a, sizeof *a, e->o->timeout_s);
  if (rc)
    return lost(e, c, rc, what, err);
  if (a->status != BS__REP_OK) {
    bs_status st = rep_error(q, a, what, err);
    bs__exec_stop(e);
    return st;
  }
  return BS_OK;
}

bs_status bs__exec_duet(bs__exec *e, bs__req q[2], const char *const what[2],
                        bs__rep a[2], bs_error *err) {
  if (e->nch != 2 || q[0].impl != 0 || q[1].impl != 1)
    return bs_error_set(err, BS_EINTERNAL, NULL, 0, "not a duet");
  e->seq++;
  for (size_t c = 0; c < 2; c++) {
    q[c].seq = e->seq;
    if (put(sock(e, c), &q[c], sizeof q[c]))
      return lost(e, c, 1, what[c], err);
  }
  /* Both answers, whichever comes first: a process that dies while the
   * other waits at the barrier must be noticed at once, not after the
   * timeout. */
  size_t got[2] = {0, 0};
  double end = bs__run_now() + e->o->timeout_s;
  while (got[0] < sizeof a[0] || got[1] < sizeof a[1]) {
    double left = end - bs__run_now();
    size_t late = got[0] < sizeof a[0] ? 0 : 1;
    if (left <= 0)
      return lost(e, late, 2, what[late], err);
    struct pollfd pfd[2];
    nfds_t np = 0;
    size_t which[2];
    for (size_t c = 0; c < 2; c++) {
      if (got[c] < sizeof a[c]) {
        pfd[np] = (struct pollfd){sock(e, c), POLLIN, 0};
        which[np++] = c;
      }
    }
    double ms = ceil(left * 1000.0);
    int pr = poll(pfd, np, ms > 2e9 ? 2000000000 : (int)ms);
    if (pr < 0 && errno == EINTR)
      continue;
    if (pr < 0)
      return lost(e, which[0], 1, what[which[0]], err);
    for (nfds_t p = 0; p < np; p++) {
      if (!pfd[p].revents)
        continue;
      size_t c = which[p];
      ssize_t r =
          read(sock(e, c), (char *)&a[c] + got[c], sizeof a[c] - got[c]);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        return lost(e, c, 1, what[c], err);
      got[c] += (size_t)r;
    }
  }
  for (size_t c = 0; c < 2; c++) {
    if (a[c].status != BS__REP_OK) {
      bs_status st = rep_error(&q[c], &a[c], what[c], err);
      bs__exec_stop(e);
      return st;
    }
  }
  return BS_OK;
}

void bs__exec_stop(bs__exec *e) {
  for (size_t c = 0; c < 2; c++)
    reap(&e->ch[c], NULL);
  e->nch = 0;
  if (e->barrier_fd >= 0)
    close(e->barrier_fd);
  e->barrier_fd = -1;
}

void bs__exec_release(bs__exec *e) {
  bs__exec_stop(e);
  for (size_t i = 0; e->cases && i < e->o->nimpls; i++) {
    for (size_t c = 0; e->cases[i] && c < e->ncases[i]; c++) {
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
