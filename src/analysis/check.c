#include "benchsite/check.h"
#include "benchsite/protocol.h"

#include "grow.h"
#include "msort.h"
#include "oom.h"
#include "strlist.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *bs_check_kind_name(bs_check_kind k) {
  switch (k) {
  case BS_CHECK_UNKNOWN_COLUMN:
    return "unknown-column";
  case BS_CHECK_CALIBRATION:
    return "calibration";
  case BS_CHECK_BATCH_SIZE:
    return "batch-size";
  case BS_CHECK_MISSING_IMPL:
    return "missing-impl";
  case BS_CHECK_ROTATION:
    break;
  }
  return "rotation";
}

void bs_check_options_init(bs_check_options *o) {
  o->target_us = BS_CHECK_T_DEVELOPMENT_US;
  o->n_max = BS_CHECK_DEFAULT_NMAX;
  o->batch_rule = BS_CHECK_BATCH_PER_IMPL;
}

bs_status bs_check_protocol_target(const char *protocol, double *target_us,
                                   bs_error *err) {
  const bs_protocol *p =
      bs_protocol_find(protocol ? protocol : BS_PROTOCOL_DEFAULT);
  if (!p)
    return bs_error_set(err, BS_EINPUT, NULL, 0, "protocol \"%s\" is not %s",
                        protocol, bs_protocol_names());
  *target_us = p->target_us;
  return BS_OK;
}

bs_status bs_check_batch_rule_named(const char *value,
                                    bs_check_batch_rule *rule, bs_error *err) {
  if (!value) {
    *rule = BS_CHECK_BATCH_PER_IMPL;
    return BS_OK;
  }
  if (!strcmp(value, "per-case")) {
    *rule = BS_CHECK_BATCH_PER_CASE;
    return BS_OK;
  }
  if (!strcmp(value, "least-of-three")) {
    *rule = BS_CHECK_BATCH_LEAST_OF_THREE;
    return BS_OK;
  }
  return bs_error_set(err, BS_EINPUT, NULL, 0,
                      "batch_rule \"%s\" is not least-of-three or per-case "
                      "(the batch rules a manifest names; without one a log "
                      "keeps the earliest rule)",
                      value);
}

void bs_check_result_free(bs_check_result *r) {
  if (!r)
    return;
  for (size_t i = 0; i < r->nfindings; i++)
    free(r->findings[i].message);
  free(r->findings);
  free(r);
}

typedef struct checker {
  const bs_log *log;
  bs_check_result *r;
  size_t cap;
  const bs_check_options *o;
  bs_status status;
} checker;

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void
add(checker *c, bs_check_kind kind, const char *file, long line,
    const char *fmt, ...) {
  if (c->status)
    return;
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (len < 0) {
    c->status = BS_EINTERNAL;
    return;
  }
  char *msg = malloc((size_t)len + 1);
  if (!msg) {
    c->status = BS_ENOMEM;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(msg, (size_t)len + 1, fmt, ap);
  va_end(ap);
  bs_check_result *r = c->r;
  if (r->nfindings == c->cap) {
    bs_finding *f = BS__GROW(r->findings, c->cap, r->nfindings + 1, 16);
    if (!f) {
      free(msg);
      c->status = BS_ENOMEM;
      return;
    }
    r->findings = f;
  }
  bs_finding *f = &r->findings[r->nfindings++];
  f->kind = kind;
  f->file = file;
  f->line = line;
  f->message = msg;
}

/* Where a row was read, as add() takes it (in a function with a checker
 * c). */
#define AT(row) bs_log_row_file(c->log, (row)), (long)(row)->line

/* One row of a case, keyed for grouping. `pos` is the read order. The
 * sort key is (k1, k2): (run, impl rank << 32 | pos) to group by run and
 * impl, then (block, pos) within a run. Both end in the unique read
 * position, so the order is total and the same whatever sort is used. */
typedef struct item {
  uint64_t k1, k2;
  uint64_t run;
  const char *impl;
  int64_t block;
  size_t pos;
  const bs_row *row;
} item;

static int item_less(const item *x, const item *y) {
  return x->k1 != y->k1 ? x->k1 < y->k1 : x->k2 < y->k2;
}

/* Sorts a[0..n-1] by item_less with tmp[0..n/2] as scratch. */
BS__MERGE_SORT(static, sort_items, item, item_less)

/* Sorts by (block, pos): confirm rows have block >= 0, but the key keeps
 * the signed order anyway. */
static void sort_by_block(item *a, item *tmp, size_t n) {
  for (size_t j = 0; j < n; j++) {
    a[j].k1 = (uint64_t)a[j].block ^ ((uint64_t)1 << 63);
    a[j].k2 = a[j].pos;
  }
  sort_items(a, tmp, n);
}

/* A case's distinct impl, for ranking impls in strcmp order. */
typedef struct impl_ent {
  const char *s;
  size_t first; /* index in first-seen order */
} impl_ent;

static int cmp_impl_ent(const void *a, const void *b) {
  const impl_ent *x = a, *y = b;
  int c = strcmp(x->s, y->s);
  return c ? c : (x->first > y->first) - (x->first < y->first);
}

/* The next batch size by the rule of SPEC §2.6, computed the way the
 * runner does (t = n * per_call_us as read back from the log). */
static uint64_t next_batch(uint64_t n, double t, const bs_check_options *o) {
  double want = ceil((double)n * o->target_us / t);
  uint64_t next = n + 1;
  if (want >= (double)o->n_max)
    return o->n_max;
  if (want > (double)next)
    next = (uint64_t)want;
  return next < o->n_max ? next : o->n_max;
}

/* Checks the calibration rows cal[0..n-1] of one (case, run, impl) in
 * measurement order. */
static void check_calibration(checker *c, const char *label, const item *cal,
                              size_t n) {
  const bs_check_options *o = c->o;
  for (size_t k = 0; k < n; k++) {
    const bs_row *row = cal[k].row;
    if (row->iterations == 0) {
      add(c, BS_CHECK_CALIBRATION, AT(row),
          "case %s, run %llu, impl %s: calibration row without iterations; "
          "the calibration rule cannot be checked",
          label, (unsigned long long)bs_row_run(c->log, row), row->impl);
      return;
    }
  }
  for (size_t k = 0; k < n; k++) {
    const bs_row *row = cal[k].row;
    uint64_t nk = row->iterations;
    double t = (double)nk * row->per_call_us;
    int more = t < o->target_us && nk < o->n_max;
    if (k + 1 < n) {
      const bs_row *nx = cal[k + 1].row;
      if (!more) {
        add(c, BS_CHECK_CALIBRATION, AT(nx),
            "case %s, run %llu, impl %s: calibration continues after n = "
            "%llu (%s:%ld) took %.6g µs; the rule stops once the batch time "
            "reaches T = %g µs or n reaches n_max = %llu",
            label, (unsigned long long)bs_row_run(c->log, row), row->impl,
            (unsigned long long)nk, AT(row), t, o->target_us,
            (unsigned long long)o->n_max);
        continue;
      }
      uint64_t want = next_batch(nk, t, o);
      if (nx->iterations != want)
        add(c, BS_CHECK_CALIBRATION, AT(nx),
            "case %s, run %llu, impl %s: calibration step n = %llu breaks "
            "the rule: after n = %llu took %.6g µs (T = %g µs) the next n "
            "is min(n_max, max(n + 1, ceil(n T / t))) = %llu",
            label, (unsigned long long)bs_row_run(c->log, row), row->impl,
            (unsigned long long)nx->iterations, (unsigned long long)nk, t,
            o->target_us, (unsigned long long)want);
    } else if (more) {
      add(c, BS_CHECK_CALIBRATION, AT(row),
          "case %s, run %llu, impl %s: calibration stops at n = %llu with a "
          "batch time of %.6g µs, below T = %g µs; the rule continues to "
          "n = %llu",
          label, (unsigned long long)bs_row_run(c->log, row), row->impl,
          (unsigned long long)nk, t, o->target_us,
          (unsigned long long)next_batch(nk, t, o));
    }
  }
}

/* The calibration and confirm rows of one impl in one (case, run). */
typedef struct impl_rows {
  const item *cal;
  size_t ncal;
  const item *conf;
  size_t nconf;
} impl_rows;

/* The last calibration row of g, when the calibration rule could be
 * checked (every step has iterations), else NULL. */
static const bs_row *last_step(const impl_rows *g) {
  for (size_t k = 0; k < g->ncal; k++)
    if (g->cal[k].row->iterations == 0)
      return NULL;
  return g->ncal ? g->cal[g->ncal - 1].row : NULL;
}

/* An impl's calibrated per-call time as the runner took it: the least of
 * its calibration steps of metric m from step `from` on (a batch that lost
 * its CPU to other work only ever looks slower); 0 when a step lacks m. */
static double fastest(const checker *c, const impl_rows *g, size_t from,
                      bs_metric m) {
  double p = 0;
  for (size_t k = from; k < g->ncal; k++) {
    const bs_row *row = g->cal[k].row;
    if (m != BS_METRIC_WALL && !(row->metrics & (1u << m)))
      return 0;
    double v = bs_log_value(c->log, row, m);
    if (k == from || v < p)
      p = v;
  }
  return p;
}

static const char *rule_name(bs_check_batch_rule r) {
  return r == BS_CHECK_BATCH_LEAST_OF_THREE ? "least-of-three" : "per-case";
}

/* Confirm batch sizes of one (case, run), SPEC 2.6: with the earlier rule
 * each impl's confirm batches equal its own last calibration step; with
 * batch_rule per-case every impl's equal the largest last step, unless the
 * calibrated per-call times (each impl's fastest step) differ by more than
 * 4x, when each keeps its own. Impls without calibration rows (a
 * Google Benchmark log) have no calibrated size to hold them to. */
static void check_batches(checker *c, const char *label, const impl_rows *g,
                          size_t ng, double *wall, double *cpu) {
  const bs_row *widest = NULL;
  bs_check_batch_rule rule = c->o->batch_rule;
  int per_case = rule != BS_CHECK_BATCH_PER_IMPL, apart = 0;
  size_t n = 0;
  for (size_t i = 0; per_case && i < ng; i++) {
    const bs_row *l = last_step(&g[i]);
    if (!l)
      continue;
    /* per-case: every step; least-of-three: the last three. */
    size_t from = rule == BS_CHECK_BATCH_LEAST_OF_THREE && g[i].ncal > 3
                      ? g[i].ncal - 3
                      : 0;
    wall[n] = fastest(c, &g[i], from, BS_METRIC_WALL);
    cpu[n] = fastest(c, &g[i], from, BS_METRIC_CPU);
    n++;
    if (!widest || l->iterations > widest->iterations)
      widest = l;
  }
  if (widest)
    apart = bs_protocol_batch_apart(
        wall, rule == BS_CHECK_BATCH_LEAST_OF_THREE ? cpu : NULL, n);
  for (size_t i = 0; i < ng; i++) {
    const bs_row *own = last_step(&g[i]);
    if (!own)
      continue;
    const bs_row *want = per_case && !apart ? widest : own;
    const bs_row *first_bad = NULL;
    size_t bad = 0;
    for (size_t j = 0; j < g[i].nconf; j++) {
      const bs_row *row = g[i].conf[j].row;
      if (row->iterations && row->iterations != want->iterations) {
        if (!first_bad)
          first_bad = row;
        bad++;
      }
    }
    if (!first_bad)
      continue;
    char more[96] = "";
    if (bad > 1)
      snprintf(more, sizeof more, " (and %zu more confirm row%s)", bad - 1,
               bad == 2 ? "" : "s");
    if (!per_case)
      add(c, BS_CHECK_BATCH_SIZE, AT(first_bad),
          "case %s, run %llu, impl %s: confirm batch of %llu iterations "
          "differs from the last calibration step n = %llu (%s:%ld)%s",
          label, (unsigned long long)bs_row_run(c->log, first_bad),
          first_bad->impl, (unsigned long long)first_bad->iterations,
          (unsigned long long)want->iterations, AT(want), more);
    else if (!apart)
      add(c, BS_CHECK_BATCH_SIZE, AT(first_bad),
          "case %s, run %llu, impl %s: confirm batch of %llu iterations "
          "differs from the case's one batch size n = %llu, the largest last "
          "calibration step (impl %s, %s:%ld; batch_rule %s: the "
          "calibrated per-call times are within %gx)%s",
          label, (unsigned long long)bs_row_run(c->log, first_bad),
          first_bad->impl, (unsigned long long)first_bad->iterations,
          (unsigned long long)want->iterations, want->impl, AT(want),
          rule_name(rule), BS_PROTOCOL_BATCH_RATIO, more);
    else
      add(c, BS_CHECK_BATCH_SIZE, AT(first_bad),
          "case %s, run %llu, impl %s: confirm batch of %llu iterations "
          "differs from its own last calibration step n = %llu (%s:%ld; "
          "batch_rule %s: the calibrated per-call times differ by "
          "more than %gx, so each impl keeps its own)%s",
          label, (unsigned long long)bs_row_run(c->log, first_bad),
          first_bad->impl, (unsigned long long)first_bad->iterations,
          (unsigned long long)want->iterations, AT(want), rule_name(rule),
          BS_PROTOCOL_BATCH_RATIO, more);
  }
}

/* Where impl is in set[0..n-1] (n when absent). The log interns names, so
 * equal text is almost always the same pointer: pointers are compared
 * first, and the text only when no pointer matches. */
static size_t find_impl(const char *const *set, size_t n, const char *impl) {
  for (size_t i = 0; i < n; i++)
    if (set[i] == impl)
      return i;
  for (size_t i = 0; i < n; i++)
    if (!strcmp(set[i], impl))
      return i;
  return n;
}

static int has_impl(const char *const *set, size_t n, const char *impl) {
  return find_impl(set, n, impl) < n;
}

/* Whether some row of conf[j..e-1] has impl `impl` (pointers first, as
 * find_impl). */
static int block_has_impl(const item *conf, size_t j, size_t e,
                          const char *impl) {
  for (size_t t = j; t < e; t++)
    if (conf[t].impl == impl)
      return 1;
  for (size_t t = j; t < e; t++)
    if (!strcmp(conf[t].impl, impl))
      return 1;
  return 0;
}

/* Blocks and rotation of one run: conf[0..m-1] are its confirm rows.
 * impls[0..k-1] are the impls of the whole case. */
static void check_blocks(checker *c, const char *label, item *conf, size_t m,
                         const char *const *impls, size_t k,
                         const char **scratch, size_t *firsts, item *tmp) {
  if (m == 0)
    return;
  uint64_t run = conf[0].run;
  /* The earliest row of the run, to anchor run-level findings. */
  size_t earliest = 0;
  for (size_t j = 1; j < m; j++)
    if (conf[j].pos < conf[earliest].pos)
      earliest = j;
  const bs_row *anchor = conf[earliest].row;
  size_t run_k = 0; /* impls present in this run */
  for (size_t j = 0; j < m; j++)
    if (!has_impl(scratch, run_k, conf[j].impl))
      scratch[run_k++] = conf[j].impl;
  for (size_t i = 0; i < k; i++) {
    if (!has_impl(scratch, run_k, impls[i]))
      add(c, BS_CHECK_MISSING_IMPL, AT(anchor),
          "case %s, run %llu: no confirm rows of impl %s, which other runs "
          "of the case have",
          label, (unsigned long long)run, impls[i]);
  }

  sort_by_block(conf, tmp, m);
  size_t nblocks = 0;
  for (size_t j = 0; j < m; j++)
    if (j == 0 || conf[j].block != conf[j - 1].block)
      nblocks++;
  size_t cycles = run_k >= 2 ? nblocks / run_k : 0;
  size_t counted = cycles * run_k, bi = 0;
  for (size_t i = 0; i < run_k; i++)
    firsts[i] = 0;
  for (size_t j = 0; j < m;) {
    size_t e = j + 1;
    while (e < m && conf[e].block == conf[j].block)
      e++;
    /* Within a block sorted by read order, conf[j] ran first. */
    char missing[256] = "";
    size_t used = 0, nmissing = 0;
    for (size_t i = 0; i < run_k; i++) {
      if (!block_has_impl(conf, j, e, scratch[i])) {
        int w = snprintf(missing + used, sizeof missing - used, "%s%s",
                         nmissing ? ", " : "", scratch[i]);
        if (w > 0 && (size_t)w < sizeof missing - used)
          used += (size_t)w;
        nmissing++;
      }
    }
    if (nmissing)
      add(c, BS_CHECK_MISSING_IMPL, AT(conf[j].row),
          "case %s, run %llu, block %lld: missing impl%s %s", label,
          (unsigned long long)run, (long long)conf[j].block,
          nmissing == 1 ? "" : "s", missing);
    if (bi < counted) {
      /* scratch holds each impl's text once: at most one matches. */
      size_t i = find_impl(scratch, run_k, conf[j].impl);
      if (i < run_k)
        firsts[i]++;
    }
    bi++;
    j = e;
  }
  if (cycles == 0)
    return;
  size_t hi = 0, lo = 0;
  for (size_t i = 1; i < run_k; i++) {
    if (firsts[i] > firsts[hi])
      hi = i;
    if (firsts[i] < firsts[lo])
      lo = i;
  }
  if (firsts[hi] > firsts[lo])
    add(c, BS_CHECK_ROTATION, AT(anchor),
        "case %s, run %llu: impl %s runs first in %zu of the %zu blocks of "
        "%zu whole rotation cycle%s, impl %s in %zu (a rotation (j + o) mod "
        "%zu gives each impl %zu)",
        label, (unsigned long long)run, scratch[hi], firsts[hi], counted,
        cycles, cycles == 1 ? "" : "s", scratch[lo], firsts[lo], run_k, cycles);
}

static int cmp_finding(const void *a, const void *b) {
  const bs_finding *x = a, *y = b;
  int c = strcmp(x->file, y->file);
  if (c)
    return c;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  /* Discovery order, kept in `kind`'s slot below by the caller. */
  return 0;
}

typedef struct ordered {
  bs_finding f;
  size_t seq;
} ordered;

static int cmp_ordered(const void *a, const void *b) {
  const ordered *x = a, *y = b;
  int c = cmp_finding(&x->f, &y->f);
  if (c)
    return c;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

static bs_status sort_findings(bs_check_result *r) {
  if (r->nfindings < 2)
    return BS_OK;
  ordered *o = malloc(r->nfindings * sizeof *o);
  if (!o)
    return BS_ENOMEM;
  for (size_t i = 0; i < r->nfindings; i++) {
    o[i].f = r->findings[i];
    o[i].seq = i;
  }
  qsort(o, r->nfindings, sizeof *o, cmp_ordered);
  for (size_t i = 0; i < r->nfindings; i++)
    r->findings[i] = o[i].f;
  free(o);
  return BS_OK;
}

bs_status bs_check_run(const bs_log *log, const bs_check_options *opt,
                       bs_check_result **out, bs_error *err) {
  *out = NULL;
  if (!(isfinite(opt->target_us) && opt->target_us > 0) || opt->n_max < 1)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "check needs a positive target batch time and "
                        "n_max >= 1");
  checker c;
  memset(&c, 0, sizeof c);
  c.log = log;
  c.o = opt;
  c.r = calloc(1, sizeof *c.r);
  item *items = NULL, *conf = NULL, *tmp = NULL;
  const char **impls = NULL, **scratch = NULL;
  size_t *firsts = NULL, *rank = NULL;
  impl_ent *dist = NULL;
  impl_rows *groups = NULL;
  double *walls = NULL, *cpus = NULL;
  if (!c.r)
    return bs__oom(err);
  c.r->rows = bs_log_count(log);
  c.r->cases = bs_log_case_count(log);

  for (size_t i = 0; i < bs_log_unknown_count(log); i++) {
    const bs_log_column *col = bs_log_unknown(log, i);
    add(&c, BS_CHECK_UNKNOWN_COLUMN, col->file, 1,
        "unknown column \"%s\" (column %zu) is ignored", col->name, col->index);
  }

  const bs_row *rows = bs_log_rows(log);
  for (size_t ci = 0; ci < bs_log_case_count(log) && !c.status; ci++) {
    const bs_case *lc = bs_log_case(log, ci);
    char label[256];
    bs__case_label(label, sizeof label, lc->benchmark, lc->dataset);
    size_t n = lc->nrows ? lc->nrows : 1;
    free(items);
    free(conf);
    free(impls);
    free(scratch);
    free(firsts);
    free(tmp);
    free(rank);
    free(dist);
    free(groups);
    free(walls);
    free(cpus);
    items = malloc(n * sizeof *items);
    groups = malloc(n * sizeof *groups);
    walls = malloc(n * sizeof *walls);
    cpus = malloc(n * sizeof *cpus);
    conf = malloc(n * sizeof *conf);
    impls = malloc(n * sizeof *impls);
    scratch = malloc(n * sizeof *scratch);
    firsts = malloc(n * sizeof *firsts);
    tmp = malloc(n * sizeof *tmp);
    rank = malloc(n * sizeof *rank);
    dist = malloc(n * sizeof *dist);
    if (!items || !conf || !impls || !scratch || !firsts || !tmp || !rank ||
        !dist || !groups || !walls || !cpus) {
      c.status = BS_ENOMEM;
      break;
    }
    /* Items are grouped by run, then by impl in strcmp order: each impl
     * gets its rank in that order (equal text, equal rank), so the sort
     * compares integers. rank[] is indexed by first-seen order. */
    size_t nimpls = 0, ndist = 0, last = 0;
    for (size_t k = 0; k < lc->nrows; k++) {
      const bs_row *row = &rows[lc->rows[k]];
      item it = {0, k,  bs_row_run(log, row), row->impl, bs_row_block(log, row),
                 k, row};
      if (!(ndist > 0 && dist[last].s == row->impl)) {
        last = 0;
        while (last < ndist && dist[last].s != row->impl)
          last++;
        if (last == ndist) {
          dist[ndist].s = row->impl;
          dist[ndist].first = ndist;
          ndist++;
        }
      }
      it.k1 = it.run;
      it.k2 = last; /* first-seen index until ranked below */
      items[k] = it;
      if (row->phase == BS_PHASE_CONFIRM && !has_impl(impls, nimpls, row->impl))
        impls[nimpls++] = row->impl;
    }
    qsort(dist, ndist, sizeof *dist, cmp_impl_ent);
    for (size_t j = 0; j < ndist; j++)
      rank[dist[j].first] = j > 0 && !strcmp(dist[j].s, dist[j - 1].s)
                                ? rank[dist[j - 1].first]
                                : j;
    for (size_t k = 0; k < lc->nrows; k++)
      items[k].k2 = (uint64_t)rank[items[k].k2] << 32 | k;
    sort_items(items, tmp, lc->nrows);
    for (size_t r0 = 0; r0 < lc->nrows && !c.status;) {
      size_t r1 = r0;
      while (r1 < lc->nrows && items[r1].run == items[r0].run)
        r1++;
      size_t nconf = 0, ng = 0;
      for (size_t g0 = r0; g0 < r1;) {
        size_t g1 = g0;
        while (g1 < r1 && (items[g1].impl == items[g0].impl ||
                           !strcmp(items[g1].impl, items[g0].impl)))
          g1++;
        /* Split the impl's rows, in read order, by phase: calibration rows
         * go to the front of [g0, g1) through a scratch copy. */
        size_t ncal = 0, nc0 = nconf;
        for (size_t t = g0; t < g1; t++) {
          if (items[t].row->phase == BS_PHASE_CALIBRATION)
            items[g0 + ncal++] = items[t];
          else
            conf[nconf++] = items[t];
        }
        check_calibration(&c, label, items + g0, ncal);
        groups[ng++] = (impl_rows){items + g0, ncal, conf + nc0, nconf - nc0};
        g0 = g1;
      }
      check_batches(&c, label, groups, ng, walls, cpus);
      check_blocks(&c, label, conf, nconf, impls, nimpls, scratch, firsts, tmp);
      r0 = r1;
    }
  }
  free(items);
  free(conf);
  free(impls);
  free(scratch);
  free(firsts);
  free(tmp);
  free(rank);
  free(dist);
  free(groups);
  free(walls);
  free(cpus);
  if (!c.status)
    c.status = sort_findings(c.r);
  if (c.status) {
    bs_check_result_free(c.r);
    return bs_error_set(err, c.status, NULL, 0, "%s", bs_strerror(c.status));
  }
  *out = c.r;
  return BS_OK;
}
