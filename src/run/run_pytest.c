/* benchsite: the pytest-benchmark adapter of `benchsite run` (a row of the
 * harness table, run_harness.h). Each block runs the pytest command once
 * with --benchmark-json=FILE and --benchmark-storage in a directory
 * benchsite owns, and --benchmark-only; what pytest prints is not kept
 * (only its last lines, for a message). Every entry of the report's
 * "benchmarks" list is one row: benchmark = its "fullname" -- the test's
 * node id as pytest prints it, "tests/test_sort.py::test_sort[1024]" --
 * less the "[PARAM]" its parametrisation adds ("name" when there is no
 * fullname), dataset = that "param" (the id pytest gives the parameters,
 * "" when none), per_call_us = stats.median (pytest-benchmark divides
 * each round's time by the round's iterations, so the median round is per
 * call), iterations = stats.rounds x stats.iterations (the calls that
 * median is taken over). It reports no CPU time. The median, not the
 * mean: a round the scheduler preempts (a millisecond slice in a call of
 * microseconds) moves the mean of thousands of rounds by per cents and
 * the median hardly. Beside one busy process per CPU the verdict lab's
 * intervals were 50-75 per cent wide by the mean (+10 % found in 1 run
 * of 5); see bench/README.md. On a quiet machine the lab suite's mean ran
 * about 3 % above its median: archives that span this change show a
 * step. The report is read as it goes (bs__json_parse_relaxed, one entry
 * at a time, only the members used kept); what the rest holds
 * (extra_info, NaN or Infinity in other statistics) is not looked at. */
#include "lmath.h"
#include "run_harness.h"

#include "jsonread.h"
#include "oom.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Where pytest's own options end ("--": what follows are paths). */
static const char *const ends[] = {"--", NULL};

/* --filter is not turned into -k: -k matches the names of the test, its
 * class and its module file, not the directories of its node id, so no
 * -k is sure to select every case --filter selects. pytest runs what its
 * command selects (the user's -k, paths, markers, as written) and
 * --filter picks among what it reports. */
static bs_status args(bs__argv *av, const bs__hblock *b) {
  size_t at = bs__words_end(b->words, ends), n = at;
  while (b->words[n])
    n++;
  bs_status st = bs__argv_add_words(av, b->words, 0, at);
  if (!st)
    st = bs__argv_addf(av, "--benchmark-json=%s", b->report);
  if (!st)
    st = bs__argv_add(av, "--benchmark-only");
  /* Its storage directory (made even when nothing is saved) is
   * benchsite's, not a .benchmarks in the project's tree. */
  if (!st)
    st = bs__argv_addf(av, "--benchmark-storage=file://%s/storage", b->scratch);
  if (!st)
    st = bs__argv_add_words(av, b->words, at, n);
  return st;
}

/* The parse in progress. */
typedef struct reader {
  bs__hsink *sink;
  size_t entry; /* the next entry's index */
  int ours;     /* the error is an entry's, said in full */
} reader;

/* An integer member >= 1 (as a JSON number), or 0. */
static uint64_t count(const bs__jvalue *o, const char *key) {
  const bs__jvalue *v = bs__json_member(o, key);
  if (!v || v->type != BS__JNUMBER || !(v->number >= 1) ||
      v->number > 9007199254740992.0 || v->number != bs__floor(v->number))
    return 0;
  return (uint64_t)v->number;
}

static bs_status entry(void *ctx, const bs__jvalue *e, bs_error *err) {
  reader *rd = ctx;
  const char *sctx = rd->sink->ctx;
  size_t i = rd->entry++;
  char esc[200];
  rd->ours = 1;
  const bs__jvalue *jn = bs__json_member(e, "fullname");
  if (!jn || jn->type != BS__JSTRING || !jn->len)
    jn = bs__json_member(e, "name");
  const bs__jvalue *jp = bs__json_member(e, "param");
  const bs__jvalue *stats = bs__json_member(e, "stats");
  const char *name = jn && jn->type == BS__JSTRING ? jn->string : NULL;
  size_t nl = name ? jn->len : 0;
  if (!nl)
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: benchmark entry %zu has no name", sctx, i);
  if (jp && jp->type != BS__JNULL && jp->type != BS__JSTRING)
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: benchmark %s: its \"param\" is not a string", sctx,
                        bs__run_text(esc, sizeof esc, name));
  const bs__jvalue *jm = bs__json_member(stats, "median");
  double median = jm && jm->type == BS__JNUMBER ? jm->number : 0;
  uint64_t rounds = count(stats, "rounds"), per = count(stats, "iterations");
  if (!isfinite(median) || !(median > 0) || !isfinite(median * 1e6) ||
      !(median * 1e6 > 0) || !rounds || !per || rounds > UINT64_MAX / per)
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: benchmark %s: stats.median, stats.rounds or "
                        "stats.iterations missing or out of range",
                        sctx, bs__run_text(esc, sizeof esc, name));
  bs__hrow w;
  memset(&w, 0, sizeof w);
  w.benchmark = name;
  w.blen = nl;
  w.dataset = "";
  const char *param = jp && jp->type == BS__JSTRING ? jp->string : NULL;
  size_t pl = param ? jp->len : 0;
  /* "test_sum[1024]" with param "1024": test_sum and 1024. */
  if (param && nl >= pl + 2 && name[nl - 1] == ']' &&
      name[nl - pl - 2] == '[' && !memcmp(name + nl - pl - 1, param, pl)) {
    w.blen = nl - pl - 2;
    w.dataset = param;
    w.dlen = pl;
  } else if (param) {
    w.dataset = param;
    w.dlen = pl;
  }
  w.iterations = rounds * per;
  w.per_call_us = median * 1e6;
  w.cpu_per_call_us = -1;
  bs_status st = rd->sink->add(rd->sink, i, &w, err);
  rd->ours = st != BS_OK;
  return st;
}

static const char *const stats_keys[] = {"median", "rounds", "iterations",
                                         NULL};
static const bs__jfilter stats_filter = {stats_keys, NULL, NULL, 0, NULL};
static const char *const entry_keys[] = {"name", "fullname", "param", "stats",
                                         NULL};
static const bs__jfilter *const entry_members[] = {NULL, NULL, NULL,
                                                   &stats_filter};
static const bs__jfilter entry_filter = {entry_keys, entry_members, NULL, 0,
                                         NULL};
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
                        "%s: cannot read its pytest-benchmark JSON: line %ld: "
                        "%s",
                        ctx, je.line,
                        bs__run_text(esc, sizeof esc, je.message));
  const bs__jvalue *list = bs__json_member(root, "benchmarks");
  if (!list || list->type != BS__JARRAY)
    st = bs_error_set(err, BS_EINPUT, NULL, 0,
                      "%s: its JSON has no \"benchmarks\" list (is it a "
                      "pytest-benchmark report?)",
                      ctx);
  bs__json_free(root);
  return st;
}

const bs__adapter bs__adapter_pytest = {BS_RUN_PYTEST_BENCHMARK,
                                        "pytest-benchmark",
                                        "pytest-benchmark",
                                        1,
                                        0,
                                        NULL,
                                        args,
                                        parse,
                                        "a pytest command (split as --cmd), "
                                        "run once per block with "
                                        "--benchmark-json; one row per test, "
                                        "named by its node id "
                                        "(tests/test_x.py::test_y), its "
                                        "parameters as the dataset"};
