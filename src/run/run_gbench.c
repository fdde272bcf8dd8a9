/* benchsite: the Google Benchmark adapter of `benchsite run` (a row of the
 * harness table, run_harness.h). Each block runs the program once with
 * --benchmark_format=json --benchmark_repetitions=1 (and, unless the user
 * gave one, a --benchmark_filter that selects what --filter selects);
 * every benchmark entry of type iteration of its JSON report is one row:
 * benchmark = the name up to the first '/', dataset = the rest,
 * iterations, real_time and cpu_time converted from time_unit. Entries
 * skipped (SkipWithMessage) are no rows; one that failed (SkipWithError)
 * fails the run. The report is read as it goes (bs__json_parse_relaxed,
 * one entry at a time, only the members used kept), so reading it takes
 * little beyond the report itself; what the rest holds -- counters that
 * are NaN or infinite, the context -- is not looked at. */
#include "lmath.h"
#include "run_harness.h"

#include "jsonread.h"
#include "oom.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The user's own --benchmark_filter (Google Benchmark reads only the
 * --NAME=VALUE form, and keeps the last). */
static const char *const filter_flag[] = {"--benchmark_filter", NULL};

/* --filter as Google Benchmark's --benchmark_filter, a POSIX extended
 * regular expression searched in the name: the literal with the
 * characters special there escaped, its anchors kept. A first '-' would
 * make it a negative filter: it is written "[-]". A filter of the user's
 * is kept as it is (two expressions cannot be made one): --filter then
 * picks among what it runs. */
static bs_status args(bs__argv *av, const bs__hblock *b) {
  const char *mine;
  size_t n = 0;
  while (b->words[n])
    n++;
  bs_status st = bs__argv_add_words(av, b->words, 0, n);
  if (!st)
    st = bs__argv_add(av, "--benchmark_format=json");
  if (!st)
    st = bs__argv_add(av, "--benchmark_repetitions=1");
  if (st || !b->filter || bs__words_flag(b->words, n, filter_flag, 0, 0, &mine))
    return st;
  static const char special[] = ".[\\()*+?{|^$";
  const bs__filter *f = b->filter;
  char *re = malloc(2 * f->len + 8), *w = re;
  if (!re)
    return BS_ENOMEM;
  if (f->start)
    *w++ = '^';
  for (size_t i = 0; i < f->len; i++) {
    char c = f->text[i];
    if (c == '-' && w == re) {
      memcpy(w, "[-]", 3);
      w += 3;
      continue;
    }
    if (strchr(special, c))
      *w++ = '\\';
    *w++ = c;
  }
  if (f->end)
    *w++ = '$';
  *w = '\0';
  st = bs__argv_addf(av, "--benchmark_filter=%s", re);
  free(re);
  return st;
}

static double unit_us(const char *u) {
  if (!strcmp(u, "ns"))
    return 1e-3;
  if (!strcmp(u, "us"))
    return 1.0;
  if (!strcmp(u, "ms"))
    return 1e3;
  if (!strcmp(u, "s"))
    return 1e6;
  return 0;
}

/* The parse in progress. */
typedef struct reader {
  bs__hsink *sink;
  size_t entry; /* the next entry's index */
  int ours;     /* the error is an entry's, said in full */
} reader;

static const bs__jvalue *member(const bs__jvalue *e, const char *key,
                                bs__jtype type) {
  const bs__jvalue *v = bs__json_member(e, key);
  return v && v->type == type ? v : NULL;
}

static bs_status entry(void *ctx, const bs__jvalue *e, bs_error *err) {
  reader *rd = ctx;
  const char *sctx = rd->sink->ctx;
  size_t i = rd->entry++;
  char esc[200];
  const bs__jvalue *type = member(e, "run_type", BS__JSTRING);
  const bs__jvalue *jname = member(e, "name", BS__JSTRING);
  const bs__jvalue *skipped = member(e, "skipped", BS__JBOOL);
  if (!type || strcmp(type->string, "iteration") != 0 ||
      (skipped && skipped->boolean))
    return BS_OK;
  rd->ours = 1;
  const char *name = jname ? jname->string : NULL;
  size_t nl = jname ? jname->len : 0;
  if (!nl || name[0] == '/')
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: benchmark entry %zu has no name", sctx, i);
  const bs__jvalue *failed = member(e, "error_occurred", BS__JBOOL);
  if (failed && failed->boolean) {
    const bs__jvalue *m = member(e, "error_message", BS__JSTRING);
    char me[200];
    return bs_error_set(
        err, BS_EINPUT, NULL, 0, "%s: benchmark %s failed: %s", sctx,
        bs__run_text(esc, sizeof esc, name),
        bs__run_text(me, sizeof me, m ? m->string : "(no message)"));
  }
  const bs__jvalue *it = member(e, "iterations", BS__JNUMBER);
  const bs__jvalue *rt = member(e, "real_time", BS__JNUMBER);
  const bs__jvalue *ct = member(e, "cpu_time", BS__JNUMBER);
  const bs__jvalue *unit = member(e, "time_unit", BS__JSTRING);
  double f = unit ? unit_us(unit->string) : 0;
  double n = it ? it->number : 0, t = rt ? rt->number : 0,
         c = ct ? ct->number : -1;
  /* real_time and cpu_time are per iteration, in time_unit. */
  if (!(n >= 1 && n <= 9007199254740992.0 && n == bs__floor(n)) || !(f > 0) ||
      !isfinite(t) || !(t > 0) || !(t * f > 0) || !isfinite(t * f) ||
      !isfinite(c) || c < 0 || !isfinite(c * f))
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: benchmark %s: iterations, real_time, cpu_time "
                        "or time_unit missing or out of range",
                        sctx, bs__run_text(esc, sizeof esc, name));
  const char *slash = memchr(name, '/', nl);
  bs__hrow w;
  memset(&w, 0, sizeof w);
  w.benchmark = name;
  w.blen = slash ? (size_t)(slash - name) : nl;
  w.dataset = slash ? slash + 1 : "";
  w.dlen = slash ? nl - w.blen - 1 : 0;
  w.iterations = (uint64_t)n;
  w.per_call_us = t * f;
  w.cpu_per_call_us = c * f;
  bs_status st = rd->sink->add(rd->sink, i, &w, err);
  rd->ours = st != BS_OK;
  return st;
}

static const char *const entry_keys[] = {
    "name",      "run_type", "iterations",     "real_time",     "cpu_time",
    "time_unit", "skipped",  "error_occurred", "error_message", NULL};
static const bs__jfilter entry_filter = {entry_keys, NULL, NULL, 0, NULL};
static const bs__jfilter list_filter = {NULL, NULL, &entry_filter, 0, entry};
static const char *const root_keys[] = {"benchmarks", NULL};
static const bs__jfilter *const root_members[] = {&list_filter};
static const bs__jfilter root_filter = {root_keys, root_members, NULL, 0, NULL};

static bs_status parse(const char *text, size_t len, bs__hsink *sink,
                       bs_error *err) {
  const char *ctx = sink->ctx;
  reader rd = {sink, 0, 0};
  bs__jvalue *root = NULL;
  bs_error je;
  bs_error_clear(&je);
  /* The tree holds the kept members of one entry at a time: never more
   * than a report's own size. */
  bs_status st = bs__json_parse_relaxed("report", text, len, &root_filter, &rd,
                                        len + ((size_t)1 << 20), &root, &je);
  if (st && rd.ours) {
    *err = je;
    return st;
  }
  char esc[200];
  if (st == BS_ENOMEM)
    return bs__oom(err);
  if (st)
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: cannot read its Google Benchmark JSON: line %ld: "
                        "%s",
                        ctx, je.line,
                        bs__run_text(esc, sizeof esc, je.message));
  const bs__jvalue *list = bs__json_member(root, "benchmarks");
  if (!list || list->type != BS__JARRAY)
    st = bs_error_set(err, BS_EINPUT, NULL, 0,
                      "%s: its JSON has no \"benchmarks\" list (is it a "
                      "Google Benchmark program?)",
                      ctx);
  bs__json_free(root);
  return st;
}

const bs__adapter bs__adapter_gbench = {BS_RUN_GOOGLE_BENCHMARK,
                                        "google-benchmark",
                                        "Google Benchmark",
                                        0,
                                        1,
                                        NULL,
                                        args,
                                        parse,
                                        "a Google Benchmark program (split as "
                                        "--cmd, so flags may follow it), run "
                                        "once per block with "
                                        "--benchmark_format=json "
                                        "--benchmark_repetitions=1"};
