/* posix_spawn_file_actions_addchdir_np (glibc >= 2.29), addclosefrom_np
 * (2.34), PR_SET_CHILD_SUBREAPER and CPU masks are GNU/Linux extensions. */
#define _GNU_SOURCE 1

#include "spawn_proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if !defined(__GLIBC__) || !(__GLIBC__ > 2 || __GLIBC_MINOR__ >= 29)
#error "benchsite needs posix_spawn_file_actions_addchdir_np (glibc >= 2.29)"
#endif

// NOLINTNEXTLINE(readability-redundant-declaration): not every mode declares it
extern char **environ;

long long bs__now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* ---- The children this module started ------------------------------------
 *
 * Process-wide state, because what it describes is: the processes of this
 * program that are its children. Orphans re-parented to benchsite (a
 * subreaper) are told from the children it started by this list; spawning
 * and registering happen under one lock, as does the sweep that kills
 * orphans, so a sweep never takes a child another thread has just started
 * for an orphan. */

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static pid_t *reg;
static size_t nreg, capreg;
static pthread_once_t reaper_once = PTHREAD_ONCE_INIT;

static void become_subreaper(void) {
  /* Failure (an old kernel) leaves the process-group kill only. */
  (void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/* Room for one more registered child; reg_mu is held. 0, or ENOMEM. */
static int reg_reserve(void) {
  if (nreg < capreg)
    return 0;
  size_t cap = capreg ? capreg * 2 : 16;
  pid_t *r = realloc(reg, cap * sizeof *r);
  if (!r)
    return ENOMEM;
  reg = r;
  capreg = cap;
  return 0;
}

static int registered(pid_t pid) {
  for (size_t i = 0; i < nreg; i++)
    if (reg[i] == pid)
      return 1;
  return 0;
}

static void unregister(pid_t pid) {
  pthread_mutex_lock(&reg_mu);
  for (size_t i = 0; i < nreg; i++) {
    if (reg[i] == pid) {
      reg[i] = reg[--nreg];
      break;
    }
  }
  pthread_mutex_unlock(&reg_mu);
}

/* Field 22 of /proc/PID/stat (start time in clock ticks since boot) into
 * *start, and field 4 (the parent) into *ppid: 0, or -1 when it cannot be
 * read (the process is gone). */
static int proc_stat(pid_t pid, unsigned long long *start, long *ppid) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf - 1)) < 0 && errno == EINTR)
    ;
  close(fd);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  /* The command name may hold blanks and parentheses: fields count from
   * the last ')'. */
  char *p = strrchr(buf, ')');
  if (!p)
    return -1;
  p++;
  for (int field = 3; field <= 22; field++) {
    while (*p == ' ')
      p++;
    if (!*p)
      return -1;
    char *end = p;
    if (field == 4 || field == 22) {
      errno = 0;
      unsigned long long v = strtoull(p, &end, 10);
      if (end == p || errno == ERANGE)
        return -1;
      if (field == 4 && ppid)
        *ppid = (long)v;
      if (field == 22 && start)
        *start = v;
    }
    while (*end && *end != ' ')
      end++;
    p = end;
  }
  return 0;
}

typedef struct pidlist {
  pid_t *v;
  size_t n, cap;
} pidlist;

static void pidlist_add(pidlist *l, long pid) {
  if (pid <= 0)
    return;
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 32;
    pid_t *v = realloc(l->v, cap * sizeof *v);
    if (!v)
      return; /* the next round of the sweep finds it */
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = (pid_t)pid;
}

/* Adds the ids in a /proc/.../children file. 0, or -1 when it cannot be
 * opened. */
static int read_children(const char *path, pidlist *l) {
  FILE *f = fopen(path, "re");
  if (!f)
    return -1;
  char word[32];
  size_t k = 0;
  int c;
  while ((c = getc(f)) != EOF) {
    if (c >= '0' && c <= '9') {
      if (k < sizeof word - 1)
        word[k++] = (char)c;
      continue;
    }
    if (k) {
      word[k] = '\0';
      pidlist_add(l, strtol(word, NULL, 10));
      k = 0;
    }
  }
  if (k) {
    word[k] = '\0';
    pidlist_add(l, strtol(word, NULL, 10));
  }
  fclose(f);
  return 0;
}

/* This process's children: from /proc/self/task/TID/children (every
 * thread's: an orphan goes to one of them), else by a scan of /proc. */
static void list_children(pidlist *l) {
  DIR *d = opendir("/proc/self/task");
  int ok = d != NULL;
  struct dirent *e;
  while (ok && (e = readdir(d))) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9')
      continue;
    char path[96];
    snprintf(path, sizeof path, "/proc/self/task/%.20s/children", e->d_name);
    if (read_children(path, l) != 0)
      ok = 0;
  }
  if (d)
    closedir(d);
  if (ok)
    return;
  l->n = 0;
  long self = (long)getpid();
  if (!(d = opendir("/proc")))
    return;
  while ((e = readdir(d))) {
    char *end;
    long pid = strtol(e->d_name, &end, 10);
    long ppid = 0;
    if (end == e->d_name || *end || pid <= 0)
      continue;
    if (proc_stat((pid_t)pid, NULL, &ppid) == 0 && ppid == self)
      pidlist_add(l, pid);
  }
  closedir(d);
}

/* Kills and reaps, round after round, the children of this process that
 * this module did not start and that started at or after `since`: the
 * descendants of a stopped child, re-parented here as their parents died.
 * Returns how many. */
static size_t sweep_orphans(unsigned long long since) {
  size_t total = 0;
  pidlist l = {NULL, 0, 0};
  for (int round = 0; round < 100000; round++) {
    l.n = 0;
    pthread_mutex_lock(&reg_mu);
    list_children(&l);
    size_t k = 0;
    for (size_t i = 0; i < l.n; i++) {
      unsigned long long start = 0;
      if (registered(l.v[i]) || proc_stat(l.v[i], &start, NULL) != 0 ||
          start < since)
        continue;
      kill(l.v[i], SIGKILL);
      l.v[k++] = l.v[i];
    }
    pthread_mutex_unlock(&reg_mu);
    if (k == 0)
      break;
    /* Reaping one re-parents its children here: the next round. */
    for (size_t i = 0; i < k; i++)
      while (waitpid(l.v[i], NULL, 0) < 0 && errno == EINTR)
        ;
    total += k;
  }
  free(l.v);
  return total;
}

/* ---- Starting ------------------------------------------------------------ */

void bs__spawn_opts_init(bs__spawn_opts *o, const char *const *argv) {
  memset(o, 0, sizeof *o);
  o->argv = argv;
  o->cpu = -1;
  for (int k = 0; k < BS__SPAWN_FDS; k++)
    o->fd[k] = -1;
}

/* What spawning sets up: the descriptors the child gets (src[k], -1:
 * /dev/null or nothing) and benchsite's ends (ch->fd). */
typedef struct setup {
  int src[BS__SPAWN_FDS];
  int own[BS__SPAWN_FDS]; /* 1: src[k] is ours to close after the spawn */
} setup;

/* fd moved to a number >= BS__SPAWN_FDS (close-on-exec), so that placing
 * one child descriptor never overwrites the source of another. Closes fd
 * when `owned`. -1 on failure (errno set). */
static int lift(int fd, int owned) {
  if (fd >= BS__SPAWN_FDS && owned)
    return fd;
  int h = fcntl(fd, F_DUPFD_CLOEXEC, BS__SPAWN_FDS);
  int en = errno;
  if (owned)
    close(fd);
  errno = en;
  return h;
}

static void setup_release(setup *s, bs__child *ch) {
  for (int k = 0; k < BS__SPAWN_FDS; k++) {
    if (s->own[k] && s->src[k] >= 0)
      close(s->src[k]);
    s->src[k] = -1;
    s->own[k] = 0;
    if (ch && ch->fd[k] >= 0) {
      close(ch->fd[k]);
      ch->fd[k] = -1;
    }
  }
}

/* Makes the pipes and sockets and lifts every source. 0, or an errno. */
static int setup_make(setup *s, bs__child *ch, const bs__spawn_opts *o) {
  for (int k = 0; k < BS__SPAWN_FDS; k++) {
    s->src[k] = -1;
    s->own[k] = 0;
    ch->fd[k] = -1;
  }
  for (int k = 0; k < BS__SPAWN_FDS; k++) {
    int pair[2], mine, theirs;
    switch (o->io[k]) {
    case BS__IO_NULL:
    case BS__IO_INHERIT:
      continue;
    case BS__IO_FD:
      if (o->fd[k] < 0)
        return EBADF;
      if ((s->src[k] = lift(o->fd[k], 0)) < 0)
        return errno;
      s->own[k] = 1;
      continue;
    case BS__IO_PIPE:
      if (pipe2(pair, O_CLOEXEC) != 0)
        return errno;
      mine = k == 0 ? pair[1] : pair[0];
      theirs = k == 0 ? pair[0] : pair[1];
      break;
    case BS__IO_SOCKET:
    case BS__IO_SEQPACKET:
      if (socketpair(
              AF_UNIX,
              (o->io[k] == BS__IO_SOCKET ? SOCK_STREAM : SOCK_SEQPACKET) |
                  SOCK_CLOEXEC,
              0, pair) != 0)
        return errno;
      mine = pair[0];
      theirs = pair[1];
      break;
    default:
      return EINVAL;
    }
    s->own[k] = 1;
    if ((s->src[k] = lift(theirs, 1)) < 0) {
      int en = errno;
      close(mine);
      return en;
    }
    if ((ch->fd[k] = lift(mine, 1)) < 0)
      return errno;
    if (o->nonblock) {
      int fl = fcntl(ch->fd[k], F_GETFL);
      if (fl < 0 || fcntl(ch->fd[k], F_SETFL, fl | O_NONBLOCK) < 0)
        return errno;
    }
  }
  return 0;
}

static const char *prog_name(const bs__spawn_opts *o) {
  return o->argv && o->argv[0] ? o->argv[0] : "the child process";
}

static bs_status start_failed(const bs__spawn_opts *o, int en, bs_error *err) {
  errno = en;
  bs_status st = en == ENOMEM     ? BS_ENOMEM
                 : o->fail_status ? o->fail_status
                                  : BS_EIO;
  return bs_error_set(err, st, NULL, 0, "cannot run %s: %s", prog_name(o),
                      strerror(en));
}

/* The file actions for s and o. 0, or an errno. */
static int actions(posix_spawn_file_actions_t *fa, const setup *s,
                   const bs__spawn_opts *o) {
  int rc = 0;
  if (o->dir && (rc = posix_spawn_file_actions_addchdir_np(fa, o->dir)))
    return rc;
  for (int k = 0; k < BS__SPAWN_FDS && !rc; k++) {
    if (s->src[k] >= 0)
      rc = posix_spawn_file_actions_adddup2(fa, s->src[k], k);
    else if (o->io[k] != BS__IO_NULL)
      continue;
    else if (k >= 3)
      rc = posix_spawn_file_actions_addclose(fa, k);
    else
      rc = posix_spawn_file_actions_addopen(fa, k, "/dev/null",
                                            k == 0 ? O_RDONLY : O_WRONLY, 0);
  }
#if __GLIBC__ > 2 || __GLIBC_MINOR__ >= 34
  /* Nothing of benchsite's beyond what was asked for, even a descriptor
   * someone opened without close-on-exec. */
  if (!rc)
    rc = posix_spawn_file_actions_addclosefrom_np(fa, BS__SPAWN_FDS);
#endif
  return rc;
}

/* Pins the calling thread (and so what it spawns) to `cpu`, keeping its
 * mask in *old. 0, or an errno. */
static int pin(int cpu, cpu_set_t *old) {
  if (cpu < 0)
    return 0;
  if (cpu >= CPU_SETSIZE)
    return EINVAL;
  if (sched_getaffinity(0, sizeof *old, old) != 0)
    return errno;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET((size_t)cpu, &one);
  if (sched_setaffinity(0, sizeof one, &one) != 0)
    return errno;
  return 0;
}

/* "a/b" from a and b (a "" or NULL: b itself); NULL when out of memory. */
static char *join(const char *a, const char *b, size_t blen) {
  size_t al = a ? strlen(a) : 0;
  char *p = malloc(al + blen + 2);
  if (!p)
    return NULL;
  size_t k = 0;
  if (al) {
    memcpy(p, a, al);
    k = al;
    if (p[k - 1] != '/')
      p[k++] = '/';
  }
  memcpy(p + k, b, blen);
  p[k + blen] = '\0';
  return p;
}

int bs__spawn_resolve(const char *prog, const char *dir, char **path) {
  *path = NULL;
  if (!prog || !*prog)
    return ENOENT;
  /* Relative paths are the child's: from dir, made absolute so that they
   * hold before and after its chdir. */
  char *base = NULL;
  if (dir && dir[0] != '/') {
    char *cwd = getcwd(NULL, 0);
    if (!cwd)
      return errno == ENOMEM ? ENOMEM : ENOENT;
    base = join(cwd, dir, strlen(dir));
    free(cwd);
    if (!base)
      return ENOMEM;
  } else if (dir && !(base = strdup(dir))) {
    return ENOMEM;
  }
  int rc = ENOENT;
  if (strchr(prog, '/')) {
    /* No search: posix_spawn says what is wrong with it. */
    *path = prog[0] == '/' ? strdup(prog) : join(base, prog, strlen(prog));
    rc = *path ? 0 : ENOMEM;
    free(base);
    return rc;
  }
  /* What execvp does: the first entry where an executable file of that
   * name exists; EACCES when only a file that cannot run was found. */
  const char *list = getenv("PATH");
  if (!list)
    list = "/bin:/usr/bin";
  int eacces = 0;
  for (const char *p = list;;) {
    const char *colon = strchr(p, ':');
    size_t n = colon ? (size_t)(colon - p) : strlen(p);
    char *entry = n ? strndup(p, n) : strdup(".");
    char *cand = entry ? join(entry, prog, strlen(prog)) : NULL;
    char *full =
        cand && cand[0] != '/' && base ? join(base, cand, strlen(cand)) : cand;
    if (full != cand)
      free(cand);
    free(entry);
    if (!full) {
      rc = ENOMEM;
      break;
    }
    struct stat sb;
    if (stat(full, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
      if (access(full, X_OK) == 0) {
        *path = full;
        rc = 0;
        break;
      }
      eacces = 1;
    } else if (stat(full, &sb) == 0) {
      eacces = 1;
    }
    free(full);
    if (!colon)
      break;
    p = colon + 1;
  }
  free(base);
  return rc == ENOENT && eacces ? EACCES : rc;
}

static void child_registered(bs__child *ch) {
  reg[nreg++] = ch->pid;
  if (proc_stat(ch->pid, &ch->start, NULL) != 0)
    ch->start = 0; /* no /proc: every unregistered child is an orphan */
}

bs_status bs__spawn(bs__child *ch, const bs__spawn_opts *o, bs_error *err) {
  static char *const minimal[] = {(char *)"LC_ALL=C.UTF-8",
                                  (char *)"PATH=/usr/bin:/bin", NULL};
  setup s;
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  int fa_ok = 0, attr_ok = 0, rc;
  char *found = NULL;
  ch->pid = -1;
  ch->start = 0;
  ch->error = 0;
  for (int k = 0; k < BS__SPAWN_FDS; k++)
    ch->fd[k] = -1;
  if (!o->argv || !o->argv[0])
    return start_failed(o, ch->error = EINVAL, err);
  pthread_once(&reaper_once, become_subreaper);
  if (!o->path && (rc = bs__spawn_resolve(o->argv[0], o->dir, &found)))
    return start_failed(o, ch->error = rc, err);
  const char *prog = o->path ? o->path : found;
  if ((rc = setup_make(&s, ch, o)))
    goto fail;
  if ((rc = posix_spawn_file_actions_init(&fa)))
    goto fail;
  fa_ok = 1;
  if ((rc = actions(&fa, &s, o)))
    goto fail;
  if ((rc = posix_spawnattr_init(&attr)))
    goto fail;
  attr_ok = 1;
  /* Its own process group: killing it kills what it started there. */
  if ((rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP)) ||
      (rc = posix_spawnattr_setpgroup(&attr, 0)))
    goto fail;
  char *const *envp = o->minimal_env ? minimal
                      : o->envp      ? (char *const *)o->envp
                                     : environ;
  cpu_set_t old;
  pthread_mutex_lock(&reg_mu);
  if (!(rc = reg_reserve()) && !(rc = pin(o->cpu, &old))) {
    pid_t pid;
    rc = posix_spawn(&pid, prog, &fa, &attr, (char *const *)o->argv, envp);
    if (o->cpu >= 0)
      sched_setaffinity(0, sizeof old, &old);
    if (!rc) {
      ch->pid = pid;
      child_registered(ch);
    }
  }
  pthread_mutex_unlock(&reg_mu);
  if (rc)
    goto fail;
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  setup_release(&s, NULL);
  free(found);
  return BS_OK;
fail:
  if (attr_ok)
    posix_spawnattr_destroy(&attr);
  if (fa_ok)
    posix_spawn_file_actions_destroy(&fa);
  setup_release(&s, ch);
  free(found);
  ch->pid = -1;
  ch->error = rc;
  return start_failed(o, rc, err);
}

/* The forked child: only async-signal-safe calls until fn. */
static void forked(const setup *s, const bs__spawn_opts *o, pid_t parent,
                   int (*fn)(void *), void *ctx) {
  setpgid(0, 0);
  /* In its own group it misses a ^C meant for benchsite: it dies with
   * benchsite instead. */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent)
    _exit(127);
  signal(SIGPIPE, SIG_DFL);
  for (int k = 0; k < BS__SPAWN_FDS; k++) {
    if (s->src[k] >= 0) {
      if (dup2(s->src[k], k) < 0)
        _exit(127);
    } else if (o->io[k] != BS__IO_NULL) {
      continue;
    } else if (k >= 3) {
      close(k);
    } else {
      int fd = open("/dev/null", k == 0 ? O_RDONLY : O_WRONLY);
      if (fd < 0 || (fd != k && (dup2(fd, k) < 0 || close(fd) != 0)))
        _exit(127);
    }
  }
  if (o->dir && chdir(o->dir) != 0)
    _exit(127);
  if (o->cpu >= 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET((size_t)o->cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0)
      _exit(127);
  }
  _exit(fn(ctx));
}

bs_status bs__spawn_fork(bs__child *ch, const bs__spawn_opts *o,
                         int (*fn)(void *ctx), void *ctx, bs_error *err) {
  setup s;
  int rc;
  ch->pid = -1;
  ch->start = 0;
  ch->error = 0;
  if (o->cpu >= CPU_SETSIZE)
    return start_failed(o, ch->error = EINVAL, err);
  pthread_once(&reaper_once, become_subreaper);
  if ((rc = setup_make(&s, ch, o))) {
    setup_release(&s, ch);
    return start_failed(o, ch->error = rc, err);
  }
  fflush(NULL);
  pid_t parent = getpid();
  pthread_mutex_lock(&reg_mu);
  pid_t pid = (rc = reg_reserve()) ? -1 : fork();
  if (pid == 0)
    forked(&s, o, parent, fn, ctx);
  if (pid < 0 && !rc)
    rc = errno;
  if (pid > 0) {
    setpgid(pid, pid); /* whichever of the two runs first */
    ch->pid = pid;
    child_registered(ch);
  }
  pthread_mutex_unlock(&reg_mu);
  if (pid < 0) {
    setup_release(&s, ch);
    return start_failed(o, ch->error = rc, err);
  }
  setup_release(&s, NULL);
  return BS_OK;
}

/* ---- Stopping ------------------------------------------------------------ */

void bs__child_signal(const bs__child *ch, int sig) {
  if (ch->pid > 0)
    kill(-ch->pid, sig);
}

/* 1 once the child has exited (it stays a zombie: WNOWAIT), 0 when
 * limit_ms passed first, -1 when it cannot be waited for. */
static int exited_within(pid_t pid, long long limit_ms) {
  long long deadline = bs__now_ms() + (limit_ms > 0 ? limit_ms : 0);
  long nap_us = 1000;
  for (;;) {
    /* WNOWAIT: an exited child stays a zombie, so its id (and its
     * group's) cannot be reused before the group is killed. */
    siginfo_t si;
    memset(&si, 0, sizeof si);
    int flags = WEXITED | WNOWAIT | (limit_ms < 0 ? 0 : WNOHANG);
    if (waitid(P_PID, (id_t)pid, &si, flags) != 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    if (si.si_pid == pid)
      return 1;
    if (bs__now_ms() >= deadline)
      return 0;
    struct timespec t = {0, nap_us * 1000};
    nanosleep(&t, NULL);
    if (nap_us < 50000)
      nap_us *= 2;
  }
}

int bs__child_exited(const bs__child *ch) {
  return ch->pid > 0 && exited_within(ch->pid, 0) == 1;
}

bs_status bs__child_wait(bs__child *ch, long long limit_ms,
                         bs__child_end *end) {
  bs__child_end e;
  memset(&e, 0, sizeof e);
  bs_status st = BS_OK;
  for (int k = 0; k < BS__SPAWN_FDS; k++) {
    if (ch->fd[k] >= 0)
      close(ch->fd[k]);
    ch->fd[k] = -1;
  }
  if (ch->pid <= 0) {
    if (end)
      *end = e;
    return BS_OK;
  }
  int ex = exited_within(ch->pid, limit_ms);
  e.timed_out = ex == 0;
  kill(-ch->pid, SIGKILL);
  struct rusage ru;
  memset(&ru, 0, sizeof ru);
  pid_t r;
  while ((r = wait4(ch->pid, &e.status, 0, &ru)) < 0 && errno == EINTR)
    ;
  if (r != ch->pid) {
    e.status = -1;
    st = BS_EIO;
  }
  unregister(ch->pid);
  e.user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
  e.sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
  e.cpu_ns = ((unsigned long long)ru.ru_utime.tv_sec +
              (unsigned long long)ru.ru_stime.tv_sec) *
                 1000000000ull +
             ((unsigned long long)ru.ru_utime.tv_usec +
              (unsigned long long)ru.ru_stime.tv_usec) *
                 1000ull;
  e.maxrss_kib = ru.ru_maxrss;
  e.nivcsw = ru.ru_nivcsw;
  e.orphans = sweep_orphans(ch->start);
  ch->pid = -1;
  if (end)
    *end = e;
  return st;
}

bs_status bs__child_stop(bs__child *ch, long long grace_ms,
                         bs__child_end *end) {
  bs__child_signal(ch, SIGTERM);
  return bs__child_wait(ch, grace_ms < 0 ? 0 : grace_ms, end);
}

/* ---- Reading and writing with a limit ------------------------------------ */

/* poll()'s timeout for what is left until deadline (< 0: none). */
static int poll_ms(long long deadline) {
  if (deadline < 0)
    return -1;
  long long left = deadline - bs__now_ms();
  if (left < 0)
    return 0;
  return left > 2000000000 ? 2000000000 : (int)left;
}

int bs__child_collect(bs__child *ch, int k, char *buf, size_t cap, size_t *len,
                      long long deadline_ms) {
  size_t used = 0;
  int rc = 0;
  int fd = k >= 0 && k < BS__SPAWN_FDS ? ch->fd[k] : -1;
  if (fd < 0)
    rc = 1;
  while (!rc) {
    if (bs__now_ms() >= deadline_ms) {
      rc = 2;
      break;
    }
    struct pollfd pf = {fd, POLLIN, 0};
    int r = poll(&pf, 1, poll_ms(deadline_ms));
    if (r < 0 && errno != EINTR)
      rc = 1;
    if (r <= 0)
      continue; /* the deadline decides */
    char tmp[4096];
    ssize_t got = read(fd, tmp, sizeof tmp);
    if (got < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (got < 0)
      rc = 1;
    if (got <= 0)
      break;
    size_t keep = (size_t)got;
    if (cap && keep > cap - 1 - used)
      keep = cap - 1 - used;
    if (cap)
      memcpy(buf + used, tmp, keep);
    used += cap ? keep : 0;
  }
  if (cap)
    buf[used] = '\0';
  if (len)
    *len = used;
  return rc;
}

/* Waits until fd can be read or deadline (bs__now_ms(); < 0: none)
 * passes: 0 readable, 1 on a poll error, 2 when the time passed. */
static int readable(int fd, long long deadline) {
  for (;;) {
    if (deadline >= 0 && bs__now_ms() >= deadline)
      return 2;
    struct pollfd pf = {fd, POLLIN, 0};
    int pr = poll(&pf, 1, poll_ms(deadline));
    if (pr > 0)
      return 0;
    if (pr < 0 && errno != EINTR)
      return 1;
  }
}

int bs__fd_read_within(int fd, void *buf, size_t n, long long timeout_ms) {
  char *c = buf;
  long long deadline = timeout_ms < 0 ? -1 : bs__now_ms() + timeout_ms;
  while (n > 0) {
    int w = readable(fd, deadline);
    if (w)
      return w;
    ssize_t r = read(fd, c, n);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (r <= 0)
      return 1;
    c += r;
    n -= (size_t)r;
  }
  return 0;
}

int bs__fd_write_within(int fd, const void *buf, size_t n,
                        long long timeout_ms) {
  const char *c = buf;
  long long deadline = timeout_ms < 0 ? -1 : bs__now_ms() + timeout_ms;
  while (n > 0) {
    ssize_t w = write(fd, c, n);
    if (w > 0) {
      c += w;
      n -= (size_t)w;
      continue;
    }
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0 && errno != EAGAIN)
      return 1;
    if (deadline >= 0 && bs__now_ms() >= deadline)
      return 2;
    struct pollfd pf = {fd, POLLOUT, 0};
    if (poll(&pf, 1, poll_ms(deadline)) < 0 && errno != EINTR)
      return 1;
  }
  return 0;
}

int bs__msg_send(int fd, const void *buf, size_t n) {
  const char *c = buf;
  while (n > 0) {
    ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return 1;
    c += w;
    n -= (size_t)w;
  }
  return 0;
}

int bs__msg_recv_within(int fd, void *buf, size_t cap, size_t *len,
                        long long timeout_ms) {
  long long deadline = timeout_ms < 0 ? -1 : bs__now_ms() + timeout_ms;
  *len = 0;
  for (;;) {
    int w = readable(fd, deadline);
    if (w)
      return w;
    /* MSG_TRUNC: the message's real length, so a longer one is told. */
    ssize_t r = recv(fd, buf, cap, MSG_TRUNC | MSG_DONTWAIT);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (r <= 0)
      return 1;
    if ((size_t)r > cap)
      return 3;
    *len = (size_t)r;
    return 0;
  }
}
