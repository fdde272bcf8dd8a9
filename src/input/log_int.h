/* The log reader's tables and state, shared by log.c (reading fields and
 * records, the public API) and log_cases.c (interning, cases, duplicate
 * checks, the public case index). Private. */
#ifndef BENCHSITE_LOG_INT_H
#define BENCHSITE_LOG_INT_H

#include "benchsite/log.h"

#include "arena.h"
#include "bigmem.h"
#include "csvin.h"
#include "num.h"
#include "oom.h"

#include <stddef.h>
#include <stdint.h>

/* The columns SPEC §1.1 knows, in the order their values are checked:
 * the case and its keys, then one column per metric, in the order of the
 * metric table (benchsite/metric.h), which names them. */
enum {
  COL_BENCHMARK,
  COL_DATASET,
  COL_SCALE,
  COL_IMPL,
  COL_RUN,
  COL_BLOCK,
  COL_PHASE,
  COL_ITERATIONS,
  COL_LOOK,
  COL_METRIC, /* the first metric column: COL_METRIC + m */
  NKNOWN = COL_METRIC + BS_METRIC_COUNT
};
#define COL_PER_CALL_US (COL_METRIC + BS_METRIC_WALL)

#define QBUF BS__QUOTE_BUF
/* Names remembered per column (impl ids alternate block by block). */
#define NRECENT 4
#define EMPTY SIZE_MAX
/* Row ids + 1 are stored in 32 bits (the case index, the duplicate
 * checks). */
#define ROWS_HARD_MAX ((size_t)UINT32_MAX - 1)
/* Case ids fill bs_row.cid. */
#define CASES_MAX (((size_t)1 << 24) - 1)
/* Impls per case whose confirm rows are followed in order (see track). */
#define NTRACK 4

_Static_assert(BS_METRIC_COUNT <= 3, "bs_row.metrics holds 3 bits");
_Static_assert(sizeof(bs_row) == 40, "a row stays compact");

typedef struct intern_slot {
  const char *s; /* NULL when free */
  size_t len;
  uint64_t hash;
} intern_slot;

/* 8 bytes a slot: the row id and 32 more bits of its hash, so most probes
 * never touch the rows. */
typedef struct dup_slot {
  uint32_t row1; /* the row id + 1; 0 when free (calloc'd tables) */
  uint32_t tag;
} dup_slot;

typedef struct case_ent {
  const char *benchmark; /* interned, so cases compare by pointer */
  const char *dataset;
  double scale; /* the first row's: every later row must repeat it */
  uint32_t first_row;
  uint32_t nrows;
  int has_scale;
  /* Duplicate confirm rows, while the log is in order (see track): for
   * up to NTRACK impls, the id + 1 of the impl's latest confirm row in
   * this case (0: free), whose (run, block) every earlier one is below. */
  uint32_t last[NTRACK];
  /* Once the log is out of order (bs_log.hashed), this case's confirm
   * rows keyed by (run, block, impl): one small table per case stays in
   * cache while the case's rows stream past. */
  dup_slot *dup;
  uint32_t dup_cap, dup_n;
} case_ent;

/* The run and block of a row whose values need more than 32 bits. */
typedef struct wide_ent {
  uint64_t run;
  int64_t block;
  size_t row;
} wide_ent;

/* The rows of one file are the ids from first_row up to the next file's. */
typedef struct file_ent {
  const char *name; /* arena copy */
  size_t first_row;
} file_ent;

struct bs_log {
  bs__arena arena;
  bs_log_limits limits;
  /* Keys every hash: from addresses (ASLR), so a log crafted to collide
   * in one run's tables does not collide in another's. It changes no
   * output: nothing is ever listed in hash order. */
  uint64_t seed;

  /* Rows in read order, and parallel to them the values of the other
   * metrics, each only once some file has its column. */
  bs__big rows_mem;
  bs_row *rows;
  bs__big values[BS_METRIC_COUNT]; /* [BS_METRIC_WALL] unused */
  size_t nrows, rows_cap;

  file_ent *files;
  size_t nfiles, files_cap;
  wide_ent *wide; /* in row order */
  size_t nwide, wide_cap;

  /* Interned benchmark, dataset and impl names: equal strings share a
   * pointer, so the tables below hash and compare pointers. */
  bs__big istr_mem;
  intern_slot *istr;
  size_t istr_cap, istr_n;

  /* Cases in first-seen order, found through an open-addressing index. */
  case_ent *cases;
  size_t ncases, cases_cap;
  bs__big cases_mem;
  bs__big cslot_mem;
  uint32_t *cslot; /* case id + 1; 0 when free */
  size_t cslot_cap;

  /* 0 while every case's confirm rows of each impl came in increasing
   * (run, block) order with at most NTRACK impls a case, which rules out
   * duplicates without an index; 1 from the first row that broke that,
   * when every case got a table of its confirm rows (case_ent.dup). */
  int hashed;
  size_t dup_bytes; /* the cases' duplicate tables */

  /* The public case index, rebuilt after every successful read; case_pos
   * maps a case id to its place in it. */
  bs__big index_cases;
  bs_case *index;
  size_t nindex;
  uint32_t *case_pos;
  bs__big index_mem;
  uint32_t *index_rows;
  size_t nindex_rows;

  bs_log_column *unknown;
  size_t nunknown, unknown_cap;

  /* Per metric, the first confirm row without a value (EMPTY: none), and
   * whether its file has no such column. A failed read forgets rows from
   * old_rows on, and with them any first row among them. */
  size_t lacking[BS_METRIC_COUNT];
  int lacking_column[BS_METRIC_COUNT];
};

/* ---- memory accounting (bs_log_limits.max_memory_bytes) ---- */

/* Bytes a row takes: itself and its values of the other metrics. */
static inline size_t row_bytes(const bs_log *log) {
  size_t per = sizeof(bs_row);
  for (int m = 1; m < BS_METRIC_COUNT; m++)
    if (log->values[m].p)
      per += sizeof(double);
  return per;
}

static inline size_t footprint(const bs_log *log) {
  return log->rows_cap * row_bytes(log) + log->arena.total +
         log->istr_cap * sizeof(intern_slot) +
         log->cases_cap * sizeof(case_ent) + log->cslot_cap * sizeof(uint32_t) +
         log->files_cap * sizeof(file_ent) + log->wide_cap * sizeof(wide_ent) +
         log->dup_bytes + log->nindex * (sizeof(bs_case) + sizeof(uint32_t)) +
         log->nindex_rows * sizeof(uint32_t) +
         log->unknown_cap * sizeof(bs_log_column);
}

/* Whether `extra` more bytes fit the memory limit. */
static inline int fits(const bs_log *log, size_t extra) {
  size_t now = footprint(log), max = log->limits.max_memory_bytes;
  return now <= max && extra <= max - now;
}

/* ---- the reader's state ---- */

typedef struct span {
  size_t ofs, len;
} span;

typedef struct reader {
  bs__csvin in; /* the feed; in.status is the reader's status */
  bs_log *log;
  const char *file; /* arena copy of the name, for rows */
  int have_header;
  size_t nfields; /* fields of the current record so far */
  size_t ncols;
  const char **colname; /* header names, ncols of them */
  int *colkind;         /* known column id of each header field, or -1 */
  long colof[NKNOWN];   /* header position of each known column, -1 */
  char *rec;            /* copies of fields, each NUL-ended */
  size_t rec_len, rec_cap;
  span *hdr; /* the header record: every field, in rec */
  size_t hdr_cap;
  /* The current data record, parsed as its fields arrive (libcsv reuses
   * its buffer). A value is copied to rec only when a message may quote
   * it: when it is bad, and the scale (for a conflict). */
  size_t vlen[NKNOWN];
  size_t vraw[NKNOWN]; /* offset of the copy in rec, or EMPTY */
  const char *vstr[NKNOWN];
  double vnum[NKNOWN];
  uint64_t vint[NKNOWN];
  bs__num vst[NKNOWN];
  bs_phase phase;
  int phase_ok;
  size_t max_field, max_cols, max_rows, max_case_rows;
  /* Logs repeat names row after row: the last few interned names of each
   * column and the previous row's case are tried before hashing. */
  const char *last[NKNOWN][NRECENT];
  size_t last_len[NKNOWN][NRECENT];
  unsigned last_next[NKNOWN];
  const char *last_b, *last_d;
  size_t last_case;
} reader;

/* on_field gets the feed from libcsv and converts it to its reader. */
_Static_assert(offsetof(reader, in) == 0, "the feed is the reader's start");

#define FAIL(r, st, line, col, ...)                                            \
  bs__csvin_fail(&(r)->in, (st), (line), (col), __VA_ARGS__)

static inline void fail_nomem(reader *r) {
  FAIL(r, BS_ENOMEM, r->in.rec_line, 0, BS__OOM_TEXT);
}

static inline void fail_memory_limit(reader *r, long line) {
  FAIL(r, BS_ELIMIT, line, 0, "the log needs more than %zu bytes of memory",
       r->log->limits.max_memory_bytes);
}

/* log_cases.c; each definition says more. */
/* The interned copy of s[0..n-1], or NULL with the reader failed. */
const char *bs__log_intern(reader *r, const char *s, size_t n);
/* The case id of (b, d), added with `row` as its first row when new
 * (*added = 1); EMPTY with the reader failed. */
size_t bs__log_case_get(reader *r, const char *b, const char *d, size_t row,
                        int *added);
/* Refills the case slots from log->cases (no allocation). */
void bs__log_case_rehash(bs_log *log);
/* Refills the cases' duplicate state from rows [0, nrows) after a failed
 * read was forgotten (no allocation). */
void bs__log_cases_rebuild(bs_log *log, size_t nrows);
/* The duplicate check of confirm row `row`: the id of an earlier confirm
 * row with the same (run, block, impl) in its case, or EMPTY; *failed set
 * with the reader failed when out of memory or over the limit. */
size_t bs__log_track(reader *r, size_t row, int *failed);
/* Rebuilds the public case index after a read: BS_OK, BS_ENOMEM, or
 * BS_ELIMIT over the memory limit. */
bs_status bs__log_rebuild_index(bs_log *log);

#endif
