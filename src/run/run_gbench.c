/* benchsite: the Google Benchmark adapter of `benchsite run` (a row of the
 * harness table, run_harness.h). Each block runs the program once with
 * --benchmark_format=json --benchmark_repetitions=1 (and a
 * --benchmark_filter that selects what --filter selects); every benchmark
 * entry of type iteration of its JSON report is one row: benchmark = the
 * name up to the first '/', dataset = the rest, iterations, real_time and
 * cpu_time converted from time_unit. The JSON is read with jansson. */
#include "run_harness.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --filter as Google Benchmark's --benchmark_filter, a POSIX extended
 * regular expression searched in the name: the literal with the
 * characters special there escaped, its anchors kept. A first '-' would
 * make it a negative filter: it is written "[-]". */
static bs_status args(bs__argv *av, const bs__hblock *b) {
  bs_status st = bs__argv_add(av, "--benchmark_format=json");
  if (!st)
    st = bs__argv_add(av, "--benchmark_repetitions=1");
  if (st || !b->filter)
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

static bs_status parse(const char *text, size_t len, bs__hsink *sink,
                       bs_error *err) {
  const char *ctx = sink->ctx;
  json_error_t je;
  json_t *root = json_loadb(text, len, 0, &je);
  bs_status st = BS_OK;
  char esc[200];
  if (!root)
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: cannot read its Google Benchmark JSON: line %d: "
                        "%s",
                        ctx, je.line, bs__run_text(esc, sizeof esc, je.text));
  json_t *list = json_object_get(root, "benchmarks");
  if (!json_is_array(list)) {
    json_decref(root);
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: its JSON has no \"benchmarks\" list (is it a "
                        "Google Benchmark program?)",
                        ctx);
  }
  size_t i;
  json_t *e;
  json_array_foreach(list, i, e) {
    const char *type = json_string_value(json_object_get(e, "run_type"));
    json_t *jname = json_object_get(e, "name");
    const char *name = json_string_value(jname);
    if (!type || strcmp(type, "iteration") != 0)
      continue;
    size_t nl = name ? json_string_length(jname) : 0;
    if (!nl || name[0] == '/') {
      st = bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: benchmark entry %zu has no name", ctx, i);
      break;
    }
    if (json_is_true(json_object_get(e, "error_occurred"))) {
      const char *m = json_string_value(json_object_get(e, "error_message"));
      char me[200];
      st = bs_error_set(err, BS_EINPUT, NULL, 0, "%s: benchmark %s failed: %s",
                        ctx, bs__run_text(esc, sizeof esc, name),
                        bs__run_text(me, sizeof me, m ? m : "(no message)"));
      break;
    }
    json_t *it = json_object_get(e, "iterations");
    json_t *rt = json_object_get(e, "real_time");
    json_t *ct = json_object_get(e, "cpu_time");
    const char *unit = json_string_value(json_object_get(e, "time_unit"));
    double f = unit ? unit_us(unit) : 0;
    double t = json_number_value(rt), c = json_number_value(ct);
    /* real_time and cpu_time are per iteration, in time_unit. */
    if (!json_is_integer(it) || json_integer_value(it) < 1 ||
        !json_is_number(rt) || !json_is_number(ct) || !(f > 0) ||
        !isfinite(t) || !(t > 0) || !(t * f > 0) || !isfinite(t * f) ||
        !isfinite(c) || c < 0 || !isfinite(c * f)) {
      st = bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: benchmark %s: iterations, real_time, cpu_time "
                        "or time_unit missing or out of range",
                        ctx, bs__run_text(esc, sizeof esc, name));
      break;
    }
    /* A name with a NUL (\u0000 in the JSON) is a name with a control
     * character: the sink refuses it whole. */
    const char *slash = memchr(name, '/', nl);
    bs__hrow w;
    memset(&w, 0, sizeof w);
    w.benchmark = name;
    w.blen = slash ? (size_t)(slash - name) : nl;
    w.dataset = slash ? slash + 1 : "";
    w.dlen = slash ? nl - w.blen - 1 : 0;
    w.iterations = (uint64_t)json_integer_value(it);
    w.per_call_us = t * f;
    w.cpu_per_call_us = c * f;
    if ((st = sink->add(sink, i, &w, err)))
      break;
  }
  json_decref(root);
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
