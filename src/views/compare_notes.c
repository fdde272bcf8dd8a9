#include "compare_notes.h"

#include "mdw.h"
#include "num.h"
#include "present.h"
#include "strlist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBSP "\xc2\xa0"

/* Cases a note names, the worst first; the rest are counted. */
#define NOTE_NAMES 5
/* ... each cut to this many characters in a terminal or a comment. */
#define NOTE_NAME_CHARS 80

static const char *plural(size_t n) { return n == 1 ? "" : "s"; }

/* Between a number and "%": a no-break space on a page. */
static const char *pct_space(bs__typo t) {
  return t == BS__TYPO_HTML ? NBSP : " ";
}

bs_status bs__typo_user(bs__buf *b, bs__typo t, const char *s) {
  switch (t) {
  case BS__TYPO_MD:
    return bs__md_text(b, s);
  case BS__TYPO_HTML:
    return bs__buf_puts(b, s);
  case BS__TYPO_TERM:
    break;
  }
  return bs__buf_term(b, s, 0);
}

bs_status bs__typo_case(bs__buf *b, bs__typo t, const bs_case_compare *c) {
  if (t == BS__TYPO_MD)
    return bs__md_case(b, c->benchmark, c->dataset);
  char label[1024];
  bs__case_label(label, sizeof label, c->benchmark, c->dataset);
  return bs__typo_user(b, t, label);
}

/* "17.3 %", the figure read against delta. */
static bs_status above(bs__buf *b, double pct, double delta, bs__typo t) {
  char num[64];
  return bs__buf_printf(b, "%s%s%%",
                        bs__fmt_above_num(num, sizeof num, pct, delta),
                        pct_space(t));
}

/* ---- Interval levels ----------------------------------------------------- */

/* The distinct levels of r's cases, ascending, with their counts; at most
 * `max` (the gate has three: 95, 96 and 99.3 %). */
static size_t levels(const bs_compare_result *r, double *lv, size_t *count,
                     size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < r->ncases; i++) {
    double l = r->cases[i].level_pct;
    size_t k = 0;
    while (k < n && lv[k] < l)
      k++;
    if (k < n && lv[k] == l) {
      count[k]++;
      continue;
    }
    if (n == max)
      continue;
    memmove(lv + k + 1, lv + k, (n - k) * sizeof *lv);
    memmove(count + k + 1, count + k, (n - k) * sizeof *count);
    lv[k] = l;
    count[k] = 1;
    n++;
  }
  return n;
}

#define MAX_LEVELS 8

double bs__level_common(const bs_compare_result *r, size_t *others) {
  double lv[MAX_LEVELS];
  size_t count[MAX_LEVELS];
  size_t n = levels(r, lv, count, MAX_LEVELS), best = 0;
  for (size_t k = 1; k < n; k++)
    if (count[k] > count[best] ||
        (count[k] == count[best] && lv[k] == r->options.level_pct))
      best = k;
  double common = n ? lv[best] : r->options.level_pct;
  if (others) {
    *others = 0;
    for (size_t i = 0; i < r->ncases; i++)
      *others += r->cases[i].level_pct != common;
  }
  return common;
}

bs_status bs__level_header(bs__buf *b, const bs_compare_result *r, bs__typo t) {
  size_t others;
  double common = bs__level_common(r, &others);
  if (!others)
    return bs__buf_printf(b, "%g%s%% interval", common, pct_space(t));
  return bs__buf_printf(b, "interval (%g%s%% unless marked)", common,
                        pct_space(t));
}

char *bs__level_mark(char *buf, size_t n, const bs_case_compare *c,
                     double common, bs__typo t) {
  if (c->level_pct == common)
    snprintf(buf, n, "%s", "");
  else
    snprintf(buf, n, "%g%s%%", c->level_pct, pct_space(t));
  return buf;
}

bs_status bs__level_phrase(bs__buf *b, const bs_compare_result *r, bs__typo t) {
  double lv[MAX_LEVELS];
  size_t count[MAX_LEVELS];
  size_t n = levels(r, lv, count, MAX_LEVELS);
  if (n <= 1)
    return bs__buf_printf(b, "%g%s%% interval",
                          n ? lv[0] : r->options.level_pct, pct_space(t));
  bs__buf_puts(b, "intervals at ");
  for (size_t k = 0; k < n; k++)
    bs__buf_printf(b, "%s%g%s%% (%zu case%s%s)",
                   k == 0       ? ""
                   : k + 1 == n ? " and "
                                : ", ",
                   lv[k], pct_space(t), count[k], plural(count[k]),
                   lv[k] == BS_LOOK_EXTRA_LEVEL_PCT &&
                           r->options.mode == BS_MODE_CONFIRMATORY
                       ? ", measured again by the adaptive run"
                       : "");
  return bs__buf_status(b);
}

/* ---- Qualifiers -------------------------------------------------------- */

int bs__qualifier(bs__buf *b, bs__term q, const bs_case_compare *c,
                  double delta, bs__typo t) {
  if (q == BS__T_LAYOUT && c->layout_sensitive) {
    bs__buf_printf(b, "%s: runs disagree by ", bs__glossary(q)->label);
    above(b, c->between_runs_pct, delta, t);
    return 1;
  }
  if (q == BS__T_BLIND && c->blind) {
    bs__buf_printf(b, "%s below ", bs__glossary(q)->label);
    above(b, c->mde_pct, delta, t);
    return 1;
  }
  return 0;
}

bs_status bs__qualifiers(bs__buf *b, const bs_case_compare *c, double delta,
                         const char *sep, bs__typo t) {
  if (c->layout_sensitive) {
    bs__buf_puts(b, sep);
    bs__qualifier(b, BS__T_LAYOUT, c, delta, t);
  }
  if (c->blind) {
    bs__buf_puts(b, sep);
    bs__qualifier(b, BS__T_BLIND, c, delta, t);
  }
  return bs__buf_status(b);
}

void bs__qualifiers_cell(char *buf, size_t n, const bs_case_compare *c,
                         double delta) {
  bs__buf q;
  bs__buf_init(&q, n);
  bs__qualifiers(&q, c, delta, " · ", BS__TYPO_TERM);
  size_t used = strlen(buf);
  if (q.data && used < n)
    snprintf(buf + used, n - used, "%s", q.data);
  bs__buf_release(&q);
}

/* ---- Notes ------------------------------------------------------------- */

/* What `benchsite run` wrote into the manifest about its extra runs. A
 * value that is not a plain number counts as absent (manifests are user
 * text). */
typedef struct extra {
  int has_runs, has_cases, has_seconds, has_max;
  uint64_t runs, cases, max_runs;
  double seconds;
} extra;

static void extra_of(extra *e, const bs_manifest *env) {
  memset(e, 0, sizeof *e);
  const char *v;
  if ((v = bs_manifest_get(env, "extra_runs")))
    e->has_runs = !bs__parse_u64(v, &e->runs);
  if ((v = bs_manifest_get(env, "adaptive_cases")))
    e->has_cases = !bs__parse_u64(v, &e->cases);
  if ((v = bs_manifest_get(env, "extra_seconds")))
    e->has_seconds = !bs__parse_double(v, &e->seconds) && e->seconds >= 0;
  if ((v = bs_manifest_get(env, "max_runs")))
    e->has_max = !bs__parse_u64(v, &e->max_runs);
}

/* "2 of 24 cases" (or "2 cases" when n is not among r's). */
static bs_status cases_of(bs__buf *b, size_t n, const bs_compare_result *r) {
  if (n <= r->ncases)
    return bs__buf_printf(b, "%zu of %zu case%s", n, r->ncases,
                          plural(r->ncases));
  return bs__buf_printf(b, "%zu case%s", n, plural(n));
}

static int adaptive_applies(const bs__notes_in *in) {
  extra e;
  extra_of(&e, in->env);
  return e.has_runs || in->r->adaptive > 0;
}

static bs_status adaptive_note(bs__buf *b, const bs__notes_in *in, bs__typo t) {
  const bs_compare_result *r = in->r;
  extra e;
  extra_of(&e, in->env);
  /* A line of the terminal's list, a paragraph of the comment or page. */
  bs__buf_puts(b, t == BS__TYPO_TERM ? "adaptive runs: " : "Adaptive runs: ");
  if (e.has_runs && e.runs == 0) {
    bs__buf_puts(b, "no case needed extra runs");
  } else {
    cases_of(b, e.has_cases ? (size_t)e.cases : r->adaptive, r);
    bs__buf_puts(b, " took extra runs");
    if (!e.has_runs) {
      /* The looks in the log say which cases; only the manifest of the
       * run says what it cost. */
      return bs__buf_puts(b, " (the manifest does not say how many or how "
                             "long they took)");
    }
    bs__buf_printf(b, " (%llu run%s", (unsigned long long)e.runs,
                   plural((size_t)e.runs));
    if (e.has_seconds)
      bs__buf_printf(b, ", %.1f s", e.seconds);
    if (e.has_max)
      bs__buf_printf(b, "; at most %llu runs in all",
                     (unsigned long long)e.max_runs);
    return bs__buf_puts(b, ")");
  }
  if (e.has_max)
    bs__buf_printf(b, " (at most %llu runs in all)",
                   (unsigned long long)e.max_runs);
  return bs__buf_status(b);
}

/* The (at most) NOTE_NAMES cases `pick` selects with the largest `fig`,
 * largest first (ties in case order), into top; returns how many cases
 * `pick` selects in all. One pass, NOTE_NAMES slots: a run of 80 000
 * blind cases costs no sort. */
static size_t worst(const bs_compare_result *r,
                    int (*pick)(const bs_case_compare *),
                    double (*fig)(const bs_case_compare *),
                    size_t top[NOTE_NAMES], size_t *ntop) {
  size_t n = 0;
  *ntop = 0;
  for (size_t i = 0; i < r->ncases; i++) {
    if (!pick(&r->cases[i]))
      continue;
    n++;
    double v = fig(&r->cases[i]);
    size_t k = *ntop < NOTE_NAMES ? (*ntop)++ : NOTE_NAMES;
    while (k > 0 && fig(&r->cases[top[k - 1]]) < v) {
      if (k < NOTE_NAMES)
        top[k] = top[k - 1];
      k--;
    }
    if (k < NOTE_NAMES)
      top[k] = i;
  }
  return n;
}

static int is_layout(const bs_case_compare *c) { return c->layout_sensitive; }
static double spread(const bs_case_compare *c) { return c->between_runs_pct; }
static int is_blind(const bs_case_compare *c) { return c->blind; }
static double mde(const bs_case_compare *c) { return c->mde_pct; }

/* "thrice by 17.3 %, twice by 11.4 %, and 3 more": the NOTE_NAMES worst,
 * `first_word` between the first name and its figure, `word` between the
 * others'. */
static bs_status named(bs__buf *b, const bs_compare_result *r,
                       int (*pick)(const bs_case_compare *),
                       double (*fig)(const bs_case_compare *),
                       const char *first_word, const char *word, bs__typo t) {
  size_t top[NOTE_NAMES], ntop;
  size_t n = worst(r, pick, fig, top, &ntop);
  double delta = r->options.threshold_pct;
  for (size_t k = 0; k < ntop; k++) {
    const bs_case_compare *c = &r->cases[top[k]];
    bs__buf_puts(b, k ? ", " : "");
    if (t == BS__TYPO_HTML) {
      bs__typo_case(b, t, c);
    } else {
      /* A line, not a table: a name of 4 KiB (Markdown escapes double
       * it) would crowd out the comment's rows. */
      char label[1024], cut[1024];
      bs__case_label(label, sizeof label, c->benchmark, c->dataset);
      bs__typo_user(b, t, bs__clip(cut, sizeof cut, label, NOTE_NAME_CHARS));
    }
    bs__buf_puts(b, k ? word : first_word);
    above(b, fig(c), delta, t);
  }
  if (n > ntop)
    bs__buf_printf(b, ", and %zu more", n - ntop);
  return bs__buf_status(b);
}

static int layout_applies(const bs__notes_in *in) {
  return in->r->layout_sensitive > 0;
}

static bs_status layout_note(bs__buf *b, const bs__notes_in *in, bs__typo t) {
  const bs_compare_result *r = in->r;
  bs__buf_printf(b, "%s ", bs__glossary(BS__T_LAYOUT)->symbol);
  cases_of(b, r->layout_sensitive, r);
  bs__buf_printf(b,
                 " layout-sensitive: %s runs, each in fresh processes with "
                 "a memory layout of its own, disagree by more than δ = "
                 "%g%s%% (",
                 r->layout_sensitive == 1 ? "its" : "their",
                 r->options.threshold_pct, pct_space(t));
  named(b, r, is_layout, spread, " by ", " by ", t);
  bs__buf_printf(b,
                 "); the layout, not the code, may decide %s, and more "
                 "runs average it away",
                 r->layout_sensitive == 1 ? "it" : "them");
  if (!r->held_by_layout)
    return bs__buf_status(b);
  /* A change the interval shows and the runs do not. */
  int one = r->held_by_layout == 1;
  char who[64];
  if (r->layout_sensitive == 1)
    snprintf(who, sizeof who, "it is");
  else
    snprintf(who, sizeof who, "%zu of them %s", r->held_by_layout,
             one ? "is" : "are");
  return bs__buf_printf(b,
                        "; %s not called a significant change: %s interval "
                        "shows one, and a t test over %s runs does not",
                        who, one ? "its" : "their", one ? "its" : "their");
}

static int blind_applies(const bs__notes_in *in) { return in->r->blind > 0; }

static bs_status blind_note(bs__buf *b, const bs__notes_in *in, bs__typo t) {
  const bs_compare_result *r = in->r;
  bs__buf_printf(b, "%s ", bs__glossary(BS__T_BLIND)->symbol);
  cases_of(b, r->blind, r);
  bs__buf_printf(b, " blind to a %g%s%% regression: ", r->options.threshold_pct,
                 pct_space(t));
  named(b, r, is_blind, mde, " could not have seen a change below ", " below ",
        t);
  return bs__buf_printf(b,
                        "; more blocks or runs, or a quieter machine, would "
                        "sharpen %s",
                        r->blind == 1 ? "it" : "them");
}

/* The notes, one row each, in the order every view shows them. */
static const struct {
  int (*applies)(const bs__notes_in *in);
  bs_status (*write)(bs__buf *b, const bs__notes_in *in, bs__typo t);
} notes[BS__NOTES] = {
    [BS__NOTE_ADAPTIVE] = {adaptive_applies, adaptive_note},
    [BS__NOTE_LAYOUT] = {layout_applies, layout_note},
    [BS__NOTE_BLIND] = {blind_applies, blind_note},
};

int bs__note(bs__buf *b, int k, const bs__notes_in *in, bs__typo t) {
  if (k < 0 || k >= BS__NOTES || !notes[k].applies(in))
    return 0;
  notes[k].write(b, in, t);
  return 1;
}

bs_status bs__blind_count(bs__buf *b, const bs_compare_result *r) {
  if (!r->blind)
    return bs__buf_status(b);
  double least = HUGE_VAL, delta = r->options.threshold_pct;
  for (size_t i = 0; i < r->ncases; i++)
    if (r->cases[i].blind && r->cases[i].mde_pct < least)
      least = r->cases[i].mde_pct;
  char lo[64], hi[64];
  bs__fmt_above_num(hi, sizeof hi, r->blind_max_mde_pct, delta);
  if (r->blind == 1 ||
      !strcmp(bs__fmt_above_num(lo, sizeof lo, least, delta), hi))
    return bs__buf_printf(b, "; %zu blind below %s %%", r->blind, hi);
  return bs__buf_printf(b, "; %zu blind below %s–%s %%", r->blind, lo, hi);
}

/* ---- Lines the comment and the text report share --------------------------
 */

/* "2 of 5 significant regressions survive Holm's correction at 2.5 % over
 * 40 cases". */
bs_status bs__family_line(bs__buf *b, const bs_compare_result *r) {
  if (r->regressions == 0)
    return bs__buf_printf(b,
                          "no significant regression, so none for Holm's "
                          "correction at 2.5 %% over %zu case%s",
                          r->ncases, plural(r->ncases));
  return bs__buf_printf(
      b,
      "%zu of %zu significant regression%s survive%s Holm's correction "
      "at 2.5 %% over %zu case%s",
      r->family_regressions, r->regressions, plural(r->regressions),
      r->regressions == 1 ? "s" : "", r->ncases, plural(r->ncases));
}

/* What --noise did: thresholds raised, cases without a floor. */
bs_status bs__noise_line(bs__buf *b, const bs_compare_result *r) {
  if (r->raised == 0)
    bs__buf_puts(b, "no case's noise floor is above δ, so no "
                    "threshold was raised");
  else
    bs__buf_printf(b,
                   "%zu of %zu case%s had %s threshold raised to %s "
                   "noise floor (a change below the floor cannot be "
                   "told from noise on this setup)",
                   r->raised, r->ncases, plural(r->ncases),
                   r->raised == 1 ? "its" : "their",
                   r->raised == 1 ? "its" : "their");
  if (r->without_floor)
    bs__buf_printf(b, "; %zu had no floor and kept δ = %g %%", r->without_floor,
                   r->options.threshold_pct);
  return bs__buf_status(b);
}

/* "12 of 25 cases inconclusive: a 3 % regression could not be ruled out"
 * (SPEC §2.9 Resolution). */
bs_status bs__inconclusive_line(bs__buf *b, const bs_compare_result *r) {
  return bs__buf_printf(
      b,
      "%s %zu of %zu case%s inconclusive: a %g %% regression could not be "
      "ruled out%s; more blocks or a quieter machine would decide %s",
      bs__glossary(BS__T_INCONCLUSIVE)->symbol, r->inconclusive, r->ncases,
      plural(r->ncases), r->options.threshold_pct,
      r->raised ? " (nor, where a case's noise floor is higher, one of that "
                  "size)"
                : "",
      r->inconclusive == 1 ? "it" : "them");
}

/* "confirmatory gate: δ = 3 %, 95 % interval, 10000 resamples of med(d),
 * seed 0; metric wall: wall time per call, µs" (an adaptive run's levels,
 * bs__level_phrase, in place of "95 % interval"). */
bs_status bs__method_line(bs__buf *b, const bs_compare_result *r) {
  const bs_compare_options *o = &r->options;
  char m[160];
  bs__buf_printf(b, "%s: δ = %g %%, ",
                 o->mode == BS_MODE_CONFIRMATORY ? "confirmatory gate"
                                                 : "hotspot (exploratory)",
                 o->threshold_pct);
  bs__level_phrase(b, r, BS__TYPO_TERM);
  return bs__buf_printf(b,
                        ", %llu bootstrap resamples of med(d), seed %llu; "
                        "metric %s",
                        (unsigned long long)o->resamples,
                        (unsigned long long)o->seed,
                        bs__metric_phrase(m, sizeof m, o->metric));
}
