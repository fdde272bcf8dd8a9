/* benchsite: reading a calibration back (benchsite.calibration/1): the
 * suite's figures and the environment they were measured in. */
#include "benchsite/calibration.h"

#include "benchsite/date.h"
#include "fsutil.h"
#include "jsonread.h"
#include "lmath.h"
#include "oom.h"
#include "strlist.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* Why s does not hold for `run` ("" when it does), the run called
 * `label`: a missing environment, or every comparability key that
 * differs with both values. */
static void difference(const bs_calibration_summary *s, const bs_manifest *run,
                       const char *label, char *out, size_t n) {
  out[0] = '\0';
  if (!bs_manifest_count(s->environment)) {
    snprintf(out, n,
             "the calibration records no environment, so nobody can tell "
             "which setup its figures hold for; run benchsite calibrate "
             "again");
    return;
  }
  if (!run || !bs_manifest_count(run)) {
    snprintf(out, n,
             "%s has no environment manifest, so nobody can tell whether "
             "the calibration was measured on its setup",
             label);
    return;
  }
  const char *diff[BS_MANIFEST_NCOMPARABILITY];
  size_t nd = 0;
  if (bs_manifest_comparable(run, s->environment, diff, &nd))
    return;
  int w = snprintf(out, n,
                   "the calibration was measured on a setup not comparable "
                   "with %s: ",
                   label);
  size_t used = w > 0 && (size_t)w < n ? (size_t)w : 0;
  for (size_t k = 0; k < nd; k++) {
    const char *va = bs_manifest_comparability_value(run, diff[k]);
    const char *vb = bs_manifest_comparability_value(s->environment, diff[k]);
    w = snprintf(out + used, n - used,
                 "%s%s (%s \"%.60s\", the calibration \"%.60s\")",
                 k ? ", " : "", diff[k], label, va ? va : "missing",
                 vb ? vb : "missing");
    if (w > 0 && (size_t)w < n - used)
      used += (size_t)w;
  }
  snprintf(out + used, n - used, "; calibrate on this setup");
}

size_t bs_calibration_summary_difference(const bs_calibration_summary *s,
                                         const bs_manifest *run,
                                         const char *label, char *out,
                                         size_t n) {
  if (!n)
    return 0;
  difference(s, run, label, out, n);
  return strlen(out);
}

bs_status bs_calibration_summary_check_environment(
    const bs_calibration_summary *s, const char *name, const bs_manifest *run,
    bs_error *err) {
  char why[768];
  difference(s, run, "this run", why, sizeof why);
  if (!why[0])
    return BS_OK;
  /* The run's own missing manifest is the command's to give. */
  if (bs_manifest_count(s->environment) && (!run || !bs_manifest_count(run)))
    return bs_error_set(err, BS_EINPUT, name, 0, "%s; give --manifest", why);
  return bs_error_set(err, BS_EINPUT, name, 0, "%s", why);
}

/* ---- Choosing among a directory's calibrations --------------------------- */

/* The most one calibration file may hold: far past what any writes. */
#define CALIBRATION_FILE_LIMIT ((size_t)16 << 20)

int bs_calibration_file_name(const char *name) {
  size_t n = strlen(name);
  return name[0] != '.' && n > 5 && !strcmp(name + n - 5, ".json");
}

void bs_calibration_pick_release(bs_calibration_pick *p) {
  bs_calibration_summary_free(p->chosen);
  bs_calibration_summary_free(p->newest);
  memset(p, 0, sizeof *p);
}

/* Whether calibration a (file an) is newer than b (file bn). */
static int newer(const bs_calibration_summary *a, const char *an,
                 const bs_calibration_summary *b, const char *bn) {
  int c = bs_date_cmp(a->date, b->date);
  return c ? c > 0 : strcmp(an, bn) > 0;
}

bs_status bs_calibration_pick_dir(const char *dir, const bs_manifest *run,
                                  const char *label, bs_calibration_pick *p,
                                  bs_error *err) {
  memset(p, 0, sizeof *p);
  char **names = NULL;
  size_t n = 0;
  struct stat sb;
  if (stat(dir, &sb) != 0 && errno == ENOENT)
    return BS_OK; /* no such directory: no calibration */
  bs_status st = bs__list_dir(dir, bs_calibration_file_name, &names, &n, err);
  if (st)
    return st;
  for (size_t i = 0; i < n && !st; i++) {
    char *path = bs__path_join(dir, names[i]);
    char *text = NULL;
    size_t len = 0;
    bs_calibration_summary *s = NULL;
    if (!path) {
      st = bs__oom(err);
      break;
    }
    st = bs__read_regular(path, BS__OPEN_NOFOLLOW, CALIBRATION_FILE_LIMIT,
                          &text, &len, err);
    if (!st)
      st = bs_calibration_summary_parse(path, text, len, &s, err);
    free(text);
    free(path);
    if (st || !s) { /* parse gives a summary whenever it succeeds */
      if (!st)
        st = bs__oom(err);
      break;
    }
    p->read++;
    char why[sizeof p->why];
    int fits =
        !bs_calibration_summary_difference(s, run, label, why, sizeof why);
    bs_calibration_summary **slot = fits ? &p->chosen : &p->newest;
    char *slot_name = fits ? p->chosen_name : p->newest_name;
    const size_t name_cap = sizeof p->chosen_name;
    if (!*slot || newer(s, names[i], *slot, slot_name)) {
      bs_calibration_summary_free(*slot);
      *slot = s;
      snprintf(slot_name, name_cap, "%s", names[i]);
      if (!fits)
        snprintf(p->why, sizeof p->why, "%s", why);
    } else {
      bs_calibration_summary_free(s);
    }
  }
  bs__strlist_free(names, n);
  if (!st && p->chosen) {
    bs_calibration_summary_free(p->newest);
    p->newest = NULL;
    p->newest_name[0] = p->why[0] = '\0';
  }
  return st;
}
