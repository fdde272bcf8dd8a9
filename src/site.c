/* benchsite site: every run's report, history pages per case and an
 * index, built incrementally beside the output and swapped in. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* renameat2(RENAME_EXCHANGE): an atomic swap */
#endif
#include "benchsite/site.h"

#include "benchsite/archive.h"
#include "benchsite/bootstrap.h"
#include "benchsite/compare.h"
#include "benchsite/log.h"
#include "benchsite/manifest.h"
#include "benchsite/noise.h"
#include "benchsite/output.h"
#include "benchsite/plot.h"
#include "benchsite/quantile.h"
#include "benchsite/report.h"
#include "benchsite/template.h"

#include "buf.h"
#include "fsutil.h"
#include "grow.h"
#include "num.h"
#include "present.h"
#include "sha256.h"
#include "strlist.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef BENCHSITE_VERSION
#define BENCHSITE_VERSION "unknown"
#endif

#define MARKER ".benchsite-site"
#define STATE_MAGIC "benchsite-site 1"
#define CHART_W 760
#define CHART_H 360
#define KEY_CHARS 40
#define CASE_HASH 16 /* hex digits of a case's file id */

/* Comparability groups differ in colour and in marker. */
static const uint32_t group_colors[] = {BS__C_BLUE, BS__C_ORANGE, BS__C_PURPLE,
                                        BS__C_SKY,  BS__C_BLACK,  BS__C_GREY};
static const bs_plot_marker group_markers[] = {
    BS_MARK_CIRCLE,      BS_MARK_SQUARE, BS_MARK_DIAMOND,
    BS_MARK_TRIANGLE_UP, BS_MARK_PLUS,   BS_MARK_CROSS};
#define NGROUP_STYLES (sizeof group_colors / sizeof group_colors[0])

void bs_site_options_init(bs_site_options *o) { memset(o, 0, sizeof *o); }

/* ---- Small helpers ------------------------------------------------------- */

static bs_status copy_at(int from, int to, const char *name, bs_error *err) {
  int in = openat(from, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  int out =
      in < 0
          ? -1
          : openat(to, name,
                   O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  bs_status st = BS_OK;
  char buf[65536];
  ssize_t r = 0;
  while (out >= 0 && (r = read(in, buf, sizeof buf)) != 0) {
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      break;
    const char *p = buf;
    while (r > 0) {
      ssize_t w = write(out, p, (size_t)r);
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0)
        break;
      p += w;
      r -= w;
    }
    if (r > 0)
      break;
  }
  if (in < 0 || out < 0 || r != 0)
    st = bs_error_set(err, BS_EIO, name, 0,
                      "cannot copy from the previous "
                      "site: %s",
                      strerror(errno));
  if (in >= 0)
    close(in);
  if (out >= 0 && close(out) != 0 && !st)
    st = bs_error_set(err, BS_EIO, name, 0, "cannot copy: %s", strerror(errno));
  return st;
}

/* Hard-links the entries of directory `from` into directory `to` (both
 * open; `from` is closed): reused files keep their bytes and their inode.
 * Falls back to copying where links are impossible. */
static bs_status link_dir_fd(int from, int to, bs_error *err) {
  DIR *d = fdopendir(from);
  if (!d) {
    close(from);
    return bs_error_set(err, BS_EIO, NULL, 0,
                        "cannot read the previous site: %s", strerror(errno));
  }
  bs_status st = BS_OK;
  struct dirent *e;
  while (!st && (e = readdir(d))) {
    if (bs__is_dot(e->d_name))
      continue;
    int type = bs__entry_type(from, e);
    if (type == BS__ENT_FILE) {
      if (linkat(from, e->d_name, to, e->d_name, 0) != 0)
        st = copy_at(from, to, e->d_name, err);
    } else if (type == BS__ENT_DIR) {
      if (mkdirat(to, e->d_name, 0755) != 0) {
        st = bs_error_set(err, BS_EIO, e->d_name, 0,
                          "cannot create directory: %s", strerror(errno));
        break;
      }
      int f2 = openat(from, e->d_name,
                      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      int t2 = openat(to, e->d_name,
                      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (f2 < 0 || t2 < 0) {
        st = bs_error_set(err, BS_EIO, e->d_name, 0, "cannot open: %s",
                          strerror(errno));
        if (f2 >= 0)
          close(f2);
      } else {
        st = link_dir_fd(f2, t2, err);
      }
      if (t2 >= 0)
        close(t2);
    }
  }
  closedir(d);
  return st;
}

/* Links the tree `from` of the previous build to the new path `to`. */
static bs_status link_tree(const char *from, const char *to, bs_error *err) {
  int f = open(from, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (f < 0)
    return bs_error_set(err, BS_EIO, from, 0, "cannot open: %s",
                        strerror(errno));
  if (mkdir(to, 0755) != 0) {
    close(f);
    return bs_error_set(err, BS_EIO, to, 0, "cannot create directory: %s",
                        strerror(errno));
  }
  int t = open(to, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (t < 0) {
    close(f);
    return bs_error_set(err, BS_EIO, to, 0, "cannot open: %s", strerror(errno));
  }
  bs_status st = link_dir_fd(f, t, err);
  close(t);
  return st;
}

/* "x" + hex: a token that holds any bytes (and "" as "x"). */
static bs_status put_hex(bs__buf *b, const char *s) {
  static const char digits[] = "0123456789abcdef";
  bs_status st = bs__buf_putc(b, 'x');
  for (const unsigned char *p = (const unsigned char *)s; *p && !st; p++) {
    char two[2] = {digits[*p >> 4], digits[*p & 15]};
    st = bs__buf_append(b, two, 2);
  }
  return st;
}

static int hexval(int c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

/* Decodes a put_hex token; NULL when malformed or out of memory. */
static char *get_hex(const char *tok) {
  size_t n = strlen(tok);
  if (n == 0 || tok[0] != 'x' || (n - 1) % 2)
    return NULL;
  char *s = malloc((n - 1) / 2 + 1);
  if (!s)
    return NULL;
  size_t k = 0;
  for (size_t i = 1; i < n; i += 2) {
    int h = hexval((unsigned char)tok[i]),
        l = hexval((unsigned char)tok[i + 1]);
    if (h < 0 || l < 0 || (h == 0 && l == 0)) {
      free(s);
      return NULL;
    }
    s[k++] = (char)(h << 4 | l);
  }
  s[k] = '\0';
  return s;
}

/* ---- Data ---------------------------------------------------------------- */

/* One case of one run: the candidate's median and interval, and the
 * paired verdict when the run compared it. */
typedef struct result {
  char *benchmark, *dataset;
  size_t case_idx;
  int has_hist;
  size_t n;
  double median, lo, hi;
  int has_cmp;
  int verdict; /* bs_verdict */
  int sig;
  int imp; /* a significant improvement */
  double delta_pct;
  size_t blocks;
  const bs_ack *ack;
} result;

typedef struct srun {
  const bs_archive_run *ar;
  bs_manifest *mf;
  char key[BS__SHA256_HEXLEN + 1];
  char *impl;      /* the impl the history shows ("" when none) */
  char *no_report; /* why there is no report, or NULL */
  result *res;
  size_t nres;
  size_t group;
  int reused;
  /* Verdict counts over compared cases. */
  size_t open, acked, slower, equivalent, faster, compared;
} srun;

typedef struct point {
  size_t run; /* index in history order */
  const result *r;
} point;

typedef struct scase {
  const char *benchmark, *dataset; /* owned by the first result */
  char id[CASE_HASH + 1];
  point *pts;
  size_t npts;
  int has_drift;
  bs_drift drift;
  size_t drift_n, drift_group;
  char chart[64];
  char *alt;
} scase;

typedef struct group {
  const bs_manifest *first; /* the first run's manifest in the group */
  size_t nruns;
} group;

typedef struct prev_run {
  char *id;
  char key[BS__SHA256_HEXLEN + 1];
  char *impl, *no_report;
  result *res;
  size_t nres, cap;
} prev_run;

typedef struct prev_file {
  char *name;
  char hash[BS__SHA256_HEXLEN + 1];
} prev_file;

typedef struct site {
  const bs_site_options *o;
  const char *out;
  bs_output_dir *od;
  const char *tmp; /* the build directory, od's */
  int out_exists;
  bs_archive *ar;
  bs_acks *acks;
  char env_key[BS__SHA256_HEXLEN + 1];
  char render_key[BS__SHA256_HEXLEN + 1]; /* benchsite + gnuplot */
  srun *runs;
  size_t nruns;
  scase *cases;
  size_t ncases;
  group *groups;
  size_t ngroups;
  /* The previous build, when usable. */
  prev_run *prev;
  size_t nprev;
  prev_file *pfiles; /* charts and pages, sorted by name */
  size_t npfiles;
  /* The new state, written last. */
  bs__buf state;
  bs__buf files; /* "chart|page NAME HASH" lines of this build */
  bs_templates *tpl;
  bs_site_summary sum;
} site;

static int stage(const site *s, const char *what, size_t done, size_t total) {
  return s->o->progress &&
         s->o->progress(s->o->progress_ctx, what, done, total);
}

static bs_status cancelled(bs_error *err) {
  return bs_error_set(err, BS_EIO, NULL, 0, "site build cancelled");
}

/* ---- The inputs' fingerprint --------------------------------------------- */

static int not_hidden(const char *name) { return name[0] != '.'; }

/* Hashes the names and bytes of every regular file of a directory. */
static bs_status hash_dir(bs__sha256 *h, const char *dir, bs_error *err) {
  char **names;
  size_t n;
  bs_status st = bs__list_dir(dir, not_hidden, &names, &n, err);
  for (size_t i = 0; i < n && !st; i++) {
    char *p = bs__path_join(dir, names[i]);
    if (!p) {
      st = BS_ENOMEM;
      break;
    }
    if (bs__is_regular(p)) {
      char *data = NULL;
      size_t len = 0;
      if ((st = bs_read_file(p, 0, &data, &len, err)) == BS_OK) {
        bs__sha256_update(h, names[i], strlen(names[i]) + 1);
        char lenbuf[32];
        snprintf(lenbuf, sizeof lenbuf, "%zu:", len);
        bs__sha256_update(h, lenbuf, strlen(lenbuf));
        bs__sha256_update(h, data, len);
      }
      free(data);
    }
    free(p);
  }
  bs__strlist_free(names, n);
  if (st == BS_ENOMEM)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  return st;
}

/* `gnuplot --version` (charts are gnuplot's bytes). Empty when it does
 * not run: rendering reports that properly later. */
static void gnuplot_version(const char *gnuplot, char *buf, size_t n) {
  buf[0] = '\0';
  int fds[2];
  if (pipe(fds) != 0)
    return;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  char *argv[] = {(char *)gnuplot, (char *)"--version", NULL};
  pid_t pid;
  int rc = posix_spawnp(&pid, gnuplot, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (rc == 0) {
    size_t used = 0;
    ssize_t r;
    while (used + 1 < n && ((r = read(fds[0], buf + used, n - 1 - used)) > 0 ||
                            (r < 0 && errno == EINTR)))
      if (r > 0)
        used += (size_t)r;
    buf[used] = '\0';
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
      ;
  }
  close(fds[0]);
}

static bs_status env_key(site *s, bs_error *err) {
  bs__sha256 h;
  bs__sha256_init(&h);
  char text[512];
  snprintf(text, sizeof text, "benchsite %s\nseed %llu\nR %d level %g\n",
           BENCHSITE_VERSION, (unsigned long long)s->o->seed, BS_SITE_RESAMPLES,
           BS_SITE_LEVEL_PCT);
  bs__sha256_update(&h, text, strlen(text));
  char gv[256], rk[512];
  gnuplot_version(s->o->gnuplot ? s->o->gnuplot : "gnuplot", gv, sizeof gv);
  snprintf(rk, sizeof rk, "benchsite %s\ngnuplot %s\n", BENCHSITE_VERSION, gv);
  bs__sha256_hex(rk, strlen(rk), s->render_key);
  bs__sha256_update(&h, rk, strlen(rk));
  bs_status st;
  if ((st = hash_dir(&h, s->o->templates_dir, err)) ||
      (st = hash_dir(&h, s->o->assets_dir, err)))
    return st;
  unsigned char d[BS__SHA256_LEN];
  bs__sha256_final(&h, d);
  bs__sha256_tohex(d, s->env_key);
  return BS_OK;
}

/* ---- The previous build's state ------------------------------------------ */

static void result_release(result *r) {
  free(r->benchmark);
  free(r->dataset);
}

/* The n results of a run, and their array. */
static void results_free(result *res, size_t n) {
  for (size_t k = 0; k < n; k++)
    result_release(&res[k]);
  free(res);
}

static void prev_release(site *s) {
  for (size_t i = 0; i < s->nprev; i++) {
    prev_run *p = &s->prev[i];
    free(p->id);
    free(p->impl);
    free(p->no_report);
    results_free(p->res, p->nres);
  }
  free(s->prev);
  s->prev = NULL;
  s->nprev = 0;
  for (size_t i = 0; i < s->npfiles; i++)
    free(s->pfiles[i].name);
  free(s->pfiles);
  s->pfiles = NULL;
  s->npfiles = 0;
}

static int cmp_prev_run(const void *a, const void *b) {
  return strcmp(((const prev_run *)a)->id, ((const prev_run *)b)->id);
}

static int cmp_prev_file(const void *a, const void *b) {
  return strcmp(((const prev_file *)a)->name, ((const prev_file *)b)->name);
}

/* Splits a line into at most `max` space-separated tokens in place. */
static size_t tokens(char *line, char **tok, size_t max) {
  size_t n = 0;
  char *p = line;
  while (*p && n < max) {
    tok[n++] = p;
    char *sp = strchr(p, ' ');
    if (!sp)
      break;
    *sp = '\0';
    p = sp + 1;
  }
  return n;
}

static int parse_num(const char *s, double *v) {
  return bs__parse_double(s, v) == 0;
}

static int parse_size(const char *s, size_t *v) {
  uint64_t x;
  if (bs__parse_u64(s, &x) != 0 || x > SIZE_MAX)
    return 0;
  *v = (size_t)x;
  return 1;
}

/* Reads the previous state; anything unexpected means "no usable state"
 * (a full build), never an error: the state is a cache. */
static void load_state(site *s) {
  char *path = bs__path_join(s->out, MARKER);
  char *data = NULL;
  size_t len = 0;
  bs_error ignore;
  if (!path || bs_read_file(path, 0, &data, &len, &ignore) != BS_OK) {
    free(path);
    return;
  }
  free(path);
  char *line = data;
  size_t cap = 0, fcap = 0;
  int ok = 0, lineno = 0;
  prev_run *cur = NULL;
  for (char *nl; line && *line; line = nl ? nl + 1 : NULL) {
    nl = strchr(line, '\n');
    if (nl)
      *nl = '\0';
    if (++lineno == 1) {
      if (strcmp(line, STATE_MAGIC))
        goto bad;
      continue;
    }
    char *tok[20];
    size_t nt = tokens(line, tok, 20);
    if (nt == 2 && !strcmp(tok[0], "env")) {
      if (strcmp(tok[1], s->env_key))
        goto bad; /* other templates, seed, version: nothing is reusable */
      ok = 1;
    } else if (nt == 5 && !strcmp(tok[0], "run")) {
      if (s->nprev == cap) {
        prev_run *g = BS__GROW(s->prev, cap, s->nprev + 1, 64);
        if (!g)
          goto bad;
        s->prev = g;
      }
      cur = &s->prev[s->nprev];
      memset(cur, 0, sizeof *cur);
      cur->id = bs__strdup(tok[1]);
      s->nprev++;
      if (!cur->id || strlen(tok[2]) != BS__SHA256_HEXLEN)
        goto bad;
      memcpy(cur->key, tok[2], sizeof cur->key);
      cur->impl = get_hex(tok[3]);
      if (!cur->impl)
        goto bad;
      if (strcmp(tok[4], "-") && !(cur->no_report = get_hex(tok[4])))
        goto bad;
    } else if (nt == 11 && !strcmp(tok[0], "res") && cur) {
      if (cur->nres == cur->cap) {
        result *g = BS__GROW(cur->res, cur->cap, cur->nres + 1, 8);
        if (!g)
          goto bad;
        cur->res = g;
      }
      result *r = &cur->res[cur->nres];
      memset(r, 0, sizeof *r);
      cur->nres++;
      size_t verdict;
      if (!(r->benchmark = get_hex(tok[1])) ||
          !(r->dataset = get_hex(tok[2])) || !parse_size(tok[3], &r->n) ||
          !parse_num(tok[4], &r->median) || !parse_num(tok[5], &r->lo) ||
          !parse_num(tok[6], &r->hi) || !parse_size(tok[7], &verdict) ||
          verdict > 3 || !parse_num(tok[9], &r->delta_pct) ||
          !parse_size(tok[10], &r->blocks))
        goto bad;
      r->has_hist = r->n > 0;
      r->has_cmp = verdict > 0;
      r->verdict = (int)verdict - 1;
      r->sig = !strcmp(tok[8], "1");
      r->imp = !strcmp(tok[8], "2");
    } else if (nt == 3 &&
               (!strcmp(tok[0], "chart") || !strcmp(tok[0], "page"))) {
      if (strlen(tok[2]) != BS__SHA256_HEXLEN)
        goto bad;
      if (s->npfiles == fcap) {
        prev_file *g = BS__GROW(s->pfiles, fcap, s->npfiles + 1, 64);
        if (!g)
          goto bad;
        s->pfiles = g;
      }
      prev_file *f = &s->pfiles[s->npfiles];
      if (!(f->name = bs__strdup(tok[1])))
        goto bad;
      memcpy(f->hash, tok[2], sizeof f->hash);
      s->npfiles++;
    } else {
      goto bad;
    }
  }
  if (!ok)
    goto bad;
  free(data);
  if (s->nprev)
    qsort(s->prev, s->nprev, sizeof *s->prev, cmp_prev_run);
  if (s->npfiles)
    qsort(s->pfiles, s->npfiles, sizeof *s->pfiles, cmp_prev_file);
  return;
bad:
  free(data);
  prev_release(s);
}

static prev_run *find_prev(const site *s, const char *id) {
  prev_run key;
  key.id = (char *)id;
  return s->nprev
             ? bsearch(&key, s->prev, s->nprev, sizeof *s->prev, cmp_prev_run)
             : NULL;
}

static const prev_file *find_pfile(const site *s, const char *name) {
  prev_file key;
  key.name = (char *)name;
  return s->npfiles ? bsearch(&key, s->pfiles, s->npfiles, sizeof *s->pfiles,
                              cmp_prev_file)
                    : NULL;
}

static bs_status state_result(bs__buf *b, const result *r) {
  bs_status st = bs__buf_puts(b, "res ");
  if (!st)
    st = put_hex(b, r->benchmark);
  if (!st)
    st = bs__buf_putc(b, ' ');
  if (!st)
    st = put_hex(b, r->dataset);
  if (!st)
    st = bs__buf_printf(b, " %zu %.17g %.17g %.17g %d %d %.17g %zu\n",
                        r->has_hist ? r->n : 0, r->median, r->lo, r->hi,
                        r->has_cmp ? r->verdict + 1 : 0,
                        r->sig   ? 1
                        : r->imp ? 2
                                 : 0,
                        r->delta_pct, r->blocks);
  return st;
}

static bs_status state_run(bs__buf *b, const srun *r) {
  bs_status st = bs__buf_printf(b, "run %s %s ", r->ar->id, r->key);
  if (!st)
    st = put_hex(b, r->impl);
  if (!st)
    st = bs__buf_putc(b, ' ');
  if (!st)
    st = r->no_report ? put_hex(b, r->no_report) : bs__buf_putc(b, '-');
  if (!st)
    st = bs__buf_putc(b, '\n');
  for (size_t i = 0; i < r->nres && !st; i++)
    st = state_result(b, &r->res[i]);
  return st;
}

/* ---- Analysing a run ----------------------------------------------------- */

static int cmp_result(const void *pa, const void *pb) {
  const result *a = pa, *b = pb;
  int c = strcmp(a->benchmark, b->benchmark);
  return c ? c : strcmp(a->dataset, b->dataset);
}

/* The impl a run's history shows for a case: the manifest's candidate
 * when the case has it, else the case's only impl. */
static const char *history_impl(const bs_log *log, const bs_case *c,
                                const char *candidate) {
  const bs_row *rows = bs_log_rows(log);
  const char *only = NULL;
  int several = 0, has_candidate = 0;
  for (size_t i = 0; i < c->nrows; i++) {
    const bs_row *r = &rows[c->rows[i]];
    if (r->phase != BS_PHASE_CONFIRM)
      continue;
    if (candidate && !strcmp(r->impl, candidate))
      has_candidate = 1;
    if (!only)
      only = r->impl;
    else if (strcmp(only, r->impl))
      several = 1;
  }
  if (has_candidate)
    return candidate;
  return several ? NULL : only;
}

static bs_status analyse_fresh(site *s, srun *r, bs_error *err) {
  bs_status st = BS_OK;
  bs_log *log = bs_log_new();
  bs_analysis *an = NULL;
  double *x = NULL;
  size_t xcap = 0;
  char *dir = NULL;
  if (!log)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  /* A run is read only after its files match its checksums, and from the
   * bytes that were checked (each file read once): a damaged archive stops
   * the build instead of being published. */
  bs_archive_verify_result vr;
  bs_archive_verify_result_init(&vr);
  st = bs_archive_read_run(bs_archive_dir(s->ar), r->ar->id, log, &vr, err);
  if (!st && vr.damaged)
    st = bs_error_set(err, BS_EINPUT, bs_archive_dir(s->ar), 0,
                      "%s; run 'benchsite archive verify --archive %s'",
                      vr.problems[0], bs_archive_dir(s->ar));
  bs_archive_verify_result_release(&vr);
  if (st)
    goto done;

  /* The run's analysis, as `benchsite report` makes it; kept going past
   * what stops a report, so the run's verdicts show even without one. */
  const bs_manifest *mfs[1] = {r->mf};
  bs_analysis_options ao;
  bs_analysis_options_init(&ao);
  ao.seed = s->o->seed;
  ao.keep_going = 1;
  if ((st = bs_analyse(log, mfs, 1, &ao, &an, err)))
    goto done;
  /* Its report. */
  char rel[BS_ARCHIVE_ID_MAX + 8];
  snprintf(rel, sizeof rel, "runs/%s", r->ar->id);
  if (!(dir = bs__path_join(s->tmp, rel))) {
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto done;
  }
  bs_report_options ro;
  bs_report_options_init(&ro);
  ro.templates_dir = s->o->templates_dir;
  ro.assets_dir = s->o->assets_dir;
  ro.gnuplot = s->o->gnuplot;
  ro.home_href = "../../index.html"; /* runs/ID/ -> the site index */
  bs_error rerr;
  bs_error_clear(&rerr);
  bs_status rs = bs_report_write(an, dir, &ro, NULL, &rerr);
  if (rs == BS_EUSAGE || rs == BS_EINPUT || rs == BS_EMISMATCH) {
    char msg[1024];
    bs_error_format(&rerr, msg, sizeof msg);
    if (!(r->no_report = bs__strdup(msg))) {
      st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
      goto done;
    }
  } else if (rs) {
    *err = rerr;
    st = rs;
    goto done;
  }

  /* Paired verdicts: the analysis's confirmatory comparison. */
  const bs_compare_result *cmp = an->compare;
  const char *candidate = bs_manifest_get(r->mf, "candidate");
  if (!(r->impl = bs__strdup(candidate ? candidate : ""))) {
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto done;
  }

  size_t ncases = bs_log_case_count(log);
  r->res = calloc(ncases ? ncases : 1, sizeof *r->res);
  if (!r->res) {
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto done;
  }
  const bs_row *rows = bs_log_rows(log);
  for (size_t i = 0; i < ncases; i++) {
    const bs_case *c = bs_log_case(log, i);
    result *res = &r->res[r->nres];
    memset(res, 0, sizeof *res);
    if (!(res->benchmark = bs__strdup(c->benchmark)) ||
        !(res->dataset = bs__strdup(c->dataset))) {
      result_release(res);
      st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
      goto done;
    }
    r->nres++;
    const char *impl = history_impl(log, c, candidate);
    size_t m = 0;
    for (size_t k = 0; impl && k < c->nrows; k++) {
      const bs_row *row = &rows[c->rows[k]];
      if (row->phase != BS_PHASE_CONFIRM || strcmp(row->impl, impl))
        continue;
      if (m == xcap) {
        double *g = BS__GROW(x, xcap, m + 1, 64);
        if (!g) {
          st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
          goto done;
        }
        x = g;
      }
      x[m++] = row->per_call_us;
    }
    if (m > 0) {
      res->has_hist = 1;
      res->n = m;
      res->median = bs_median(x, m);
      if ((st = bs_bootstrap_median_ci(x, m, BS_SITE_RESAMPLES,
                                       BS_SITE_LEVEL_PCT, s->o->seed, &res->lo,
                                       &res->hi, NULL, err)))
        goto done;
    }
    for (size_t k = 0; cmp && k < cmp->ncases; k++) {
      const bs_case_compare *cc = &cmp->cases[k];
      if (strcmp(cc->benchmark, c->benchmark) ||
          strcmp(cc->dataset, c->dataset))
        continue;
      res->has_cmp = 1;
      res->verdict = (int)cc->verdict;
      res->sig = cc->significant_regression;
      res->imp = cc->significant_improvement;
      res->delta_pct = cc->delta_pct;
      res->blocks = cc->blocks;
    }
  }
  s->sum.reports_built++;
done:
  free(dir);
  free(x);
  bs_analysis_free(an);
  bs_log_free(log);
  return st;
}

/* Takes the report and results of an unchanged run from the previous
 * build. Returns 0 when that is not possible. */
static int reuse(site *s, srun *r, prev_run *p, bs_error *err, bs_status *st) {
  *st = BS_OK;
  if (!p || strcmp(p->key, r->key))
    return 0;
  char rel[BS_ARCHIVE_ID_MAX + 8];
  snprintf(rel, sizeof rel, "runs/%s", r->ar->id);
  char *from = bs__path_join(s->out, rel), *to = bs__path_join(s->tmp, rel);
  char *marker = from ? bs__path_join(from, ".benchsite-report") : NULL;
  int ok = 0;
  if (!from || !to || !marker) {
    *st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  } else if (p->no_report || bs__is_regular(marker)) {
    if (!p->no_report)
      *st = link_tree(from, to, err);
    if (!*st) {
      r->impl = p->impl;
      r->no_report = p->no_report;
      r->res = p->res;
      r->nres = p->nres;
      p->impl = p->no_report = NULL;
      p->res = NULL;
      p->nres = 0;
      r->reused = 1;
      s->sum.reports_reused++;
      ok = 1;
    }
  }
  free(from);
  free(to);
  free(marker);
  return ok || *st;
}

static bs_status analyse_runs(site *s, bs_error *err) {
  size_t n = bs_archive_count(s->ar);
  s->runs = calloc(n ? n : 1, sizeof *s->runs);
  if (!s->runs)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  char *runs_dir = bs__path_join(s->tmp, "runs");
  if (!runs_dir)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  int made = mkdir(runs_dir, 0755) == 0;
  free(runs_dir);
  if (!made)
    return bs_error_set(err, BS_EIO, s->tmp, 0, "cannot create runs/: %s",
                        strerror(errno));
  for (size_t i = 0; i < n; i++) {
    if (stage(s, "runs", i, n))
      return cancelled(err);
    srun *r = &s->runs[i];
    r->ar = bs_archive_run_at(s->ar, i);
    s->nruns++;
    bs_status st;
    if (!(r->mf = bs_manifest_new()))
      return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    if ((st = bs_manifest_read_file(r->mf, r->ar->manifest, err)))
      return st;
    bs__sha256 h;
    unsigned char d[BS__SHA256_LEN];
    bs__sha256_init(&h);
    bs__sha256_update(&h, s->env_key, strlen(s->env_key));
    bs__sha256_update(&h, r->ar->id, strlen(r->ar->id));
    bs__sha256_final(&h, d);
    bs__sha256_tohex(d, r->key);
    if (!reuse(s, r, find_prev(s, r->ar->id), err, &st) &&
        (st = analyse_fresh(s, r, err)))
      return st;
    if (st)
      return st;
    if (r->nres)
      qsort(r->res, r->nres, sizeof *r->res, cmp_result);
    if ((st = state_run(&s->state, r)))
      return bs_error_set(err, st, NULL, 0, "out of memory");
    for (size_t k = 0; k < r->nres; k++) {
      result *res = &r->res[k];
      res->ack =
          bs_acks_find(s->acks, r->ar->commit, res->benchmark, res->dataset);
      if (!res->has_cmp)
        continue;
      r->compared++;
      if (res->ack)
        r->acked++;
      else if (res->sig)
        r->open++;
      else if (res->verdict == BS_VERDICT_SLOWER)
        r->slower++;
      else if (res->verdict == BS_VERDICT_FASTER)
        r->faster++;
      else
        r->equivalent++;
      s->sum.acknowledged += res->ack != NULL;
    }
  }
  if (stage(s, "runs", n, n))
    return cancelled(err);
  return BS_OK;
}

/* ---- Groups and cases ---------------------------------------------------- */

static void assign_groups(site *s) {
  for (size_t i = 0; i < s->nruns; i++) {
    srun *r = &s->runs[i];
    size_t g = 0;
    for (; g < s->ngroups; g++) {
      if (bs_manifest_comparable(s->groups[g].first, r->mf, NULL, NULL))
        break;
      /* Runs missing a key are comparable with nothing; they group with
       * runs that have exactly the same values (and gaps). */
      int same = 1;
      for (size_t k = 0; k < BS_MANIFEST_NCOMPARABILITY && same; k++) {
        const char *key = bs_manifest_comparability_keys[k];
        const char *a = bs_manifest_get(s->groups[g].first, key);
        const char *b = bs_manifest_get(r->mf, key);
        same = (!a && !b) || (a && b && !strcmp(a, b));
      }
      if (same)
        break;
    }
    if (g == s->ngroups) {
      s->groups[g].first = r->mf;
      s->groups[g].nruns = 0;
      s->ngroups++;
    }
    s->groups[g].nruns++;
    r->group = g;
  }
}

static int cmp_case(const void *pa, const void *pb) {
  const scase *a = pa, *b = pb;
  int c = strcmp(a->benchmark, b->benchmark);
  return c ? c : strcmp(a->dataset, b->dataset);
}

static bs_status collect_cases(site *s, bs_error *err) {
  size_t cap = 0;
  for (size_t i = 0; i < s->nruns; i++)
    cap += s->runs[i].nres;
  s->cases = calloc(cap ? cap : 1, sizeof *s->cases);
  if (!s->cases)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  /* Distinct (benchmark, dataset) pairs, byte order. */
  for (size_t i = 0; i < s->nruns; i++) {
    for (size_t k = 0; k < s->runs[i].nres; k++) {
      const result *r = &s->runs[i].res[k];
      s->cases[s->ncases].benchmark = r->benchmark;
      s->cases[s->ncases].dataset = r->dataset;
      s->ncases++;
    }
  }
  if (s->ncases)
    qsort(s->cases, s->ncases, sizeof *s->cases, cmp_case);
  size_t u = 0;
  for (size_t i = 0; i < s->ncases; i++) {
    if (u && !cmp_case(&s->cases[u - 1], &s->cases[i]))
      continue;
    s->cases[u++] = s->cases[i];
  }
  s->ncases = u;
  for (size_t c = 0; c < s->ncases; c++) {
    scase *sc = &s->cases[c];
    bs__sha256 h;
    unsigned char d[BS__SHA256_LEN];
    char hex[BS__SHA256_HEXLEN + 1];
    bs__sha256_init(&h);
    bs__sha256_update(&h, sc->benchmark, strlen(sc->benchmark) + 1);
    bs__sha256_update(&h, sc->dataset, strlen(sc->dataset));
    bs__sha256_final(&h, d);
    bs__sha256_tohex(d, hex);
    memcpy(sc->id, hex, CASE_HASH);
    sc->id[CASE_HASH] = '\0';
    if (c > 0) {
      for (size_t o = 0; o < c; o++) {
        if (!strcmp(s->cases[o].id, sc->id))
          return bs_error_set(err, BS_EINTERNAL, NULL, 0,
                              "two cases share the file id %s", sc->id);
      }
    }
  }
  /* Points: each case's results in history order. */
  for (size_t i = 0; i < s->nruns; i++) {
    for (size_t k = 0; k < s->runs[i].nres; k++) {
      result *r = &s->runs[i].res[k];
      scase key;
      key.benchmark = r->benchmark;
      key.dataset = r->dataset;
      scase *sc =
          bsearch(&key, s->cases, s->ncases, sizeof *s->cases, cmp_case);
      if (!sc)
        return bs_error_set(err, BS_EINTERNAL, NULL, 0, "lost a case");
      r->case_idx = (size_t)(sc - s->cases);
      point *g = realloc(sc->pts, (sc->npts + 1) * sizeof *g);
      if (!g)
        return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
      sc->pts = g;
      sc->pts[sc->npts].run = i;
      sc->pts[sc->npts].r = r;
      sc->npts++;
    }
  }
  return BS_OK;
}

/* Spearman drift over the medians of the last BS_SITE_DRIFT_RUNS runs of
 * the newest group that measured the case. */
static bs_status drift(site *s, scase *sc, bs_error *err) {
  double x[BS_SITE_DRIFT_RUNS];
  size_t n = 0;
  size_t g = (size_t)-1;
  for (size_t i = sc->npts; i-- > 0 && n < BS_SITE_DRIFT_RUNS;) {
    const point *p = &sc->pts[i];
    if (!p->r->has_hist)
      continue;
    if (g == (size_t)-1)
      g = s->runs[p->run].group;
    if (s->runs[p->run].group != g)
      continue;
    x[n++] = p->r->median;
  }
  /* x holds newest first: the test wants date order. */
  for (size_t i = 0; i < n / 2; i++) {
    double t = x[i];
    x[i] = x[n - 1 - i];
    x[n - 1 - i] = t;
  }
  sc->drift_n = n;
  sc->drift_group = g;
  if (n < BS_NOISE_DRIFT_MIN)
    return BS_OK;
  bs_status st = bs_noise_drift(x, n, &sc->drift);
  if (st == BS_ENOMEM)
    return bs_error_set(err, st, NULL, 0, "out of memory");
  sc->has_drift = st == BS_OK;
  s->sum.drifting += sc->has_drift && sc->drift.drifted;
  return BS_OK;
}

/* ---- Formatting ---------------------------------------------------------- */

/* "protocol=RegressionGate, machine=box-2": the comparability keys on
 * which group g differs from the other groups (all keys when alone). */
static void group_label(const site *s, size_t g, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t k = 0; k < BS_MANIFEST_NCOMPARABILITY; k++) {
    const char *key = bs_manifest_comparability_keys[k];
    const char *v = bs_manifest_get(s->groups[g].first, key);
    int differs = s->ngroups == 1;
    for (size_t o = 0; o < s->ngroups && !differs; o++) {
      const char *w = bs_manifest_get(s->groups[o].first, key);
      differs = (!v) != (!w) || (v && w && strcmp(v, w));
    }
    if (!differs)
      continue;
    int r = snprintf(buf + used, n - used, "%s%s=%s", used ? ", " : "", key,
                     v ? v : "(missing)");
    if (r < 0 || (size_t)r >= n - used)
      break;
    used += (size_t)r;
  }
}

/* ---- Charts -------------------------------------------------------------- */

/* Adds a number or a string to a chart's fingerprint. */
static void fp_num(bs__sha256 *h, double v) {
  char b[40];
  snprintf(b, sizeof b, "%.17g;", v);
  bs__sha256_update(h, b, strlen(b));
}

static void fp_str(bs__sha256 *h, const char *s) {
  bs__sha256_update(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

static bs_plot_style style(uint32_t color, bs_plot_marker m) {
  bs_plot_style st;
  memset(&st, 0, sizeof st);
  st.color = color;
  st.marker = m;
  return st;
}

/* Describes the history chart of a case: into `p` when not NULL, and
 * always into the fingerprint `h` (everything that shapes the SVG: texts,
 * ranges, styles by group and kind, every number). */
static bs_status describe_history(const site *s, const scase *sc, bs_plot *p,
                                  bs__sha256 *h, bs_error *err) {
  double maxv = 0;
  size_t cap = sc->npts ? sc->npts : 1;
  for (size_t i = 0; i < sc->npts; i++) {
    const result *r = sc->pts[i].r;
    if (r->has_hist && r->hi > maxv)
      maxv = r->hi;
  }
  double f;
  const char *unit = bs__time_unit(maxv, &f);
  char name[512], clipped[300], title[600], ylabel[64];
  bs__case_label(name, sizeof name, sc->benchmark, sc->dataset);
  bs__clip(clipped, sizeof clipped, name, BS__NAME_CHARS);
  snprintf(title, sizeof title, "%s: median per call by run", clipped);
  snprintf(ylabel, sizeof ylabel, "median per call (%s)", unit);
  static const char xlabel[] =
      "run number, oldest to newest (the table lists them)";
  double *cols = malloc(4 * cap * sizeof *cols);
  if (!cols)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  fp_str(h, "history/1");
  fp_str(h, s->render_key);
  fp_str(h, sc->chart);
  fp_str(h, title);
  fp_str(h, ylabel);
  /* The x axis ends at the case's newest run, so a run that does not
   * measure the case leaves its chart unchanged. */
  size_t last = sc->npts ? sc->pts[sc->npts - 1].run + 1 : 1;
  fp_num(h, (double)last);
  fp_num(h, maxv * f);
  if (p) {
    bs_plot_chart(p, sc->chart, CHART_W, CHART_H);
    bs_plot_title(p, title);
    bs_plot_xlabel(p, xlabel);
    bs_plot_ylabel(p, ylabel);
    bs_plot_key(p, BS_KEY_BELOW);
    bs_plot_xrange(p, 0.5, (double)last + 0.5);
    if (maxv > 0)
      bs_plot_yrange(p, 0, maxv * f * 1.08);
  }
  /* Per group: the medians with their intervals, joined by a line. */
  for (size_t g = 0; g < s->ngroups; g++) {
    size_t m = 0;
    for (size_t i = 0; i < sc->npts; i++) {
      const point *pt = &sc->pts[i];
      if (!pt->r->has_hist || s->runs[pt->run].group != g)
        continue;
      cols[m] = (double)(pt->run + 1);
      cols[cap + m] = pt->r->median * f;
      cols[2 * cap + m] = pt->r->lo * f;
      cols[3 * cap + m] = pt->r->hi * f;
      m++;
    }
    if (!m)
      continue;
    char key[320];
    if (s->ngroups > 1) {
      char label[256], cl[200];
      group_label(s, g, label, sizeof label);
      bs__clip(cl, sizeof cl, label, KEY_CHARS);
      snprintf(key, sizeof key, "group %zu (%s): median, 95%% interval", g + 1,
               cl);
    } else {
      snprintf(key, sizeof key, "median, 95%% interval");
    }
    bs_plot_style sty = style(group_colors[g % NGROUP_STYLES],
                              group_markers[g % NGROUP_STYLES]);
    bs_plot_style line = sty;
    line.marker = BS_MARK_NONE;
    line.line_width = 1;
    const double *c4[4] = {cols, cols + cap, cols + 2 * cap, cols + 3 * cap};
    if (p) {
      bs_plot_series(p, BS_PLOT_LINES, NULL, &line, c4, m);
      bs_plot_series(p, BS_PLOT_YERRORBARS, key, &sty, c4, m);
    }
    fp_str(h, key);
    fp_num(h, (double)g);
    for (size_t i = 0; i < m; i++) {
      fp_num(h, cols[i]);
      fp_num(h, cols[cap + i]);
      fp_num(h, cols[2 * cap + i]);
      fp_num(h, cols[3 * cap + i]);
    }
  }
  /* Above the bars: the runs whose paired verdict was a regression, an
   * acknowledged change or faster. */
  static const struct {
    const char *title;
    uint32_t color;
    bs_plot_marker marker;
    int open;
  } kinds[3] = {
      {"significant regression", BS__C_VERMILLION, BS_MARK_TRIANGLE_UP, 0},
      {"acknowledged change (acks.csv)", BS__C_GREY, BS_MARK_DIAMOND, 1},
      {"faster", BS__C_GREEN, BS_MARK_TRIANGLE_DOWN, 0},
  };
  for (int k = 0; k < 3; k++) {
    size_t m = 0;
    for (size_t i = 0; i < sc->npts; i++) {
      const result *r = sc->pts[i].r;
      if (!r->has_hist || !r->has_cmp)
        continue;
      int kind = r->ack                            ? 1
                 : r->sig                          ? 0
                 : r->verdict == BS_VERDICT_FASTER ? 2
                                                   : -1;
      if (kind != k)
        continue;
      cols[m] = (double)(sc->pts[i].run + 1);
      cols[cap + m] = r->hi * f + maxv * f * 0.03;
      m++;
    }
    if (!m)
      continue;
    bs_plot_style sty = style(kinds[k].color, kinds[k].marker);
    sty.open = kinds[k].open;
    sty.point_size = 1.3;
    const double *c2[2] = {cols, cols + cap};
    if (p)
      bs_plot_series(p, BS_PLOT_POINTS, kinds[k].title, &sty, c2, m);
    fp_str(h, kinds[k].title);
    for (size_t i = 0; i < m; i++) {
      fp_num(h, cols[i]);
      fp_num(h, cols[cap + i]);
    }
  }
  free(cols);
  return BS_OK;
}

/* The alt text of a history chart: what it shows, in words. */
static char *history_alt(const site *s, const scase *sc) {
  char name[512], lo[64], hi[64], last[64];
  bs__case_label(name, sizeof name, sc->benchmark, sc->dataset);
  const result *newest = NULL;
  double minv = HUGE_VAL, maxv = -HUGE_VAL;
  size_t n = 0;
  for (size_t i = 0; i < sc->npts; i++) {
    const result *r = sc->pts[i].r;
    if (!r->has_hist)
      continue;
    n++;
    newest = r;
    minv = fmin(minv, r->median);
    maxv = fmax(maxv, r->median);
  }
  if (!newest)
    return bs__strdupf("History of %s: no run measured it.", name);
  return bs__strdupf(
      "History of %s over %zu run%s in %zu comparability "
      "group%s: the median per call ranges from %s to %s; the "
      "newest run measured %s.",
      name, n, n == 1 ? "" : "s", s->ngroups, s->ngroups == 1 ? "" : "s",
      bs__fmt_time(lo, sizeof lo, minv), bs__fmt_time(hi, sizeof hi, maxv),
      bs__fmt_time(last, sizeof last, newest->median));
}

/* Queues the history chart of a case into `plot`, or links the previous
 * build's SVG when the chart's fingerprint is unchanged. */
static bs_status history_chart(site *s, scase *sc, bs_plot *plot,
                               size_t *queued, bs_error *err) {
  snprintf(sc->chart, sizeof sc->chart, "case-%s-history.svg", sc->id);
  if (!(sc->alt = history_alt(s, sc)))
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  bs__sha256 h;
  bs__sha256_init(&h);
  bs_status st = describe_history(s, sc, NULL, &h, err);
  if (st)
    return st;
  unsigned char d[BS__SHA256_LEN];
  char hash[BS__SHA256_HEXLEN + 1], rel[128];
  bs__sha256_final(&h, d);
  bs__sha256_tohex(d, hash);
  snprintf(rel, sizeof rel, "charts/%s", sc->chart);
  if ((st = bs__buf_printf(&s->files, "chart %s %s\n", rel, hash)))
    return bs_error_set(err, st, NULL, 0, "out of memory");
  const prev_file *pf = find_pfile(s, rel);
  char *from = bs__path_join(s->out, rel), *to = bs__path_join(s->tmp, rel);
  if (!from || !to) {
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  } else if (pf && !strcmp(pf->hash, hash) && bs__is_regular(from) &&
             link(from, to) == 0) {
    s->sum.charts_reused++;
  } else {
    bs__sha256_init(&h);
    st = describe_history(s, sc, plot, &h, err);
    (*queued)++;
  }
  free(from);
  free(to);
  return st;
}

/* ---- Pages --------------------------------------------------------------- */

static void page_common(bs_tval *root, const char *title, const char *current) {
  bs_tval_set_str(root, "title", title);
  bs_tval_set_str(root, "generator", "benchsite " BENCHSITE_VERSION);
  bs_tval *nav = bs_tval_set_list(root, "nav");
  bs_tval *it = bs_tval_push_obj(nav);
  bs_tval_set_str(it, "href", "index.html");
  bs_tval_set_str(it, "label", "Runs and cases");
  bs_tval_set_bool(it, "current", current && !strcmp(current, "index.html"));
}

/* Environment status of run i against the run before it: "first run",
 * "comparable", "differs on protocol, machine"; a target that is not
 * native is called out first. */
static void env_status(const site *s, size_t i, bs_tval *t) {
  const srun *r = &s->runs[i];
  const char *target = bs_manifest_get(r->mf, "target");
  char text[512];
  int flag = 0;
  size_t used = 0;
  text[0] = '\0';
  if (target && strcmp(target, "native")) {
    int w = snprintf(text, sizeof text, "target %s, no performance claims; ",
                     target);
    used = w > 0 && (size_t)w < sizeof text ? (size_t)w : 0;
    flag = 1;
  }
  const char *diff[BS_MANIFEST_NCOMPARABILITY];
  size_t nd = 0;
  if (i == 0) {
    snprintf(text + used, sizeof text - used, "first run");
  } else if (bs_manifest_comparable(s->runs[i - 1].mf, r->mf, diff, &nd)) {
    snprintf(text + used, sizeof text - used, "comparable");
  } else {
    int w = snprintf(text + used, sizeof text - used, "differs on ");
    used += w > 0 ? (size_t)w : 0;
    for (size_t k = 0; k < nd && used < sizeof text; k++) {
      w = snprintf(text + used, sizeof text - used, "%s%s", k ? ", " : "",
                   diff[k]);
      used += w > 0 ? (size_t)w : 0;
    }
    flag = 1;
  }
  bs_tval_set_str(t, "env", text);
  bs_tval_set_bool(t, "env_flag", flag);
}

static void run_counts(bs_tval *t, const srun *r) {
  bs_tval_set_bool(t, "compared", r->compared > 0);
  bs_tval_set_strf(t, "open", "%zu", r->open);
  bs_tval_set_bool(t, "has_open", r->open > 0);
  bs_tval_set_strf(t, "acked", "%zu", r->acked);
  bs_tval_set_bool(t, "has_acked", r->acked > 0);
  bs_tval_set_strf(t, "slower", "%zu", r->slower);
  bs_tval_set_strf(t, "equivalent", "%zu", r->equivalent);
  bs_tval_set_strf(t, "faster", "%zu", r->faster);
}

static void run_links(bs_tval *t, const srun *r) {
  bs_tval_set_strf(t, "href", "run-%s.html", r->ar->id);
  if (!r->no_report)
    bs_tval_set_strf(t, "report", "runs/%s/index.html", r->ar->id);
  else
    bs_tval_set_str(t, "no_report", r->no_report);
}

/* A run's median and interval (when it has one) and its paired verdict
 * (when it compared), as the runs' and the cases' tables show them. */
static void result_fields(bs_tval *t, const result *res) {
  char buf[128];
  if (res->has_hist) {
    bs_tval_set_str(t, "median", bs__fmt_time(buf, sizeof buf, res->median));
    bs__fmt_time_range(buf, sizeof buf, res->lo, res->hi);
    bs_tval_set_str(t, "interval", buf);
  }
  if (res->has_cmp) {
    bs_tval_set_str(t, "verdict",
                    bs__verdict_marker(res->sig   ? 1
                                       : res->imp ? -1
                                                  : 0,
                                       (bs_verdict)res->verdict));
    bs_tval_set_str(t, "verdict_class",
                    bs__verdict_class(res->sig   ? 1
                                      : res->imp ? -1
                                                 : 0,
                                      (bs_verdict)res->verdict));
    bs_tval_set_str(t, "delta_pct",
                    bs__fmt_pct_signed(buf, sizeof buf, res->delta_pct));
  }
}

/* A case's drift test, as the index and its history page state it. */
static void drift_fields(bs_tval *dr, const scase *sc) {
  char buf[64];
  bs_tval_set_bool(dr, "flagged", sc->drift.drifted);
  bs_tval_set_str(
      dr, "shift",
      bs__fmt_pct_signed(buf, sizeof buf, 100 * sc->drift.relative_shift));
  bs_tval_set_strf(dr, "p", "%.2g", sc->drift.p);
  bs_tval_set_strf(dr, "n", "%zu", sc->drift_n);
}

/* The link to the run before or after on a run page. */
static void neighbour(bs_tval *root, const char *which, const srun *r) {
  bs_tval *t = bs_tval_set_obj(root, which);
  bs_tval_set_strf(t, "href", "run-%s.html", r->ar->id);
  bs_tval_set_str(t, "commit", r->ar->commit);
}

/* Adds the footer's seed, renders the page (freeing d) and writes it
 * unless the previous build has the same bytes, which are then linked. */
static bs_status emit_page(site *s, const char *tname, bs_tdata *d,
                           const char *file, bs_error *err) {
  bs_tval_set_strf(bs_tdata_root(d), "seed", "%llu",
                   (unsigned long long)s->o->seed);
  bs_status st = bs_tdata_status(d);
  if (st) {
    bs_tdata_free(d);
    return bs_error_set(err, st, NULL, 0, "out of memory");
  }
  char *html = NULL;
  size_t len = 0;
  st = bs_templates_render(s->tpl, tname, bs_tdata_root(d), &html, &len, err);
  bs_tdata_free(d);
  if (st)
    return st;
  char hash[BS__SHA256_HEXLEN + 1];
  bs__sha256_hex(html, len, hash);
  char *to = bs__path_join(s->tmp, file), *from = bs__path_join(s->out, file);
  const prev_file *pf = find_pfile(s, file);
  if (!to || !from) {
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  } else if (pf && !strcmp(pf->hash, hash) && bs__is_regular(from) &&
             link(from, to) == 0) {
    s->sum.pages_reused++;
  } else {
    st = bs__write_file(to, html, len, 0, err);
    s->sum.pages_written++;
  }
  if (!st && (st = bs__buf_printf(&s->files, "page %s %s\n", file, hash)))
    st = bs_error_set(err, st, NULL, 0, "out of memory");
  free(to);
  free(from);
  free(html);
  return st;
}

static bs_status index_page(site *s, bs_error *err) {
  bs_tdata *d = bs_tdata_new();
  if (!d)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  bs_tval *root = bs_tdata_root(d);
  page_common(root, "Benchmark history", "index.html");
  bs_tval *sum = bs_tval_set_obj(root, "summary");
  bs_tval_set_strf(sum, "runs", "%zu", s->nruns);
  bs_tval_set_strf(sum, "cases", "%zu", s->ncases);
  bs_tval_set_strf(sum, "groups", "%zu", s->ngroups);
  bs_tval_set_bool(sum, "several_groups", s->ngroups > 1);
  bs_tval_set_strf(sum, "drifting", "%zu", s->sum.drifting);
  bs_tval_set_bool(sum, "has_drifting", s->sum.drifting > 0);
  if (s->nruns) {
    const srun *newest = &s->runs[s->nruns - 1];
    bs_tval *nw = bs_tval_set_obj(sum, "newest");
    bs_tval_set_str(nw, "commit", newest->ar->commit);
    bs_tval_set_str(nw, "date", newest->ar->date);
    run_links(nw, newest);
    run_counts(nw, newest);
    s->sum.open_regressions = newest->open;
  }
  bs_tval *runs = bs_tval_set_list(root, "runs");
  for (size_t i = s->nruns; i-- > 0;) {
    const srun *r = &s->runs[i];
    bs_tval *t = bs_tval_push_obj(runs);
    bs_tval_set_str(t, "date", r->ar->date);
    bs_tval_set_str(t, "commit", r->ar->commit);
    bs_tval_set_str(t, "id", r->ar->id);
    bs_tval_set_strf(t, "number", "%zu", i + 1);
    bs_tval_set_strf(t, "group", "%zu", r->group + 1);
    run_links(t, r);
    run_counts(t, r);
    env_status(s, i, t);
  }
  bs_tval *groups = bs_tval_set_list(root, "groups");
  for (size_t g = 0; g < s->ngroups && s->ngroups > 1; g++) {
    char label[512];
    group_label(s, g, label, sizeof label);
    bs_tval *t = bs_tval_push_obj(groups);
    bs_tval_set_strf(t, "number", "%zu", g + 1);
    bs_tval_set_str(t, "label", label);
    bs_tval_set_strf(t, "runs", "%zu", s->groups[g].nruns);
  }
  bs_tval *cases = bs_tval_set_list(root, "cases");
  for (size_t c = 0; c < s->ncases; c++) {
    const scase *sc = &s->cases[c];
    bs_tval *t = bs_tval_push_obj(cases);
    char name[512], buf[128];
    bs__case_label(name, sizeof name, sc->benchmark, sc->dataset);
    bs_tval_set_str(t, "name", name);
    bs_tval_set_strf(t, "href", "case-%s.html", sc->id);
    bs_tval_set_strf(t, "runs", "%zu", sc->npts);
    for (size_t i = sc->npts; i-- > 0;) {
      const result *r = sc->pts[i].r;
      if (r->has_hist) {
        bs_tval_set_str(t, "latest", bs__fmt_time(buf, sizeof buf, r->median));
        break;
      }
    }
    if (sc->has_drift) {
      drift_fields(bs_tval_set_obj(t, "drift"), sc);
    } else {
      bs_tval_set_strf(t, "drift_runs", "%zu", sc->drift_n);
    }
  }
  return emit_page(s, "site_index", d, "index.html", err);
}

static bs_status run_page(site *s, size_t i, bs_error *err) {
  const srun *r = &s->runs[i];
  bs_tdata *d = bs_tdata_new();
  if (!d)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  bs_tval *root = bs_tdata_root(d);
  char title[300];
  snprintf(title, sizeof title, "Run %zu: %s", i + 1, r->ar->commit);
  page_common(root, title, NULL);
  bs_tval *rv = bs_tval_set_obj(root, "run");
  bs__facts(rv, r->mf);
  const char *baseline = bs_manifest_get(r->mf, "baseline");
  const char *candidate = bs_manifest_get(r->mf, "candidate");
  if (baseline && candidate) {
    bs_tval_set_str(rv, "baseline", baseline);
    bs_tval_set_str(rv, "candidate", candidate);
  }
  bs_tval *t = bs_tval_set_obj(root, "this");
  bs_tval_set_str(t, "id", r->ar->id);
  bs_tval_set_str(t, "commit", r->ar->commit);
  bs_tval_set_str(t, "date", r->ar->date);
  bs_tval_set_strf(t, "number", "%zu", i + 1);
  bs_tval_set_strf(t, "group", "%zu", r->group + 1);
  if (r->impl && r->impl[0])
    bs_tval_set_str(t, "impl", r->impl);
  run_links(t, r);
  run_counts(t, r);
  env_status(s, i, t);
  if (i > 0)
    neighbour(root, "prev", &s->runs[i - 1]);
  if (i + 1 < s->nruns)
    neighbour(root, "next", &s->runs[i + 1]);
  bs_tval *env = bs_tval_set_list(root, "environment");
  for (size_t k = 0; k < bs_manifest_count(r->mf); k++) {
    bs_tval *e = bs_tval_push_obj(env);
    bs_tval_set_str(e, "key", bs_manifest_key(r->mf, k));
    bs_tval_set_str(e, "value", bs_manifest_value(r->mf, k));
  }
  bs_tval *cases = bs_tval_set_list(root, "cases");
  for (size_t k = 0; k < r->nres; k++) {
    const result *res = &r->res[k];
    const scase *sc = &s->cases[res->case_idx];
    bs_tval *c = bs_tval_push_obj(cases);
    char name[512];
    bs__case_label(name, sizeof name, res->benchmark, res->dataset);
    bs_tval_set_str(c, "name", name);
    bs_tval_set_strf(c, "href", "case-%s.html", sc->id);
    result_fields(c, res);
    if (res->ack) {
      bs_tval *a = bs_tval_set_obj(c, "ack");
      bs_tval_set_str(a, "reason", res->ack->reason);
      bs_tval_set_strf(a, "line", "%ld", res->ack->line);
    }
  }
  char file[BS_ARCHIVE_ID_MAX + 16];
  snprintf(file, sizeof file, "run-%s.html", r->ar->id);
  return emit_page(s, "site_run", d, file, err);
}

static bs_status case_page(site *s, size_t c, bs_error *err) {
  const scase *sc = &s->cases[c];
  bs_tdata *d = bs_tdata_new();
  if (!d)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  bs_tval *root = bs_tdata_root(d);
  char name[512];
  bs__case_label(name, sizeof name, sc->benchmark, sc->dataset);
  page_common(root, name, NULL);
  bs_tval *cv = bs_tval_set_obj(root, "case");
  bs_tval_set_str(cv, "benchmark", sc->benchmark);
  bs_tval_set_str(cv, "dataset", sc->dataset);
  bs_tval_set_strf(cv, "runs", "%zu", sc->npts);
  bs_tval *fig = bs_tval_set_obj(root, "chart");
  bs_tval_set_strf(fig, "src", "charts/%s", sc->chart);
  bs_tval_set_str(fig, "alt", sc->alt);
  bs_tval_set_strf(fig, "width", "%d", CHART_W);
  bs_tval_set_strf(fig, "height", "%d", CHART_H);
  bs_tval_set_str(fig, "caption",
                  "Each point is one run's median per call of the impl the "
                  "run measured as its candidate, with the 95 % percentile "
                  "bootstrap interval of the median (2000 resamples). "
                  "Markers above the bars show the run's paired verdict "
                  "against its own baseline.");
  if (sc->has_drift) {
    bs_tval *dr = bs_tval_set_obj(root, "drift");
    drift_fields(dr, sc);
    bs_tval_set_strf(dr, "rho", "%.3f", sc->drift.rho);
    bs_tval_set_strf(dr, "group", "%zu", sc->drift_group + 1);
  } else {
    bs_tval_set_strf(root, "drift_skipped", "%zu", sc->drift_n);
  }
  bs_tval *groups = bs_tval_set_list(root, "groups");
  for (size_t g = 0; g < s->ngroups && s->ngroups > 1; g++) {
    char label[512];
    group_label(s, g, label, sizeof label);
    bs_tval *t = bs_tval_push_obj(groups);
    bs_tval_set_strf(t, "number", "%zu", g + 1);
    bs_tval_set_str(t, "label", label);
  }
  bs_tval_set_bool(root, "several_groups", s->ngroups > 1);
  bs_tval *rows = bs_tval_set_list(root, "rows");
  for (size_t i = 0; i < sc->npts; i++) {
    const point *pt = &sc->pts[i];
    const srun *r = &s->runs[pt->run];
    const result *res = pt->r;
    bs_tval *t = bs_tval_push_obj(rows);
    bs_tval_set_strf(t, "number", "%zu", pt->run + 1);
    bs_tval_set_str(t, "date", r->ar->date);
    bs_tval_set_str(t, "commit", r->ar->commit);
    bs_tval_set_strf(t, "href", "run-%s.html", r->ar->id);
    bs_tval_set_strf(t, "group", "%zu", r->group + 1);
    if (i > 0 && s->runs[sc->pts[i - 1].run].group != r->group)
      bs_tval_set_bool(t, "group_change", 1);
    result_fields(t, res);
    if (res->has_hist) {
      bs_tval_set_strf(t, "n", "%zu", res->n);
      bs_tval_set_str(t, "impl", r->impl);
    }
    if (res->ack)
      bs_tval_set_str(t, "ack", res->ack->reason);
  }
  char file[64];
  snprintf(file, sizeof file, "case-%s.html", sc->id);
  return emit_page(s, "site_case", d, file, err);
}

/* ---- The build ----------------------------------------------------------- */

static void site_release(site *s) {
  for (size_t i = 0; i < s->nruns; i++) {
    srun *r = &s->runs[i];
    bs_manifest_free(r->mf);
    free(r->impl);
    free(r->no_report);
    results_free(r->res, r->nres);
  }
  free(s->runs);
  for (size_t c = 0; c < s->ncases; c++) {
    free(s->cases[c].pts);
    free(s->cases[c].alt);
  }
  free(s->cases);
  free(s->groups);
  prev_release(s);
  bs__buf_release(&s->state);
  bs__buf_release(&s->files);
  bs_templates_free(s->tpl);
  bs_acks_free(s->acks);
  bs_archive_free(s->ar);
}

bs_status bs_site_build(const char *archive_dir, const char *out_dir,
                        const bs_site_options *o, bs_site_summary *summary,
                        bs_error *err) {
  site s;
  memset(&s, 0, sizeof s);
  bs__buf_init(&s.state, BS__CAP_SITE_STATE);
  bs__buf_init(&s.files, BS__CAP_SITE_FILES);
  bs_plot *plot = NULL;
  bs_status st = BS_OK;
  if (summary)
    memset(summary, 0, sizeof *summary);
  if (!archive_dir || !out_dir || !o || !o->templates_dir || !o->assets_dir)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "site: an archive, --out, templates and assets are "
                        "required");
  s.o = o;
  s.out = out_dir;
  if ((st = bs_output_dir_open(out_dir, "--out", "site", MARKER, &s.od, err)))
    goto done;
  s.out_exists = bs_output_dir_exists(s.od);
  if ((st = bs_archive_open(archive_dir, &s.ar, err)) ||
      (st = bs_acks_read(archive_dir, &s.acks, err)))
    goto done;
  /* Templates first: a broken template fails before any work. */
  if (!(s.tpl = bs_templates_new(o->templates_dir))) {
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto done;
  }
  if ((st = bs_templates_load(s.tpl, "site_index", err)) ||
      (st = bs_templates_load(s.tpl, "site_run", err)) ||
      (st = bs_templates_load(s.tpl, "site_case", err)))
    goto done;
  if ((st = env_key(&s, err)))
    goto done;
  if (s.out_exists && !o->full)
    load_state(&s);

  if ((st = bs_output_dir_start(s.od, err)))
    goto done;
  s.tmp = bs_output_dir_path(s.od);

  if ((st = bs__buf_printf(&s.state, "%s\nenv %s\n", STATE_MAGIC, s.env_key))) {
    st = bs_error_set(err, st, NULL, 0, "out of memory");
    goto done;
  }
  if ((st = analyse_runs(&s, err)))
    goto done;
  if (!(s.groups = calloc(s.nruns ? s.nruns : 1, sizeof *s.groups))) {
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto done;
  }
  assign_groups(&s);
  if ((st = collect_cases(&s, err)))
    goto done;
  for (size_t c = 0; c < s.ncases; c++)
    if ((st = drift(&s, &s.cases[c], err)))
      goto done;

  /* Charts: describe all, render the changed ones with one gnuplot. */
  char *charts = bs__path_join(s.tmp, "charts");
  if (!charts || mkdir(charts, 0755) != 0) {
    st = charts ? bs_error_set(err, BS_EIO, s.tmp, 0,
                               "cannot create charts/: %s", strerror(errno))
                : bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    free(charts);
    goto done;
  }
  size_t queued = 0;
  if (!(plot = bs_plot_new())) {
    free(charts);
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto done;
  }
  for (size_t c = 0; c < s.ncases && !st; c++)
    st = history_chart(&s, &s.cases[c], plot, &queued, err);
  if (!st && queued) {
    if (stage(&s, "charts", 0, queued)) {
      st = cancelled(err);
    } else {
      bs_plot_run pr;
      memset(&pr, 0, sizeof pr);
      pr.gnuplot = o->gnuplot;
      st = bs_plot_render(plot, charts, &pr, err);
    }
  }
  free(charts);
  if (st)
    goto done;
  s.sum.charts_rendered = queued;

  /* Pages. */
  if (stage(&s, "pages", 0, 1)) {
    st = cancelled(err);
    goto done;
  }
  if ((st = index_page(&s, err)))
    goto done;
  for (size_t i = 0; i < s.nruns; i++)
    if ((st = run_page(&s, i, err)))
      goto done;
  for (size_t c = 0; c < s.ncases; c++)
    if ((st = case_page(&s, c, err)))
      goto done;
  /* Assets, then the state (which marks the directory as a site). */
  DIR *ad = opendir(o->assets_dir);
  if (!ad) {
    st = bs_error_set(err, BS_EIO, o->assets_dir, 0,
                      "cannot read directory: %s", strerror(errno));
    goto done;
  }
  struct dirent *e;
  while (!st && (e = readdir(ad))) {
    if (e->d_name[0] == '.')
      continue;
    char *from = bs__path_join(o->assets_dir, e->d_name),
         *to = bs__path_join(s.tmp, e->d_name);
    if (!from || !to)
      st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    else if (bs__is_regular(from))
      st = bs__copy_file(from, to, err);
    free(from);
    free(to);
  }
  closedir(ad);
  if (st)
    goto done;
  if ((st = bs__buf_append(&s.state, s.files.data ? s.files.data : "",
                           s.files.len))) {
    st = bs_error_set(err, st, NULL, 0, "out of memory");
    goto done;
  }
  char *marker = bs__path_join(s.tmp, MARKER);
  if (!marker) {
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto done;
  }
  st = bs__write_file(marker, s.state.data, s.state.len, 0, err);
  free(marker);
  if (st)
    goto done;
  if (stage(&s, "pages", 1, 1)) {
    st = cancelled(err);
    goto done;
  }
  if ((st = bs_output_dir_commit(s.od, err)))
    goto done;
  s.sum.runs = s.nruns;
  s.sum.cases = s.ncases;
  s.sum.groups = s.ngroups;
  if (summary)
    *summary = s.sum;
done:
  /* The failed build, or the old site after the swap. */
  bs_output_dir_free(s.od);
  bs_plot_free(plot);
  site_release(&s);
  return st;
}
