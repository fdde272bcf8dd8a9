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
#include "benchsite/rng.h"
#include "hash.h"
#include "lmath.h"
#include "oom.h"
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

/* The timeout in milliseconds (< 0: none). */
static long long limit_ms(const bs__exec *e) {
  double ms = bs__ceil(e->o->timeout_s * 1000.0);
  return ms > 9e15 ? -1 : (long long)ms;
}

static const char *op_name(uint32_t op) {
  static const char *const names[] = {"request", "setup",    "run",
                                      "digest",  "teardown", "end"};
  return op < sizeof names / sizeof *names ? names[op] : names[0];
}

/* The error for a message of n bytes on the socket of the process with
 * id `expected` that is not what benchsite waits for (`what`): from
 * another process (a copy of the measuring process that a benchmark
 * forked, which answered too), out of order, or of the wrong size. For a
 * copy's reply it names the impl, case and call it answered. refuse()
 * also ends the generation. */
static bs_status describe(const bs__exec *e, pid_t expected, const void *msg,
                          size_t n, const char *what, bs_error *err) {
  const bs_run_options *o = e->o;
  long pid = (long)expected;
  bs__head h;
  memset(&h, 0, sizeof h);
  if (n >= sizeof h)
    memcpy(&h, msg, sizeof h);
  if (n < sizeof h || h.pid == (int32_t)pid)
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: the measuring process sent a message benchsite "
                        "did not ask for (%zu bytes of kind %u): does a "
                        "benchmark write on descriptor %d? nothing was "
                        "written",
                        what, n, (unsigned)h.kind, BS__CHILD_FD);
  bs__rep r;
  if (h.kind == BS__MSG_REPLY && n == sizeof r) {
    memcpy(&r, msg, sizeof r);
    char label[300] = "";
    if (r.impl < o->nimpls && e->cases && e->cases[r.impl] &&
        r.kase < e->ncases[r.impl])
      snprintf(label, sizeof label, "%s: ",
               bs__run_case_label(label + 200, 100,
                                  e->cases[r.impl][r.kase].benchmark,
                                  e->cases[r.impl][r.kase].dataset));
    if (r.impl < o->nimpls && r.op != BS__OP_END)
      return bs_error_set(err, BS_EINPUT, NULL, 0,
                          "%s: %sits %s forks and both processes go on: "
                          "process %ld answered besides the measuring "
                          "process %ld, so a timing could land on the wrong "
                          "row; nothing was written",
                          o->impls[r.impl].name, label, op_name(r.op),
                          (long)h.pid, pid);
  }
  return bs_error_set(err, BS_EINPUT, NULL, 0,
                      "%s: process %ld sent a message besides the measuring "
                      "process %ld (a benchmark forks and both processes go "
                      "on?); nothing was written",
                      what, (long)h.pid, pid);
}

static bs_status refuse(bs__exec *e, size_t c, const void *msg, size_t n,
                        const char *what, bs_error *err) {
  pid_t pid = e->ch[c].pid;
  bs__exec_stop(e);
  return describe(e, pid, msg, n, what, err);
}

/* Receives the next message of process c into buf (cap bytes): it must
 * come from that process, be of `kind` and (a reply) answer request `id`,
 * and hold `min` bytes (more only with `more`). *len its length. Anything
 * else ends the generation with an error; `what` says what benchsite
 * waited for. */
static bs_status get_msg(bs__exec *e, size_t c, uint32_t kind, uint64_t id,
                         void *buf, size_t cap, size_t min, int more,
                         size_t *len, const char *what, bs_error *err) {
  size_t n = 0;
  int rc = bs__msg_recv_within(sock(e, c), buf, cap, &n, limit_ms(e));
  if (rc == 1 || rc == 2)
    return lost(e, c, rc, what, err);
  bs__head h;
  if (rc == 3 || n < sizeof h)
    return refuse(e, c, buf, rc == 3 ? cap + 1 : n, what, err);
  memcpy(&h, buf, sizeof h);
  if (h.pid != (int32_t)e->ch[c].pid || h.kind != kind || h.id != id ||
      n < min || (!more && n != min))
    return refuse(e, c, buf, n, what, err);
  *len = n;
  return BS_OK;
}

void bs__exec_init(bs__exec *e, const bs_run_options *o, char **const *argvs) {
  memset(e, 0, sizeof *e);
  e->o = o;
  e->argvs = argvs;
  e->barrier_fd = -1;
  /* The first generation reads the case tables and goes on as run 0's. */
  e->layout_block = -1;
  for (size_t c = 0; c < 2; c++) {
    e->ch[c].pid = -1;
    for (int k = 0; k < BS__SPAWN_FDS; k++)
      e->ch[c].fd[k] = -1;
  }
}

int bs__exec_running(const bs__exec *e) { return e->nch > 0; }

bs__layout bs__layout_draw(uint64_t seed, uint64_t run, int64_t block,
                           size_t proc, size_t impl, int fixed) {
  bs__layout l;
  memset(&l, 0, sizeof l);
  if (fixed)
    return l;
  /* One xorshift64* stream per (run, block, process, impl), its state a
   * hash of the five numbers: draws of different processes share nothing
   * but the seed. */
  uint64_t x = bs__mix64(seed);
  x = bs__mix64(x ^ run);
  x = bs__mix64(x ^ (uint64_t)block);
  x = bs__mix64(x ^ (uint64_t)proc);
  x = bs__mix64(x ^ (uint64_t)impl);
  bs_rng g;
  bs_rng_seed(&g, x);
  l.stack_pad = 16u * (uint32_t)(bs_rng_next(&g) % 256);
  l.env_pad = (uint32_t)(bs_rng_next(&g) % 4096);
  l.heap_pad = 16u * (uint32_t)(bs_rng_next(&g) % 256);
  l.map_gap = (uint32_t)(bs_rng_next(&g) % 64);
  return l;
}

/* The seed the layout draws, orders and places come from. */
static uint64_t layout_seed(const bs_run_options *o) {
  return o->layout_seed_set ? o->layout_seed : o->seed;
}

void bs__draw_order(const bs__exec *e, size_t kase, unsigned what,
                    size_t *order, size_t k) {
  const bs_run_options *o = e->o;
  for (size_t i = 0; i < k; i++)
    order[i] = i;
  if (o->layout_fixed || k < 2)
    return;
  /* A stream of its own: the layout draws' five numbers, the case, and a
   * tag (with `what`) that no process or impl number takes. */
  uint64_t x = bs__mix64(layout_seed(o));
  x = bs__mix64(x ^ e->layout_run);
  x = bs__mix64(x ^ (uint64_t)e->layout_block);
  x = bs__mix64(x ^ UINT64_C(0x5e7a9b0d3c1f2e47) ^ what);
  x = bs__mix64(x ^ (uint64_t)kase);
  bs_rng g;
  bs_rng_seed(&g, x);
  for (size_t i = k - 1; i > 0; i--) {
    size_t j = (size_t)(bs_rng_next(&g) % (i + 1));
    size_t t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
}

/* The environment of a measuring process: ours, less any BS__CHILD_ENV
 * and BS__PAD_ENV, plus BS__CHILD_ENV naming us and BS__PAD_ENV of `pad`
 * bytes (layout randomisation: the environment's size moves the initial
 * stack of the process and of every command it starts). One malloc'd
 * block. */
#define BS__PAD_ENV "BENCHSITE_LAYOUT_PAD"
static char **child_env(uint32_t pad) {
  size_t n = 0, nl = strlen(BS__CHILD_ENV), pl = strlen(BS__PAD_ENV);
  for (char **p = environ; p && *p; p++)
    n++;
  size_t text = 64 + nl + pl + 2 + (size_t)pad;
  char **env = malloc((n + 3) * sizeof *env + text);
  if (!env)
    return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if ((strncmp(environ[i], BS__CHILD_ENV, nl) || environ[i][nl] != '=') &&
        (strncmp(environ[i], BS__PAD_ENV, pl) || environ[i][pl] != '='))
      env[k++] = environ[i];
  char *mine = (char *)(env + n + 3);
  int used = snprintf(mine, 64 + nl, "%s=%ld", BS__CHILD_ENV, (long)getpid());
  env[k++] = mine;
  char *padv = mine + used + 1;
  memcpy(padv, BS__PAD_ENV "=", pl + 1);
  memset(padv + pl + 1, 'x', pad);
  padv[pl + 1 + pad] = '\0';
  env[k++] = padv;
  env[k] = NULL;
  return env;
}

/* The process that holds impl `impl`: the one of a single process, or in
 * a duet impl ^ flip (e->flip). */
static size_t owner(const bs__exec *e, size_t impl) {
  return e->o->duet ? (impl ^ e->flip) & 1 : 0;
}

static bs_status spawn_one(bs__exec *e, size_t c, bs_error *err) {
  const bs_run_options *o = e->o;
  bs__layout lay = bs__layout_draw(layout_seed(o), e->layout_run,
                                   e->layout_block, c, 0, o->layout_fixed);
  char **env = child_env(lay.env_pad);
  if (!env)
    return bs__oom(err);
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
  so.io[BS__CHILD_FD] = BS__IO_SEQPACKET;
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
  bs__hello h = {BS__HELLO_MAGIC,     (uint32_t)o->mode,
                 (uint32_t)o->nimpls, (uint32_t)(o->show_output != 0),
                 e->barrier_fd >= 0,  lay.stack_pad};
  int bad = bs__msg_send(mine, &h, sizeof h);
  char *buf = malloc(BS__MSG_MAX);
  if (!buf) {
    bs__exec_stop(e);
    return bs__oom(err);
  }
  for (size_t i = 0; !bad && i < o->nimpls; i++) {
    const char *dir = o->impls[i].dir ? o->impls[i].dir : "";
    const char *w[3] = {o->impls[i].name, o->impls[i].target, dir};
    size_t lens[3] = {strlen(w[0]), strlen(w[1]), strlen(w[2])};
    bs__layout li = bs__layout_draw(layout_seed(o), e->layout_run,
                                    e->layout_block, c, 1 + i, o->layout_fixed);
    bs__target t = {owner(e, i) == c,  (uint32_t)lens[0], (uint32_t)lens[1],
                    (uint32_t)lens[2], li.heap_pad,       li.map_gap};
    /* check_options keeps each within its limit */
    size_t at = sizeof t;
    memcpy(buf, &t, sizeof t);
    for (size_t k = 0; k < 3; k++) {
      memcpy(buf + at, w[k], lens[k]);
      at += lens[k];
    }
    bad = bs__msg_send(mine, buf, at);
  }
  free(buf);
  if (bad)
    return lost(e, c, 1, "starting", err);
  return BS_OK;
}

static int same_case(const bs__exec_case *a, const bs__exec_case *b) {
  return a->benchmark && b->benchmark && a->dataset && b->dataset &&
         !strcmp(a->benchmark, b->benchmark) &&
         !strcmp(a->dataset, b->dataset) && a->has_digest == b->has_digest &&
         (a->scale == b->scale ||
          (a->scale != a->scale && b->scale != b->scale));
}

static void free_table(bs__exec_case *t, size_t n) {
  for (size_t q = 0; t && q < n; q++) {
    free(t[q].benchmark);
    free(t[q].dataset);
  }
  free(t);
}

/* Reads the case table of impl i from process c: NULL in *out when the
 * process does not hold it (a duet's other impl). */
static bs_status read_table(bs__exec *e, size_t c, size_t i, char *buf,
                            bs__exec_case **out, size_t *count,
                            const char *loading, bs_error *err) {
  const bs_run_options *o = e->o;
  bs__table t;
  size_t n;
  bs_status st = get_msg(e, c, BS__MSG_TABLE, 0, buf, BS__MSG_MAX, sizeof t, 0,
                         &n, loading, err);
  if (st)
    return st;
  memcpy(&t, buf, sizeof t);
  int mine = owner(e, i) == c;
  *out = NULL;
  *count = 0;
  if (!mine && t.count == 0)
    return BS_OK;
  if (!mine) {
    bs__exec_stop(e);
    return bs_error_set(err, BS_EINTERNAL, NULL, 0,
                        "%s: a measuring process loaded an impl it was not "
                        "given",
                        o->impls[i].name);
  }
  if (t.count > BS__CASES_MAX) {
    bs__exec_stop(e);
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: the library defines more than %d cases",
                        o->impls[i].name, BS__CASES_MAX);
  }
  bs__exec_case *tab = calloc(t.count ? (size_t)t.count : 1, sizeof *tab);
  if (!tab) {
    bs__exec_stop(e);
    return bs__oom(err);
  }
  for (uint64_t q = 0; !st && q < t.count; q++) {
    bs__case_msg m;
    st = get_msg(e, c, BS__MSG_CASE, 0, buf, BS__MSG_MAX, sizeof m, 1, &n,
                 loading, err);
    if (st)
      break;
    memcpy(&m, buf, sizeof m);
    if (m.blen > BS__NAME_MAX || m.dlen > BS__NAME_MAX ||
        (size_t)m.blen + m.dlen != n - sizeof m) {
      st = refuse(e, c, buf, n, loading, err);
      break;
    }
    bs__exec_case *ec = &tab[q];
    ec->benchmark = strndup(buf + sizeof m, m.blen);
    ec->dataset = strndup(buf + sizeof m + m.blen, m.dlen);
    ec->scale = m.scale;
    ec->has_digest = m.has_digest != 0;
    if (!ec->benchmark || !ec->dataset) {
      bs__exec_stop(e);
      st = bs__oom(err);
    }
  }
  if (st) {
    free_table(tab, (size_t)t.count);
    return st;
  }
  *out = tab;
  *count = (size_t)t.count;
  return BS_OK;
}

/* The startup answer of process c: its case tables (library mode). */
static bs_status read_start(bs__exec *e, size_t c, bs_error *err) {
  const bs_run_options *o = e->o;
  const char *loading =
      o->mode == BS_RUN_LIBRARY ? "loading the libraries" : "starting";
  char *buf = malloc(BS__MSG_MAX);
  if (!buf) {
    bs__exec_stop(e);
    return bs__oom(err);
  }
  bs__start s;
  size_t n;
  bs_status st = get_msg(e, c, BS__MSG_START, 0, buf, BS__MSG_MAX, sizeof s, 1,
                         &n, loading, err);
  if (!st) {
    memcpy(&s, buf, sizeof s);
    if ((s.ok && n != sizeof s) || (!s.ok && s.len != n - sizeof s))
      st = refuse(e, c, buf, n, loading, err);
  }
  if (!st && !s.ok) {
    bs__exec_stop(e);
    st = bs_error_set(err, BS_EINPUT, NULL, 0, "%.*s", (int)s.len,
                      buf + sizeof s);
  }
  if (!st && o->mode == BS_RUN_LIBRARY && !e->cases) {
    e->cases = calloc(o->nimpls, sizeof(bs__exec_case *));
    e->ncases = calloc(o->nimpls, sizeof *e->ncases);
    if (!e->cases || !e->ncases) {
      bs__exec_stop(e);
      st = bs__oom(err);
    }
  }
  for (size_t i = 0; !st && o->mode == BS_RUN_LIBRARY && i < o->nimpls; i++) {
    bs__exec_case *t;
    size_t cnt;
    if ((st = read_table(e, c, i, buf, &t, &cnt, loading, err)) || !t)
      continue;
    if (!e->cases[i]) {
      e->cases[i] = t;
      e->ncases[i] = cnt;
      continue;
    }
    int differs = cnt != e->ncases[i];
    for (size_t q = 0; !differs && q < cnt; q++)
      differs = !same_case(&t[q], &e->cases[i][q]);
    free_table(t, cnt);
    if (differs) {
      char esc[128];
      bs__exec_stop(e);
      st = bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: the library's cases changed during the run "
                        "(was it rebuilt?); nothing was written",
                        bs__run_text(esc, sizeof esc, o->impls[i].name));
    }
  }
  free(buf);
  return st;
}

bs_status bs__exec_start(bs__exec *e, bs_error *err) {
  size_t n = e->o->duet ? 2 : 1;
  bs_status st = BS_OK;
  e->round = 0;
  e->id[0] = e->id[1] = 0;
  e->flip = 0;
  if (e->o->duet && !e->o->layout_fixed) {
    /* Every other generation, from a start drawn from the seed (its own
     * stream: the layout draws' seed and a tag no draw takes). */
    uint64_t x = bs__mix64(layout_seed(e->o));
    x = bs__mix64(x ^ UINT64_C(0x3b1f5d7e9a2c4f61));
    e->flip = (unsigned)((x + e->layout_run + (uint64_t)e->layout_block) & 1);
  }
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

bs_status bs__exec_call(bs__exec *e, const bs__req *q, const char *what,
                        bs__rep *a, bs_error *err) {
  size_t c = owner(e, q->impl), n;
  if (c >= e->nch || e->ch[c].pid <= 0)
    return bs_error_set(err, BS_EINTERNAL, NULL, 0, "%s: no measuring process",
                        what);
  bs__req r = *q;
  r.id = ++e->id[c];
  if (bs__msg_send(sock(e, c), &r, sizeof r))
    return lost(e, c, 1, what, err);
  bs_status st = get_msg(e, c, BS__MSG_REPLY, r.id, a, sizeof *a, sizeof *a, 0,
                         &n, what, err);
  if (!st && (a->op != r.op || a->impl != r.impl || a->kase != r.kase))
    st = refuse(e, c, a, sizeof *a, what, err);
  if (st)
    return st;
  if (a->status != BS__REP_OK) {
    st = rep_error(&r, a, what, err);
    bs__exec_stop(e);
    return st;
  }
  return BS_OK;
}

/* Sends q[i], impl i's request, to the process that holds impl i
 * (owner) and waits for both answers into a[i], within the timeout less
 * used_ms. */
static bs_status both(bs__exec *e, bs__req q[2], const char *const what[2],
                      long long used_ms, bs__rep a[2], bs_error *err) {
  if (e->nch != 2 || q[0].impl != 0 || q[1].impl != 1)
    return bs_error_set(err, BS_EINTERNAL, NULL, 0, "not a duet");
  /* By process: process c holds impl c ^ flip. */
  bs__req *qc[2];
  bs__rep *ac[2];
  const char *wc[2];
  for (size_t c = 0; c < 2; c++) {
    size_t i = (c ^ e->flip) & 1;
    qc[c] = &q[i];
    ac[c] = &a[i];
    wc[c] = what[i];
  }
  for (size_t c = 0; c < 2; c++) {
    qc[c]->id = ++e->id[c];
    if (bs__msg_send(sock(e, c), qc[c], sizeof *qc[c]))
      return lost(e, c, 1, wc[c], err);
  }
  /* Both answers, whichever comes first: a process that dies while the
   * other waits at the barrier must be noticed at once, not after the
   * timeout. */
  int got[2] = {0, 0};
  long long lim = limit_ms(e);
  long long end = lim < 0 ? -1 : bs__now_ms() + lim - used_ms;
  while (!got[0] || !got[1]) {
    long long left = end < 0 ? -1 : end - bs__now_ms();
    size_t late = got[0] ? 1 : 0;
    if (end >= 0 && left <= 0)
      return lost(e, late, 2, wc[late], err);
    struct pollfd pfd[2];
    nfds_t np = 0;
    size_t which[2];
    for (size_t c = 0; c < 2; c++) {
      if (!got[c]) {
        pfd[np] = (struct pollfd){sock(e, c), POLLIN, 0};
        which[np++] = c;
      }
    }
    int pr = poll(pfd, np, left < 0 || left > 2000000000 ? -1 : (int)left);
    if (pr < 0 && errno == EINTR)
      continue;
    if (pr < 0)
      return lost(e, which[0], 1, wc[which[0]], err);
    for (nfds_t p = 0; p < np; p++) {
      if (!pfd[p].revents)
        continue;
      size_t c = which[p], n;
      bs_status st = get_msg(e, c, BS__MSG_REPLY, qc[c]->id, ac[c],
                             sizeof *ac[c], sizeof *ac[c], 0, &n, wc[c], err);
      if (st)
        return st;
      got[c] = 1;
    }
  }
  for (size_t c = 0; c < 2; c++) {
    if (ac[c]->op != qc[c]->op || ac[c]->impl != qc[c]->impl ||
        ac[c]->kase != qc[c]->kase)
      return refuse(e, c, ac[c], sizeof *ac[c], wc[c], err);
    if (ac[c]->status != BS__REP_OK) {
      bs_status st = rep_error(qc[c], ac[c], wc[c], err);
      bs__exec_stop(e);
      return st;
    }
  }
  return BS_OK;
}

bs_status bs__exec_duet(bs__exec *e, bs__req q[2], const char *const what[2],
                        long long used_ms, bs__rep a[2], bs_error *err) {
  if (e->nch != 2)
    return bs_error_set(err, BS_EINTERNAL, NULL, 0, "not a duet");
  e->round++;
  q[0].round = q[1].round = e->round;
  return both(e, q, what, used_ms, a, err);
}

bs_status bs__exec_both(bs__exec *e, bs__req q[2], const char *const what[2],
                        bs__rep a[2], bs_error *err) {
  q[0].round = q[1].round = 0;
  return both(e, q, what, 0, a, err);
}

bs_status bs__exec_end(bs__exec *e, bs_error *err) {
  bs_status st = BS_OK;
  int fds[2] = {-1, -1};
  /* The last request: every answer before it was the process's own. */
  for (size_t c = 0; !st && c < e->nch; c++) {
    bs__req q;
    bs__rep a;
    memset(&q, 0, sizeof q);
    q.op = BS__OP_END;
    q.impl = (uint32_t)c;
    st = bs__exec_call(e, &q, "ending the measuring process", &a, err);
  }
  if (st)
    return st; /* the generation is stopped */
  /* Then the processes end (and whatever they left behind), and what is
   * left on their sockets is read: a copy of the measuring process that
   * answered after it (a benchmark forked and both went on) is told,
   * whatever the timing. */
  for (size_t c = 0; c < e->nch; c++) {
    fds[c] = e->ch[c].fd[BS__CHILD_FD];
    e->ch[c].fd[BS__CHILD_FD] = -1;
  }
  pid_t pids[2] = {e->ch[0].pid, e->ch[1].pid};
  size_t nch = e->nch;
  bs__exec_stop(e);
  for (size_t c = 0; c < nch; c++) {
    bs__rep m;
    size_t n = 0;
    int rc =
        fds[c] >= 0 ? bs__msg_recv_within(fds[c], &m, sizeof m, &n, 1000) : 1;
    if (!st && (rc == 0 || rc == 3))
      st = describe(e, pids[c], &m, rc == 3 ? sizeof m + 1 : n,
                    "after the measuring process ended", err);
    if (fds[c] >= 0)
      close(fds[c]);
  }
  return st;
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
