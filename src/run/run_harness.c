/* benchsite: `benchsite run` with a harness (Google Benchmark,
 * pytest-benchmark, go test -bench): what every adapter shares. A harness
 * sizes its own batches, so each block runs each impl's command once (in
 * the rotated order, or both impls' at once in a duet) and every benchmark
 * of its report becomes one confirm row; there are no calibration rows.
 * See run_harness.h. */
#include "run_harness.h"

#include "csvin.h"
#include "fsutil.h"
#include "grow.h"
#include "lmath.h"
#include "oom.h"
#include "run_common.h"
#include "run_int.h"
#include "spawn_proc.h"
#include "utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* POSIX: the program declares it. */
extern char **environ;

/* The most a report may hold. */
#define REPORT_LIMIT ((size_t)256 << 20)

/* ---- the table ----------------------------------------------------------- */

/* NULL-terminated. */
static const bs__adapter *const adapters[] = {
    &bs__adapter_gbench, &bs__adapter_pytest, &bs__adapter_gobench, NULL};

const bs__adapter *bs__adapter_for(bs_run_mode mode) {
  for (size_t i = 0; adapters[i]; i++)
    if (adapters[i]->mode == mode)
      return adapters[i];
  return NULL;
}

const char *bs_run_harness_name(bs_run_mode mode) {
  const bs__adapter *a = bs__adapter_for(mode);
  return a ? a->name : NULL;
}

/* Harness programs side by side by default (where two CPUs can be had)
 * only where they report CPU time, which is then what the gate reads.
 * The verdict lab's harness mode (bench/verdict_lab.sh --harness, 10 A/A
 * runs and 10 with +10 %, 20 pairs a run): side by side at one busy
 * process on two CPUs, a program's wall times moved by up to 2x between
 * identical builds (each program times its cases on its own clock, and
 * the busy process shares one program's CPU while the other runs alone),
 * intervals 50-130 % wide, for Google Benchmark and go alike. Google
 * Benchmark's CPU time side by side kept them to a few per cent (none of
 * 180 identical cases flagged, +10 % found with nothing else flagged in
 * 30 of 30 runs: quiet, one busy process, one per CPU), better than one
 * after the other (at one busy process 2 of 60 flagged, 7 of 10). go
 * test and pytest-benchmark report no CPU time: one after the other,
 * where go's wall time held at one busy process (side by side it was
 * blind there). */
int bs__harness_duet_default(const bs__adapter *a) { return a && a->has_cpu; }

bs_metric bs_run_gate_metric(bs_run_mode mode) {
  const bs__adapter *a = bs__adapter_for(mode);
  if (mode == BS_RUN_COMMAND || (a && a->has_cpu))
    return BS_METRIC_CPU;
  return BS_METRIC_WALL;
}

int bs_run_harness_get(size_t i, bs_run_harness *out) {
  if (i >= sizeof adapters / sizeof adapters[0] - 1)
    return 0;
  const bs__adapter *a = adapters[i];
  out->mode = a->mode;
  out->name = a->name;
  out->title = a->title;
  out->help = a->help;
  return 1;
}

/* ---- the rows of a run ----------------------------------------------------
 */

typedef struct hcase {
  char *benchmark, *dataset;
} hcase;

typedef struct hrow {
  size_t kase, impl;
  uint64_t run, block, iterations;
  double per_call_us, cpu_per_call_us;
  double extra[BS__EXTRA_MAX];
} hrow;

typedef struct harness {
  const bs_run_options *o;
  const bs__adapter *ad;
  bs__filter filter;
  size_t nimpls;
  hcase *cases;
  size_t ncases, capcases;
  hrow *rows;
  size_t nrows, caprows;
  size_t *seen;  /* per case: the (run, block, impl) serial that last had it */
  size_t *count; /* per case and impl (case * K + impl): its rows */
  bs__run_cases byname;
  /* the report being read */
  size_t impl, serial, kept;
  uint64_t run, block;
  /* the first case --filter left out, escaped, for a message ("" when
   * none) */
  char left_out[300];
} harness;

static void harness_release(harness *h) {
  for (size_t c = 0; c < h->ncases; c++) {
    free(h->cases[c].benchmark);
    free(h->cases[c].dataset);
  }
  free(h->cases);
  free(h->rows);
  free(h->seen);
  free(h->count);
  bs__run_cases_release(&h->byname);
}

/* The index of case (b, d), added when new. */
static bs_status case_index(harness *h, const bs__hrow *w, size_t *idx) {
  size_t f = 0;
  int added = bs__run_cases_put(&h->byname, w->benchmark, w->blen, w->dataset,
                                w->dlen, h->ncases, &f);
  if (added < 0)
    return BS_ENOMEM;
  if (!added) {
    *idx = f;
    return BS_OK;
  }
  if (h->ncases == h->capcases) {
    size_t k = h->nimpls;
    /* cases, seen and count (k per case) grow together */
    size_t cap = bs__grow_cap(h->capcases, h->ncases + 1, 16,
                              sizeof(hcase) + (k + 1) * sizeof(size_t));
    hcase *nc = cap ? realloc(h->cases, cap * sizeof *nc) : NULL;
    if (nc)
      h->cases = nc;
    size_t *ns = nc ? realloc(h->seen, cap * sizeof *ns) : NULL;
    if (ns)
      h->seen = ns;
    size_t *cn = ns ? realloc(h->count, cap * k * sizeof *cn) : NULL;
    if (!cn)
      return BS_ENOMEM;
    h->count = cn;
    h->capcases = cap;
  }
  char *b = strndup(w->benchmark, w->blen), *d = strndup(w->dataset, w->dlen);
  if (!b || !d) {
    free(b);
    free(d);
    return BS_ENOMEM;
  }
  memset(h->count + h->ncases * h->nimpls, 0, h->nimpls * sizeof *h->count);
  h->cases[h->ncases] = (hcase){b, d};
  h->seen[h->ncases] = (size_t)-1;
  *idx = h->ncases++;
  return BS_OK;
}

/* Why a name cannot be a case's, or NULL: it must be text of one line
 * (valid UTF-8 without control characters or line separators), as every
 * name benchsite writes to a log, a page or a terminal. */
static const char *bad_name(const char *s, size_t n) {
  if (bs__utf8_invalid_at((const unsigned char *)s, n) != n)
    return "is not valid UTF-8";
  for (size_t i = 0; i < n;) {
    unsigned long cp = 0;
    size_t l = bs__utf8_decode((const unsigned char *)s + i, &cp);
    if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 ||
        cp == 0x2029)
      return "holds a control character";
    i += l ? l : 1;
  }
  return NULL;
}

static bs_status add_row(bs__hsink *sink, size_t entry, const bs__hrow *w,
                         bs_error *err) {
  harness *h = sink->self;
  const char *why = NULL;
  if (!w->blen)
    why = "has no name";
  else if (w->blen > BS__NAME_MAX || w->dlen > BS__NAME_MAX)
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: benchmark entry %zu: its name is over %d bytes",
                        sink->ctx, entry, BS__NAME_MAX);
  else if (!(why = bad_name(w->benchmark, w->blen)))
    why = bad_name(w->dataset, w->dlen);
  if (why)
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: benchmark entry %zu: its name %s", sink->ctx,
                        entry, why);
  if (!(isfinite(w->per_call_us) && w->per_call_us > 0) || w->iterations < 1 ||
      !isfinite(w->cpu_per_call_us))
    return bs_error_set(err, BS_EINTERNAL, NULL, 0,
                        "%s: benchmark entry %zu: a parser passed a bad time",
                        sink->ctx, entry);
  if (!bs__filter_match(&h->filter, w->benchmark, w->blen, w->dataset,
                        w->dlen)) {
    if (!h->left_out[0]) {
      char *b = strndup(w->benchmark, w->blen),
           *d = strndup(w->dataset, w->dlen);
      if (b && d)
        bs__run_case_label(h->left_out, sizeof h->left_out, b, d);
      free(b);
      free(d);
    }
    return BS_OK;
  }
  size_t kase;
  if (case_index(h, w, &kase))
    return bs__oom(err);
  if (h->seen[kase] == h->serial) {
    char label[300];
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: benchmark %s is reported twice", sink->ctx,
                        bs__run_case_label(label, sizeof label,
                                           h->cases[kase].benchmark,
                                           h->cases[kase].dataset));
  }
  h->seen[kase] = h->serial;
  h->count[kase * h->nimpls + h->impl]++;
  if (h->nrows == h->caprows) {
    hrow *nr = BS__GROW(h->rows, h->caprows, h->nrows + 1, 256);
    if (!nr)
      return bs__oom(err);
    h->rows = nr;
  }
  hrow *r = &h->rows[h->nrows++];
  *r = (hrow){kase,
              h->impl,
              h->run,
              h->block,
              w->iterations,
              w->per_call_us,
              w->cpu_per_call_us,
              {0}};
  memcpy(r->extra, w->extra, sizeof r->extra);
  h->kept++;
  return BS_OK;
}

/* ---- the programs of one block ---------------------------------------------
 */

/* One impl's program in a block. */
typedef struct job {
  size_t impl;
  bs__child ch;
  int fd[2];  /* benchsite's ends of its standard output and error; -1 once
                 at their end (or given up) */
  int keep;   /* its standard output is the report: kept */
  char *text; /* the report, when kept (NUL-terminated) */
  size_t len, cap;
  int started, ended, timed_out, too_big, no_memory;
  bs__child_end how;
  bs__tail *tail;
} job;

static void job_close(job *j) {
  for (int s = 0; s < 2; s++) {
    if (j->fd[s] >= 0)
      close(j->fd[s]);
    j->fd[s] = -1;
  }
}

static void job_release(job *j) {
  job_close(j);
  if (j->started && !j->ended)
    bs__child_wait(&j->ch, 0, &j->how);
  free(j->text);
  free(j->tail);
  memset(j, 0, sizeof *j);
  j->fd[0] = j->fd[1] = -1;
}

/* What a duet's program does before it becomes the impl's: waits at the
 * barrier (its fd 3, which benchsite closes once both are started), then
 * executes the program. Only async-signal-safe calls: it runs between
 * fork and exec. */
typedef struct barrier_exec {
  const char *path;
  char *const *argv;
  int open_end; /* the barrier's write end, which it inherited: closed
                   first, or the barrier never opens */
} barrier_exec;

static int exec_after_barrier(void *ctx) {
  const barrier_exec *b = ctx;
  char c;
  close(b->open_end);
  while (read(3, &c, 1) < 0 && errno == EINTR)
    ;
  close(3);
  execve(b->path, b->argv, environ);
  return 127;
}

/* Starts job j: argv in dir, its standard output and error to pipes; in a
 * duet pinned to cpu and held at the barrier (a pipe, barrier[0] >= 0;
 * it opens when every write end is closed). 0, or -1 with why. */
static int job_start(job *j, char *const *argv, const char *dir, int cpu,
                     const int barrier[2], char *why, size_t nwhy) {
  bs__spawn_opts so;
  bs__spawn_opts_init(&so, (const char *const *)argv);
  so.dir = dir;
  so.io[1] = so.io[2] = BS__IO_PIPE;
  so.nonblock = 1;
  if (!(j->tail = bs__tail_new())) {
    snprintf(why, nwhy, BS__OOM_TEXT);
    return -1;
  }
  bs_status st;
  if (barrier[0] < 0) {
    st = bs__spawn(&j->ch, &so, NULL);
  } else {
    char *path = NULL;
    int rc = bs__spawn_resolve(argv[0], dir, &path);
    if (rc) {
      snprintf(why, nwhy, "cannot be started: %s", strerror(rc));
      return -1;
    }
    so.cpu = cpu;
    so.io[3] = BS__IO_FD;
    so.fd[3] = barrier[0];
    barrier_exec b = {path, argv, barrier[1]};
    st = bs__spawn_fork(&j->ch, &so, exec_after_barrier, &b, NULL);
    free(path);
  }
  if (st) {
    snprintf(why, nwhy, "cannot be started: %s", strerror(j->ch.error));
    return -1;
  }
  j->started = 1;
  j->fd[0] = j->ch.fd[1];
  j->fd[1] = j->ch.fd[2];
  j->ch.fd[1] = j->ch.fd[2] = -1;
  return 0;
}

/* Writes what a program printed to benchsite's standard error
 * (--show-output: standard output may be the log). */
static void show(const char *p, size_t n) {
  while (n) {
    ssize_t w = write(2, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return;
    p += w;
    n -= (size_t)w;
  }
}

/* One read from stream s of j: 0 after some bytes, 1 when there are none
 * for now, -1 at its end (or given up). */
static int job_read(job *j, int s, char *chunk, size_t size, int show_output) {
  ssize_t r = read(j->fd[s], chunk, size);
  if (r < 0 && (errno == EINTR || errno == EAGAIN))
    return 1;
  if (r <= 0)
    return -1;
  size_t n = (size_t)r;
  if (show_output)
    show(chunk, n);
  bs__tail_put(j->tail, s, chunk, n);
  if (s == 0 && j->keep) {
    if (j->len + n + 1 > j->cap) {
      if (j->len + n + 1 > REPORT_LIMIT) {
        j->too_big = 1;
        return -1;
      }
      char *nb = BS__GROW(j->text, j->cap, j->len + n + 1, 65536);
      if (!nb) {
        j->no_memory = 1;
        return -1;
      }
      j->text = nb;
    }
    memcpy(j->text + j->len, chunk, n);
    j->len += n;
    j->text[j->len] = '\0';
  }
  return 0;
}

/* Reads the output of the n started jobs to its end within the timeout
 * and reaps them. Once a program exits it is reaped and whatever it left
 * running -- in its process group, or escaped from it (setsid), and
 * holding its output open -- is killed, so the end of the output comes
 * at once. A program that closes its output and hangs is one that hangs:
 * it still has until the timeout to exit. */
static void collect(job *jobs, size_t n, const bs_run_options *o) {
  double ms = bs__ceil(o->timeout_s * 1000.0);
  long long end = bs__now_ms() + (ms > 9e15 ? (long long)9e15 : (long long)ms);
  char *chunk = malloc(65536);
  if (!chunk)
    for (size_t i = 0; i < n; i++)
      jobs[i].no_memory = 1;
  for (;;) {
    struct pollfd pfd[4];
    size_t who[4], cnt = 0;
    for (size_t i = 0; i < n; i++) {
      job *j = &jobs[i];
      if (j->no_memory || j->too_big)
        job_close(j);
      if (!j->ended && bs__child_exited(&j->ch)) {
        j->ended = 1;
        bs__child_wait(&j->ch, 0, &j->how);
      }
      for (int s = 0; s < 2; s++)
        if (j->fd[s] >= 0) {
          pfd[cnt] = (struct pollfd){j->fd[s], POLLIN, 0};
          who[cnt++] = i * 2 + (size_t)s;
        }
    }
    if (!cnt)
      break;
    long long left = end - bs__now_ms();
    if (left <= 0) {
      for (size_t i = 0; i < n; i++)
        if (jobs[i].fd[0] >= 0 || jobs[i].fd[1] >= 0) {
          jobs[i].timed_out = 1;
          job_close(&jobs[i]);
        }
      break;
    }
    int pr = poll(pfd, (nfds_t)cnt, left > 50 ? 50 : (int)left);
    for (size_t k = 0; pr > 0 && k < cnt; k++) {
      if (!pfd[k].revents)
        continue;
      job *j = &jobs[who[k] / 2];
      int s = (int)(who[k] % 2);
      /* A few reads per turn, so that both programs of a duet are read
       * alike. */
      for (int turn = 0; turn < 16 && j->fd[s] >= 0; turn++) {
        int got = job_read(j, s, chunk, 65536, o->show_output);
        if (got < 0) {
          close(j->fd[s]);
          j->fd[s] = -1;
        } else if (got > 0) {
          break;
        }
      }
    }
  }
  free(chunk);
  for (size_t i = 0; i < n; i++) {
    job *j = &jobs[i];
    if (j->ended)
      continue;
    int given_up = j->timed_out || j->too_big || j->no_memory;
    long long left = end - bs__now_ms();
    bs__child_wait(&j->ch, given_up || left < 0 ? 0 : left, &j->how);
    j->ended = 1;
    if (!given_up)
      j->timed_out = j->how.timed_out;
  }
}

/* Why job j failed, into why; 0 when it did not. */
static int job_failed(const job *j, const bs_run_options *o, char *why,
                      size_t nwhy) {
  int st = j->how.status;
  if (j->no_memory)
    snprintf(why, nwhy, BS__OOM_TEXT);
  else if (j->timed_out)
    snprintf(why, nwhy, "did not finish within %g s (--timeout); killed",
             o->timeout_s);
  else if (j->too_big)
    snprintf(why, nwhy, "wrote more than %zu MiB", REPORT_LIMIT >> 20);
  else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
    bs__run_wait_text(why, nwhy, st);
  else
    return 0;
  return 1;
}

/* Reads the report file a block wrote (and removes it): 0 with *out, or -1
 * with why. A missing file is an empty report. */
static int read_report(const char *path, char **out, size_t *len, char *why,
                       size_t nwhy) {
  *out = NULL;
  *len = 0;
  struct stat sb;
  if (lstat(path, &sb) != 0 && errno == ENOENT) {
    *out = calloc(1, 1);
    if (*out)
      return 0;
    snprintf(why, nwhy, BS__OOM_TEXT);
    return -1;
  }
  bs_error e;
  bs_status st =
      bs__read_regular(path, BS__OPEN_NOFOLLOW, REPORT_LIMIT, out, len, &e);
  unlink(path);
  if (st == BS_ELIMIT)
    snprintf(why, nwhy, "wrote a report of more than %zu MiB",
             REPORT_LIMIT >> 20);
  else if (st)
    snprintf(why, nwhy, "wrote a report benchsite cannot read: %s", e.message);
  return st ? -1 : 0;
}

static int blank(const char *text, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (!strchr(" \t\r\n", text[i]))
      return 0;
  return 1;
}

/* ---- the run ---------------------------------------------------------------
 */

/* A private directory for the report files: TMPDIR (or /tmp), absolute,
 * since the harness runs in the impl's directory. */
static bs_status report_dir(char **dir, bs_error *err) {
  const char *base = getenv("TMPDIR");
  if (!base || !*base)
    base = "/tmp";
  char *cwd = base[0] == '/' ? NULL : getcwd(NULL, 0);
  size_t n = strlen(base) + (cwd ? strlen(cwd) + 1 : 0) + 32;
  *dir = malloc(n);
  if (!*dir) {
    free(cwd);
    return bs__oom(err);
  }
  snprintf(*dir, n, "%s%s%s/benchsite-run-XXXXXX", cwd ? cwd : "",
           cwd ? "/" : "", base);
  free(cwd);
  if (!mkdtemp(*dir)) {
    bs_error_set(err, BS_EIO, NULL, 0,
                 "cannot make a directory for the harness's reports in %s: %s",
                 base, strerror(errno));
    free(*dir);
    *dir = NULL;
    return BS_EIO; /* said here, so the analyzer sees it is not BS_OK */
  }
  return BS_OK;
}

/* What the run holds per impl. */
typedef struct himpl {
  char **words;  /* its command, split */
  bs__argv argv; /* with the adapter's words */
  char *scratch; /* report_file adapters: its directory, and */
  char *report;  /* the report file in it */
} himpl;

/* The error of job j of block `ctx` (failed, or whose report is blank or
 * cannot be read), with its last lines of output in r. */
static bs_status job_error(harness *h, job *j, const char *ctx, const char *why,
                           int report_blank, bs_run_result *r, bs_error *err) {
  const bs_run_options *o = h->o;
  if (bs__tail_give(j->tail, r))
    return bs__oom(err);
  char more[96] = "";
  if (r->noutput == 1)
    snprintf(more, sizeof more, " (its last line of output follows)");
  else if (r->noutput)
    snprintf(more, sizeof more, " (its last %zu lines of output follow)",
             r->noutput);
  if (report_blank)
    return bs_error_set(
        err, BS_EINPUT, NULL, 0, "%s: the program %s no %s report%s%s", ctx,
        h->ad->report_file ? "wrote" : "printed", h->ad->title,
        o->filter && o->filter[0] ? " (does --filter match none of its "
                                    "benchmarks?)"
                                  : "",
        more);
  return bs_error_set(err, BS_EINPUT, NULL, 0,
                      "%s: the program %s; nothing was written%s", ctx, why,
                      more);
}

/* After jobs[0..n-1] of block j of `run` ended: each one's report, in the
 * rotated order, through its adapter into rows. */
static bs_status block_reports(harness *h, himpl *im, job *jobs, size_t n,
                               uint64_t run, uint64_t j, bs_run_result *r,
                               bs_error *err) {
  const bs_run_options *o = h->o;
  size_t k = o->nimpls;
  bs_status st = BS_OK;
  for (size_t p = 0; !st && p < n; p++) {
    job *jb = &jobs[p];
    size_t i = jb->impl;
    char ctx[300], esc[128], why[512];
    snprintf(ctx, sizeof ctx, "%s: block %llu of run %llu",
             bs__run_text(esc, sizeof esc, o->impls[i].name),
             (unsigned long long)j, (unsigned long long)run);
    char *rep = NULL;
    size_t rlen = 0;
    if (job_failed(jb, o, why, sizeof why) ||
        (im[i].report &&
         read_report(im[i].report, &rep, &rlen, why, sizeof why))) {
      if (im[i].report)
        unlink(im[i].report);
      st = job_error(h, jb, ctx, why, 0, r, err);
      break;
    }
    const char *text = im[i].report ? rep : jb->text ? jb->text : "";
    size_t tlen = im[i].report ? rlen : jb->len;
    if (blank(text, tlen)) {
      st = job_error(h, jb, ctx, NULL, 1, r, err);
    } else {
      bs__hsink sink = {add_row, ctx, h};
      h->impl = i;
      h->run = run;
      h->block = j;
      h->serial = ((size_t)run * (size_t)o->blocks + (size_t)j) * k + i;
      st = h->ad->parse(text, tlen, &sink, err);
    }
    free(rep);
  }
  return st;
}

/* Block j of `run`: each impl's program in the rotated order, or, in a
 * duet, both at once, impl i pinned to cpu[(i + j) mod 2], released
 * together from a barrier. */
static bs_status run_block(harness *h, himpl *im, const int cpu[2],
                           uint64_t run, uint64_t j, bs_run_result *r,
                           bs_error *err) {
  const bs_run_options *o = h->o;
  size_t k = o->nimpls, off = (size_t)(o->seed % k);
  size_t per = o->duet ? 2 : 1;
  job jobs[2];
  bs_status st = BS_OK;
  for (size_t p = 0; !st && p < k; p += per) {
    memset(jobs, 0, sizeof jobs);
    int barrier[2] = {-1, -1};
    char why[512] = "";
    size_t failed = 0;
    int bad = 0;
    for (size_t q = 0; q < per; q++) {
      jobs[q].fd[0] = jobs[q].fd[1] = -1;
      jobs[q].impl = (size_t)((j + off + p + q) % k);
      jobs[q].keep = !h->ad->report_file;
    }
    if (o->duet &&
        (pipe(barrier) != 0 || fcntl(barrier[0], F_SETFD, FD_CLOEXEC) != 0 ||
         fcntl(barrier[1], F_SETFD, FD_CLOEXEC) != 0)) {
      snprintf(why, sizeof why, "cannot be started: %s", strerror(errno));
      bad = 1;
    }
    for (size_t q = 0; !bad && q < per; q++) {
      size_t i = jobs[q].impl;
      if (job_start(&jobs[q], im[i].argv.v, o->impls[i].dir,
                    o->duet ? cpu[(i + j) % 2] : -1, barrier, why,
                    sizeof why)) {
        bad = 1;
        failed = q;
      }
    }
    /* Both started (or one could not be): the barrier opens. */
    for (int e = 0; e < 2; e++)
      if (barrier[e] >= 0)
        close(barrier[e]);
    if (bad) {
      char ctx[300], esc[128];
      snprintf(ctx, sizeof ctx, "%s: block %llu of run %llu",
               bs__run_text(esc, sizeof esc, o->impls[jobs[failed].impl].name),
               (unsigned long long)j, (unsigned long long)run);
      st = bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: the program %s; nothing was written", ctx, why);
    } else {
      collect(jobs, per, o);
      st = block_reports(h, im, jobs, per, run, j, r, err);
    }
    for (size_t q = 0; q < per; q++)
      job_release(&jobs[q]);
  }
  return st;
}

/* The two CPUs of a duet: the first two this process may run on. */
static bs_status duet_cpus(int cpu[2], bs_error *err) {
  int n = bs__run_first_two_cpus(cpu);
  if (n < 0)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "--duet: cannot tell which CPUs this process may use");
  if (n < 2)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "--duet needs two CPUs and this process may use only "
                        "one (see taskset, cgroups); measure without --duet");
  return BS_OK;
}

bs_status bs__run_harness(const bs_run_options *o, bs_run_result *r,
                          bs_error *err) {
  const bs__adapter *ad = bs__adapter_for(o->mode);
  size_t k = o->nimpls;
  harness h;
  memset(&h, 0, sizeof h);
  bs__run_cases_init(&h.byname);
  h.o = o;
  h.ad = ad;
  h.nimpls = k;
  bs__filter_parse(&h.filter, o->filter);
  bs_status st = BS_OK;
  himpl *im = calloc(k, sizeof *im);
  char *dir = NULL;
  int cpu[2] = {-1, -1};
  bs__buf log;
  bs__buf_init(&log, BS__BUF_DEFAULT_LIMIT);
  if (!ad) {
    st = bs_error_set(err, BS_EINTERNAL, NULL, 0, "no such harness");
    goto done;
  }
  if (!im) {
    st = bs__oom(err);
    goto done;
  }
  if (o->duet && (k != 2 || (st = duet_cpus(cpu, err)))) {
    if (!st)
      st = bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "--duet measures exactly two impls side by side");
    goto done;
  }
  if (ad->report_file && (st = report_dir(&dir, err)))
    goto done;
  for (size_t i = 0; i < k; i++) {
    char esc[128];
    if (bs_run_split_command(o->impls[i].target, &im[i].words, NULL, err)) {
      char why[sizeof err->message];
      snprintf(why, sizeof why, "%s", err->message);
      st = bs_error_set(err, BS_EUSAGE, NULL, 0, "impl %s: %s",
                        bs__run_text(esc, sizeof esc, o->impls[i].name), why);
      goto done;
    }
    if (dir) {
      /* Each impl's report and storage apart: in a duet both programs
       * write at once. */
      size_t n = strlen(dir) + 48;
      im[i].scratch = malloc(n);
      im[i].report = malloc(n);
      if (!im[i].scratch || !im[i].report) {
        st = bs__oom(err);
        goto done;
      }
      snprintf(im[i].scratch, n, "%s/%zu", dir, i);
      snprintf(im[i].report, n, "%s/%zu/report.json", dir, i);
      if (mkdir(im[i].scratch, 0700) != 0) {
        st = bs_error_set(err, BS_EIO, NULL, 0, "cannot make %s: %s",
                          im[i].scratch, strerror(errno));
        goto done;
      }
    }
    bs__hblock blk = {im[i].words, o->filter && o->filter[0] ? &h.filter : NULL,
                      im[i].report, im[i].scratch};
    if ((st = ad->args(&im[i].argv, &blk))) {
      st = bs__oom_as(err, st);
      goto done;
    }
  }
  double total = (double)o->runs * (double)o->blocks * (double)k, done = 0;
  for (uint64_t run = 0; !st && run < o->runs; run++) {
    for (uint64_t j = 0; !st && j < o->blocks; j++) {
      /* Progress knows no case here: every program runs all of its. */
      bs_run_progress pr = {"", "",        0, 0,    run,  o->runs,
                            j,  o->blocks, 0, done, total};
      if (o->progress && o->progress(o->progress_ctx, &pr)) {
        st = bs_error_set(err, BS_EIO, NULL, 0,
                          "cancelled; nothing was written");
        break;
      }
      done += (double)k;
      st = run_block(&h, im, cpu, run, j, r, err);
    }
  }
  if (st)
    goto done;
  /* A case is kept when every impl reported it in every block. */
  size_t want = (size_t)(o->runs * o->blocks);
  int *keep = calloc(h.ncases ? h.ncases : 1, sizeof *keep);
  if (!keep) {
    st = bs__oom(err);
    goto done;
  }
  for (size_t c = 0; !st && c < h.ncases; c++) {
    char label[300];
    keep[c] = 1;
    for (size_t i = 0; i < k; i++)
      if (h.count[c * k + i] != want)
        keep[c] = 0;
    if (keep[c])
      r->ncases++;
    else if (bs__run_warn(r,
                          "case %s: not reported by every impl in every "
                          "block; skipped",
                          bs__run_case_label(label, sizeof label,
                                             h.cases[c].benchmark,
                                             h.cases[c].dataset)))
      st = bs__oom(err);
  }
  if (!st && r->ncases == 0) {
    /* What --filter left out tells how the names read (go's carry their
     * package). */
    char why[400] = "";
    if (o->filter && h.left_out[0])
      snprintf(why, sizeof why,
               " (given --filter, which matches none of what the programs "
               "reported, e.g. %s)",
               h.left_out);
    else if (o->filter)
      snprintf(why, sizeof why, " (given --filter)");
    st = bs_error_set(err, BS_EINPUT, NULL, 0,
                      "no benchmark that every program reports%s", why);
  }
  bs__run_cols cols = {.cpu = ad->has_cpu, .extra = ad->extra};
  if (!st)
    st = bs__run_log_header(&log, &cols);
  for (size_t n = 0; !st && n < h.nrows; n++) {
    const hrow *w = &h.rows[n];
    if (!keep[w->kase])
      continue;
    bs__run_row row = {.benchmark = h.cases[w->kase].benchmark,
                       .dataset = h.cases[w->kase].dataset,
                       .impl = o->impls[w->impl].name,
                       .run = w->run,
                       .block = (long long)w->block,
                       .iterations = w->iterations,
                       .per_call_us = w->per_call_us,
                       .cpu_per_call_us = w->cpu_per_call_us,
                       .extra = w->extra};
    st = bs__run_log_row(&log, &row, &cols);
    if (!st)
      r->nrows++;
  }
  free(keep);
  if (st == BS_ENOMEM || st == BS_ELIMIT)
    st = bs_error_set(err, st, NULL, 0, "cannot build the log");
  if (!st)
    r->log = bs__buf_detach(&log, &r->log_len);
done:
  bs__buf_release(&log);
  for (size_t i = 0; im && i < k; i++) {
    free(im[i].words);
    bs__argv_release(&im[i].argv);
    free(im[i].scratch);
    free(im[i].report);
  }
  free(im);
  if (dir)
    bs__remove_tree(dir);
  free(dir);
  harness_release(&h);
  if (st)
    r->nrows = 0;
  return st;
}

/* ---- for the fuzz targets
 * ---------------------------------------------------- */

bs_status bs__harness_parse(bs_run_mode mode, const char *text, size_t len,
                            const char *filter, size_t *rows, bs_error *err) {
  const bs__adapter *ad = bs__adapter_for(mode);
  bs_run_impl impl = {"a", "x", NULL};
  bs_run_options o;
  memset(&o, 0, sizeof o); /* parsing reads the mode, impls and filter */
  o.mode = mode;
  o.impls = &impl;
  o.nimpls = 1;
  o.filter = filter;
  harness h;
  memset(&h, 0, sizeof h);
  bs__run_cases_init(&h.byname);
  h.o = &o;
  h.ad = ad;
  h.nimpls = 1;
  bs__filter_parse(&h.filter, filter);
  bs__hsink sink = {add_row, "a: block 0 of run 0", &h};
  bs_status st = ad ? ad->parse(text, len, &sink, err)
                    : bs_error_set(err, BS_EINTERNAL, NULL, 0, "no adapter");
  *rows = h.nrows;
  harness_release(&h);
  return st;
}
