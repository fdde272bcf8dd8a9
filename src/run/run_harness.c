/* benchsite: `benchsite run` with a harness (Google Benchmark,
 * pytest-benchmark, go test -bench): what every adapter shares. A harness
 * sizes its own batches, so each block runs each impl's command once (in
 * the rotated order) and every benchmark of its report becomes one confirm
 * row; there are no calibration rows. See run_harness.h. */
#include "run_harness.h"

#include "csvin.h"
#include "fsutil.h"
#include "grow.h"
#include "oom.h"
#include "run_common.h"
#include "run_int.h"
#include "spawn_proc.h"
#include "utf8.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* ---- argv ------------------------------------------------------------------
 */

void bs__argv_init(bs__argv *a) { memset(a, 0, sizeof *a); }

void bs__argv_release(bs__argv *a) {
  for (size_t i = 0; i < a->n; i++)
    free(a->v[i]);
  free(a->v);
  memset(a, 0, sizeof *a);
}

static bs_status argv_take(bs__argv *a, char *word) {
  if (!word)
    return BS_ENOMEM;
  if (a->n + 2 > a->cap) {
    char **v = BS__GROW(a->v, a->cap, a->n + 2, 16);
    if (!v) {
      free(word);
      return BS_ENOMEM;
    }
    a->v = v;
  }
  a->v[a->n++] = word;
  a->v[a->n] = NULL;
  return BS_OK;
}

bs_status bs__argv_add(bs__argv *a, const char *word) {
  return argv_take(a, strdup(word));
}

bs_status bs__argv_addf(bs__argv *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *w = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (w) {
    va_start(ap, fmt);
    vsnprintf(w, (size_t)n + 1, fmt, ap);
    va_end(ap);
  }
  return argv_take(a, w);
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
  char esc[200];
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
  if (!bs__filter_match(&h->filter, w->benchmark, w->blen, w->dataset, w->dlen))
    return BS_OK;
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
  (void)esc;
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

/* ---- one block of one impl ------------------------------------------------
 */

/* The last line of text that holds more than blanks, escaped and cut,
 * for a message (empty when there is none). */
static const char *last_line(char *out, size_t n, const char *text,
                             size_t len) {
  out[0] = '\0';
  while (len && (text[len - 1] == '\n' || text[len - 1] == '\r' ||
                 text[len - 1] == ' ' || text[len - 1] == '\t'))
    len--;
  size_t start = len;
  while (start && text[start - 1] != '\n')
    start--;
  if (start == len)
    return out;
  char *line = strndup(text + start, len - start);
  if (line)
    bs__run_text(out, n, line);
  free(line);
  return out;
}

/* Runs the block's argv in the impl's directory and collects its standard
 * output (up to REPORT_LIMIT) within the timeout: 0 with *out (malloc'd,
 * NUL-terminated), or -1 with why filled. Once the program exits it is
 * reaped and whatever it left running -- in its process group, or
 * escaped from it (setsid), and holding its output open -- is killed, so
 * the end of the output comes at once. */
static int capture(char *const *argv, const char *dir, int keep_stdout,
                   const bs_run_options *o, char **out, size_t *len, char *why,
                   size_t nwhy) {
  *out = NULL;
  *len = 0;
  bs__spawn_opts so;
  bs__spawn_opts_init(&so, (const char *const *)argv);
  so.dir = dir;
  if (keep_stdout || !o->show_output) {
    so.io[1] = BS__IO_PIPE;
  } else {
    /* Standard output may be the log (--out -): the harness's goes to
     * standard error. */
    so.io[1] = BS__IO_FD;
    so.fd[1] = 2;
  }
  so.io[2] = o->show_output ? BS__IO_INHERIT : BS__IO_NULL;
  bs__child ch;
  if (bs__spawn(&ch, &so, NULL)) {
    snprintf(why, nwhy, "cannot be started: %s", strerror(ch.error));
    return -1;
  }
  /* The pipe is read to its end even after the child is reaped. */
  int fd = ch.fd[1];
  ch.fd[1] = -1;
  size_t cap = fd >= 0 ? 65536 : 1, used = 0;
  char *buf = malloc(cap);
  int timed_out = 0, too_big = 0, no_memory = buf == NULL, ended = 0;
  double ms = ceil(o->timeout_s * 1000.0);
  long long end = bs__now_ms() + (ms > 9e15 ? (long long)9e15 : (long long)ms);
  bs__child_end how;
  memset(&how, 0, sizeof how);
  while (fd >= 0 && !no_memory) {
    long long left = end - bs__now_ms();
    if (left <= 0) {
      timed_out = 1;
      break;
    }
    if (!ended && bs__child_exited(&ch)) {
      ended = 1;
      bs__child_wait(&ch, 0, &how);
    }
    struct pollfd pfd = {fd, POLLIN, 0};
    int pr = poll(&pfd, 1, left > 50 ? 50 : (int)left);
    if (pr < 0 && errno == EINTR)
      continue;
    if (pr <= 0)
      continue;
    if (cap - used < 2) {
      if (cap >= REPORT_LIMIT) {
        too_big = 1;
        break;
      }
      char *nb = BS__GROW(buf, cap, cap + 1, 4096);
      if (!nb) {
        no_memory = 1;
        break;
      }
      buf = nb;
    }
    ssize_t r = read(fd, buf + used, cap - used - 1);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    used += (size_t)r;
  }
  if (fd >= 0)
    close(fd);
  /* Its output has ended (or is given up): it still has until the
   * timeout to exit (a program that closes its output and hangs is one
   * that hangs). */
  if (!ended) {
    long long left = end - bs__now_ms();
    int given_up = timed_out || too_big || no_memory;
    bs__child_wait(&ch, given_up || left < 0 ? 0 : left, &how);
    if (!given_up)
      timed_out = how.timed_out;
  }
  if (buf)
    buf[used] = '\0';
  int st = how.status;
  if (no_memory)
    snprintf(why, nwhy, BS__OOM_TEXT);
  else if (timed_out)
    snprintf(why, nwhy, "did not finish within %g s (--timeout); killed",
             o->timeout_s);
  else if (too_big)
    snprintf(why, nwhy, "wrote more than %zu MiB", REPORT_LIMIT >> 20);
  else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    char t[128], tail[240];
    last_line(tail, sizeof tail, buf, used);
    snprintf(why, nwhy, "%s%s%s%s", bs__run_wait_text(t, sizeof t, st),
             tail[0] ? " (its output ends: \"" : "", tail,
             tail[0] ? "\")" : "");
  } else {
    *out = buf;
    *len = used;
    return 0;
  }
  free(buf);
  return -1;
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
  char **words = calloc(k, sizeof *words);
  bs__argv *argvs = calloc(k, sizeof *argvs);
  char *dir = NULL, *report = NULL;
  const char *blk_dir = NULL;
  bs__buf log;
  bs__buf_init(&log, BS__BUF_DEFAULT_LIMIT);
  if (!ad) {
    st = bs_error_set(err, BS_EINTERNAL, NULL, 0, "no such harness");
    goto done;
  }
  if (!words || !argvs) {
    st = bs__oom(err);
    goto done;
  }
  if (ad->report_file) {
    if ((st = report_dir(&dir, err)))
      goto done;
    size_t n = strlen(dir) + 16;
    if (!(report = malloc(n))) {
      st = bs__oom(err);
      goto done;
    }
    snprintf(report, n, "%s/report.json", dir);
    blk_dir = dir;
  }
  for (size_t i = 0; i < k; i++) {
    char esc[128];
    char **w;
    if (bs_run_split_command(o->impls[i].target, &w, NULL, err)) {
      char why[sizeof err->message];
      snprintf(why, sizeof why, "%s", err->message);
      st = bs_error_set(err, BS_EUSAGE, NULL, 0, "impl %s: %s",
                        bs__run_text(esc, sizeof esc, o->impls[i].name), why);
      goto done;
    }
    words[i] = (char *)w;
    /* Its words, then the adapter's (a flag given twice: the last one
     * wins in each of these harnesses). */
    bs__hblock blk = {w, o->filter && o->filter[0] ? &h.filter : NULL, report,
                      blk_dir};
    for (size_t j = 0; !st && w[j]; j++)
      st = bs__argv_add(&argvs[i], w[j]);
    if (!st)
      st = ad->args(&argvs[i], &blk);
    if (st) {
      st = bs__oom_as(err, st);
      goto done;
    }
  }
  size_t off = (size_t)(o->seed % k);
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
      for (size_t p = 0; !st && p < k; p++) {
        size_t i = (size_t)((j + off + p) % k);
        char ctx[300], esc[128], why[512];
        snprintf(ctx, sizeof ctx, "%s: block %llu of run %llu",
                 bs__run_text(esc, sizeof esc, o->impls[i].name),
                 (unsigned long long)j, (unsigned long long)run);
        char *out = NULL, *rep = NULL;
        size_t len = 0, rlen = 0;
        if (capture(argvs[i].v, o->impls[i].dir, !ad->report_file, o, &out,
                    &len, why, sizeof why) ||
            (report && read_report(report, &rep, &rlen, why, sizeof why))) {
          free(out);
          if (report)
            unlink(report);
          st =
              bs_error_set(err, BS_EINPUT, NULL, 0,
                           "%s: the program %s; nothing was written", ctx, why);
          break;
        }
        const char *text = report ? rep : out;
        size_t tlen = report ? rlen : len;
        if (blank(text, tlen)) {
          st = bs_error_set(
              err, BS_EINPUT, NULL, 0, "%s: the program %s no %s report%s", ctx,
              report ? "wrote" : "printed", ad->title,
              o->filter && o->filter[0] ? " (does --filter match none of its "
                                          "benchmarks?)"
                                        : "");
        } else {
          bs__hsink sink = {add_row, ctx, &h};
          h.impl = i;
          h.run = run;
          h.block = j;
          h.serial = ((size_t)run * (size_t)o->blocks + (size_t)j) * k + i;
          st = ad->parse(text, tlen, &sink, err);
        }
        free(out);
        free(rep);
      }
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
  if (!st && r->ncases == 0)
    st = bs_error_set(err, BS_EINPUT, NULL, 0,
                      "no benchmark that every program reports%s",
                      o->filter ? " (given --filter)" : "");
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
  for (size_t i = 0; words && argvs && i < k; i++) {
    free(words[i]);
    bs__argv_release(&argvs[i]);
  }
  free(words);
  free(argvs);
  if (dir)
    bs__remove_tree(dir);
  free(report);
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
