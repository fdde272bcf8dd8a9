/* benchsite site: every run's report, history pages per case and an
 * index, built incrementally beside the output and swapped in. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* renameat2(RENAME_EXCHANGE): an atomic swap */
#endif
#include "benchsite/site.h"

#include "benchsite/archive.h"
#include "benchsite/bootstrap.h"
#include "benchsite/compare.h"
#include "benchsite/history.h"
#include "benchsite/log.h"
#include "benchsite/manifest.h"
#include "benchsite/noise.h"
#include "benchsite/order.h"
#include "benchsite/output.h"
#include "benchsite/plot.h"
#include "benchsite/quantile.h"
#include "benchsite/report.h"
#include "benchsite/template.h"

#include "ahead.h"
#include "archived.h"
#include "buf.h"
#include "csvin.h"
#include "fsutil.h"
#include "grow.h"
#include "jsonw.h"
#include "num.h"
#include "plotsafe.h"
#include "present.h"
#include "sha256.h"
#include "strlist.h"
#include "strset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef BENCHSITE_VERSION
#define BENCHSITE_VERSION "unknown"
#endif

#define MARKER ".benchsite-site"
#define STATE_MAGIC "benchsite-site 7"
/* The state's last line: "sum " and the hash of the bytes before it. */
#define SUM_LINE (4 + BS__SHA256_HEXLEN + 1)
/* Beside the state: the stamps of the published reports' files (inode,
 * size, times), which differ from one directory to another, so they stay
 * out of the state, whose bytes depend on the inputs alone. */
#define STAMPS MARKER ".stamps"
#define STAMPS_MAGIC "benchsite-stamps 2"
#define CHART_W 760
#define CHART_H 360
#define KEY_CHARS 40
#define CASE_HASH 16    /* hex digits of a case's file id */
#define SHOWN_RUNS 200  /* runs a history table and chart show */
#define CHUNK_RUNS 1000 /* runs per history chunk file */
#define XTICS 8         /* labelled runs on a history chart's x axis */

/* Comparability groups differ in colour and in marker. */
static const uint32_t group_colors[] = {BS__C_BLUE, BS__C_ORANGE, BS__C_PURPLE,
                                        BS__C_SKY,  BS__C_BLACK,  BS__C_GREY};
static const bs_plot_marker group_markers[] = {
    BS_MARK_CIRCLE,      BS_MARK_SQUARE, BS_MARK_DIAMOND,
    BS_MARK_TRIANGLE_UP, BS_MARK_PLUS,   BS_MARK_CROSS};
#define NGROUP_STYLES (sizeof group_colors / sizeof group_colors[0])

void bs_site_options_init(bs_site_options *o) {
  memset(o, 0, sizeof *o);
  o->detail_runs = BS_SITE_DETAIL_RUNS;
}

/* ---- Small helpers ------------------------------------------------------- */

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

/* A double as 11 characters of the state: its 64 bits, 4 in the first
 * character and 6 in each of the others. Exact (every bit, -0 and all),
 * and a little over half the text of %.17g. */
static const char bits_digits[] =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";
#define BITS_CHARS ((size_t)11)

static void put_bits(char out[BITS_CHARS], double v) {
  uint64_t u;
  memcpy(&u, &v, sizeof u);
  for (size_t i = BITS_CHARS; i-- > 0;) {
    out[i] = bits_digits[u & 63];
    u >>= 6;
  }
}

static int bits_value(int c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'Z')
    return c - 'A' + 10;
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 36;
  return c == '-' ? 62 : c == '_' ? 63 : -1;
}

/* Reads put_bits' 11 characters at p; 0 when malformed or not finite. */
static int get_bits(const char *p, double *v) {
  uint64_t u = 0;
  for (size_t i = 0; i < BITS_CHARS; i++) {
    int d = bits_value((unsigned char)p[i]);
    if (d < 0 || (i == 0 && d > 15))
      return 0;
    u = u << 6 | (uint64_t)d;
  }
  memcpy(v, &u, sizeof u);
  return isfinite(*v);
}

/* ---- Data ---------------------------------------------------------------- */

/* One case of one run: the candidate's median and interval, and the
 * paired verdict when the run compared it. */
typedef struct result {
  char *benchmark, *dataset;
  int has_scale;
  double scale;
  size_t case_idx;
  int has_hist;
  size_t n;
  double median, lo, hi;
  int has_cmp;
  int verdict; /* bs_verdict */
  int sig;
  int imp; /* significant improvement: delta <= -3 % and U < 0 */
  double delta_pct;
  size_t blocks;
  const bs_ack *ack;
} result;

typedef struct srun {
  const bs_archive_run *ar;
  const bs_manifest *mf;            /* the archive's */
  const char *baseline_commit;      /* the manifest's, or NULL */
  char key[BS__SHA256_HEXLEN + 1];  /* of its analysis */
  char rkey[BS__SHA256_HEXLEN + 1]; /* of its report */
  char *impl;      /* the impl the history shows ("" when none) */
  char *no_report; /* why there is no report, or NULL */
  result *res;
  size_t nres;
  size_t group;
  int reused;
  const char *res_text; /* its "r" lines as the previous state has them */
  size_t res_len;
  int detailed; /* gets its full report (runs/ID/) */
  int report;   /* runs/ID/ holds its report in the new site */
  /* The analysis this build made of it, kept for its report (and the log
   * it points into), or NULL: a report is rendered from it instead of a
   * second analysis of the same log. */
  bs_log *kept_log;
  bs_analysis *kept_an;
  /* Verdict counts over compared cases. */
  size_t open, acked, slower, equivalent, faster, compared;
} srun;

typedef struct point {
  size_t run; /* index in history order */
  const result *r;
  int link; /* a paired comparison: part of a chain */
  size_t chain;
  double index; /* the chained index */
} point;

typedef struct scase {
  const char *benchmark, *dataset; /* owned by the first result */
  char id[CASE_HASH + 1];
  point *pts;
  size_t npts;
  int has_drift;
  bs_drift drift;
  size_t drift_n, drift_group;
  bs_history_creep creep;
  size_t first_shown; /* the first of the newest SHOWN_RUNS points */
  char chart[64], chart_ci[64];
  char *alt, *alt_ci;
} scase;

typedef struct group {
  const bs_manifest *first; /* the first run's manifest in the group */
  size_t nruns;
} group;

typedef struct prev_run {
  char *id;
  char key[BS__SHA256_HEXLEN + 1];
  char rkey[BS__SHA256_HEXLEN + 1]; /* "-" when the site has no report */
  char *impl, *no_report;
  result *res;
  size_t nres, cap;
  size_t text_from, text_to; /* its "r" lines in the state's text */
  int kept;                  /* its report stays in the new site */
} prev_run;

/* A case of the state's case table, which its result lines name by
 * number. */
typedef struct state_case {
  char *benchmark, *dataset;
  double scale;
} state_case;

/* The stamps of a published report's files when the previous build last
 * hashed them: a file with the same stamp is not read again. */
typedef struct seen_stamp {
  bs__file_stamp st;
  int ok; /* 0: this file is read next time */
} seen_stamp;

typedef struct prev_seen {
  char *id;
  char marker[BS__SHA256_HEXLEN + 1]; /* the hash of the list they go with */
  seen_stamp *files; /* one per regular file of that list, in its order */
  size_t n, cap;
} prev_seen;

typedef struct prev_file {
  char *name;
  char hash[BS__SHA256_HEXLEN + 1];
  char key[BS__SHA256_HEXLEN + 1]; /* of what made it, or "-" */
  int kept;                        /* part of the new site too */
} prev_file;

/* A file or report directory of the new site waiting in the build
 * directory to be renamed into the published one. */
typedef struct pending {
  char *rel;
  char *src; /* its name in the build directory when not rel (or NULL) */
  int rank;  /* what it may link: lower ranks are published first */
  int fresh; /* no file of that name is published yet */
  int dir;
} pending;

typedef struct site {
  const bs_site_options *o;
  const char *out;
  bs_output_dir *od;
  const char *tmp; /* the build directory, od's */
  int out_exists;
  bs_archive *ar;
  bs_acks *acks;
  /* Cache keys: the build of benchsite and the seed (analyses); with the
   * templates, assets and gnuplot (reports); with gnuplot (charts). */
  char analysis_key[BS__SHA256_HEXLEN + 1];
  char report_key[BS__SHA256_HEXLEN + 1];
  char render_key[BS__SHA256_HEXLEN + 1];
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
  char *prev_text;    /* the previous state as read */
  state_case *pcases; /* the previous state's case table */
  size_t npcases, pccap;
  /* The new state's case table: the previous one (so that the result
   * lines copied from it keep their numbers), then every case first seen
   * in this build; each entry's text -> its number. */
  bs__strset ctab;
  size_t nctab;
  bs__buf cases_text; /* the table's lines, written after the runs */
  prev_seen *pseen;   /* sorted by id, each's files by path */
  size_t npseen;
  char stamps_hash[BS__SHA256_HEXLEN + 1]; /* of the stamps read, or "" */
  size_t prev_len;
  /* Nothing to move or drop, and the new state is the previous one byte
   * for byte: the published state stays. */
  int quiet;
  /* Files older than this (ns since the epoch) may be vouched for by
   * their stamps in the next build (see bs__tree_list_known). */
  long long stamp_before_ns;
  int write_stamps; /* 1: new stamps to publish, -1: none (see write_stamps) */
  /* The new state, written last. */
  bs__buf state;
  size_t body_len; /* of the state before its "sum" line */
  bs__buf files;   /* "file NAME HASH" lines of this build */
  bs__buf seen;    /* "seen" and "st" lines: the stamps of kept reports */
  pending *queue;
  size_t nqueue, qcap;
  bs_templates *tpl;
  bs_site_summary sum;
  /* Renders every chart of the build, the reports' and the history's,
   * while the build goes on; finished before the state is written. */
  bs_plot_pool *pool;
} site;

static int stage(const site *s, const char *what, size_t done, size_t total) {
  return s->o->progress &&
         s->o->progress(s->o->progress_ctx, what, done, total);
}

static bs_status cancelled(bs_error *err) {
  return bs_error_set(err, BS_EIO, NULL, 0, "site build cancelled");
}

/* Ranks: what a file may link is published before it. */
enum { RANK_LEAF, RANK_RUN, RANK_CASE, RANK_INDEX };

/* Queues rel (written into the build directory) for publication. */
static bs_status queue_file(site *s, const char *rel, int rank, int dir,
                            bs_error *err) {
  pending *g = BS__GROW(s->queue, s->qcap, s->nqueue + 1, 64);
  if (!g)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  s->queue = g;
  pending *q = &s->queue[s->nqueue];
  q->src = NULL;
  if (!(q->rel = bs__strdup(rel)))
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  q->rank = rank;
  q->dir = dir;
  q->fresh = 1;
  if (s->out_exists) {
    char *path = bs__path_join(s->out, rel);
    struct stat sb;
    q->fresh = !path || lstat(path, &sb) != 0;
    free(path);
  }
  s->nqueue++;
  return BS_OK;
}

/* ---- The inputs' fingerprint --------------------------------------------- */

static int not_hidden(const char *name) { return name[0] != '.'; }
static int not_dots(const char *name) { return !bs__is_dot(name); }

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

/* The identity of this build of benchsite: its version and, where the
 * system tells, the bytes of the running program (the library is linked
 * into it), so a changed build invalidates what it computed. */
static void build_identity(bs__sha256 *h) {
  static const char v[] = "benchsite " BENCHSITE_VERSION "\n";
  bs__sha256_update(h, v, sizeof v - 1);
  int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  char buf[65536];
  ssize_t r;
  while ((r = read(fd, buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR))
    if (r > 0)
      bs__sha256_update(h, buf, (size_t)r);
  close(fd);
}

static void finish_key(bs__sha256 *h, char out[BS__SHA256_HEXLEN + 1]) {
  unsigned char d[BS__SHA256_LEN];
  bs__sha256_final(h, d);
  bs__sha256_tohex(d, out);
}

static bs_status make_keys(site *s, bs_error *err) {
  bs__sha256 id;
  bs__sha256_init(&id);
  build_identity(&id);
  char build[BS__SHA256_HEXLEN + 1], text[512], gv[256];
  finish_key(&id, build);
  /* `gnuplot --version` (charts are gnuplot's bytes); "" when it does not
   * run: rendering reports that properly later. */
  bs__gnuplot_version(s->o->gnuplot ? s->o->gnuplot : "gnuplot", gv, sizeof gv);
  snprintf(text, sizeof text, "analysis\n%s\nseed %llu\nR %d level %g\n", build,
           (unsigned long long)s->o->seed, BS_SITE_RESAMPLES,
           BS_SITE_LEVEL_PCT);
  bs__sha256_hex(text, strlen(text), s->analysis_key);
  snprintf(text, sizeof text, "render\n%s\ngnuplot %s\n", build, gv);
  bs__sha256_hex(text, strlen(text), s->render_key);
  bs__sha256 h;
  bs__sha256_init(&h);
  bs__sha256_update(&h, s->analysis_key, strlen(s->analysis_key));
  bs__sha256_update(&h, s->render_key, strlen(s->render_key));
  bs_status st;
  if ((st = hash_dir(&h, s->o->templates_dir, err)) ||
      (st = hash_dir(&h, s->o->assets_dir, err)))
    return st;
  finish_key(&h, s->report_key);
  return BS_OK;
}

/* key = H(kind key, run id). */
static void run_key(const char *kind, const char *id,
                    char out[BS__SHA256_HEXLEN + 1]) {
  bs__sha256 h;
  bs__sha256_init(&h);
  bs__sha256_update(&h, kind, strlen(kind));
  bs__sha256_update(&h, id, strlen(id));
  finish_key(&h, out);
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
  for (size_t i = 0; i < s->npcases; i++) {
    free(s->pcases[i].benchmark);
    free(s->pcases[i].dataset);
  }
  free(s->pcases);
  s->pcases = NULL;
  s->npcases = s->pccap = 0;
}

static int cmp_prev_run(const void *a, const void *b) {
  return strcmp(((const prev_run *)a)->id, ((const prev_run *)b)->id);
}

static int cmp_prev_file(const void *a, const void *b) {
  return strcmp(((const prev_file *)a)->name, ((const prev_file *)b)->name);
}

static int cmp_prev_seen(const void *a, const void *b) {
  return strcmp(((const prev_seen *)a)->id, ((const prev_seen *)b)->id);
}

static int parse_u64(const char *s, uint64_t *v) {
  return bs__parse_u64(s, v) == 0;
}

static int parse_ll(const char *s, long long *v) {
  uint64_t x;
  if (!parse_u64(s, &x) || x > (uint64_t)LLONG_MAX)
    return 0;
  *v = (long long)x;
  return 1;
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

static int parse_size(const char *s, size_t *v) {
  uint64_t x;
  if (bs__parse_u64(s, &x) != 0 || x > SIZE_MAX)
    return 0;
  *v = (size_t)x;
  return 1;
}

/* The text of a case in the state's case table. */
static bs_status case_text(bs__buf *b, const char *benchmark,
                           const char *dataset, double scale) {
  char bits[BITS_CHARS];
  put_bits(bits, scale);
  bs_status st = put_hex(b, benchmark);
  if (!st)
    st = bs__buf_putc(b, ' ');
  if (!st)
    st = put_hex(b, dataset);
  if (!st)
    st = bs__buf_putc(b, ' ');
  if (!st)
    st = bs__buf_append(b, bits, sizeof bits);
  return st;
}

/* Whether `name` is one this program gives a file of the site, and so
 * one a state may name: one name at the top (index.html, run-ID.html,
 * case-ID.html, an asset or a static file) of visible ASCII or UTF-8
 * bytes, charts/case-ID-history.svg, charts/case-ID-chain.svg,
 * history/case-ID.json or history/case-ID-K.json. A state naming
 * anything else (a path out of the site) is not one this program wrote. */
static int site_file_name(const char *name) {
  static const char *const dirs[] = {"charts", "history", "runs"};
  const char *p = name;
  if (!strchr(name, '/')) {
    if (!name[0] || bs__is_dot(name) || !strncmp(name, MARKER, strlen(MARKER)))
      return 0;
    for (size_t i = 0; i < 3; i++)
      if (!strcmp(name, dirs[i]))
        return 0;
    for (; *p; p++) {
      unsigned char c = (unsigned char)*p;
      if (c <= ' ' || c == 0x7f || c == '\\')
        return 0;
    }
    return 1;
  }
  int chart = !strncmp(p, "charts/case-", 12);
  if (chart)
    p += 12;
  else if (!strncmp(p, "history/case-", 13))
    p += 13;
  else
    return 0;
  for (size_t i = 0; i < CASE_HASH; i++, p++)
    if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
      return 0;
  if (chart)
    return !strcmp(p, "-history.svg") || !strcmp(p, "-chain.svg");
  if (*p == '-') {
    size_t digits = strspn(++p, "0123456789");
    if (digits == 0 || digits > 20)
      return 0;
    p += digits;
  }
  return !strcmp(p, ".json");
}

/* Whether the site's directories are directories of its own (none a link
 * out of it, whose files a state cannot vouch for). */
static int own_dirs(const char *out) {
  static const char *const dirs[] = {"charts", "history", "runs"};
  for (size_t i = 0; i < 3; i++) {
    char *p = bs__path_join(out, dirs[i]);
    struct stat sb;
    int ok = p && (lstat(p, &sb) != 0 ? errno == ENOENT : S_ISDIR(sb.st_mode));
    free(p);
    if (!ok)
      return 0;
  }
  return 1;
}

/* Removes the file `rel` of the published site, never out of it: only a
 * name the site gives its files, and every directory on the way opened
 * from the site's own without following a link. */
static void unlink_in(const char *out, const char *rel) {
  if (!site_file_name(rel))
    return;
  int fd = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const char *p = rel;
  for (const char *sl; fd >= 0 && (sl = strchr(p, '/')); p = sl + 1) {
    char comp[64];
    size_t n = (size_t)(sl - p);
    int next = -1;
    if (n > 0 && n < sizeof comp) {
      memcpy(comp, p, n);
      comp[n] = '\0';
      if (!bs__is_dot(comp))
        next =
            openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    close(fd);
    fd = next;
  }
  if (fd >= 0) {
    unlinkat(fd, p, 0);
    close(fd);
  }
}

/* Reads the previous state; anything unexpected means "no usable state"
 * (a full build), never an error: the state is a cache. */
static void load_state(site *s) {
  char *path = bs__path_join(s->out, MARKER);
  char *data = NULL;
  size_t len = 0;
  bs_error ignore;
  if (!path || !own_dirs(s->out) ||
      bs__read_regular(path, BS__OPEN_NOFOLLOW, 0, &data, &len, &ignore) !=
          BS_OK) {
    free(path);
    return;
  }
  free(path);
  /* Last, the hash of all before it: any change to the state is seen. */
  char sum[BS__SHA256_HEXLEN + 1];
  if (len < SUM_LINE || memcmp(data + len - SUM_LINE, "sum ", 4) ||
      data[len - 1] != '\n') {
    free(data);
    return;
  }
  bs__sha256_hex(data, len - SUM_LINE, sum);
  if (memcmp(data + len - SUM_LINE + 4, sum, BS__SHA256_HEXLEN) ||
      !(s->prev_text = malloc(len + 1))) {
    free(data);
    return;
  }
  memcpy(s->prev_text, data, len + 1);
  s->prev_len = len;
  len -= SUM_LINE;
  data[len] = '\0';
  char *line = data;
  size_t cap = 0, fcap = 0;
  int ok = 0, lineno = 0;
  prev_run *cur = NULL;
  size_t *last = NULL; /* per case: the last run (+ 1) with a result */
  bs__strset seen_cases;
  bs__strset_init(&seen_cases);
  bs__buf ct;
  bs__buf_init(&ct, BS__CAP_SITE_STATE);
  for (char *nl; line && *line; line = nl ? nl + 1 : NULL) {
    nl = strchr(line, '\n');
    if (nl)
      *nl = '\0';
    if (++lineno == 1) {
      if (strcmp(line, STATE_MAGIC))
        goto bad;
      continue;
    }
    char *tok[20] = {0};
    size_t nt = tokens(line, tok, 20);
    if (nt == 1 && !strcmp(tok[0], "site")) {
      ok = 1;
    } else if (nt == 6 && !strcmp(tok[0], "run")) {
      if (s->nprev == cap) {
        prev_run *g = BS__GROW(s->prev, cap, s->nprev + 1, 64);
        if (!g)
          goto bad;
        s->prev = g;
      }
      cur = &s->prev[s->nprev];
      memset(cur, 0, sizeof *cur);
      cur->id = bs__strdup(tok[1]);
      cur->text_from = cur->text_to = nl ? (size_t)(nl + 1 - data) : len;
      s->nprev++;
      if (!cur->id || strlen(tok[2]) != BS__SHA256_HEXLEN)
        goto bad;
      memcpy(cur->key, tok[2], sizeof cur->key);
      cur->impl = get_hex(tok[3]);
      if (!cur->impl)
        goto bad;
      if (strcmp(tok[4], "-") && !(cur->no_report = get_hex(tok[4])))
        goto bad;
      if (strlen(tok[5]) != BS__SHA256_HEXLEN && strcmp(tok[5], "-"))
        goto bad;
      snprintf(cur->rkey, sizeof cur->rkey, "%s", tok[5]);
    } else if (nt == 4 && !strcmp(tok[0], "case")) {
      /* "case BENCHMARK DATASET SCALE": the next number of the table. */
      if (s->npcases == s->pccap) {
        state_case *g = BS__GROW(s->pcases, s->pccap, s->npcases + 1, 64);
        if (!g)
          goto bad;
        s->pcases = g;
      }
      state_case *c = &s->pcases[s->npcases];
      memset(c, 0, sizeof *c);
      s->npcases++;
      if (!(c->benchmark = get_hex(tok[1])) ||
          !(c->dataset = get_hex(tok[2])) || strlen(tok[3]) != BITS_CHARS ||
          !get_bits(tok[3], &c->scale) || !(c->scale >= 0))
        goto bad;
      /* Listed once: the result lines name a case by its number. */
      ct.len = 0;
      if (case_text(&ct, c->benchmark, c->dataset, c->scale) ||
          bs__strset_put(&seen_cases, ct.data, ct.len, 0, NULL) != 1)
        goto bad;
    } else if (nt == 6 && !strcmp(tok[0], "r") && cur) {
      /* "r CASE N FLAGS BLOCKS BITS": the case's number in the table,
       * the sample size, verdict + 1 (0: not compared) times 4 plus 2
       * for a significant regression plus 1 for a significant
       * improvement, the blocks compared, then median, interval and
       * delta_pct as four put_bits. */
      if (cur->nres == cur->cap) {
        result *g = BS__GROW(cur->res, cur->cap, cur->nres + 1, 8);
        if (!g)
          goto bad;
        cur->res = g;
      }
      result *r = &cur->res[cur->nres];
      memset(r, 0, sizeof *r);
      cur->nres++;
      cur->text_to = nl ? (size_t)(nl + 1 - data) : len;
      size_t flags;
      if (!parse_size(tok[1], &r->case_idx) || !parse_size(tok[2], &r->n) ||
          !parse_size(tok[3], &flags) || flags > 15 ||
          !parse_size(tok[4], &r->blocks) || strlen(tok[5]) != 4 * BITS_CHARS ||
          !get_bits(tok[5], &r->median) ||
          !get_bits(tok[5] + BITS_CHARS, &r->lo) ||
          !get_bits(tok[5] + 2 * BITS_CHARS, &r->hi) ||
          !get_bits(tok[5] + 3 * BITS_CHARS, &r->delta_pct))
        goto bad;
      r->has_hist = r->n > 0;
      r->has_cmp = flags >= 4;
      r->verdict = (int)(flags >> 2) - 1;
      r->sig = (flags & 2) != 0;
      r->imp = (flags & 1) != 0;
    } else if (nt == 4 && !strcmp(tok[0], "file")) {
      /* "-": a file a killed build may have replaced or left over. */
      if ((strlen(tok[2]) != BS__SHA256_HEXLEN && strcmp(tok[2], "-")) ||
          (strlen(tok[3]) != BS__SHA256_HEXLEN && strcmp(tok[3], "-")))
        goto bad;
      if (s->npfiles == fcap) {
        prev_file *g = BS__GROW(s->pfiles, fcap, s->npfiles + 1, 64);
        if (!g)
          goto bad;
        s->pfiles = g;
      }
      prev_file *f = &s->pfiles[s->npfiles];
      if (!site_file_name(tok[1]) || !(f->name = bs__strdup(tok[1])))
        goto bad;
      snprintf(f->hash, sizeof f->hash, "%s", tok[2]);
      snprintf(f->key, sizeof f->key, "%s", tok[3]);
      f->kept = 0;
      s->npfiles++;
    } else {
      goto bad;
    }
  }
  if (!ok)
    goto bad;
  /* The cases of the result lines, by their numbers (the table follows
   * the runs), each case once a run. */
  if (!(last = calloc(s->npcases ? s->npcases : 1, sizeof *last)))
    goto bad;
  for (size_t i = 0; i < s->nprev; i++) {
    for (size_t k = 0; k < s->prev[i].nres; k++) {
      result *r = &s->prev[i].res[k];
      if (r->case_idx >= s->npcases || last[r->case_idx] == i + 1)
        goto bad;
      last[r->case_idx] = i + 1;
      const state_case *c = &s->pcases[r->case_idx];
      if (!(r->benchmark = bs__strdup(c->benchmark)) ||
          !(r->dataset = bs__strdup(c->dataset)))
        goto bad;
      r->scale = c->scale;
      r->has_scale = r->scale > 0;
    }
  }
  free(data);
  free(last);
  bs__strset_release(&seen_cases);
  bs__buf_release(&ct);
  if (s->nprev)
    qsort(s->prev, s->nprev, sizeof *s->prev, cmp_prev_run);
  if (s->npfiles)
    qsort(s->pfiles, s->npfiles, sizeof *s->pfiles, cmp_prev_file);
  for (size_t i = 1; i < s->npfiles; i++)
    if (!strcmp(s->pfiles[i - 1].name, s->pfiles[i].name))
      goto bad_sorted;
  return;
bad:
  free(data);
  free(last);
  bs__strset_release(&seen_cases);
  bs__buf_release(&ct);
bad_sorted:
  prev_release(s);
  free(s->prev_text);
  s->prev_text = NULL;
}

static prev_run *find_prev(const site *s, const char *id) {
  prev_run key;
  key.id = (char *)id;
  return s->nprev
             ? bsearch(&key, s->prev, s->nprev, sizeof *s->prev, cmp_prev_run)
             : NULL;
}

static void stamps_release(site *s) {
  for (size_t i = 0; i < s->npseen; i++) {
    free(s->pseen[i].id);
    free(s->pseen[i].files);
  }
  free(s->pseen);
  s->pseen = NULL;
  s->npseen = 0;
}

/* Reads the stamps beside the state. Like the state, a cache: anything
 * unexpected means none (every file of a kept report is hashed). */
static void load_stamps(site *s) {
  char *path = bs__path_join(s->out, STAMPS);
  char *data = NULL;
  size_t len = 0;
  bs_error ignore;
  if (!path || bs__read_regular(path, BS__OPEN_NOFOLLOW, 0, &data, &len,
                                &ignore) != BS_OK) {
    free(path);
    return;
  }
  free(path);
  bs__sha256_hex(data, len, s->stamps_hash);
  size_t scap = 0;
  int lineno = 0;
  prev_seen *seen = NULL;
  uint64_t seen_dev = 0;
  char *line = data;
  for (char *nl; line && *line; line = nl ? nl + 1 : NULL) {
    nl = strchr(line, '\n');
    if (nl)
      *nl = '\0';
    if (++lineno == 1) {
      if (strcmp(line, STAMPS_MAGIC))
        goto bad;
      continue;
    }
    char *tok[8] = {0};
    size_t nt = tokens(line, tok, 8);
    if (nt == 4 && !strcmp(tok[0], "seen")) {
      /* "seen ID DEV MARKER": the stamps of the regular files of runs/ID
       * follow, in the order of its list of files, whose hash is MARKER. */
      if (s->npseen == scap) {
        prev_seen *g = BS__GROW(s->pseen, scap, s->npseen + 1, 16);
        if (!g)
          goto bad;
        s->pseen = g;
      }
      seen = &s->pseen[s->npseen];
      memset(seen, 0, sizeof *seen);
      s->npseen++;
      if (!(seen->id = bs__strdup(tok[1])) || !parse_u64(tok[2], &seen_dev) ||
          strlen(tok[3]) != BS__SHA256_HEXLEN)
        goto bad;
      memcpy(seen->marker, tok[3], sizeof seen->marker);
    } else if ((nt == 4 || (nt == 1 && !strcmp(tok[0], "-"))) && seen) {
      /* "INO SIZE MTIME_NS CTIME_NS", or "-" for a file read next time. */
      if (seen->n == seen->cap) {
        seen_stamp *g = BS__GROW(seen->files, seen->cap, seen->n + 1, 32);
        if (!g)
          goto bad;
        seen->files = g;
      }
      seen_stamp *k = &seen->files[seen->n++];
      memset(k, 0, sizeof *k);
      k->st.dev = seen_dev;
      if (nt == 4 &&
          (!parse_u64(tok[0], &k->st.ino) || !parse_u64(tok[1], &k->st.size) ||
           !parse_ll(tok[2], &k->st.mtime_ns) ||
           !parse_ll(tok[3], &k->st.ctime_ns)))
        goto bad;
      k->ok = nt == 4;
    } else {
      goto bad;
    }
  }
  free(data);
  if (s->npseen)
    qsort(s->pseen, s->npseen, sizeof *s->pseen, cmp_prev_seen);
  return;
bad:
  free(data);
  stamps_release(s);
  s->stamps_hash[0] = '\0';
}

/* Writes the stamps of this build's kept reports beside the new state
 * in the build directory, unless the published ones are the same: *write
 * is 1 when it did, 0 when they are the same, -1 when there are none
 * (the published ones go). */
static bs_status write_stamps(site *s, int *write, bs_error *err) {
  *write = 0;
  if (!s->seen.len) {
    *write = -1;
    return BS_OK;
  }
  bs__buf b;
  bs__buf_init(&b, BS__CAP_SITE_FILES);
  bs_status st = bs__buf_puts(&b, STAMPS_MAGIC "\n");
  if (!st)
    st = bs__buf_append(&b, s->seen.data ? s->seen.data : "", s->seen.len);
  if (st) {
    bs__buf_release(&b);
    return bs_error_set(err, st, NULL, 0, "out of memory");
  }
  char hash[BS__SHA256_HEXLEN + 1];
  bs__sha256_hex(b.data, b.len, hash);
  *write = strcmp(hash, s->stamps_hash) != 0;
  if (*write) {
    char *path = bs__path_join(s->tmp, STAMPS);
    st = path ? bs__write_file(path, b.data, b.len, 0, err)
              : bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    free(path);
  }
  bs__buf_release(&b);
  return st;
}

static const prev_seen *find_pseen(const site *s, const char *id) {
  prev_seen key;
  key.id = (char *)id;
  return s->npseen ? bsearch(&key, s->pseen, s->npseen, sizeof *s->pseen,
                             cmp_prev_seen)
                   : NULL;
}

static prev_file *find_pfile(const site *s, const char *name) {
  prev_file key;
  key.name = (char *)name;
  return s->npfiles ? bsearch(&key, s->pfiles, s->npfiles, sizeof *s->pfiles,
                              cmp_prev_file)
                    : NULL;
}

/* Whether the published site holds `rel` with these bytes (by hash) from
 * the previous build. The previous file is kept either way: it is part
 * of the new site, unchanged or replaced. */
static int unchanged(site *s, const char *rel, const char *hash) {
  prev_file *pf = find_pfile(s, rel);
  if (!pf)
    return 0;
  pf->kept = 1;
  if (strcmp(pf->hash, hash))
    return 0;
  char *path = bs__path_join(s->out, rel);
  int ok = path && bs__is_regular(path);
  free(path);
  return ok;
}

/* Ends a state of `len` bytes with the line of their hash. */
static bs_status put_sum(bs__buf *b, size_t len) {
  char sum[BS__SHA256_HEXLEN + 1];
  bs__sha256_hex(b->data ? b->data : "", len, sum);
  return bs__buf_printf(b, "sum %s\n", sum);
}

/* Starts the new state: its header, and its case table (which follows
 * the runs) with the previous table's entries in their order. */
static bs_status state_begin(site *s) {
  bs_status st = bs__buf_printf(&s->state, "%s\nsite\n", STATE_MAGIC);
  bs__buf t;
  bs__buf_init(&t, BS__CAP_SITE_STATE);
  for (size_t i = 0; i < s->npcases && !st; i++) {
    const state_case *c = &s->pcases[i];
    t.len = 0;
    st = case_text(&t, c->benchmark, c->dataset, c->scale);
    /* Every entry is written again, so that the copied result lines
     * keep their numbers; a case listed twice (never written so, but the
     * state is only a cache) is found by its first number. */
    if (!st && bs__strset_put(&s->ctab, t.data, t.len, s->nctab, NULL) < 0)
      st = BS_ENOMEM;
    if (!st)
      st = bs__buf_printf(&s->cases_text, "case %.*s\n", (int)t.len, t.data);
    s->nctab++;
  }
  bs__buf_release(&t);
  return st;
}

/* A result line; a case new to the table gets its line in cases_text,
 * which follows the runs (the result lines a later build copies hold
 * none). */
static bs_status state_result(site *s, const result *r) {
  bs__buf *b = &s->state;
  bs__buf t;
  bs__buf_init(&t, BS__CAP_SITE_STATE);
  bs_status st =
      case_text(&t, r->benchmark, r->dataset, r->has_scale ? r->scale : 0.0);
  int added = 0;
  size_t *num = st ? NULL : bs__strset_ref(&s->ctab, t.data, t.len, &added);
  if (!st && !num)
    st = BS_ENOMEM;
  size_t ci = 0;
  if (!st && added) {
    *num = s->nctab++;
    st = bs__buf_printf(&s->cases_text, "case %.*s\n", (int)t.len, t.data);
  }
  if (num)
    ci = *num;
  bs__buf_release(&t);
  char bits[4 * BITS_CHARS];
  put_bits(bits, r->has_hist ? r->median : 0.0);
  put_bits(bits + BITS_CHARS, r->has_hist ? r->lo : 0.0);
  put_bits(bits + 2 * BITS_CHARS, r->has_hist ? r->hi : 0.0);
  put_bits(bits + 3 * BITS_CHARS, r->has_cmp ? r->delta_pct : 0.0);
  int flags = (r->has_cmp ? r->verdict + 1 : 0) * 4 + (r->sig ? 2 : 0) +
              (r->imp ? 1 : 0);
  if (!st)
    st =
        bs__buf_printf(b, "r %zu %zu %d %zu %.*s\n", ci, r->has_hist ? r->n : 0,
                       flags, r->blocks, (int)sizeof bits, bits);
  return st;
}

static bs_status state_run(site *s, const srun *r) {
  bs__buf *b = &s->state;
  bs_status st = bs__buf_printf(b, "run %s %s ", r->ar->id, r->key);
  if (!st)
    st = put_hex(b, r->impl);
  if (!st)
    st = bs__buf_putc(b, ' ');
  if (!st)
    st = r->no_report ? put_hex(b, r->no_report) : bs__buf_putc(b, '-');
  if (!st)
    st = bs__buf_printf(b, " %s\n", r->report || r->no_report ? r->rkey : "-");
  if (!st && r->res_text)
    return bs__buf_append(b, r->res_text, r->res_len);
  for (size_t i = 0; i < r->nres && !st; i++)
    st = state_result(s, &r->res[i]);
  return st;
}

/* ---- Analysing a run ----------------------------------------------------- */

/* Puts a run's results in case order (benchsite/order.h). */
static bs_status order_results(result *res, size_t n) {
  if (n == 0)
    return BS_OK; /* a run of no cases has no array (res is NULL) */
  bs_case_key *keys = malloc((n ? n : 1) * sizeof *keys);
  result *sorted = malloc((n ? n : 1) * sizeof *sorted);
  if (!keys || !sorted) {
    free(keys);
    free(sorted);
    return BS_ENOMEM;
  }
  for (size_t i = 0; i < n; i++) {
    keys[i].benchmark = res[i].benchmark;
    keys[i].dataset = res[i].dataset;
    keys[i].has_scale = res[i].has_scale;
    keys[i].scale = res[i].scale;
    keys[i].id = i;
  }
  bs_case_order(keys, n);
  for (size_t i = 0; i < n; i++)
    sorted[i] = res[keys[i].id];
  memcpy(res, sorted, n * sizeof *res);
  free(keys);
  free(sorted);
  return BS_OK;
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

/* Reads a run's logs after checking them against their checksums: a
 * damaged archive stops the build instead of being published. */
static bs_status read_run(const site *s, const srun *r, bs_log *log,
                          bs_error *err) {
  bs_archive_verify_result vr;
  bs_archive_verify_result_init(&vr);
  bs_status st =
      bs_archive_read_run(bs_archive_dir(s->ar), r->ar->id, log, &vr, err);
  if (!st && vr.damaged)
    st = bs_error_set(err, BS_EINPUT, bs_archive_dir(s->ar), 0,
                      "%s; run 'benchsite archive verify --archive %s'",
                      vr.problems[0], bs_archive_dir(s->ar));
  bs_archive_verify_result_release(&vr);
  return st;
}

/* The run's analysis, as `benchsite report` makes it; kept going past
 * what stops a report, so the run's verdicts show even without one. */
static bs_status analyse_log(const site *s, const srun *r, const bs_log *log,
                             bs_analysis **an, bs_error *err) {
  const bs_manifest *mfs[1] = {r->mf};
  bs_analysis_options ao;
  bs_analysis_options_init(&ao);
  ao.seed = s->o->seed;
  ao.keep_going = 1;
  return bs_analyse(log, mfs, 1, &ao, an, err);
}

/* The run's report, as `benchsite report` makes it, into the build
 * directory's runs/ID/. A run that cannot have one (nothing to report, a
 * non-native comparison) gets the reason instead. */
static bs_status write_report(site *s, srun *r, bs_error *err) {
  bs_log *log = r->kept_log;
  bs_analysis *an = r->kept_an;
  char *dir = NULL;
  bs_status st = BS_OK;
  r->kept_log = NULL;
  r->kept_an = NULL;
  if (!an) {
    bs_log_free(log);
    if (!(log = bs_log_new()))
      return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    s->sum.reports_reanalysed++;
    if ((st = read_run(s, r, log, err)) ||
        (st = analyse_log(s, r, log, &an, err)))
      goto done;
  }
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
  ro.pool = s->pool;
  bs_error rerr;
  bs_error_clear(&rerr);
  bs_status rs = bs_report_write(an, dir, &ro, NULL, &rerr);
  if (rs == BS_EUSAGE || rs == BS_EINPUT || rs == BS_EMISMATCH) {
    char msg[1024];
    bs_error_format(&rerr, msg, sizeof msg);
    free(r->no_report);
    if (!(r->no_report = bs__strdup(msg)))
      st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  } else if (rs) {
    *err = rerr;
    st = rs;
  } else {
    r->report = 1;
    st = queue_file(s, rel, 0, 1, err);
  }
  s->sum.reports_built++;
done:
  free(dir);
  bs_analysis_free(an);
  bs_log_free(log);
  return st;
}

/* A run's results: per case the candidate's median with its interval and
 * the paired verdict (the confirmatory gate, as the report computes it).
 * Runs on any thread (see analyse_runs): it writes only r and err. */
/* What a run's analysis and log are kept in memory for its report at
 * most, all runs together: beyond it, a report analyses its log again. */
#define KEPT_MAX ((size_t)96 << 20)
/* A case's share of an analysis: the gate's 10 000 resampled medians,
 * kept for the report's chart, and about as much again. */
#define KEPT_PER_CASE ((size_t)2 * 10000 * sizeof(double))

/* Whether a case of run r is a significant regression. */
static int has_regression(const srun *r) {
  for (size_t c = 0; c < r->nres; c++)
    if (r->res[c].has_cmp && r->res[c].sig)
      return 1;
  return 0;
}

/* Keeps the analysis of run r (the log it points into too) for its report
 * when the run will surely have one (one of the newest --detail-runs, or
 * a significant regression) and the memory kept so far allows: a rough
 * count of the rows and the bootstrap distributions a report keeps. */
static void keep_for_report(const site *s, srun *r, bs_log **log,
                            bs_analysis **an, atomic_size_t *kept) {
  size_t i = (size_t)(r - s->runs), n = bs_archive_count(s->ar);
  if (!kept || !(i + s->o->detail_runs >= n || has_regression(r)))
    return;
  size_t need = bs_log_count(*log) * 2 * sizeof(bs_row) +
                bs_log_case_count(*log) * KEPT_PER_CASE;
  size_t cur = atomic_load(kept);
  do {
    if (need > KEPT_MAX || cur > KEPT_MAX - need)
      return;
  } while (!atomic_compare_exchange_weak(kept, &cur, cur + need));
  r->kept_log = *log;
  r->kept_an = *an;
  *log = NULL;
  *an = NULL;
}

static bs_status analyse_fresh(const site *s, srun *r, atomic_size_t *kept,
                               bs_error *err) {
  bs_status st = BS_OK;
  bs_log *log = bs_log_new();
  bs_analysis *an = NULL;
  double *x = NULL;
  size_t xcap = 0;
  if (!log)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  if ((st = read_run(s, r, log, err)) ||
      (st = analyse_log(s, r, log, &an, err)))
    goto done;
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
    res->has_scale = c->has_scale;
    res->scale = c->has_scale ? c->scale : 0.0;
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
  keep_for_report(s, r, &log, &an, kept);
done:
  free(x);
  bs_analysis_free(an);
  bs_log_free(log);
  return st;
}

/* The newest K runs, every run with a significant regression or an
 * acknowledgement and the newest run of each group get a full report. */
static void choose_detail(site *s) {
  size_t k = s->o->detail_runs;
  for (size_t i = 0; i < s->nruns; i++) {
    srun *r = &s->runs[i];
    r->detailed = i + k >= s->nruns || has_regression(r) || r->acked > 0;
  }
  for (size_t g = 0; g < s->ngroups; g++)
    for (size_t i = s->nruns; i-- > 0;)
      if (s->runs[i].group == g) {
        s->runs[i].detailed = 1;
        break;
      }
}

/* The next regular file of a report's list of files ("SIZE HASH PATH",
 * PATH escaped; "dir PATH" and "other PATH" are not): its hash and path
 * (NUL-free, not terminated) with *p moved past its line. 0 at the end. */
static int next_listed(const char **p, const char *end, const char **hash,
                       const char **path, size_t *plen) {
  while (*p < end) {
    const char *line = *p;
    const char *nl = memchr(line, '\n', (size_t)(end - line));
    const char *stop = nl ? nl : end;
    *p = nl ? nl + 1 : end;
    if (line[0] < '0' || line[0] > '9')
      continue;
    const char *sp = memchr(line, ' ', (size_t)(stop - line));
    if (!sp || stop - sp < BS__SHA256_HEXLEN + 3 ||
        sp[BS__SHA256_HEXLEN + 1] != ' ')
      continue;
    *hash = sp + 1;
    *path = sp + BS__SHA256_HEXLEN + 2;
    *plen = (size_t)(stop - *path);
    return 1;
  }
  return 0;
}

/* The files the previous build's stamps vouch for, from the report's
 * list (whose hash they were recorded with): sorted by path, as the list
 * is. A path the list escapes (a backslash or a control byte) is left to
 * be read. */
static bs_status known_files(const prev_seen *ps, const char *list, size_t len,
                             bs__known_file **out, size_t *n) {
  *out = NULL;
  *n = 0;
  bs__known_file *k = calloc(ps->n ? ps->n : 1, sizeof *k);
  if (!k)
    return BS_ENOMEM;
  const char *p = list, *end = list + len, *hash, *path;
  size_t plen;
  for (size_t i = 0; next_listed(&p, end, &hash, &path, &plen); i++) {
    if (i >= ps->n) {
      bs__known_free(k, *n); /* not the list they were recorded with */
      *n = 0;
      return BS_OK;
    }
    if (!ps->files[i].ok || memchr(path, '\\', plen))
      continue;
    if (!(k[*n].path = malloc(plen + 1))) {
      bs__known_free(k, *n);
      *n = 0;
      return BS_ENOMEM;
    }
    memcpy(k[*n].path, path, plen);
    k[*n].path[plen] = '\0';
    k[*n].stamp = ps->files[i].st;
    memcpy(k[*n].hash, hash, BS__SHA256_HEXLEN);
    k[*n].hash[BS__SHA256_HEXLEN] = '\0';
    (*n)++;
  }
  *out = k;
  return BS_OK;
}

/* Appends to the new stamps those of run id's report files: one line per
 * regular file of its list (hash `mhash`), in the list's order. */
static bs_status state_seen(site *s, const char *id, const char *mhash,
                            const char *list, size_t len,
                            const bs__known_file *k, size_t n) {
  if (!n)
    return BS_OK;
  uint64_t dev = k[0].stamp.dev;
  bs_status st = bs__buf_printf(&s->seen, "seen %s %llu %s\n", id,
                                (unsigned long long)dev, mhash);
  const char *p = list, *end = list + len, *hash, *path;
  size_t plen, j = 0;
  while (!st && next_listed(&p, end, &hash, &path, &plen)) {
    int c = 1;
    while (j < n && (c = strncmp(k[j].path, path, plen)) < 0)
      j++;
    if (j < n && c == 0 && k[j].path[plen] == '\0' && k[j].stamp.dev == dev &&
        !memcmp(k[j].hash, hash, BS__SHA256_HEXLEN))
      st = bs__buf_printf(&s->seen, "%llu %llu %lld %lld\n",
                          (unsigned long long)k[j].stamp.ino,
                          (unsigned long long)k[j].stamp.size,
                          k[j].stamp.mtime_ns, k[j].stamp.ctime_ns);
    else
      st = bs__buf_puts(&s->seen, "-\n");
  }
  return st;
}

/* Whether the published report of run id at `dir` is still what its
 * marker lists: the site never trusts its own output (a file deleted from
 * it, changed, or replaced by a link, means the report is built again).
 * A file is hashed unless its stamp is the one it had when the previous
 * build hashed it; the stamps go into the new state. */
static int report_intact(site *s, const char *id, const char *dir,
                         const char *marker, bs_status *st) {
  char *text = NULL;
  size_t len = 0;
  bs_error ign;
  int ok = 0;
  *st = BS_OK;
  if (bs__read_regular(marker, BS__OPEN_NOFOLLOW, (size_t)64 << 20, &text, &len,
                       &ign) == BS_OK) {
    const char *list = strstr(text, "\nfiles\n");
    if (list) {
      list += 7;
      size_t llen = len - (size_t)(list - text);
      char mhash[BS__SHA256_HEXLEN + 1];
      bs__sha256_hex(text, len, mhash);
      const prev_seen *ps = find_pseen(s, id);
      bs__known_file *known = NULL, *seen = NULL;
      size_t nknown = 0, nseen = 0;
      if (ps && !strcmp(ps->marker, mhash))
        *st = known_files(ps, list, llen, &known, &nknown);
      if (!*st)
        ok = bs__tree_matches_known(dir, ".benchsite-report", list, llen, known,
                                    nknown, s->stamp_before_ns, &seen, &nseen);
      if (ok && !*st)
        *st = state_seen(s, id, mhash, list, llen, seen, nseen);
      bs__known_free(known, nknown);
      bs__known_free(seen, nseen);
    }
  }
  free(text);
  return ok;
}

/* Keeps the published report of a detailed run when its inputs are
 * unchanged, else writes it again. */
static bs_status reports(site *s, bs_error *err) {
  for (size_t i = 0; i < s->nruns; i++) {
    srun *r = &s->runs[i];
    if (stage(s, "runs", i, s->nruns))
      return cancelled(err);
    run_key(s->report_key, r->ar->id, r->rkey);
    bs_status st = BS_OK;
    if (r->detailed) {
      prev_run *p = find_prev(s, r->ar->id);
      char rel[BS_ARCHIVE_ID_MAX + 32];
      snprintf(rel, sizeof rel, "runs/%s/.benchsite-report", r->ar->id);
      char *marker = s->out_exists ? bs__path_join(s->out, rel) : NULL;
      if (s->out_exists && !marker)
        return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
      int same = p && !strcmp(p->rkey, r->rkey);
      char *pub = marker ? bs__path_join(s->out, rel) : NULL;
      if (pub)
        pub[strlen(pub) - strlen("/.benchsite-report")] = '\0';
      bs_status ist = BS_OK;
      if (same && !p->no_report && marker && pub &&
          report_intact(s, r->ar->id, pub, marker, &ist)) {
        r->report = 1;
        p->kept = 1;
        s->sum.reports_reused++;
      } else if (same && p->no_report) {
        free(r->no_report);
        r->no_report = p->no_report;
        p->no_report = NULL;
        s->sum.reports_reused++;
      } else {
        st = write_report(s, r, err);
      }
      if (ist)
        st = bs_error_set(err, ist, NULL, 0, "out of memory");
      free(pub);
      free(marker);
    }
    if (!st && (st = state_run(s, r)))
      st = bs_error_set(err, st, NULL, 0, "out of memory");
    if (st)
      return st;
  }
  return BS_OK;
}

/* Takes the results of an unchanged run from the previous build. */
static int reuse(site *s, srun *r, prev_run *p) {
  if (!p || strcmp(p->key, r->key))
    return 0;
  r->impl = p->impl;
  r->res = p->res;
  r->nres = p->nres;
  /* The same results write the same lines: copied, not formatted. */
  if (s->prev_text && p->text_to > p->text_from) {
    r->res_text = s->prev_text + p->text_from;
    r->res_len = p->text_to - p->text_from;
  }
  p->impl = NULL;
  p->res = NULL;
  p->nres = 0;
  r->reused = 1;
  s->sum.analyses_reused++;
  return 1;
}

/* What the run's results count towards: verdicts, acknowledgements. */
static bs_status tally_run(site *s, srun *r, bs_error *err) {
  bs_status st;
  if ((st = order_results(r->res, r->nres)))
    return bs_error_set(err, st, NULL, 0, "out of memory");
  int native = bs_manifest_require_native(r->mf, NULL) == BS_OK;
  for (size_t k = 0; k < r->nres; k++) {
    result *res = &r->res[k];
    res->ack =
        bs_acks_find(s->acks, r->ar->commit, res->benchmark, res->dataset);
    if (!res->has_cmp)
      continue;
    r->compared++;
    if (res->ack)
      r->acked++;
    else if (res->sig && native)
      r->open++; /* no performance claims for a target not native */
    else if (res->verdict == BS_VERDICT_SLOWER)
      r->slower++;
    else if (res->verdict == BS_VERDICT_FASTER)
      r->faster++;
    else
      r->equivalent++;
    s->sum.acknowledged += res->ack != NULL;
  }
  return BS_OK;
}

/* The runs to analyse afresh, computed ahead on worker threads (ahead.h):
 * task t is the run todo[t]; its outcome lands in slot t % window, which
 * task t + window reuses only after the consumer has moved past t. */
typedef struct fresh_slot {
  bs_status st;
  bs_error err;
} fresh_slot;

typedef struct fresh_tasks {
  const site *s;
  const size_t *todo;
  fresh_slot *slots;
  size_t window;
  atomic_size_t kept; /* bytes of analyses kept for reports */
} fresh_tasks;

static void fresh_task(void *ctx, size_t t) {
  fresh_tasks *ft = ctx;
  fresh_slot *f = &ft->slots[t % ft->window];
  bs_error_clear(&f->err);
  f->st = analyse_fresh(ft->s, &ft->s->runs[ft->todo[t]], &ft->kept, &f->err);
}

/* The CPUs a build may use: --jobs, else the online CPUs. */
static size_t build_jobs(const site *s) {
  if (s->o->jobs)
    return s->o->jobs;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (size_t)n : 1;
}

/* Every run's results, in history order. The manifests are read and the
 * unchanged runs reused first; the rest are analysed by --jobs threads
 * (no chart is rendering yet: the reports come after) a few runs ahead of
 * this one, which takes them in order, so that output, and the error a
 * bad run stops the build with, are those of one run after another: the
 * first failure in history order wins, whichever thread met it. */
static bs_status analyse_runs(site *s, bs_error *err) {
  size_t n = bs_archive_count(s->ar);
  s->runs = calloc(n ? n : 1, sizeof *s->runs);
  size_t *todo = malloc((n ? n : 1) * sizeof *todo);
  if (!s->runs || !todo) {
    free(todo);
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  }
  size_t ntodo = 0;
  for (size_t i = 0; i < n; i++) {
    srun *r = &s->runs[i];
    r->ar = bs_archive_run_at(s->ar, i);
    s->nruns++;
    r->mf = bs__archive_manifest(s->ar, i);
    r->baseline_commit = bs_manifest_get(r->mf, "baseline_commit");
    run_key(s->analysis_key, r->ar->id, r->key);
    if (!reuse(s, r, find_prev(s, r->ar->id)))
      todo[ntodo++] = i;
  }
  /* A few runs ahead per thread keep every thread busy while this one
   * catches up; what is done and not yet taken stays that bounded. */
  size_t jobs = build_jobs(s), window = jobs < ntodo / 4 ? 4 * jobs : ntodo;
  if (window == 0)
    window = 1;
  fresh_slot *slots = calloc(window, sizeof *slots);
  fresh_tasks ft = {s, todo, slots, window, 0};
  bs__ahead *a = NULL;
  if (!slots || (ntodo && !(a = bs__ahead_start(ntodo, jobs - 1, window,
                                                fresh_task, &ft)))) {
    free(slots);
    free(todo);
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  }
  bs_status st = BS_OK;
  for (size_t i = 0, t = 0; i < n && !st; i++) {
    if (stage(s, "runs", i, n)) {
      st = cancelled(err);
    } else if (t < ntodo && todo[t] == i) {
      bs__ahead_wait(a, t);
      const fresh_slot *f = &slots[t++ % window];
      if ((st = f->st) && err)
        *err = f->err;
      else if (!st)
        s->sum.analyses_built++;
    }
    if (!st)
      st = tally_run(s, &s->runs[i], err);
  }
  /* Runs still being analysed finish into their own srun (freed with the
   * site) before the build goes on or fails. */
  bs__ahead_stop(a);
  free(todo);
  free(slots);
  return st;
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

/* Puts the site's cases, found in byte order, in case order
 * (benchsite/order.h), each with the scale of its newest result, and
 * points every result at its case's new place. */
static bs_status order_cases(site *s) {
  size_t n = s->ncases;
  bs_case_key *keys = malloc((n ? n : 1) * sizeof *keys);
  scase *sorted = malloc((n ? n : 1) * sizeof *sorted);
  size_t *where = malloc((n ? n : 1) * sizeof *where);
  if (!keys || !sorted || !where) {
    free(keys);
    free(sorted);
    free(where);
    return BS_ENOMEM;
  }
  for (size_t c = 0; c < n; c++) {
    const scase *sc = &s->cases[c];
    const result *newest = sc->npts ? sc->pts[sc->npts - 1].r : NULL;
    keys[c].benchmark = sc->benchmark;
    keys[c].dataset = sc->dataset;
    keys[c].has_scale = newest && newest->has_scale;
    keys[c].scale = newest ? newest->scale : 0.0;
    keys[c].id = c;
  }
  bs_case_order(keys, n);
  for (size_t i = 0; i < n; i++) {
    sorted[i] = s->cases[keys[i].id];
    where[keys[i].id] = i;
  }
  memcpy(s->cases, sorted, n * sizeof *sorted);
  for (size_t i = 0; i < s->nruns; i++)
    for (size_t k = 0; k < s->runs[i].nres; k++)
      s->runs[i].res[k].case_idx = where[s->runs[i].res[k].case_idx];
  free(keys);
  free(sorted);
  free(where);
  return BS_OK;
}

/* Sorts cases [0, n) and drops repeats; the new count. */
static size_t unique_cases(scase *v, size_t n) {
  if (n)
    qsort(v, n, sizeof *v, cmp_case);
  size_t u = 0;
  for (size_t i = 0; i < n; i++) {
    if (u && !cmp_case(&v[u - 1], &v[i]))
      continue;
    v[u++] = v[i];
  }
  return u;
}

static bs_status collect_cases(site *s, bs_error *err) {
  size_t cap = 0;
  for (size_t i = 0; i < s->nruns; i++)
    cap += s->runs[i].nres;
  s->cases = calloc(cap ? cap : 1, sizeof *s->cases);
  if (!s->cases)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  /* Distinct (benchmark, dataset) pairs, byte order. Runs mostly measure
   * the cases of the run before: only a run's cases not found yet are
   * added and sorted in, not every result of the archive. */
  for (size_t i = 0; i < s->nruns; i++) {
    size_t known = s->ncases;
    for (size_t k = 0; k < s->runs[i].nres; k++) {
      const result *r = &s->runs[i].res[k];
      scase key;
      key.benchmark = r->benchmark;
      key.dataset = r->dataset;
      if (known && bsearch(&key, s->cases, known, sizeof *s->cases, cmp_case))
        continue;
      s->cases[s->ncases].benchmark = r->benchmark;
      s->cases[s->ncases].dataset = r->dataset;
      s->ncases++;
    }
    if (s->ncases > known)
      s->ncases = unique_cases(s->cases, s->ncases);
  }
  for (size_t c = 0; c < s->ncases; c++) {
    scase *sc = &s->cases[c];
    bs__sha256 h;
    unsigned char d[BS__SHA256_LEN];
    char hex[BS__SHA256_HEXLEN + 1];
    if (!sc->benchmark || !sc->dataset)
      return bs_error_set(err, BS_EINTERNAL, NULL, 0, "lost a case");
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
  /* Points: each case's results in history order, counted first. */
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
      sc->npts++;
    }
  }
  for (size_t c = 0; c < s->ncases; c++) {
    scase *sc = &s->cases[c];
    if (!(sc->pts = malloc((sc->npts ? sc->npts : 1) * sizeof *sc->pts)))
      return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    sc->npts = 0;
  }
  for (size_t i = 0; i < s->nruns; i++) {
    for (size_t k = 0; k < s->runs[i].nres; k++) {
      result *r = &s->runs[i].res[k];
      scase *sc = &s->cases[r->case_idx];
      sc->pts[sc->npts].run = i;
      sc->pts[sc->npts].r = r;
      sc->npts++;
    }
  }
  if (order_cases(s))
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
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

/* The chains and creep of a case (its links: the runs that compared it). */
static bs_status chain_case(site *s, scase *sc, bs_error *err) {
  sc->first_shown = sc->npts > SHOWN_RUNS ? sc->npts - SHOWN_RUNS : 0;
  bs_history_link *links = calloc(sc->npts ? sc->npts : 1, sizeof *links);
  bs_history_point *pts = calloc(sc->npts ? sc->npts : 1, sizeof *pts);
  size_t *at = calloc(sc->npts ? sc->npts : 1, sizeof *at);
  bs_status st = BS_OK;
  if (!links || !pts || !at) {
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto done;
  }
  size_t n = 0;
  for (size_t i = 0; i < sc->npts; i++) {
    const point *p = &sc->pts[i];
    const srun *r = &s->runs[p->run];
    if (!r->ar || !p->r->has_cmp || !isfinite(p->r->delta_pct))
      continue;
    links[n].commit = r->ar->commit;
    links[n].baseline_commit = r->baseline_commit;
    links[n].group = r->group;
    links[n].delta_pct = p->r->delta_pct;
    links[n].significant_regression = p->r->sig;
    links[n].significant_improvement = p->r->imp;
    links[n].acknowledged = p->r->ack != NULL;
    at[n++] = i;
  }
  if ((st = bs_history_chain(links, n, pts, &sc->creep, err)))
    goto done;
  for (size_t k = 0; k < n; k++) {
    point *p = &sc->pts[at[k]];
    p->link = 1;
    p->chain = pts[k].chain;
    p->index = pts[k].chained_index;
  }
  s->sum.creeping += sc->creep.creeping != 0;
done:
  free(links);
  free(pts);
  free(at);
  return st;
}

/* ---- Formatting ---------------------------------------------------------- */

/* A commit as an axis label: 7 hex digits of a hash, else the id clipped. */
static void short_commit(char *buf, size_t n, const char *commit) {
  size_t len = strlen(commit), hex = strspn(commit, "0123456789abcdefABCDEF");
  if (len >= 12 && hex == len)
    snprintf(buf, n, "%.7s", commit);
  else
    bs__clip(buf, n, commit, 12);
}

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
    if (r < 0 || (size_t)r >= n - used) {
      buf[bs__utf8_trim(buf, strlen(buf))] = '\0'; /* not inside UTF-8 */
      break;
    }
    used += (size_t)r;
  }
}

/* ---- Charts -------------------------------------------------------------- */

/* Adds a number or a string to a chart's fingerprint. */
static void fp_num(bs__sha256 *h, double v) {
  bs__sha256_update(h, &v, sizeof v); /* a cache key: this machine's bytes */
}

static void fp_size(bs__sha256 *h, size_t v) {
  bs__sha256_update(h, &v, sizeof v);
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

/* The x axis of a case's history charts: the shown runs at 1..m, some
 * of them labelled with their commit, the newest always. */
static void run_axis(const site *s, const scase *sc, bs_plot *p,
                     bs__sha256 *h) {
  size_t from = sc->first_shown, m = sc->npts - from;
  size_t step = m > XTICS ? (m + XTICS - 1) / XTICS : 1;
  static const char xlabel[] = "commit of the run, oldest to newest";
  fp_str(h, xlabel);
  fp_num(h, (double)m);
  if (p) {
    bs_plot_xlabel(p, xlabel);
    bs_plot_xrange(p, 0.5, (double)(m ? m : 1) + 0.5);
  }
  for (size_t i = 0; i < m; i++) {
    /* Every step-th run, and the newest unless a label is close by. */
    if (i % step && !(i + 1 == m && (step <= 2 || i % step > step / 2)))
      continue;
    char label[64];
    short_commit(label, sizeof label,
                 s->runs[sc->pts[from + i].run].ar->commit);
    fp_str(h, label);
    fp_num(h, (double)(i + 1));
    if (p)
      bs_plot_xtic(p, (double)(i + 1), label);
  }
}

/* Describes the chained-change chart of a case (see describe_history). */
static bs_status describe_chain(const site *s, const scase *sc, bs_plot *p,
                                bs__sha256 *h, bs_error *err) {
  size_t cap = sc->npts ? sc->npts : 1, from = sc->first_shown;
  char name[512], clipped[300], title[600];
  bs__case_label(name, sizeof name, sc->benchmark, sc->dataset);
  bs__clip(clipped, sizeof clipped, name, BS__NAME_CHARS);
  snprintf(title, sizeof title, "%s: chained change by run", clipped);
  static const char ylabel[] = "chained change since the chain began (%)";
  double *cols = malloc(2 * cap * sizeof *cols);
  if (!cols)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  fp_str(h, "chain/1");
  fp_str(h, s->render_key);
  fp_str(h, sc->chart_ci);
  fp_str(h, title);
  double lo = -BS_HISTORY_CREEP_PCT, hi = BS_HISTORY_CREEP_PCT;
  for (size_t i = from; i < sc->npts; i++) {
    if (!sc->pts[i].link)
      continue;
    double v = 100 * (sc->pts[i].index - 1);
    lo = fmin(lo, v);
    hi = fmax(hi, v);
  }
  double pad = (hi - lo) * 0.08;
  fp_num(h, lo - pad);
  fp_num(h, hi + pad);
  if (p) {
    bs_plot_chart(p, sc->chart_ci, CHART_W, CHART_H);
    bs_plot_title(p, title);
    bs_plot_ylabel(p, ylabel);
    bs_plot_key(p, BS_KEY_BELOW);
    bs_plot_yrange(p, lo - pad, hi + pad);
    bs_plot_style zero = style(BS__C_LIGHT, BS_MARK_NONE);
    zero.line_width = 1;
    bs_plot_hline(p, 0, &zero, NULL);
    bs_plot_style gate = style(BS__C_VERMILLION, BS_MARK_NONE);
    gate.dashed = 1;
    gate.line_width = 1;
    bs_plot_hline(p, BS_HISTORY_CREEP_PCT, &gate, NULL);
    bs_plot_hline(p, -BS_HISTORY_CREEP_PCT, &gate, NULL);
    bs_plot_keyentry(p, BS_PLOT_LINES,
                     "creep threshold (\xc2\xb1"
                     "3 %)",
                     &gate);
  }
  run_axis(s, sc, p, h);
  /* One line per chain, in the colour of its group. */
  size_t titled = 0;
  for (size_t i = from; i < sc->npts; i++) {
    const point *pt = &sc->pts[i];
    if (!pt->link ||
        (i > from && sc->pts[i - 1].link && sc->pts[i - 1].chain == pt->chain))
      continue;
    /* Is this the first shown point of its chain? */
    int seen = 0;
    for (size_t j = from; j < i && !seen; j++)
      seen = sc->pts[j].link && sc->pts[j].chain == pt->chain;
    if (seen)
      continue;
    size_t m = 0;
    for (size_t j = i; j < sc->npts; j++) {
      const point *q = &sc->pts[j];
      if (!q->link || q->chain != pt->chain)
        continue;
      cols[m] = (double)(j - from + 1);
      cols[cap + m] = 100 * (q->index - 1);
      m++;
    }
    size_t g = s->runs[pt->run].group;
    bs_plot_style sty = style(group_colors[g % NGROUP_STYLES],
                              group_markers[g % NGROUP_STYLES]);
    sty.line_width = 1.2;
    const char *key = titled++ ? NULL : "chained change, a line per chain";
    const double *c2[2] = {cols, cols + cap};
    if (p)
      bs_plot_series(p, BS_PLOT_LINESPOINTS, key, &sty, c2, m);
    fp_str(h, key);
    fp_num(h, (double)g);
    for (size_t k = 0; k < m; k++) {
      fp_num(h, cols[k]);
      fp_num(h, cols[cap + k]);
    }
  }
  free(cols);
  return BS_OK;
}

/* Describes the history chart of a case: into `p` when not NULL, and
 * always into the fingerprint `h` (everything that shapes the SVG: texts,
 * ranges, styles by group and kind, every number). */
static bs_status describe_history(const site *s, const scase *sc, bs_plot *p,
                                  bs__sha256 *h, bs_error *err) {
  double maxv = 0;
  size_t cap = sc->npts ? sc->npts : 1, from = sc->first_shown;
  for (size_t i = from; i < sc->npts; i++) {
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
  double *cols = malloc(4 * cap * sizeof *cols);
  if (!cols)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  fp_str(h, "history/1");
  fp_str(h, s->render_key);
  fp_str(h, sc->chart);
  fp_str(h, title);
  fp_str(h, ylabel);
  fp_num(h, maxv * f);
  if (p) {
    bs_plot_chart(p, sc->chart, CHART_W, CHART_H);
    bs_plot_title(p, title);
    bs_plot_ylabel(p, ylabel);
    bs_plot_key(p, BS_KEY_BELOW);
    if (maxv > 0)
      bs_plot_yrange(p, 0, maxv * f * 1.08);
  }
  run_axis(s, sc, p, h);
  /* Per group: the medians with their intervals, joined by a line. */
  for (size_t g = 0; g < s->ngroups; g++) {
    size_t m = 0;
    for (size_t i = from; i < sc->npts; i++) {
      const point *pt = &sc->pts[i];
      if (!pt->r->has_hist || s->runs[pt->run].group != g)
        continue;
      cols[m] = (double)(i - from + 1);
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
    for (size_t i = from; i < sc->npts; i++) {
      const result *r = sc->pts[i].r;
      if (!r->has_hist || !r->has_cmp)
        continue;
      int kind = r->ack                            ? 1
                 : r->sig                          ? 0
                 : r->verdict == BS_VERDICT_FASTER ? 2
                                                   : -1;
      if (kind != k)
        continue;
      cols[m] = (double)(i - from + 1);
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

/* The alt text of a chained-change chart. */
static char *chain_alt(const scase *sc) {
  char name[512], pct[64];
  bs__case_label(name, sizeof name, sc->benchmark, sc->dataset);
  if (!sc->creep.has_chain)
    return bs__strdupf("Chained change of %s: no run compared it.", name);
  return bs__strdupf(
      "Chained change of %s: along its newest chain the %zu latest paired "
      "changes multiply to %s%s.",
      name, sc->creep.links,
      bs__fmt_pct_signed(pct, sizeof pct, sc->creep.creep_pct),
      sc->creep.creeping ? ", a creep no single gate caught" : "");
}

typedef bs_status (*describe_fn)(const site *s, const scase *sc, bs_plot *p,
                                 bs__sha256 *h, bs_error *err);

/* Queues a chart of a case into `plot`, or links the previous build's SVG
 * when the chart's fingerprint is unchanged. */
static bs_status case_chart(site *s, scase *sc, const char *file,
                            describe_fn describe, bs_plot *plot, size_t *queued,
                            bs_error *err) {
  bs__sha256 h;
  bs__sha256_init(&h);
  bs_status st = describe(s, sc, NULL, &h, err);
  if (st)
    return st;
  unsigned char d[BS__SHA256_LEN];
  char hash[BS__SHA256_HEXLEN + 1], rel[128];
  bs__sha256_final(&h, d);
  bs__sha256_tohex(d, hash);
  snprintf(rel, sizeof rel, "charts/%s", file);
  if ((st = bs__buf_printf(&s->files, "file %s %s -\n", rel, hash)))
    return bs_error_set(err, st, NULL, 0, "out of memory");
  if (unchanged(s, rel, hash)) {
    s->sum.charts_reused++;
    return BS_OK;
  }
  bs__sha256_init(&h);
  if ((st = describe(s, sc, plot, &h, err)) ||
      (st = queue_file(s, rel, RANK_LEAF, 0, err)))
    return st;
  (*queued)++;
  return BS_OK;
}

static bs_status history_charts(site *s, scase *sc, bs_plot *plot,
                                size_t *queued, bs_error *err) {
  snprintf(sc->chart, sizeof sc->chart, "case-%s-history.svg", sc->id);
  snprintf(sc->chart_ci, sizeof sc->chart_ci, "case-%s-chain.svg", sc->id);
  if (!(sc->alt = history_alt(s, sc)) || !(sc->alt_ci = chain_alt(sc)))
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  bs_status st =
      case_chart(s, sc, sc->chart, describe_history, plot, queued, err);
  if (!st)
    st = case_chart(s, sc, sc->chart_ci, describe_chain, plot, queued, err);
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
  if (r->report)
    bs_tval_set_strf(t, "report", "runs/%s/index.html", r->ar->id);
  else if (r->no_report)
    bs_tval_set_str(t, "no_report", r->no_report);
  else
    bs_tval_set_bool(t, "compact", 1);
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

/* A case's creep, as the index and its history page state it. */
static void creep_fields(bs_tval *t, const scase *sc) {
  char buf[64];
  if (!sc->creep.has_chain)
    return;
  bs_tval *c = bs_tval_set_obj(t, "creep");
  bs_tval_set_bool(c, "flagged", sc->creep.creeping);
  bs_tval_set_str(c, "pct",
                  bs__fmt_pct_signed(buf, sizeof buf, sc->creep.creep_pct));
  bs_tval_set_strf(c, "links", "%zu", sc->creep.links);
  bs_tval_set_strf(c, "chain", "%zu", sc->creep.chain + 1);
}

/* A commit as "commit" (in full, for titles and the run page) and
 * "commit_short": a hexadecimal id longer than 12 digits cut to 12, as
 * git abbreviates it, so that a 40-digit id does not push a table's
 * verdict off the screen; any other text stays whole. */
static void set_commit(bs_tval *t, const char *commit) {
  size_t n = strlen(commit), hex = strspn(commit, "0123456789abcdefABCDEF");
  bs_tval_set_str(t, "commit", commit);
  if (hex == n && n > 12)
    bs_tval_set_strf(t, "commit_short", "%.12s", commit);
  else
    bs_tval_set_str(t, "commit_short", commit);
}

/* The link to the run before or after on a run page. */
static void neighbour(bs_tval *root, const char *which, const srun *r) {
  bs_tval *t = bs_tval_set_obj(root, which);
  bs_tval_set_strf(t, "href", "run-%s.html", r->ar->id);
  set_commit(t, r->ar->commit);
}

static bs_status emit_file_key(site *s, const char *file, const char *data,
                               size_t len, int rank, const char *key,
                               bs_error *err);

/* Whether the published site holds `rel` made from inputs with this key
 * by the previous build: then it stays as it is, unread and unrendered,
 * and this build lists it again. */
static bs_status keep_keyed(site *s, const char *rel, const char *key,
                            int *kept, bs_error *err) {
  *kept = 0;
  prev_file *pf = find_pfile(s, rel);
  if (!pf || strcmp(pf->key, key) || !strcmp(pf->hash, "-"))
    return BS_OK;
  char *path = bs__path_join(s->out, rel);
  int ok = path && bs__is_regular(path);
  free(path);
  if (!ok)
    return BS_OK;
  pf->kept = 1;
  *kept = 1;
  s->sum.pages_reused++;
  bs_status st =
      bs__buf_printf(&s->files, "file %s %s %s\n", rel, pf->hash, key);
  return st ? bs_error_set(err, st, NULL, 0, "out of memory") : BS_OK;
}

/* Adds the footer's seed, renders the page (freeing d) and writes it
 * unless the previous build has the same bytes, which are then linked;
 * `key` (or NULL) names the inputs it was made from. */
static bs_status emit_page_key(site *s, const char *tname, bs_tdata *d,
                               const char *file, int rank, const char *key,
                               bs_error *err) {
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
  s->sum.pages_rendered++;
  if (st)
    return st;
  st = emit_file_key(s, file, html, len, rank, key, err);
  free(html);
  return st;
}

static bs_status emit_page(site *s, const char *tname, bs_tdata *d,
                           const char *file, int rank, bs_error *err) {
  return emit_page_key(s, tname, d, file, rank, NULL, err);
}

/* Writes `file` of the new site into the build directory and queues it,
 * unless the published site has the same bytes already. */
static bs_status emit_file_key(site *s, const char *file, const char *data,
                               size_t len, int rank, const char *key,
                               bs_error *err) {
  bs_status st = BS_OK;
  char hash[BS__SHA256_HEXLEN + 1];
  bs__sha256_hex(data, len, hash);
  if (unchanged(s, file, hash)) {
    s->sum.pages_reused++;
  } else {
    char *to = bs__path_join(s->tmp, file);
    st = to ? bs__write_file(to, data, len, 0, err)
            : bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    free(to);
    if (!st)
      st = queue_file(s, file, rank, 0, err);
    s->sum.pages_written++;
  }
  if (!st && (st = bs__buf_printf(&s->files, "file %s %s %s\n", file, hash,
                                  key ? key : "-")))
    st = bs_error_set(err, st, NULL, 0, "out of memory");
  return st;
}

static bs_status emit_file(site *s, const char *file, const char *data,
                           size_t len, int rank, bs_error *err) {
  return emit_file_key(s, file, data, len, rank, NULL, err);
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
  bs_tval_set_strf(sum, "creeping", "%zu", s->sum.creeping);
  bs_tval_set_bool(sum, "has_creeping", s->sum.creeping > 0);
  if (s->nruns) {
    /* The newest run by date, but never one dated more than a day ahead
     * (a forged date would head the site for ever). */
    size_t ni = s->nruns - 1;
    while (ni > 0 && bs_archive_date_in_future(s->runs[ni].ar->date))
      ni--;
    const srun *newest = &s->runs[ni];
    bs_tval *nw = bs_tval_set_obj(sum, "newest");
    set_commit(nw, newest->ar->commit);
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
    set_commit(t, r->ar->commit);
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
    creep_fields(t, sc);
  }
  return emit_page(s, "site_index", d, "index.html", RANK_INDEX, err);
}

/* What a run page shows comes from: the build, templates and seed (the
 * report key), the run's analysis, its place (number, group, tier, the
 * runs beside it, which also decide its environment status) and the
 * acknowledgements of its cases. */
static void run_page_key(const site *s, size_t i,
                         char out[BS__SHA256_HEXLEN + 1]) {
  const srun *r = &s->runs[i];
  bs__sha256 h;
  bs__sha256_init(&h);
  fp_str(&h, "run page");
  fp_str(&h, s->report_key);
  fp_str(&h, r->key);
  fp_str(&h, r->ar->id);
  fp_size(&h, i);
  fp_size(&h, r->group);
  fp_size(&h, (size_t)r->detailed * 4 + (size_t)r->report * 2 +
                  (r->no_report != NULL));
  fp_str(&h, r->no_report);
  fp_str(&h, i > 0 ? s->runs[i - 1].ar->id : NULL);
  fp_str(&h, i + 1 < s->nruns ? s->runs[i + 1].ar->id : NULL);
  fp_size(&h, s->o->seed);
  for (size_t k = 0; k < r->nres; k++) {
    const bs_ack *a = r->res[k].ack;
    fp_str(&h, a ? a->reason : NULL);
    fp_size(&h, a ? (size_t)a->line + 1 : 0);
  }
  finish_key(&h, out);
}

/* Whether the published site has `rel`. */
static int published(const site *s, const char *rel) {
  if (!s->out_exists)
    return 0;
  char *path = bs__path_join(s->out, rel);
  struct stat sb;
  int ok = path && lstat(path, &sb) == 0;
  free(path);
  return ok;
}

/* Whether the published site has the page of run i. */
static int run_published(const site *s, size_t i) {
  char file[BS_ARCHIVE_ID_MAX + 16];
  snprintf(file, sizeof file, "run-%s.html", s->runs[i].ar->id);
  return published(s, file);
}

/* Whether the published site has the page of case c. */
static int case_published(const site *s, size_t c) {
  char file[64];
  snprintf(file, sizeof file, "case-%s.html", s->cases[c].id);
  return published(s, file);
}

/* Whether run i's new page links a page the published site does not have
 * yet (a new case's page, a new run beside it). */
static int links_unpublished(const site *s, size_t i) {
  const srun *r = &s->runs[i];
  for (size_t k = 0; k < r->nres; k++)
    if (!case_published(s, r->res[k].case_idx))
      return 1;
  return (i > 0 && !run_published(s, i - 1)) ||
         (i + 1 < s->nruns && !run_published(s, i + 1));
}

/* The data of run i's page; `first` leaves out the links to what the
 * published site does not have yet. NULL when out of memory. */
static bs_tdata *run_page_data(const site *s, size_t i, int first) {
  const srun *r = &s->runs[i];
  bs_tdata *d = bs_tdata_new();
  if (!d)
    return NULL;
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
  set_commit(t, r->ar->commit);
  bs_tval_set_str(t, "date", r->ar->date);
  bs_tval_set_strf(t, "number", "%zu", i + 1);
  bs_tval_set_strf(t, "group", "%zu", r->group + 1);
  if (r->impl && r->impl[0])
    bs_tval_set_str(t, "impl", r->impl);
  run_links(t, r);
  run_counts(t, r);
  env_status(s, i, t);
  if (i > 0 && (!first || run_published(s, i - 1)))
    neighbour(root, "prev", &s->runs[i - 1]);
  if (i + 1 < s->nruns && (!first || run_published(s, i + 1)))
    neighbour(root, "next", &s->runs[i + 1]);
  bs_tval *env = bs_tval_set_list(root, "environment");
  for (size_t k = 0; k < bs_manifest_count(r->mf); k++) {
    bs_tval *e = bs_tval_push_obj(env);
    bs_tval_set_str(e, "key", bs_manifest_key(r->mf, k));
    bs_tval_set_str(e, "value", bs_manifest_value(r->mf, k));
    bs_tval_set_bool(e, "more", k + 1 < bs_manifest_count(r->mf));
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
    bs_tval_set_bool(c, "linked", !first || case_published(s, res->case_idx));
    result_fields(c, res);
    bs_tval_set_bool(c, "regression", res->has_cmp && res->sig);
    if (res->ack) {
      bs_tval *a = bs_tval_set_obj(c, "ack");
      bs_tval_set_str(a, "reason", res->ack->reason);
      bs_tval_set_strf(a, "line", "%ld", res->ack->line);
    }
  }
  return d;
}

/* A run's page, unless the published one was made from the same inputs.
 * A new page that links a page the published site does not have yet
 * (its new case's page, which links it back, or a new run beside it) is
 * published twice: first without those links, among the new files, then
 * whole, after every new page. */
static bs_status run_page(site *s, size_t i, bs_error *err) {
  const srun *r = &s->runs[i];
  const char *tname = r->detailed ? "site_run" : "site_run_compact";
  char key[BS__SHA256_HEXLEN + 1], file[BS_ARCHIVE_ID_MAX + 16];
  snprintf(file, sizeof file, "run-%s.html", r->ar->id);
  run_page_key(s, i, key);
  int kept;
  bs_status st = keep_keyed(s, file, key, &kept, err);
  if (st || kept)
    return st;
  int twice = s->out_exists && !published(s, file) && links_unpublished(s, i);
  if (twice) {
    bs_tdata *d = run_page_data(s, i, 1);
    if (!d)
      return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    bs_tval_set_strf(bs_tdata_root(d), "seed", "%llu",
                     (unsigned long long)s->o->seed);
    char *html = NULL, first[BS_ARCHIVE_ID_MAX + 32];
    size_t len = 0;
    if ((st = bs_tdata_status(d)))
      st = bs_error_set(err, st, NULL, 0, "out of memory");
    else
      st = bs_templates_render(s->tpl, tname, bs_tdata_root(d), &html, &len,
                               err);
    bs_tdata_free(d);
    s->sum.pages_rendered++;
    snprintf(first, sizeof first, ".first-%s", file);
    char *to = st ? NULL : bs__path_join(s->tmp, first);
    if (!st)
      st = to ? bs__write_file(to, html, len, 0, err)
              : bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    free(to);
    free(html);
    if (!st)
      st = queue_file(s, file, RANK_RUN, 0, err);
    if (!st && !(s->queue[s->nqueue - 1].src = bs__strdup(first)))
      st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    if (st)
      return st;
  }
  bs_tdata *d = run_page_data(s, i, 0);
  if (!d)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  size_t before = s->nqueue;
  st = emit_page_key(s, tname, d, file, RANK_RUN, key, err);
  if (!st && twice && s->nqueue > before)
    s->queue[s->nqueue - 1].fresh = 0; /* after the new pages */
  return st;
}

/* One run of a case's history JSON, on one line, without the spaces the
 * other JSON outputs put after ":" and "," (it is most of the site that
 * grows with the archive). */
static bs_status json_point(bs__buf *b, const site *s, const point *p) {
  const srun *r = &s->runs[p->run];
  const result *res = p->r;
  bs_status st = bs__buf_puts(b, "{\"id\":");
  if (!st)
    st = bs__json_string(b, r->ar->id);
  if (!st)
    st = bs__buf_puts(b, ",\"commit\":");
  if (!st)
    st = bs__json_string(b, r->ar->commit);
  if (!st)
    st = bs__buf_puts(b, ",\"baseline_commit\":");
  if (!st)
    st = r->baseline_commit ? bs__json_string(b, r->baseline_commit)
                            : bs__buf_puts(b, "null");
  if (!st)
    st = bs__buf_puts(b, ",\"date\":");
  if (!st)
    st = bs__json_string(b, r->ar->date);
  if (!st)
    st = bs__buf_printf(b, ",\"group\":%zu,\"median_us\":", r->group + 1);
  if (!st)
    st = bs__json_number(b, res->has_hist ? res->median : (double)NAN);
  if (!st)
    st = bs__buf_puts(b, ",\"ci_low_us\":");
  if (!st)
    st = bs__json_number(b, res->has_hist ? res->lo : (double)NAN);
  if (!st)
    st = bs__buf_puts(b, ",\"ci_high_us\":");
  if (!st)
    st = bs__json_number(b, res->has_hist ? res->hi : (double)NAN);
  if (!st)
    st = bs__buf_puts(b, ",\"delta_pct\":");
  if (!st)
    st = bs__json_number(b, res->has_cmp ? res->delta_pct : (double)NAN);
  if (!st)
    st = bs__buf_printf(b, ",\"significant_regression\":%s,\"chain\":",
                        res->has_cmp && res->sig ? "true" : "false");
  if (!st)
    st = p->link ? bs__buf_printf(b, "%zu", p->chain) : bs__buf_puts(b, "null");
  if (!st)
    st = bs__buf_puts(b, ",\"chained_index\":");
  if (!st)
    st = bs__json_number(b, p->link ? p->index : (double)NAN);
  if (!st)
    st = bs__buf_putc(b, '}');
  return st;
}

/* Points [from, to) of a case as the lines of a "runs" array. */
static bs_status json_points(bs__buf *b, const site *s, const scase *sc,
                             size_t from, size_t to) {
  bs_status st = bs__buf_puts(b, "\"runs\": [");
  for (size_t i = from; i < to && !st; i++) {
    st = bs__buf_puts(b, i > from ? ",\n" : "\n");
    if (!st)
      st = json_point(b, s, &sc->pts[i]);
  }
  if (!st)
    st = bs__buf_puts(b, "]}\n");
  return st;
}

/* What points [from, to) of a case's history JSON are made from. */
static void points_key(const site *s, const scase *sc, size_t from, size_t to,
                       char out[BS__SHA256_HEXLEN + 1]) {
  bs__sha256 h;
  bs__sha256_init(&h);
  fp_str(&h, "history points");
  fp_str(&h, s->report_key);
  fp_str(&h, sc->id);
  fp_size(&h, from);
  fp_size(&h, to);
  for (size_t i = from; i < to; i++) {
    const point *p = &sc->pts[i];
    const result *r = p->r;
    fp_str(&h, s->runs[p->run].ar->id);
    fp_size(&h, s->runs[p->run].group);
    fp_size(&h, (size_t)r->has_hist * 8 + (size_t)r->has_cmp * 4 +
                    (size_t)r->sig * 2 + (size_t)p->link);
    fp_num(&h, r->median);
    fp_num(&h, r->lo);
    fp_num(&h, r->hi);
    fp_num(&h, r->delta_pct);
    fp_size(&h, p->chain);
    fp_num(&h, p->index);
  }
  finish_key(&h, out);
}

/* The published history JSON `file` into *old (malloc'ed, or NULL), and
 * whether its bytes are the ones the state lists (pf) and end as
 * json_points ends them. */
static int read_published_json(const site *s, const char *file,
                               const prev_file *pf, char **old, size_t *len) {
  char *path = bs__path_join(s->out, file);
  bs_error ign;
  int ok = path && bs__read_regular(path, BS__OPEN_NOFOLLOW, (size_t)1 << 30,
                                    old, len, &ign) == BS_OK;
  free(path);
  if (!ok)
    return 0;
  char hash[BS__SHA256_HEXLEN + 1];
  bs__sha256_hex(*old, *len, hash);
  return !strcmp(hash, pf->hash) && *len > 3 &&
         !memcmp(*old + *len - 3, "]}\n", 3);
}

/* The chunk `file` of points [from, to) when the published one holds
 * [from, to - 1) made from the same inputs (the common change: one run
 * moved out of the newest SHOWN_RUNS): its bytes with the new point
 * appended, which is what json_points writes, without formatting the
 * rest again. *done is 0 when the published chunk is anything else. */
static bs_status append_chunk(site *s, const scase *sc, const char *file,
                              size_t from, size_t to, const char *key,
                              bs__buf *b, int *done, bs_error *err) {
  *done = 0;
  if (to - from < 2)
    return BS_OK;
  prev_file *pf = find_pfile(s, file);
  char before[BS__SHA256_HEXLEN + 1];
  if (!pf || !strcmp(pf->hash, "-"))
    return BS_OK;
  points_key(s, sc, from, to - 1, before);
  if (strcmp(pf->key, before))
    return BS_OK;
  char *old = NULL;
  size_t len = 0;
  int ok = read_published_json(s, file, pf, &old, &len);
  bs_status st = BS_OK;
  if (ok) {
    b->len = 0;
    st = bs__buf_append(b, old, len - 3);
    if (!st)
      st = bs__buf_puts(b, ",\n");
    if (!st)
      st = json_point(b, s, &sc->pts[to - 1]);
    if (!st)
      st = bs__buf_puts(b, "]}\n");
    if (st)
      st = bs_error_set(err, st, NULL, 0, "out of memory");
    else
      st = emit_file_key(s, file, b->data, b->len, RANK_LEAF, key, err);
    *done = !st;
  }
  free(old);
  return st;
}

/* The lines of points [from, to) of a case's history JSON after its
 * header (in b, ending in "\"runs\": [") when the published file holds
 * points [a, b) made from the same inputs with a <= from <= a + 1 and
 * to - 1 <= b <= to (the same runs, or the window moved on by the one new
 * run): its lines for those, unformatted, and json_point for the rest.
 * *done is 0 when the published file is anything else. */
static bs_status reuse_points(site *s, const scase *sc, const char *file,
                              size_t from, size_t to, bs__buf *b, int *done,
                              bs_error *err) {
  *done = 0;
  prev_file *pf = find_pfile(s, file);
  if (!pf || !strcmp(pf->hash, "-") || to <= from)
    return BS_OK;
  size_t a = 0, e = 0;
  int found = 0;
  for (int c = 0; c < 3 && !found; c++) {
    /* The same range first: what a build with nothing new finds. */
    a = c == 1 && from > 0 ? from - 1 : from;
    e = c == 0 ? to : to - 1;
    if ((c == 1 && from == 0) || e <= a)
      continue;
    char key[BS__SHA256_HEXLEN + 1];
    points_key(s, sc, a, e, key);
    found = !strcmp(key, pf->key);
  }
  if (!found)
    return BS_OK;
  char *old = NULL;
  size_t len = 0;
  int ok = read_published_json(s, file, pf, &old, &len);
  /* Its lines: the header, then one point a line (JSON strings hold no
   * raw newline), each but the last ending in ",", the last in "]}". */
  const char *p = ok ? memchr(old, '\n', len) : NULL;
  const char *end = old + len;
  size_t i = a;
  bs_status st = BS_OK;
  size_t start = b->len;
  while (p && p + 1 < end && !st) {
    const char *line = p + 1;
    const char *nl = memchr(line, '\n', (size_t)(end - line));
    if (!nl)
      break;
    size_t n = (size_t)(nl - line);
    int last = nl + 1 == end;
    if (n < (last ? 2u : 1u) || line[n - (last ? 2 : 1)] != (last ? ']' : ','))
      break;
    if (i >= from) {
      st = bs__buf_puts(b, i > from ? ",\n" : "\n");
      if (!st)
        st = bs__buf_append(b, line, n - (last ? 2 : 1));
    }
    i++;
    p = nl;
    if (last)
      break;
  }
  ok = ok && !st && i == e && p && p + 1 == end;
  for (; ok && i < to && !st; i++) {
    st = bs__buf_puts(b, i > from ? ",\n" : "\n");
    if (!st)
      st = json_point(b, s, &sc->pts[i]);
  }
  if (ok && !st)
    st = bs__buf_puts(b, "]}\n");
  free(old);
  if (st)
    return bs_error_set(err, st, NULL, 0, "out of memory");
  if (!ok)
    b->len = start;
  *done = ok;
  return BS_OK;
}

/* history/case-ID.json: the newest SHOWN_RUNS runs of a case; the older
 * ones in history/case-ID-K.json, CHUNK_RUNS runs each counted from the
 * oldest, so a full chunk never changes when runs are added. */
static bs_status history_json(site *s, const scase *sc, bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, BS__CAP_JSON);
  bs_status st = BS_OK;
  char file[96];
  size_t older = sc->first_shown;
  size_t nchunks = (older + CHUNK_RUNS - 1) / CHUNK_RUNS;
  for (size_t k = 0; k < nchunks && !st; k++) {
    size_t from = k * CHUNK_RUNS;
    size_t to = from + CHUNK_RUNS < older ? from + CHUNK_RUNS : older;
    char key[BS__SHA256_HEXLEN + 1];
    int kept;
    snprintf(file, sizeof file, "history/case-%s-%zu.json", sc->id, k);
    points_key(s, sc, from, to, key);
    if ((st = keep_keyed(s, file, key, &kept, err)) ||
        (!kept &&
         (st = append_chunk(s, sc, file, from, to, key, &b, &kept, err))))
      break;
    if (kept)
      continue;
    b.len = 0;
    st = bs__buf_puts(&b, "{\"schema\": \"benchsite.history-chunk/1\", ");
    if (!st)
      st = json_points(&b, s, sc, from, to);
    if (st)
      st = bs_error_set(err, st, NULL, 0, "out of memory");
    else
      st = emit_file_key(s, file, b.data, b.len, RANK_LEAF, key, err);
  }
  if (st)
    goto done;
  b.len = 0;
  st = bs__buf_puts(&b, "{\"schema\": \"benchsite.history/1\", "
                        "\"benchmark\": ");
  if (!st)
    st = bs__json_string(&b, sc->benchmark);
  if (!st)
    st = bs__buf_puts(&b, ", \"dataset\": ");
  if (!st)
    st = bs__json_string(&b, sc->dataset);
  if (!st)
    st = bs__buf_printf(&b, ", \"creeping\": %s, \"creep_pct\": ",
                        sc->creep.creeping ? "true" : "false");
  if (!st)
    st = bs__json_number(&b, sc->creep.has_chain ? sc->creep.creep_pct
                                                 : (double)NAN);
  if (!st)
    st = bs__buf_puts(&b, ", \"older\": [");
  for (size_t k = 0; k < nchunks && !st; k++)
    st = bs__buf_printf(&b, "%s\"case-%s-%zu.json\"", k ? ", " : "", sc->id, k);
  if (!st)
    st = bs__buf_puts(&b, "], ");
  snprintf(file, sizeof file, "history/case-%s.json", sc->id);
  /* Listed with the key of its points, by which the next build knows
   * which of its lines it can take as they are. */
  char key[BS__SHA256_HEXLEN + 1];
  size_t head = b.len;
  int reused = 0;
  points_key(s, sc, older, sc->npts, key);
  if (!st && (st = bs__buf_puts(&b, "\"runs\": [")) == BS_OK &&
      (st = reuse_points(s, sc, file, older, sc->npts, &b, &reused, err)))
    goto done;
  if (!st && !reused) {
    b.len = head;
    st = json_points(&b, s, sc, older, sc->npts);
  }
  if (st)
    st = bs_error_set(err, st, NULL, 0, "out of memory");
  else
    st = emit_file_key(s, file, b.data, b.len, RANK_LEAF, key, err);
done:
  bs__buf_release(&b);
  return st;
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
  bs_tval *fci = bs_tval_set_obj(root, "chain_chart");
  bs_tval_set_strf(fci, "src", "charts/%s", sc->chart_ci);
  bs_tval_set_str(fci, "alt", sc->alt_ci);
  bs_tval_set_strf(fci, "width", "%d", CHART_W);
  bs_tval_set_strf(fci, "height", "%d", CHART_H);
  bs_tval_set_str(fci, "caption",
                  "The paired changes of consecutive runs multiplied along "
                  "a chain: a run continues the chain when its baseline "
                  "commit is the commit of the run before it in the same "
                  "environment, and an acknowledged change starts the "
                  "product again. Unlike the medians above, this does not "
                  "move when the machine gets faster or slower.");
  creep_fields(root, sc);
  bs_tval_set_strf(root, "json", "history/case-%s.json", sc->id);
  bs_tval_set_strf(root, "shown", "%zu", sc->npts - sc->first_shown);
  bs_tval_set_bool(root, "truncated", sc->first_shown > 0);
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
  for (size_t i = sc->first_shown; i < sc->npts; i++) {
    const point *pt = &sc->pts[i];
    const srun *r = &s->runs[pt->run];
    const result *res = pt->r;
    bs_tval *t = bs_tval_push_obj(rows);
    if (pt->link) {
      bs_tval_set_strf(t, "chain", "%zu", pt->chain + 1);
      char buf[64];
      bs_tval_set_str(
          t, "chained",
          bs__fmt_pct_signed(buf, sizeof buf, 100 * (pt->index - 1)));
    }
    bs_tval_set_strf(t, "number", "%zu", pt->run + 1);
    bs_tval_set_str(t, "date", r->ar->date);
    set_commit(t, r->ar->commit);
    bs_tval_set_strf(t, "href", "run-%s.html", r->ar->id);
    bs_tval_set_strf(t, "group", "%zu", r->group + 1);
    if (i > sc->first_shown && s->runs[sc->pts[i - 1].run].group != r->group)
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
  bs_status st = emit_page(s, "site_case", d, file, RANK_CASE, err);
  return st ? st : history_json(s, sc, err);
}

/* ---- Output directory ---------------------------------------------------- */

/* Renames one queued entry of the build directory into the published
 * site. A report directory that exists is exchanged in one step where the
 * system can (the old one lands in the build directory). */
static bs_status publish_one(site *s, const pending *q, bs_error *err) {
  char *from = bs__path_join(s->tmp, q->src ? q->src : q->rel),
       *to = bs__path_join(s->out, q->rel);
  bs_status st = BS_OK;
  if (!from || !to) {
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto done;
  }
  if (q->dir && !q->fresh) {
#if defined(__linux__) && defined(RENAME_EXCHANGE)
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE) == 0)
      goto done;
#endif
    size_t n = strlen(from) + 8;
    char *aside = malloc(n);
    if (!aside) {
      st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
      goto done;
    }
    snprintf(aside, n, "%s.old", from);
    if (rename(to, aside) != 0 && errno != ENOENT)
      st = bs_error_set(err, BS_EIO, to, 0, "cannot move the old report: %s",
                        strerror(errno));
    free(aside);
    if (st)
      goto done;
  }
  if (rename(from, to) != 0)
    st = bs_error_set(err, BS_EIO, to, 0, "cannot rename into place: %s",
                      strerror(errno));
done:
  free(from);
  free(to);
  return st;
}

static bs_status ensure_dir(const char *parent, const char *name,
                            bs_error *err) {
  char *p = bs__path_join(parent, name);
  if (!p)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  bs_status st = BS_OK;
  if (mkdir(p, 0755) != 0 && errno != EEXIST)
    st = bs_error_set(err, BS_EIO, p, 0, "cannot create directory: %s",
                      strerror(errno));
  free(p);
  return st;
}

/* A directory of the published site: a link in its place goes (the link,
 * not what it points to), so nothing moves out of the site through it. */
static bs_status ensure_own_dir(const char *out, const char *name,
                                bs_error *err) {
  char *p = bs__path_join(out, name);
  struct stat sb;
  if (p && lstat(p, &sb) == 0 && S_ISLNK(sb.st_mode) && unlink(p) != 0) {
    bs_status st = bs_error_set(err, BS_EIO, p, 0, "cannot remove a link: %s",
                                strerror(errno));
    free(p);
    return st;
  }
  free(p);
  return ensure_dir(out, name, err);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The queued paths, sorted (for lookups). NULL when out of memory. */
static char **queued_names(const site *s) {
  char **v = malloc((s->nqueue ? s->nqueue : 1) * sizeof *v);
  if (!v)
    return NULL;
  for (size_t i = 0; i < s->nqueue; i++)
    v[i] = s->queue[i].rel;
  if (s->nqueue)
    qsort(v, s->nqueue, sizeof *v, cmp_str);
  return v;
}

static int is_queued(char **v, size_t n, const char *rel) {
  return n && bsearch(&rel, v, n, sizeof *v, cmp_str) != NULL;
}

/* Publishes the state of the site while files move: the new state, with
 * "-" for every file and report being replaced, plus the previous files
 * the new site drops (so a later build removes them). */
static bs_status write_transition(site *s, bs_error *err) {
  char **names = queued_names(s);
  bs__buf b;
  bs__buf_init(&b, BS__CAP_SITE_STATE);
  bs_status st = names ? BS_OK : BS_ENOMEM;
  const char *p = s->state.data ? s->state.data : "";
  const char *end = p + s->body_len; /* not its "sum" line */
  while (!st && p < end) {
    if (strncmp(p, "file ", 5) && strncmp(p, "run ", 4)) {
      /* Results and the like stay as they are: a stretch of such lines
       * (most of the state) is copied at once. */
      const char *q = p;
      while (q < end && strncmp(q, "file ", 5) && strncmp(q, "run ", 4)) {
        const char *nl = strchr(q, '\n');
        q = nl ? nl + 1 : q + strlen(q);
      }
      st = bs__buf_append(&b, p, (size_t)(q - p));
      if (!st && q[-1] != '\n')
        st = bs__buf_putc(&b, '\n');
      p = q;
      continue;
    }
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    char line[4096];
    if (len >= sizeof line) {
      st = bs__buf_append(&b, p, len);
    } else {
      memcpy(line, p, len);
      line[len] = '\0';
      char *last = strrchr(line, ' ');
      int dirty = 0;
      if (!strncmp(line, "file ", 5) && (last = strchr(line + 5, ' '))) {
        /* "file NAME HASH KEY" becomes "file NAME - -". */
        *last = '\0';
        dirty = is_queued(names, s->nqueue, line + 5);
        *last = ' ';
        if (dirty) {
          st = bs__buf_append(&b, line, (size_t)(last - line));
          if (!st)
            st = bs__buf_puts(&b, " - -\n");
          p = nl ? nl + 1 : p + len;
          continue;
        }
      } else if (!strncmp(line, "run ", 4) && last) {
        char rel[BS_ARCHIVE_ID_MAX + 8];
        size_t idlen = strcspn(line + 4, " ");
        snprintf(rel, sizeof rel, "runs/%.*s", (int)idlen, line + 4);
        dirty = is_queued(names, s->nqueue, rel);
      }
      if (dirty) {
        st = bs__buf_append(&b, line, (size_t)(last - line));
        if (!st)
          st = bs__buf_puts(&b, " -");
      } else {
        st = bs__buf_append(&b, line, len);
      }
    }
    if (!st)
      st = bs__buf_putc(&b, '\n');
    p = nl ? nl + 1 : p + len;
  }
  for (size_t i = 0; i < s->npfiles && !st; i++)
    if (!s->pfiles[i].kept)
      st = bs__buf_printf(&b, "file %s - -\n", s->pfiles[i].name);
  if (!st)
    st = put_sum(&b, b.len);
  free(names);
  if (st) {
    bs__buf_release(&b);
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  }
  char rel[64];
  snprintf(rel, sizeof rel, "%s.transition", MARKER);
  char *path = bs__path_join(s->tmp, rel);
  st = path ? bs__write_file(path, b.data ? b.data : "", b.len, 0, err)
            : bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  bs__buf_release(&b);
  if (!st) {
    char *to = bs__path_join(s->out, MARKER);
    if (!to)
      st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    else if (rename(path, to) != 0)
      st = bs_error_set(err, BS_EIO, to, 0, "cannot rename into place: %s",
                        strerror(errno));
    free(to);
  }
  free(path);
  return st;
}

/* Removes the reports the new site no longer has: runs/ holds one per
 * detailed run, so this looks at a few dozen entries. */
static void sweep_reports(const site *s) {
  char *runs = bs__path_join(s->out, "runs");
  char **names = NULL;
  size_t n = 0;
  bs_error ignore;
  if (!runs || bs__list_dir(runs, not_dots, &names, &n, &ignore)) {
    free(runs);
    return;
  }
  char **keep = malloc((s->nruns ? s->nruns : 1) * sizeof *keep);
  size_t nk = 0;
  for (size_t i = 0; keep && i < s->nruns; i++)
    if (s->runs[i].report)
      keep[nk++] = (char *)s->runs[i].ar->id;
  if (keep && nk)
    qsort(keep, nk, sizeof *keep, cmp_str);
  for (size_t i = 0; keep && i < n; i++) {
    if (is_queued(keep, nk, names[i]))
      continue;
    /* Moved out of the site in one step first: a kill while its files
     * go must not leave a half-deleted report in the published site. */
    char *p = bs__path_join(runs, names[i]);
    char *aside = bs__strdupf("%s/.swept-%s", s->tmp, names[i]);
    if (p && aside && rename(p, aside) == 0)
      bs__remove_tree(aside);
    else if (p)
      bs__remove_tree(p);
    free(aside);
    free(p);
  }
  free(keep);
  bs__strlist_free(names, n);
  free(runs);
}

/* Publishes the new site. A first build renames the whole build directory
 * into place. Otherwise only what changed moves into the published site,
 * one rename each, in an order that keeps every link resolving at every
 * moment: new files before replaced ones, each set by rank (charts,
 * reports and history chunks, then run pages, then case pages and their
 * history, then the index); then the files the new site no longer has are
 * removed, and the state, written last, records the new site. */
static bs_status publish(site *s, bs_error *err) {
  bs_status st = BS_OK;
  if (!s->out_exists) {
    return bs_output_dir_commit(s->od, err);
  }
  static const char *const dirs[] = {"charts", "history", "runs"};
  for (size_t i = 0; i < 3 && !st; i++)
    st = ensure_own_dir(s->out, dirs[i], err);
  int quiet = s->quiet;
  /* While files move, the published state calls every one that moves or
   * goes "-" (unknown): a build killed half-way leaves a state the next
   * build can trust. */
  if (!st && !quiet)
    st = write_transition(s, err);
  for (int fresh = 1; fresh >= 0 && !st; fresh--)
    for (int rank = RANK_LEAF; rank <= RANK_INDEX && !st; rank++)
      for (size_t i = 0; i < s->nqueue && !st; i++)
        if (s->queue[i].fresh == fresh && s->queue[i].rank == rank)
          st = publish_one(s, &s->queue[i], err);
  if (st)
    return st;
  for (size_t i = 0; i < s->npfiles; i++) {
    if (s->pfiles[i].kept)
      continue;
    unlink_in(s->out, s->pfiles[i].name);
  }
  sweep_reports(s);
  pending marker = {(char *)MARKER, NULL, RANK_INDEX, 0, 0};
  if ((!quiet && (st = publish_one(s, &marker, err))) || !s->write_stamps)
    return st;
  if (s->write_stamps < 0) {
    char *p = bs__path_join(s->out, STAMPS);
    if (p)
      unlink(p);
    free(p);
    return BS_OK;
  }
  /* Last: stamps older than the state's files still tell the truth about
   * the files they name (a file with another stamp is read). */
  pending stamps = {(char *)STAMPS, NULL, RANK_INDEX, 0, 0};
  return publish_one(s, &stamps, err);
}

/* Whether this build already emitted `rel`. */
static int emitted(const site *s, const char *rel) {
  size_t n = strlen(rel);
  for (const char *p = s->files.data; p && *p;) {
    if (!strncmp(p, "file ", 5) && !strncmp(p + 5, rel, n) && p[5 + n] == ' ')
      return 1;
    const char *nl = strchr(p, '\n');
    p = nl ? nl + 1 : NULL;
  }
  return 0;
}

/* Copies the regular files of `dir` into the site: the assets (visible
 * names) or the user's static files (dot files too, and never in place of
 * a file of the site). */
static bs_status copy_files(site *s, const char *dir, int user, bs_error *err) {
  char **names;
  size_t n;
  bs_status st =
      bs__list_dir(dir, user ? not_dots : not_hidden, &names, &n, err);
  if (st)
    return st;
  for (size_t i = 0; i < n && !st; i++) {
    char *from = bs__path_join(dir, names[i]);
    if (!from) {
      st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
      break;
    }
    if (bs__is_regular(from)) {
      if (user &&
          (!strncmp(names[i], MARKER, strlen(MARKER)) ||
           !strcmp(names[i], "charts") || !strcmp(names[i], "history") ||
           !strcmp(names[i], "runs") || emitted(s, names[i]))) {
        st = bs_error_set(err, BS_EUSAGE, from, 0,
                          "a static file may not replace a file of the site");
      } else {
        char *data = NULL;
        size_t len = 0;
        if (!(st = bs_read_file(from, 0, &data, &len, err)))
          st = emit_file(s, names[i], data ? data : "", len, RANK_LEAF, err);
        free(data);
      }
    }
    free(from);
  }
  bs__strlist_free(names, n);
  return st;
}

/* ---- The build ----------------------------------------------------------- */

static void site_release(site *s) {
  for (size_t i = 0; i < s->nruns; i++) {
    srun *r = &s->runs[i];
    free(r->impl);
    free(r->no_report);
    results_free(r->res, r->nres);
    bs_analysis_free(r->kept_an);
    bs_log_free(r->kept_log);
  }
  free(s->runs);
  for (size_t c = 0; c < s->ncases; c++) {
    free(s->cases[c].pts);
    free(s->cases[c].alt);
    free(s->cases[c].alt_ci);
  }
  free(s->cases);
  free(s->groups);
  for (size_t i = 0; i < s->nqueue; i++) {
    free(s->queue[i].rel);
    free(s->queue[i].src);
  }
  free(s->queue);
  prev_release(s);
  stamps_release(s);
  free(s->prev_text);
  bs__buf_release(&s->state);
  bs__strset_release(&s->ctab);
  bs__buf_release(&s->cases_text);
  bs__buf_release(&s->files);
  bs__buf_release(&s->seen);
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
  bs__strset_init(&s.ctab);
  bs__buf_init(&s.cases_text, BS__CAP_SITE_STATE);
  bs__buf_init(&s.seen, BS__CAP_SITE_FILES);
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
  if ((st = bs__check_apart(out_dir, "--out", archive_dir, "the archive",
                            err)) ||
      (st =
           bs_output_dir_open(out_dir, "--out", "site", MARKER, 0, &s.od, err)))
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
      (st = bs_templates_load(s.tpl, "site_run_compact", err)) ||
      (st = bs_templates_load(s.tpl, "site_case", err)))
    goto done;
  if ((st = make_keys(&s, err)))
    goto done;
  {
    struct timespec now;
    if (clock_gettime(CLOCK_REALTIME, &now) == 0)
      s.stamp_before_ns =
          ((long long)now.tv_sec - 1) * 1000000000LL + (long long)now.tv_nsec;
  }
  if (s.out_exists && !o->full)
    load_state(&s);
  if (s.prev_text)
    load_stamps(&s);

  if ((st = bs_output_dir_start(s.od, err)))
    goto done;
  s.tmp = bs_output_dir_path(s.od);
  static const char *const dirs[] = {"charts", "history", "runs"};
  for (size_t i = 0; i < 3 && !st; i++)
    st = ensure_dir(s.tmp, dirs[i], err);
  if (st)
    goto done;

  /* Charts: one pool of --jobs gnuplot processes for the whole build. */
  bs_plot_run pr;
  memset(&pr, 0, sizeof pr);
  pr.gnuplot = o->gnuplot;
  pr.jobs = o->jobs;
  if (!(s.pool = bs_plot_pool_new(&pr))) {
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto done;
  }
  if ((st = state_begin(&s))) {
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
  choose_detail(&s);
  if ((st = reports(&s, err)))
    goto done;
  if (stage(&s, "runs", s.nruns, s.nruns)) {
    st = cancelled(err);
    goto done;
  }
  if ((st = collect_cases(&s, err)))
    goto done;
  for (size_t c = 0; c < s.ncases; c++)
    if ((st = drift(&s, &s.cases[c], err)) ||
        (st = chain_case(&s, &s.cases[c], err)))
      goto done;

  /* Charts: describe all, render the changed ones. */
  char *charts = bs__path_join(s.tmp, "charts");
  if (!charts) {
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto done;
  }
  size_t queued = 0;
  if (!(plot = bs_plot_new())) {
    free(charts);
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto done;
  }
  for (size_t c = 0; c < s.ncases && !st; c++)
    st = history_charts(&s, &s.cases[c], plot, &queued, err);
  if (!st && queued) {
    if (stage(&s, "charts", 0, queued)) {
      st = cancelled(err);
    } else {
      st = bs_plot_pool_submit(s.pool, plot, charts, NULL, NULL, err);
      plot = NULL;
    }
  }
  free(charts);
  if (st)
    goto done;
  s.sum.charts_rendered = queued;

  /* Pages, assets and the user's static files. */
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
  if ((st = copy_files(&s, o->assets_dir, 0, err)) ||
      (o->static_dir && (st = copy_files(&s, o->static_dir, 1, err))))
    goto done;
  if ((st = bs__buf_append(&s.state, s.cases_text.data ? s.cases_text.data : "",
                           s.cases_text.len)) ||
      (st = bs__buf_append(&s.state, s.files.data ? s.files.data : "",
                           s.files.len))) {
    st = bs_error_set(err, st, NULL, 0, "out of memory");
    goto done;
  }
  /* Every chart rendered and checked, every report swapped into place. */
  if ((st = bs_plot_pool_wait(s.pool, err)))
    goto done;
  char *marker = bs__path_join(s.tmp, MARKER);
  if (!marker) {
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto done;
  }
  s.body_len = s.state.len;
  if ((st = put_sum(&s.state, s.body_len))) {
    free(marker);
    st = bs_error_set(err, st, NULL, 0, "out of memory");
    goto done;
  }
  s.quiet = s.out_exists && s.nqueue == 0 && s.prev_text &&
            s.prev_len == s.state.len &&
            !memcmp(s.prev_text, s.state.data, s.state.len);
  for (size_t i = 0; i < s.npfiles && s.quiet; i++)
    s.quiet = s.pfiles[i].kept;
  if (!s.quiet)
    st = bs__write_file(marker, s.state.data, s.state.len, 0, err);
  free(marker);
  if (!st && s.out_exists)
    st = write_stamps(&s, &s.write_stamps, err);
  if (st)
    goto done;
  if (stage(&s, "pages", 1, 1)) {
    st = cancelled(err);
    goto done;
  }
  if ((st = publish(&s, err)))
    goto done;
  s.sum.runs = s.nruns;
  s.sum.cases = s.ncases;
  s.sum.groups = s.ngroups;
  for (size_t i = 0; i < s.nruns; i++)
    s.sum.compact += !s.runs[i].detailed;
  if (summary)
    *summary = s.sum;
done:
  /* No gnuplot may still write into the build directory when it goes. */
  bs_plot_pool_free(s.pool);
  /* The failed build, or what a build replaced. */
  bs_output_dir_free(s.od);
  bs_plot_free(plot);
  site_release(&s);
  return st;
}
