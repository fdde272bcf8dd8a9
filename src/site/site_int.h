/* The site's files share this: the build's state and the functions one
 * site_*.c file offers the others. Private.
 *
 * The files, each calling only those below it (no circle):
 *   site.c          the build: bs_site_build, from the archive to publish
 *   site_pages.c    index, run and case pages (templates)
 *   site_charts.c   a case's history charts (gnuplot) and their fields
 *   site_histjson.c the history data, format 2 (history/runs.json and per
 *                   case history/ID.json with its chunks): written, and
 *                   read back as the cache of every run's results
 *   site_runs.c     each run's results (analysed or reused) and report
 *   site_publish.c  the build directory, the publish queue, moving files
 *                   into the published site, removing what it drops
 *   site_state.c    the state and stamps files (the incremental cache)
 *                   and the cache keys
 *   site_calibration.c the runner's calibration the index shows
 * The statistics they show are the history model's (benchsite/history.h):
 * the site renders it and computes none. */
#ifndef BENCHSITE_SITE_INT_H
#define BENCHSITE_SITE_INT_H

#include "benchsite/analysis.h"
#include "benchsite/archive.h"
#include "benchsite/history.h"
#include "benchsite/log.h"
#include "benchsite/output.h"
#include "benchsite/plot.h"
#include "benchsite/site.h"
#include "benchsite/template.h"

#include "buf.h"
#include "fsutil.h"
#include "sha256.h"
#include "strset.h"

#include <stdint.h>
#include <string.h>

#ifndef BENCHSITE_VERSION
#define BENCHSITE_VERSION "unknown"
#endif

#define BS__SITE_MARKER ".benchsite-site"
/* Beside the state: the stamps of the published reports' files (inode,
 * size, times), which differ from one directory to another, so they stay
 * out of the state, whose bytes depend on the inputs alone. */
#define BS__SITE_STAMPS BS__SITE_MARKER ".stamps"
#define BS__SITE_CASE_HASH 16 /* hex digits of a case's file id */
#define BS__SITE_CASE_SLUG 24 /* the most bytes of its readable slug */
/* A case's file id, SLUG-HASH, and its NUL. */
#define BS__SITE_CASE_ID (BS__SITE_CASE_SLUG + 1 + BS__SITE_CASE_HASH + 1)
#define BS__SITE_SHOWN_RUNS 200  /* runs a history table and chart show */
#define BS__SITE_CHUNK_RUNS 1000 /* runs per history chunk file */
/* The most a cache file (state, stamps) or a history file of format 2
 * may hold: far past what 100 000 runs write; a larger one is no usable
 * cache (never read). */
#define BS__SITE_CACHE_MAX ((size_t)256 << 20)

/* One run of the site: what the history model does not hold about it. */
typedef struct srun {
  const bs_archive_run *ar;
  const bs_manifest *mf;           /* the archive's */
  char key[BS__SHA256_HEXLEN + 1]; /* of its analysis */
  char *no_report;                 /* why there is no report, or NULL */
  int reused;
  int detailed; /* gets its full report (runs/ID/) */
  int report;   /* runs/ID/ holds its report in the new site */
  /* The analysis this build made of it, kept for its report (and the log
   * it points into), or NULL: a report is rendered from it instead of a
   * second analysis of the same log. */
  bs_log *kept_log;
  bs_analysis *kept_an;
} srun;

/* One case of the site: its file id and the history it shows. */
typedef struct scase {
  char id[BS__SITE_CASE_ID]; /* bs__site_case_id */
  size_t first_shown;        /* the first of the newest SHOWN_RUNS entries */
} scase;

/* A run of the previous build's state, and its results as the published
 * history data of format 2 holds them (bs__site_load_history). */
typedef struct prev_run {
  char *id;
  size_t listed; /* its results, as the state counts them */
  char *impl, *no_report;
  int report; /* its report (or no_report) made with the prev. report key */
  bs_history_result *res;
  size_t nres, cap;
  int results_ok; /* res holds every result, made with this analysis key */
  int no_metric;  /* runs.json has no metric for it (bs_history_run) */
  int kept;       /* its report stays in the new site */
} prev_run;

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

/* Ranks: what a file may link is published before it. Charts and
 * history data link nothing; a new case page's first version (without
 * its links to new run pages and reports) goes before the reports, which
 * link it; then run pages (new ones first without links to new case
 * pages), case pages whole, the index. */
enum {
  RANK_LEAF,
  RANK_CASE_FIRST,
  RANK_REPORT,
  RANK_RUN,
  RANK_CASE,
  RANK_INDEX
};

typedef struct site {
  const bs_site_options *o;
  const char *out;
  bs_output_dir *od;
  const char *tmp; /* the build directory, od's */
  int out_exists;
  int cal_applies; /* the calibration (cal) holds for the newest run */
  bs_archive *ar;
  bs_acks *acks;
  /* Cache keys: the build of benchsite and the seed (analyses); with the
   * templates, assets and gnuplot (reports); with gnuplot (charts). */
  char analysis_key[BS__SHA256_HEXLEN + 1];
  char report_key[BS__SHA256_HEXLEN + 1];
  char render_key[BS__SHA256_HEXLEN + 1];
  /* The history: h->runs[i] and runs[i] are the same run, h->cases[c]
   * and cases[c] the same case. */
  bs_history *h;
  srun *runs;
  size_t nruns;
  scase *cases;
  /* The previous build, when usable: the keys it was made with, its runs
   * (sorted by id) and files (sorted by name). */
  char prev_analysis_key[BS__SHA256_HEXLEN + 1];
  char prev_report_key[BS__SHA256_HEXLEN + 1];
  prev_run *prev;
  size_t nprev;
  prev_file *pfiles;
  size_t npfiles;
  char *prev_text;  /* the previous state as read */
  prev_seen *pseen; /* sorted by id, each's files by path */
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
  size_t body_len;   /* of the state before its "sum" line */
  bs__buf files;     /* "file NAME HASH KEY" lines of this build */
  bs__strset listed; /* the names of those lines */
  bs__buf seen;      /* "seen" and "st" lines: the stamps of kept reports */
  pending *queue;
  size_t nqueue, qcap;
  bs_templates *tpl;
  bs_site_summary sum;
  /* The runner's calibration (site_calibration.c): the one the pages
   * show (cal_applies) or the one that does not apply (cal_why), or
   * NULL; cal_pick owns the archive's. */
  const bs_calibration_summary *cal;
  const char *cal_name;
  size_t cal_read; /* the archive's calibrations read */
  char cal_why[768];
  bs_calibration_pick cal_pick;
  /* Renders every chart of the build, the reports' and the history's,
   * while the build goes on; finished before the state is written. */
  bs_plot_pool *pool;
} site;

/* ---- Small helpers every file may use ------------------------------------ */

/* Reports progress; non-zero: the caller cancels the build. */
static inline int bs__site_stage(const site *s, const char *what, size_t done,
                                 size_t total) {
  return s->o->progress &&
         s->o->progress(s->o->progress_ctx, what, done, total);
}

static inline bs_status bs__site_cancelled(bs_error *err) {
  return bs_error_set(err, BS_EIO, NULL, 0, "site build cancelled");
}

/* Cache keys are SHA-256 of what made a file: these add a number, a size
 * or a string (NULL and "" differ from any other) to one. */
static inline void bs__site_fp_num(bs__sha256 *h, double v) {
  bs__sha256_update(h, &v, sizeof v); /* a cache key: this machine's bytes */
}

static inline void bs__site_fp_size(bs__sha256 *h, size_t v) {
  bs__sha256_update(h, &v, sizeof v);
}

static inline void bs__site_fp_str(bs__sha256 *h, const char *s) {
  bs__sha256_update(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

static inline void bs__site_fp_end(bs__sha256 *h,
                                   char out[BS__SHA256_HEXLEN + 1]) {
  unsigned char d[BS__SHA256_LEN];
  bs__sha256_final(h, d);
  bs__sha256_tohex(d, out);
}

/* ---- site_calibration.c: the runner's calibration ---------------------- */

/* Chooses the calibration the pages show: the given one, else the
 * newest of ARCHIVE/calibrations/ (bs_calibration_pick_dir) measured on
 * the newest run's setup. BS_EINPUT for an archive file that is no
 * calibration (file and line), BS_EIO, BS_ENOMEM. */
bs_status bs__site_calibration(site *s, const char *archive_dir, bs_error *err);
/* The page fields "calibration" (applies, note, name, date, why, read)
 * under root; nothing without a calibration. */
void bs__site_calibration_fields(const site *s, bs_tval *root);

/* ---- site_state.c: the state, the stamps, the cache keys, file names ----- */

/* A name as one token of the state ("-" for "" or NULL; blanks, control
 * bytes, DEL and '%' as %XX), and back (malloc'd; NULL when the token is
 * not one bs__site_put_name writes, or out of memory). */
bs_status bs__site_put_name(bs__buf *b, const char *name);
char *bs__site_get_name(const char *tok);
/* A case's file id, the same in every build: a readable slug of its name
 * and the first BS__SITE_CASE_HASH hex digits of the SHA-256 of
 * "benchmark\0dataset" ("sort-n-1024-3f9a2c1d0b7e5d41"). */
void bs__site_case_id(const char *benchmark, const char *dataset,
                      char out[BS__SITE_CASE_ID]);

/* The cache keys of the build (analysis, render, report). */
bs_status bs__site_make_keys(site *s, bs_error *err);
/* key = H(kind key, run id). */
void bs__site_run_key(const char *kind, const char *id,
                      char out[BS__SHA256_HEXLEN + 1]);
/* Reads the previous state, then the stamps beside it; anything
 * unexpected means none (a full build), never an error: both are a
 * cache. */
void bs__site_load_state(site *s);
/* The readers of both (data[0..len-1], changed in place): 1 when the
 * whole text was accepted (into s->prev, s->pfiles, the keys; s->pseen),
 * else 0 with nothing kept. */
int bs__site_parse_state(site *s, char *data, size_t len);
int bs__site_parse_stamps(site *s, char *data, size_t len);
/* Frees what the previous build's state and stamps gave. */
void bs__site_state_release(site *s);
prev_run *bs__site_find_prev(const site *s, const char *id);
prev_file *bs__site_find_pfile(const site *s, const char *name);
/* Lists `rel` in the new state ("file REL HASH KEY", KEY "-" when NULL). */
bs_status bs__site_list_file(site *s, const char *rel, const char *hash,
                             const char *key, bs_error *err);
/* Whether this build has listed `rel`. */
int bs__site_listed(const site *s, const char *rel);
/* Whether the published site holds `rel` with these bytes (by hash) from
 * the previous build (which is kept either way). */
int bs__site_unchanged(site *s, const char *rel, const char *hash);
/* Whether the published site holds `rel` made by the previous build from
 * inputs with this key: then it stays, listed again (*kept 1). */
bs_status bs__site_keep_keyed(site *s, const char *rel, const char *key,
                              int *kept, bs_error *err);
/* Whether the published report of run `id` at `dir` is still what its
 * marker lists (see site_state.c); its stamps go into the new stamps. */
int bs__site_report_intact(site *s, const char *id, const char *dir,
                           const char *marker, bs_status *st);
/* The new state: its header, a run's line, its "sum". */
bs_status bs__site_state_begin(site *s);
bs_status bs__site_state_run(site *s, size_t i);
bs_status bs__site_put_sum(bs__buf *b, size_t len);
/* Writes the new stamps into the build directory (see site_state.c). */
bs_status bs__site_write_stamps(site *s, int *write, bs_error *err);
/* Whether `name` is one the site gives a file, and so a state may name. */
int bs__site_file_name(const char *name);

/* ---- site_publish.c: the build directory and publishing ------------------ */

/* Queues rel (written into the build directory) for publication. */
bs_status bs__site_queue(site *s, const char *rel, int rank, int dir,
                         bs_error *err);
/* Writes `file` of the new site into the build directory and queues it,
 * unless the published site has the same bytes already; lists it with
 * `key` (NULL: none). */
bs_status bs__site_emit(site *s, const char *file, const char *data, size_t len,
                        int rank, const char *key, bs_error *err);
/* Whether the published site has `rel`. */
int bs__site_published(const site *s, const char *rel);
bs_status bs__site_ensure_dir(const char *parent, const char *name,
                              bs_error *err);
/* Copies the regular files of `dir` into the site: the assets, or the
 * user's static files (user 1). */
bs_status bs__site_copy_files(site *s, const char *dir, int user,
                              bs_error *err);
/* Publishes the new site (see site_publish.c). */
bs_status bs__site_publish(site *s, bs_error *err);
/* After a build of `out` has finished and let go of the lock: removes
 * the build directories of builds of `out` that died, when the lock
 * shows that no build is running. */
void bs__site_sweep_staging(const char *out);

/* ---- site_runs.c: each run's results and report -------------------------- */

/* Every run's results into the history, reused or analysed. */
bs_status bs__site_analyse_runs(site *s, bs_error *err);
/* Which runs get a full report. */
void bs__site_choose_detail(site *s);
/* Keeps or writes the report of every detailed run; each run's lines of
 * the new state. */
bs_status bs__site_reports(site *s, bs_error *err);

/* ---- site_histjson.c: the history data, format 2 ------------------------- */

/* history/runs.json: every run once. */
bs_status bs__site_runs_json(site *s, bs_error *err);
/* history/ID.json of case c and its full chunks. */
bs_status bs__site_history_json(site *s, size_t c, bs_error *err);
/* When the previous build's results were made with this build's
 * analysis key: reads the published runs.json and each case's history
 * files the state lists (each checked against its listed hash) into the
 * results of the state's runs; a run whose results are not all there
 * keeps none (it is analysed again). Never an error: a cache. */
void bs__site_load_history(site *s);
/* The readers of bs__site_load_history, on text[0..len-1]: runs.json
 * into *ids (malloc'd, *n of them; 1 on success) and, per run, whether it
 * has no metric (null; *nometric malloc'd, NULL when *n is 0), and the
 * history file
 * `name` (history/ID.json or history/ID-K.json) of a case into the
 * results of s->prev, its runs numbered by ids; *last is the run number
 * of the case's entry before the file (SIZE_MAX: none), and after it
 * the file's last. 0 when anything is unexpected. */
int bs__site_read_runs(const char *text, size_t len, char ***ids,
                       unsigned char **nometric, size_t *n);
int bs__site_read_history(site *s, const char *name, const char *text,
                          size_t len, char *const *ids, size_t nids,
                          size_t *last);

/* ---- site_charts.c: a case's history charts ------------------------------ */

/* Queues the charts of case c into `plot` (those whose key changed),
 * counting them in *queued. */
bs_status bs__site_case_charts(site *s, size_t c, bs_plot *plot, size_t *queued,
                               bs_error *err);
/* The kinds of chart a case page has; chart k of case c described into
 * `p` (a new chart); the cache key of chart `index` of p: H(render key,
 * bs_plot_chart_digest), what gnuplot is given and by which gnuplot and
 * benchsite. */
size_t bs__site_chart_kinds(void);
bs_status bs__site_chart_describe(const site *s, size_t c, size_t k, bs_plot *p,
                                  bs_error *err);
bs_status bs__site_chart_key(const site *s, const bs_plot *p, size_t index,
                             char out[BS__SHA256_HEXLEN + 1], bs_error *err);
/* Sets the template fields of case c's charts on its page's root. */
bs_status bs__site_chart_fields(const site *s, size_t c, bs_tval *root,
                                bs_error *err);
/* "protocol=RegressionGate, machine=box-2": the comparability keys on
 * which group g differs from the other groups (all keys when alone). */
void bs__site_group_label(const site *s, size_t g, char *buf, size_t n);

/* ---- site_pages.c: the pages --------------------------------------------- */

bs_status bs__site_index_page(site *s, bs_error *err);
bs_status bs__site_run_page(site *s, size_t i, bs_error *err);
bs_status bs__site_case_page(site *s, size_t c, bs_error *err);
/* What every page has (title, navigation, the metric), and a page
 * rendered from template `tname` (freeing d) and emitted as `file`. */
void bs__site_page_common(const site *s, bs_tval *root, const char *title,
                          const char *current);
bs_status bs__site_emit_page(site *s, const char *tname, bs_tdata *d,
                             const char *file, int rank, bs_error *err);

/* ---- site_views.c: what regressed, since when ---------------------------- */

/* What is open for a case (see site_views.c): each of the three with the
 * entry where it began and its size now, and the earliest of them. */
typedef struct site_open {
  int regression;
  size_t regression_entry;
  double regression_pct;
  int step;
  size_t step_index; /* into the case's steps */
  double step_pct;
  int creep;
  size_t creep_entry;
  double creep_pct;
  int any;
  size_t since; /* entry: the earliest where one began (0 when none) */
} site_open;
void bs__site_open(const site *s, size_t c, site_open *o);
/* A commit as the pages show it (site_bisect.c): "commit" in full and
 * "commit_short", a hexadecimal id cut to 12 digits as git abbreviates
 * it. */
void bs__site_set_commit(bs_tval *t, const char *commit);
/* The `benchsite bisect` command for the commit range good..bad of a
 * case (site_bisect.c): t's "good" and "bad" (as bs__site_set_commit) and
 * "command", its commits and the case's name each one shell word, quoted
 * where a shell would read them (a field left out when out of memory, as
 * every builder call leaves it). */
void bs__site_bisect_fields(bs_tval *t, const char *good, const char *bad,
                            const char *benchmark, const char *dataset);
/* The good commit of an open change of case c that begins at entry e: the
 * baseline commit of that run (a paired regression), or the commit of
 * the entry before it (a change point, `step` 1); NULL when not known. */
const char *bs__site_open_good(const site *s, size_t c, size_t e, int step);
/* regressions.html, feed.xml and index.json. */
bs_status bs__site_regressions_page(site *s, bs_error *err);
bs_status bs__site_feed(site *s, bs_error *err);
bs_status bs__site_index_json(site *s, bs_error *err);

#endif
