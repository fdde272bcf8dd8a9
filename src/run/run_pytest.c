/* benchsite: the pytest-benchmark adapter of `benchsite run` (a row of the
 * harness table, run_harness.h). Each block runs the pytest command once
 * with --benchmark-json=FILE and --benchmark-storage in a directory
 * benchsite owns, and --benchmark-only;
 * every entry of the report's "benchmarks" list is one row: benchmark =
 * its "name" less the "[PARAM]" its parametrisation adds, dataset = that
 * "param" (the id pytest gives the parameters, "" when none), per_call_us
 * = stats.mean (pytest-benchmark divides each round's time by the round's
 * iterations, so the mean is per call), iterations = stats.rounds x
 * stats.iterations (the calls that mean is over). It reports no CPU time.
 * The JSON is read with jansson. */
#include "run_harness.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* pytest's -k selects by a case-insensitive substring of the test's node
 * name ("test_sum[1024]"), which holds both parts of benchsite's name
 * ("test_sum/1024"): a literal of letters, digits and '_' (no '/', so it
 * lies within one part) selects a superset of what --filter selects. Any
 * other --filter runs every benchmark and benchsite picks. The words
 * and, or and not are -k's operators. */
static int k_safe(const bs__filter *f) {
  static const char *const words[] = {"and", "or", "not"};
  if (!f->len)
    return 0;
  for (size_t i = 0; i < f->len; i++) {
    char c = f->text[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_'))
      return 0;
  }
  for (size_t i = 0; i < 3; i++)
    if (strlen(words[i]) == f->len && !strncmp(words[i], f->text, f->len))
      return 0;
  return 1;
}

static bs_status args(bs__argv *av, const bs__hblock *b) {
  bs_status st = bs__argv_addf(av, "--benchmark-json=%s", b->report);
  if (!st)
    st = bs__argv_add(av, "--benchmark-only");
  /* Its storage directory (made even when nothing is saved) is
   * benchsite's, not a .benchmarks in the project's tree. */
  if (!st)
    st = bs__argv_addf(av, "--benchmark-storage=file://%s/storage", b->scratch);
  if (!st && b->filter && k_safe(b->filter))
    st = bs__argv_add(av, "-k");
  if (!st && b->filter && k_safe(b->filter))
    st = bs__argv_addf(av, "%.*s", (int)b->filter->len, b->filter->text);
  return st;
}

/* An integer member >= 1, or 0. */
static uint64_t count(json_t *o, const char *key) {
  json_t *v = json_object_get(o, key);
  return json_is_integer(v) && json_integer_value(v) >= 1
             ? (uint64_t)json_integer_value(v)
             : 0;
}

static bs_status parse(const char *text, size_t len, bs__hsink *sink,
                       bs_error *err) {
  const char *ctx = sink->ctx;
  char esc[200];
  json_error_t je;
  json_t *root = json_loadb(text, len, 0, &je);
  if (!root)
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: cannot read its pytest-benchmark JSON: line %d: "
                        "%s",
                        ctx, je.line, bs__run_text(esc, sizeof esc, je.text));
  bs_status st = BS_OK;
  json_t *list = json_object_get(root, "benchmarks");
  if (!json_is_array(list)) {
    json_decref(root);
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: its JSON has no \"benchmarks\" list (is it a "
                        "pytest-benchmark report?)",
                        ctx);
  }
  size_t i;
  json_t *e;
  json_array_foreach(list, i, e) {
    json_t *jn = json_object_get(e, "name"), *jp = json_object_get(e, "param");
    json_t *stats = json_object_get(e, "stats");
    const char *name = json_string_value(jn);
    size_t nl = name ? json_string_length(jn) : 0;
    if (!nl) {
      st = bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: benchmark entry %zu has no name", ctx, i);
      break;
    }
    if (!json_is_null(jp) && jp && !json_is_string(jp)) {
      st = bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: benchmark %s: its \"param\" is not a string", ctx,
                        bs__run_text(esc, sizeof esc, name));
      break;
    }
    double mean = json_number_value(json_object_get(stats, "mean"));
    uint64_t rounds = count(stats, "rounds"), per = count(stats, "iterations");
    if (!json_is_object(stats) ||
        !json_is_number(json_object_get(stats, "mean")) || !isfinite(mean) ||
        !(mean > 0) || !isfinite(mean * 1e6) || !(mean * 1e6 > 0) || !rounds ||
        !per || rounds > UINT64_MAX / per) {
      st = bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: benchmark %s: stats.mean, stats.rounds or "
                        "stats.iterations missing or out of range",
                        ctx, bs__run_text(esc, sizeof esc, name));
      break;
    }
    bs__hrow w;
    memset(&w, 0, sizeof w);
    w.benchmark = name;
    w.blen = nl;
    w.dataset = "";
    const char *param = json_string_value(jp);
    size_t pl = param ? json_string_length(jp) : 0;
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
    w.per_call_us = mean * 1e6;
    w.cpu_per_call_us = -1;
    if ((st = sink->add(sink, i, &w, err)))
      break;
  }
  json_decref(root);
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
                                        "its parameters as the dataset"};
