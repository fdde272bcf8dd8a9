/* libFuzzer target: the JSON writers (src/views/json.c, src/base/jsonw.c) round
 * trip.
 *
 * The input becomes a comparison or tuning result (any valid UTF-8 names,
 * control characters included, any double bit pattern, NaN and infinities
 * too) and an environment manifest; the writer's JSON is parsed back with
 * the strict reader of src/base/jsonread.c and every string and number must
 * come back exactly: strings byte for byte, finite numbers bit for bit
 * (%.17g), non-finite numbers as null. */
#include "benchsite/json.h"

#include "fuzz_util.h"
#include "jsonread.h"

#include <math.h>

/* ---- checks on the parsed tree ---- */

static const bs__jvalue *member(const bs__jvalue *o, const char *key) {
  FUZZ_CHECK(o && o->type == BS__JOBJECT, "not an object for %s", key);
  const bs__jvalue *v = bs__json_member(o, key);
  FUZZ_CHECK(v, "no member %s", key);
  return v;
}

static void same_str(const bs__jvalue *o, const char *key, const char *want) {
  const bs__jvalue *v = member(o, key);
  FUZZ_CHECK(v->type == BS__JSTRING, "%s is not a string", key);
  FUZZ_CHECK(v->len == strlen(want) && memcmp(v->string, want, v->len) == 0,
             "%s: \"%s\" came back as \"%s\"", key, want, v->string);
}

static void same_num_value(const bs__jvalue *v, const char *what, double want) {
  if (!isfinite(want)) {
    FUZZ_CHECK(v->type == BS__JNULL, "%s: non-finite not null", what);
    return;
  }
  FUZZ_CHECK(v->type == BS__JNUMBER, "%s is not a number", what);
  FUZZ_CHECK(memcmp(&v->number, &want, sizeof want) == 0,
             "%s: %.17g came back as %.17g", what, want, v->number);
}

static void same_num(const bs__jvalue *o, const char *key, double want) {
  same_num_value(member(o, key), key, want);
}

static void same_bool(const bs__jvalue *o, const char *key, int want) {
  const bs__jvalue *v = member(o, key);
  FUZZ_CHECK(v->type == BS__JBOOL && v->boolean == !!want, "%s", key);
}

static void same_list(const bs__jvalue *o, const char *key, char **want,
                      size_t n) {
  const bs__jvalue *v = member(o, key);
  FUZZ_CHECK(v->type == BS__JARRAY && v->n == n, "%s: %zu items", key, v->n);
  for (size_t i = 0; i < n; i++) {
    FUZZ_CHECK(v->items[i].type == BS__JSTRING &&
                   strcmp(v->items[i].string, want[i]) == 0 &&
                   v->items[i].len == strlen(want[i]),
               "%s[%zu]", key, i);
  }
}

/* ---- building a result from the input ---- */

typedef struct pool {
  char *s[256];
  size_t n;
} pool;

/* A fuzzed valid UTF-8 string, owned by the pool. */
static char *str(pool *p, fz_in *in, int nonempty) {
  char *s = fz_utf8(in, 64);
  if (nonempty && !*s) {
    free(s);
    s = malloc(2);
    if (!s)
      abort();
    s[0] = 'x';
    s[1] = '\0';
  }
  if (p->n == sizeof p->s / sizeof p->s[0])
    abort();
  p->s[p->n++] = s;
  return s;
}

static char *own(pool *p, const char *s) {
  char *c = malloc(strlen(s) + 1);
  if (!c || p->n == sizeof p->s / sizeof p->s[0])
    abort();
  memcpy(c, s, strlen(s) + 1);
  p->s[p->n++] = c;
  return c;
}

static int taken(const bs_tune_median *m, size_t n, const char *id) {
  for (size_t i = 0; i < n; i++) {
    if (strcmp(m[i].impl, id) == 0)
      return 1;
  }
  return 0;
}

static double num(fz_in *in) {
  uint64_t bits = fz_u64(in);
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

/* A manifest of fuzzed keys and values, through the real reader (so it
 * holds what the reader lets through), or NULL. */
static bs_manifest *environment(pool *p, fz_in *in) {
  size_t n = fz_byte(in) % 6;
  char text[8192];
  size_t o = (size_t)snprintf(text, sizeof text, "key,value\n");
  for (size_t i = 0; i < 2 * n; i++) {
    const char *s = str(p, in, i % 2 == 0);
    text[o++] = '"';
    for (; *s && o < sizeof text - 8; s++) {
      if (*s == '"')
        text[o++] = '"';
      text[o++] = *s;
    }
    text[o++] = '"';
    text[o++] = i % 2 ? '\n' : ',';
  }
  bs_manifest *m = bs_manifest_new();
  if (!m)
    return NULL;
  if (bs_manifest_read_buffer(m, "env.csv", text, o, NULL) != BS_OK) {
    bs_manifest_free(m);
    return NULL;
  }
  return m;
}

static void check_env(const bs__jvalue *root, const bs_manifest *env) {
  const bs__jvalue *e = member(root, "environment");
  size_t n = env ? bs_manifest_count(env) : 0;
  FUZZ_CHECK(e->type == BS__JOBJECT && e->n == n, "environment size");
  for (size_t i = 0; i < n; i++) {
    FUZZ_CHECK(strcmp(e->keys[i], bs_manifest_key(env, i)) == 0, "env key");
    FUZZ_CHECK(e->items[i].type == BS__JSTRING &&
                   strcmp(e->items[i].string, bs_manifest_value(env, i)) == 0,
               "env value");
  }
}

static bs__jvalue *parse(const char *json, size_t len) {
  bs__jvalue *root = NULL;
  bs_error err;
  bs_status st = bs__json_parse("out.json", json, len, &root, &err);
  FUZZ_CHECK(st == BS_OK, "the writer's JSON does not parse: %s\n%s",
             err.message, json);
  FUZZ_CHECK(root->type == BS__JOBJECT, "root");
  return root;
}

static void compare_case(fz_in *in, pool *p, bs_case_compare *c) {
  memset(c, 0, sizeof *c);
  c->benchmark = str(p, in, 1);
  c->dataset = str(p, in, 0);
  c->blocks = (size_t)fz_u64(in);
  c->median_baseline_us = num(in);
  c->median_candidate_us = num(in);
  c->median_delta_us = num(in);
  c->delta_pct = num(in);
  c->speedup = num(in);
  c->ci_low_us = num(in);
  c->ci_high_us = num(in);
  c->verdict = (bs_verdict)(fz_byte(in) % 3);
  c->significant_regression = fz_byte(in) & 1;
  c->outliers = fz_byte(in);
  c->has_noise_floor = fz_byte(in) & 1;
  c->noise_floor_pct = num(in);
  c->within_noise = fz_byte(in) & 1;
  c->significant_improvement = fz_byte(in) & 1;
  c->family_significant_regression = fz_byte(in) & 1;
  c->p_value = num(in);
  c->holm_p = num(in);
  c->bh_q = num(in);
  c->effective_threshold_pct = num(in);
  c->nwarnings = fz_byte(in) % 3;
  c->warnings = c->nwarnings ? calloc(c->nwarnings, sizeof(char *)) : NULL;
  for (size_t w = 0; w < c->nwarnings; w++)
    c->warnings[w] = str(p, in, 0);
  c->nruns = (size_t)fz_u64(in);
  c->looks = fz_byte(in);
  c->level_pct = num(in);
  c->between_runs_pct = num(in);
  c->layout_sensitive = fz_byte(in) & 1;
  c->mde_pct = num(in);
  c->blind = fz_byte(in) & 1;
}

static void check_case(const bs__jvalue *v, const bs_case_compare *c) {
  same_str(v, "benchmark", c->benchmark);
  same_str(v, "dataset", c->dataset);
  same_num(v, "blocks", (double)c->blocks);
  same_num(v, "median_baseline_us", c->median_baseline_us);
  same_num(v, "median_candidate_us", c->median_candidate_us);
  same_num(v, "median_delta_us", c->median_delta_us);
  same_num(v, "delta_pct", c->delta_pct);
  same_num(v, "speedup", c->speedup);
  same_num(v, "ci_low_us", c->ci_low_us);
  same_num(v, "ci_high_us", c->ci_high_us);
  same_str(v, "verdict", bs_verdict_name(c->verdict));
  same_bool(v, "significant_regression", c->significant_regression);
  same_bool(v, "significant_improvement", c->significant_improvement);
  same_bool(v, "family_significant_regression",
            c->family_significant_regression);
  same_num(v, "p_value", c->p_value);
  same_num(v, "holm_p", c->holm_p);
  same_num(v, "bh_q", c->bh_q);
  same_num(v, "effective_threshold_pct", c->effective_threshold_pct);
  same_num(v, "outliers", (double)c->outliers);
  if (c->has_noise_floor)
    same_num(v, "noise_floor_pct", c->noise_floor_pct);
  same_bool(v, "within_noise", c->within_noise);
  same_num(v, "runs", (double)c->nruns);
  same_num(v, "looks", (double)c->looks);
  same_num(v, "level_pct", c->level_pct);
  same_num(v, "between_runs_pct", c->between_runs_pct);
  same_bool(v, "layout_sensitive", c->layout_sensitive);
  same_num(v, "mde_pct", c->mde_pct);
  same_bool(v, "blind", c->blind);
  same_list(v, "warnings", c->warnings, c->nwarnings);
}

static void fuzz_compare(fz_in *in, pool *p) {
  bs_compare_result r;
  memset(&r, 0, sizeof r);
  r.baseline = str(p, in, 1);
  r.candidate = str(p, in, 1);
  r.options.mode = (bs_mode)(fz_byte(in) & 1);
  r.options.threshold_pct = num(in);
  r.options.level_pct = num(in);
  r.options.resamples = fz_u64(in);
  r.options.seed = fz_u64(in);
  r.regressions = fz_byte(in);
  r.family_regressions = fz_byte(in);
  r.options.family_wise = fz_byte(in) & 1;
  bs_case_compare cases[3];
  r.ncases = fz_byte(in) % 4;
  r.cases = cases;
  for (size_t i = 0; i < r.ncases; i++)
    compare_case(in, p, &cases[i]);
  r.nwarnings = fz_byte(in) % 3;
  char *warnings[3];
  r.warnings = warnings;
  for (size_t i = 0; i < r.nwarnings; i++)
    warnings[i] = str(p, in, 0);
  bs_manifest *env = environment(p, in);
  r.adaptive = fz_byte(in);
  r.layout_sensitive = fz_byte(in);
  r.blind = fz_byte(in);
  r.blind_max_mde_pct = num(in);

  char *json = NULL;
  size_t len = 0;
  FUZZ_CHECK(bs_json_compare(&r, env, &json, &len, NULL) == BS_OK, "render");
  FUZZ_CHECK(strlen(json) == len, "NUL inside the JSON");
  bs__jvalue *root = parse(json, len);
  same_str(root, "schema", "benchsite.compare/1");
  same_str(root, "baseline", r.baseline);
  same_str(root, "candidate", r.candidate);
  same_str(root, "mode", bs_mode_name(r.options.mode));
  same_num(root, "threshold_pct", r.options.threshold_pct);
  same_num(root, "resamples", (double)r.options.resamples);
  same_num(root, "level_pct", r.options.level_pct);
  same_num(root, "seed", (double)r.options.seed);
  same_num(root, "regressions", (double)r.regressions);
  same_num(root, "family_regressions", (double)r.family_regressions);
  same_bool(root, "family_wise",
            r.options.family_wise && r.options.mode == BS_MODE_CONFIRMATORY);
  same_num(root, "adaptive", (double)r.adaptive);
  same_num(root, "layout_sensitive", (double)r.layout_sensitive);
  same_num(root, "blind", (double)r.blind);
  same_num(root, "blind_max_mde_pct", r.blind_max_mde_pct);
  check_env(root, env);
  const bs__jvalue *cv = member(root, "cases");
  FUZZ_CHECK(cv->type == BS__JARRAY && cv->n == r.ncases, "cases");
  for (size_t i = 0; i < r.ncases; i++)
    check_case(&cv->items[i], &cases[i]);
  same_list(root, "warnings", r.warnings, r.nwarnings);
  bs__json_free(root);
  free(json);
  bs_manifest_free(env);
  for (size_t i = 0; i < r.ncases; i++)
    free(cases[i].warnings);
}

static void fuzz_tune(fz_in *in, pool *p) {
  bs_tune_result r;
  memset(&r, 0, sizeof r);
  bs_tune_case cases[3];
  bs_tune_median medians[3][3];
  bs_crossover xs[3];
  memset(cases, 0, sizeof cases);
  memset(xs, 0, sizeof xs);
  r.cases = cases;
  r.ncases = fz_byte(in) % 4;
  for (size_t i = 0; i < r.ncases; i++) {
    bs_tune_case *c = &cases[i];
    c->benchmark = str(p, in, 1);
    c->dataset = str(p, in, 0);
    c->has_scale = fz_byte(in) & 1;
    c->scale = num(in);
    c->best = str(p, in, 1);
    c->medians = medians[i];
    c->nmedians = fz_byte(in) % 4;
    for (size_t k = 0; k < c->nmedians; k++) {
      /* Distinct impl ids, as the tuner guarantees (they are JSON object
       * keys, and the strict reader refuses a repeated key). */
      const char *id = str(p, in, 1);
      for (unsigned t = 0; taken(medians[i], k, id); t++) {
        char alt[32];
        snprintf(alt, sizeof alt, "id%u", t);
        id = own(p, alt);
      }
      medians[i][k].impl = id;
      medians[i][k].median_us = num(in);
      medians[i][k].samples = fz_byte(in);
    }
    c->runner_up = fz_byte(in) & 1 ? str(p, in, 1) : NULL;
    c->decisive = fz_byte(in) & 1;
    c->ci_low_us = num(in);
    c->ci_high_us = num(in);
  }
  r.crossovers = xs;
  r.ncrossovers = fz_byte(in) % 4;
  for (size_t i = 0; i < r.ncrossovers; i++) {
    xs[i].benchmark = str(p, in, 1);
    xs[i].a = str(p, in, 1);
    xs[i].b = str(p, in, 1);
    xs[i].scale = num(in);
    xs[i].scale_low = xs[i].scale_high = 0;
    xs[i].decisive = fz_byte(in) & 1;
  }
  char *json = NULL;
  size_t len = 0;
  FUZZ_CHECK(bs_json_tune(&r, &json, &len, NULL) == BS_OK, "render");
  FUZZ_CHECK(strlen(json) == len, "NUL inside the JSON");
  bs__jvalue *root = parse(json, len);
  same_str(root, "schema", "benchsite.tune/1");
  const bs__jvalue *best = member(root, "best");
  FUZZ_CHECK(best->type == BS__JARRAY && best->n == r.ncases, "best");
  for (size_t i = 0; i < r.ncases; i++) {
    const bs__jvalue *v = &best->items[i];
    const bs_tune_case *c = &cases[i];
    same_str(v, "benchmark", c->benchmark);
    same_str(v, "dataset", c->dataset);
    if (c->has_scale)
      same_num(v, "scale", c->scale);
    else
      FUZZ_CHECK(member(v, "scale")->type == BS__JNULL, "scale not null");
    same_str(v, "best", c->best);
    /* Impl ids are object keys: a repeated id is not valid JSON for the
     * strict reader, and the tuner never repeats one. */
    const bs__jvalue *m = member(v, "medians");
    FUZZ_CHECK(m->type == BS__JOBJECT && m->n == c->nmedians, "medians");
    for (size_t k = 0; k < c->nmedians; k++) {
      FUZZ_CHECK(strcmp(m->keys[k], c->medians[k].impl) == 0, "impl key");
      same_num_value(&m->items[k], "median", c->medians[k].median_us);
    }
    if (c->runner_up)
      same_str(v, "runner_up", c->runner_up);
    else
      FUZZ_CHECK(member(v, "runner_up")->type == BS__JNULL, "runner_up");
    same_bool(v, "decisive", c->decisive);
    same_num(v, "ci_low_us", c->ci_low_us);
    same_num(v, "ci_high_us", c->ci_high_us);
  }
  const bs__jvalue *x = member(root, "crossovers");
  FUZZ_CHECK(x->type == BS__JARRAY && x->n == r.ncrossovers, "crossovers");
  for (size_t i = 0; i < r.ncrossovers; i++) {
    same_str(&x->items[i], "benchmark", xs[i].benchmark);
    same_str(&x->items[i], "a", xs[i].a);
    same_str(&x->items[i], "b", xs[i].b);
    same_num(&x->items[i], "scale", xs[i].scale);
    same_bool(&x->items[i], "decisive", xs[i].decisive);
  }
  bs__json_free(root);
  free(json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_in in = {data, size};
  pool p;
  p.n = 0;
  unsigned which = fz_byte(&in);
  if (which & 1) {
    fuzz_compare(&in, &p);
  } else {
    fuzz_tune(&in, &p);
  }
  for (size_t i = 0; i < p.n; i++)
    free(p.s[i]);
  return 0;
}
