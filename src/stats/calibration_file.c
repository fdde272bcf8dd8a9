/* benchsite: reading a calibration back (benchsite.calibration/1): the
 * suite's figures and the environment they were measured in. */
#include "benchsite/calibration.h"

#include "benchsite/date.h"
#include "jsonread.h"
#include "lmath.h"
#include "oom.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bs_calibration_summary_free(bs_calibration_summary *s) {
  if (!s)
    return;
  bs_manifest_free(s->environment);
  free(s);
}

static const bs__jvalue *member(const bs__jvalue *o, const char *key,
                                bs__jtype type) {
  const bs__jvalue *v = bs__json_member(o, key);
  return v && v->type == type ? v : NULL;
}

/* A number member of o, or NaN with *bad set. */
static double number(const bs__jvalue *o, const char *key, int *bad) {
  const bs__jvalue *v = o ? member(o, key, BS__JNUMBER) : NULL;
  if (!v)
    *bad = 1;
  return v ? v->number : (double)NAN;
}

bs_status bs_calibration_summary_parse(const char *name, const char *text,
                                       size_t len, bs_calibration_summary **out,
                                       bs_error *err) {
  *out = NULL;
  bs__jvalue *root = NULL;
  bs_status st = bs__json_parse(name, text, len, &root, err);
  if (st)
    return st;
  bs_calibration_summary *s = calloc(1, sizeof *s);
  if (!s || !(s->environment = bs_manifest_new())) {
    st = bs__oom(err);
    goto fail;
  }
  const bs__jvalue *schema = bs__json_member(root, "schema");
  if (root->type != BS__JOBJECT || !schema || schema->type != BS__JSTRING ||
      strcmp(schema->string, "benchsite.calibration/1") != 0) {
    st = bs_error_set(err, BS_EINPUT, name, schema ? schema->line : 1,
                      "not a benchsite calibration (expected \"schema\": "
                      "\"benchsite.calibration/1\")");
    goto fail;
  }
  const bs__jvalue *date = member(root, "date", BS__JSTRING);
  const bs__jvalue *reps = member(root, "reps", BS__JNUMBER);
  const bs__jvalue *method = member(root, "plant_method", BS__JSTRING);
  const bs__jvalue *suite = member(root, "suite", BS__JOBJECT);
  const bs__jvalue *fa =
      suite ? member(suite, "false_alarms", BS__JOBJECT) : NULL;
  const bs__jvalue *plants = suite ? member(suite, "plants", BS__JARRAY) : NULL;
  const bs__jvalue *env = member(root, "environment", BS__JOBJECT);
  if (!date || !reps || !method || !fa || !plants || !env ||
      !(reps->number >= 1 && reps->number <= 1e9 &&
        reps->number == bs__floor(reps->number))) {
    st = bs_error_set(err, BS_EINPUT, name, root->line,
                      "a calibration needs \"date\", \"reps\" (a count), "
                      "\"plant_method\", \"environment\" and \"suite\" "
                      "with \"false_alarms\" and \"plants\"");
    goto fail;
  }
  if (strlen(date->string) >= sizeof s->date || !bs_date_valid(date->string)) {
    st = bs_error_set(err, BS_EINPUT, name, date->line,
                      "\"date\" is not an ISO 8601 date");
    goto fail;
  }
  snprintf(s->date, sizeof s->date, "%s", date->string);
  s->reps = (uint64_t)reps->number;
  s->scaled = !strcmp(method->string, "scaled observations");
  int bad = 0;
  s->false_alarm_rate = number(fa, "rate", &bad);
  s->false_alarm_high = number(fa, "high", &bad);
  double best = INFINITY;
  for (size_t i = 0; i < plants->n; i++) {
    const bs__jvalue *p = &plants->items[i];
    const bs__jvalue *found = member(p, "found", BS__JOBJECT);
    double pct = number(p, "plant_pct", &bad);
    double rate = number(found, "rate", &bad);
    double low = number(found, "low", &bad);
    if (bad)
      break;
    if (fabs(pct - 5) < best) {
      best = fabs(pct - 5);
      s->has_plant = 1;
      s->plant_pct = pct;
      s->found_rate = rate;
      s->found_low = low;
    }
  }
  if (bad || !(s->false_alarm_high >= 0 && s->false_alarm_high <= 1)) {
    st = bs_error_set(err, BS_EINPUT, name, suite->line,
                      "\"suite\": every rate needs \"rate\", \"low\" and "
                      "\"high\" (numbers from 0 to 1), every plant "
                      "\"plant_pct\"");
    goto fail;
  }
  for (size_t i = 0; i < env->n; i++) {
    const bs__jvalue *v = &env->items[i];
    if (v->type != BS__JSTRING || strlen(v->string) != v->len ||
        !env->keys[i][0]) {
      st = bs_error_set(err, BS_EINPUT, name, v->line,
                        "environment key %zu: needs a non-empty key and a "
                        "string value",
                        i + 1);
      goto fail;
    }
    if ((st = bs_manifest_set(s->environment, env->keys[i], v->string))) {
      st = st == BS_ENOMEM
               ? bs__oom(err)
               : bs_error_set(err, BS_EINPUT, name, v->line,
                              "environment key %zu is not valid", i + 1);
      goto fail;
    }
  }
  bs__json_free(root);
  *out = s;
  return BS_OK;
fail:
  bs__json_free(root);
  bs_calibration_summary_free(s);
  return st;
}

bs_status bs_calibration_summary_check_environment(
    const bs_calibration_summary *s, const char *name, const bs_manifest *run,
    bs_error *err) {
  if (!bs_manifest_count(s->environment))
    return bs_error_set(err, BS_EINPUT, name, 0,
                        "the calibration records no environment, so nobody "
                        "can tell which setup its figures hold for; run "
                        "benchsite calibrate again");
  if (!run || !bs_manifest_count(run))
    return bs_error_set(err, BS_EINPUT, name, 0,
                        "this run has no environment manifest, so nobody "
                        "can tell whether the calibration was measured on "
                        "its setup; give --manifest");
  const char *diff[BS_MANIFEST_NCOMPARABILITY];
  size_t nd = 0;
  if (bs_manifest_comparable(run, s->environment, diff, &nd))
    return BS_OK;
  char keys[768] = "";
  size_t used = 0;
  for (size_t k = 0; k < nd; k++) {
    const char *va = bs_manifest_comparability_value(run, diff[k]);
    const char *vb = bs_manifest_comparability_value(s->environment, diff[k]);
    int w = snprintf(keys + used, sizeof keys - used,
                     "%s%s (this run \"%.60s\", the calibration \"%.60s\")",
                     used ? ", " : "", diff[k], va ? va : "missing",
                     vb ? vb : "missing");
    if (w > 0 && (size_t)w < sizeof keys - used)
      used += (size_t)w;
  }
  return bs_error_set(err, BS_EINPUT, name, 0,
                      "the calibration was measured on a setup not "
                      "comparable with this run: %s; calibrate on this "
                      "setup",
                      keys);
}
