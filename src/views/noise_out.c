/* Renderers for the A/A validation (JSON, Markdown, terminal text) and the
 * reader of a noise JSON for `compare --noise`. */
#include "benchsite/noise.h"

#include "benchsite/compare.h"
#include "benchsite/markdown.h"
#include "benchsite/quantile.h"
#include "buf.h"
#include "csvin.h"
#include "grow.h"
#include "jsonread.h"
#include "jsonw.h"
#include "manifest_json.h"
#include "mdw.h"
#include "oom.h"
#include "present.h"
#include "strlist.h"
#include "strset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- JSON -------------------------------------------------------------- */

static bs_status drift_object(bs__buf *b, int has, const bs_drift *d) {
  if (!has)
    return bs__buf_puts(b, "null");
  bs_status st = bs__buf_puts(b, "{\"rho\": ");
  if (!st)
    st = bs__json_number(b, d->rho);
  if (!st)
    st = bs__buf_puts(b, ", \"z\": ");
  if (!st)
    st = bs__json_number(b, d->z);
  if (!st)
    st = bs__buf_puts(b, ", \"p\": ");
  if (!st)
    st = bs__json_number(b, d->p);
  if (!st)
    st = bs__buf_puts(b, ", \"drifted\": ");
  if (!st)
    st = bs__json_bool(b, d->drifted);
  if (!st)
    st = bs__buf_puts(b, ", \"first\": ");
  if (!st)
    st = bs__json_number(b, d->first);
  if (!st)
    st = bs__buf_puts(b, ", \"second\": ");
  if (!st)
    st = bs__json_number(b, d->second);
  if (!st)
    st = bs__buf_puts(b, ", \"relative_shift\": ");
  if (!st)
    st = bs__json_number(b, d->relative_shift);
  return st ? st : bs__buf_putc(b, '}');
}

/* A case's experiments, and whether their JSON has block lengths. */
typedef struct experiments {
  const bs_noise_experiment *e;
  int blocks;
} experiments;

static bs_status experiment_json(bs__buf *b, const void *ctx, size_t k) {
  const experiments *ex = ctx;
  const bs_noise_experiment *e = &ex->e[k];
  bs__jobj o;
  bs__jobj_begin(&o, b, 10);
  bs__jobj_u64(&o, "run", e->run);
  bs__jobj_u64(&o, "samples_a", e->na);
  bs__jobj_u64(&o, "samples_b", e->nb);
  bs__jobj_number(&o, "median_a_us", e->median_a_us);
  bs__jobj_number(&o, "median_b_us", e->median_b_us);
  bs__jobj_number(&o, "delta", e->delta);
  bs__jobj_u64(&o, "seed_ab", e->seed_ab);
  bs__jobj_u64(&o, "seed_ba", e->seed_ba);
  if (ex->blocks) {
    bs__jobj_u64(&o, "block_length_a", e->block_length_a);
    bs__jobj_u64(&o, "block_length_b", e->block_length_b);
  }
  bs__jobj_number(&o, "conf_ab", e->conf_ab);
  bs__jobj_number(&o, "conf_ba", e->conf_ba);
  bs__jobj_number(&o, "confidence", e->confidence);
  bs__jobj_number(&o, "tie", e->tie);
  if (bs__jobj_key(&o, "drift_a"))
    o.st = drift_object(b, e->has_drift_a, &e->drift_a);
  if (bs__jobj_key(&o, "drift_b"))
    o.st = drift_object(b, e->has_drift_b, &e->drift_b);
  bs__jobj_bool(&o, "drifted", e->drifted);
  bs__jobj_number(&o, "lag1_a", e->lag1_a);
  bs__jobj_number(&o, "lag1_b", e->lag1_b);
  bs__jobj_number(&o, "median_delta_us", e->median_delta_us);
  bs__jobj_number(&o, "paired_delta_pct", e->paired_delta_pct);
  bs__jobj_number(&o, "ci_low_us", e->ci_low_us);
  bs__jobj_number(&o, "ci_high_us", e->ci_high_us);
  bs__jobj_bool(&o, "significant_regression", e->significant_regression);
  return bs__jobj_end(&o);
}

static bs_status case_json(bs__buf *b, const void *result, size_t i) {
  const bs_noise_result *r = result;
  const bs_noise_case *c = &r->cases[i];
  experiments ex = {c->experiments, r->options.block_mode != BS_BLOCK_NONE};
  static const char *const names[] = {
      "noise_floor",       "max_observed_noise", "typical_noise",
      "mean_confidence",   "median_confidence",  "tie_rate",
      "false_signal_rate", "drift_rate",         "median_drift_shift",
      "autocorrelation"};
  const double values[] = {c->noise_floor,        c->max_observed_noise,
                           c->typical_noise,      c->mean_confidence,
                           c->median_confidence,  c->tie_rate,
                           c->false_signal_rate,  c->drift_rate,
                           c->median_drift_shift, c->autocorrelation};
  bs__jobj o;
  bs__jobj_begin_case(&o, b, 6, c->benchmark, c->dataset);
  bs__jobj_u64(&o, "runs", c->runs);
  bs__jobj_numbers(&o, names, values, sizeof values / sizeof values[0]);
  if (bs__jobj_key(&o, "deltas"))
    o.st = bs__json_number_array(b, c->deltas, c->runs);
  if (bs__jobj_key(&o, "confidences"))
    o.st = bs__json_number_array(b, c->confidences, c->runs);
  if (bs__jobj_key(&o, "paired_deltas_pct"))
    o.st = bs__json_number_array(b, c->paired_deltas_pct, c->runs);
  bs__jobj_number(&o, "paired_noise_floor_pct", c->paired_noise_floor_pct);
  bs__jobj_number(&o, "false_regression_rate", c->false_regression_rate);
  bs__jobj_bool(&o, "gate_resolves", c->gate_resolves);
  bs__jobj_u64(&o, "blocks_for_gate", c->blocks_for_gate);
  bs__jobj_objects(&o, "experiments", c->runs, experiment_json, &ex);
  return bs__jobj_end(&o);
}

bs_status bs_json_noise(const bs_noise_result *r, const bs_manifest *env,
                        char **out, size_t *len, bs_error *err) {
  bs__buf b;
  const bs_noise_options *o = &r->options;
  int blocks = o->block_mode != BS_BLOCK_NONE;
  bs__jobj j;
  bs__json_doc_begin(&j, &b, "benchsite.noise/1");
  bs__jobj_string(&j, "a", r->a);
  bs__jobj_string(&j, "b", r->b);
  bs__jobj_string(&j, "metric", bs_metric_get(o->metric)->name);
  bs__jobj_u64(&j, "resamples", o->resamples);
  bs__jobj_number(&j, "level", o->level);
  bs__jobj_u64(&j, "seed", o->seed);
  if (blocks && bs__jobj_key(&j, "block_length"))
    j.st = o->block_mode == BS_BLOCK_AUTO ? bs__json_string(&b, "auto")
                                          : bs__json_u64(&b, o->block_length);
  bs__jobj_number(&j, "suite_false_alarm_rate", r->suite_false_alarm_rate);
  if (bs__jobj_key(&j, "environment"))
    j.st = bs__json_manifest(&b, env, 4);
  bs__jobj_objects(&j, "cases", r->ncases, case_json, r);
  return bs__json_doc_end(&j, out, len, err);
}

/* --- readings ---------------------------------------------------------- */

/* Tie rates above this mean the timer is coarse for the batch size. */
#define TIE_RATE_COARSE 0.05

/* A share in percent for a sentence: whole percents from 1 %, one decimal
 * below. */
static double share_pct(double share, int *decimals) {
  double v = 100.0 * share;
  *decimals = v != 0.0 && v < 1.0 ? 1 : 0;
  return v;
}

/* The case that needs the most blocks for the gate (the suite resolves
 * when it does). */
static const bs_noise_case *neediest(const bs_noise_result *r) {
  size_t w = 0;
  for (size_t i = 1; i < r->ncases; i++)
    if (r->cases[i].blocks_for_gate > r->cases[w].blocks_for_gate)
      w = i;
  return r->ncases ? &r->cases[w] : NULL;
}

/* The suite's planning figures in words: how often an unchanged change
 * fails the gate, and how many blocks would let delta = 3 % resolve. The
 * text holds no user input except through `put_case` (escaped by the
 * caller's writer). */
static bs_status planning(bs__buf *b, const bs_noise_result *r,
                          bs_status (*put_case)(bs__buf *, const char *,
                                                const char *)) {
  int dec;
  double v = share_pct(r->suite_false_alarm_rate, &dec);
  const bs_noise_case *w = neediest(r);
  bs_status st = bs__buf_printf(
      b,
      "An unchanged change fails %.*f %% of gates on this setup (the gate "
      "flagged at least one of the %zu case%s in %zu of %zu A/A runs). ",
      dec, v, r->ncases, r->ncases == 1 ? "" : "s", r->suite_flagged_runs,
      r->suite_runs);
  if (st || !w)
    return st;
  if (w->gate_resolves)
    return bs__buf_printf(b,
                          "δ = 3 %% resolves on every case at the present "
                          "%g blocks per run.\n",
                          w->median_pairs);
  st = bs__buf_printf(b,
                      "About %llu blocks per run (now %g) would let δ = "
                      "3 %% resolve on every case; the most demanding is ",
                      (unsigned long long)w->blocks_for_gate, w->median_pairs);
  if (!st)
    st = put_case(b, w->benchmark, w->dataset);
  char f[48];
  if (!st)
    st = bs__buf_printf(
        b, " (noise floor %s).\n",
        bs__fmt_floor_plain(f, sizeof f, w->paired_noise_floor_pct));
  return st;
}

/* The plain-language reading of each figure. `md` wraps option names in
 * code spans. The text holds no user input. */
static bs_status readings(const bs_noise_result *r, const bs_noise_case *c,
                          int md, char ***list, size_t *n) {
  const char *q = md ? "`" : "";
  const bs_noise_options *o = &r->options;
  bs_status st;
  size_t flagged = (size_t)llround(c->false_regression_rate * (double)c->runs);
  char f[48], r1[48], r2[48], pv[32];
  bs__fmt_floor_plain(f, sizeof f, c->paired_noise_floor_pct);

  if (c->gate_resolves)
    st = bs__strlist_addf(
        list, n,
        "noise floor %s (90th percentile of |paired Δ%%| between "
        "identical code): below the gate's δ = 3 %%, so the gate can tell a "
        "3 %% change from this setup's own noise; a |paired Δ%%| at or below "
        "%s is within noise (write this floor with %s--json%s and give it "
        "to %scompare --noise%s)",
        f, f, q, q, q, q);
  else
    st = bs__strlist_addf(
        list, n,
        "noise floor %s (90th percentile of |paired Δ%%| between "
        "identical code): at or above the gate's δ = 3 %%, so on this setup "
        "the gate cannot tell a 3 %% change from noise; use longer batches, "
        "more blocks or a quieter machine before trusting it",
        f);
  if (st)
    return st;
  if (c->gate_resolves)
    st = bs__strlist_addf(list, n,
                          "blocks for the gate %llu (now %g per run): the "
                          "setup has room to spare at δ = 3 %%",
                          (unsigned long long)c->blocks_for_gate,
                          c->median_pairs);
  else
    st = bs__strlist_addf(
        list, n,
        "blocks for the gate %llu (now %g per run): about that many blocks "
        "per run would let δ = 3 %% resolve, if the noise of the paired Δ%% "
        "falls as "
        "1/√blocks; until then %scompare --noise%s raises this case's "
        "threshold to its floor",
        (unsigned long long)c->blocks_for_gate, c->median_pairs, q, q);
  if (st)
    return st;
  if (flagged &&
      (st = bs__strlist_addf(list, n,
                             "the gate flagged %zu of %zu runs of identical "
                             "code as significant regressions: it raises "
                             "false alarms on this setup",
                             flagged, c->runs)))
    return st;

  if (c->tie_rate >= TIE_RATE_COARSE)
    st = bs__strlist_addf(
        list, n,
        "tie rate %s: bootstrap medians often come out exactly equal, "
        "so the timer is coarse for these batches; use longer batches (a "
        "larger target batch time), more blocks do not help",
        bs__fmt_rate_plain(r1, sizeof r1, 100.0 * c->tie_rate));
  else
    st = bs__strlist_addf(
        list, n,
        "tie rate %s: the timer resolution is fine for "
        "these batches",
        bs__fmt_rate_plain(r1, sizeof r1, 100.0 * c->tie_rate));
  if (st)
    return st;

  if (c->autocorrelation > BS_NOISE_AUTOCORR_LIMIT) {
    if (o->block_mode == BS_BLOCK_NONE)
      st = bs__strlist_addf(
          list, n,
          "autocorrelation %+.2f: above 0.2, use %s--block-length auto%s "
          "(neighbouring blocks resemble each other, so the ordinary "
          "bootstrap is overconfident)",
          c->autocorrelation, q, q);
    else
      st = bs__strlist_addf(list, n,
                            "autocorrelation %+.2f: above 0.2; the moving "
                            "block bootstrap in use accounts for it",
                            c->autocorrelation);
  } else {
    st = bs__strlist_addf(list, n,
                          "autocorrelation %+.2f: at most 0.2, the ordinary "
                          "bootstrap is fine",
                          c->autocorrelation);
  }
  if (st)
    return st;

  if (!c->drift_tested) {
    st = bs__strlist_addf(list, n,
                          "drift not tested: runs have fewer than %d blocks",
                          BS_NOISE_DRIFT_MIN);
  } else {
    size_t k = c->drift_runs;
    double p = c->drift_p;
    bs__fmt_rate_plain(r1, sizeof r1, 100.0 * c->drift_rate);
    bs__fmt_rate_plain(r2, sizeof r2, 100.0 * c->drift_chance_rate);
    if (p >= 0.05)
      st = bs__strlist_addf(
          list, n,
          "drifting runs %s (%zu of %zu): within what chance gives "
          "against the %s expected from a 5 %% test on each series "
          "(p %s); the machine held still",
          r1, k, c->runs, r2, bs__fmt_p_rel(pv, sizeof pv, p));
    else
      st = bs__strlist_addf(
          list, n,
          "drifting runs %s (%zu of %zu): more than the %s "
          "expected by chance (p %s); the machine changed during runs "
          "(frequency, temperature, background load), by a median "
          "|shift| of %s; shorten runs, pin the CPU frequency or quiet "
          "the machine",
          r1, k, c->runs, r2, bs__fmt_p_rel(pv, sizeof pv, p),
          bs__fmt_floor_plain(f, sizeof f, 100.0 * c->median_drift_shift));
  }
  if (st)
    return st;

  size_t fs = c->false_signal_runs;
  double pfs = c->false_signal_p;
  bs__fmt_rate_plain(r1, sizeof r1, 100.0 * c->false_signal_rate);
  bs__fmt_rate_plain(r2, sizeof r2, 100.0 * c->false_signal_expected);
  if (pfs < 0.05)
    st = bs__strlist_addf(
        list, n,
        "false signals %s (%zu of %zu runs) against %s expected "
        "at level %.2f: more than chance explains (p %s); the unpaired "
        "bootstrap is overconfident on this setup (see drift and "
        "autocorrelation)",
        r1, fs, c->runs, r2, o->level, bs__fmt_p_rel(pv, sizeof pv, pfs));
  else
    st = bs__strlist_addf(
        list, n,
        "false signals %s (%zu of %zu runs) against %s expected "
        "at level %.2f: within what chance gives (p %s); the "
        "confidences look calibrated",
        r1, fs, c->runs, r2, o->level, bs__fmt_p_rel(pv, sizeof pv, pfs));
  if (st)
    return st;

  if (fabs(c->mean_confidence - 0.5) > 0.1)
    st = bs__strlist_addf(
        list, n,
        "mean confidence %.3f: away from 0.5, the measurement favours %s; "
        "check that impls rotate through the block positions (%sbenchsite "
        "check%s)",
        c->mean_confidence,
        c->mean_confidence > 0.5 ? "A (measured faster)"
                                 : "B (measured faster)",
        q, q);
  else
    st = bs__strlist_addf(list, n,
                          "mean confidence %.3f: close to the 0.5 of an "
                          "unbiased setup; neither position is favoured",
                          c->mean_confidence);
  return st;
}

/* A case's figures as the text and the Markdown show them. */
typedef struct figures {
  char floor[48], typical[48], worst[48], paired[48], shift[48];
  char flagged[48], ties[48], drifting[48], signals[48];
} figures;

static void case_figures(figures *g, const bs_noise_case *c) {
  bs__fmt_floor_plain(g->floor, sizeof g->floor, 100.0 * c->noise_floor);
  bs__fmt_floor_plain(g->typical, sizeof g->typical, 100.0 * c->typical_noise);
  bs__fmt_floor_plain(g->worst, sizeof g->worst, 100.0 * c->max_observed_noise);
  bs__fmt_floor_plain(g->paired, sizeof g->paired, c->paired_noise_floor_pct);
  bs__fmt_floor_plain(g->shift, sizeof g->shift, 100.0 * c->median_drift_shift);
  bs__fmt_rate_plain(g->flagged, sizeof g->flagged,
                     100.0 * c->false_regression_rate);
  bs__fmt_rate_plain(g->ties, sizeof g->ties, 100.0 * c->tie_rate);
  bs__fmt_rate_plain(g->drifting, sizeof g->drifting, 100.0 * c->drift_rate);
  bs__fmt_rate_plain(g->signals, sizeof g->signals,
                     100.0 * c->false_signal_rate);
}

static void blocks_range(const bs_noise_case *c, size_t *lo, size_t *hi) {
  *lo = SIZE_MAX;
  *hi = 0;
  for (size_t k = 0; k < c->runs; k++) {
    size_t m = c->experiments[k].na;
    if (m < *lo)
      *lo = m;
    if (m > *hi)
      *hi = m;
  }
}

/* --- text -------------------------------------------------------------- */

/* Copies user text for the terminal with control bytes replaced. */
/* Untrusted text for a terminal or CI log (bs_text_escape). */
static bs_status text_plain(bs__buf *b, const char *s) {
  return bs__buf_term(b, s, 0);
}

/* A case label for the terminal. */
static bs_status text_case(bs__buf *b, const char *benchmark,
                           const char *dataset) {
  char label[512];
  bs__case_label(label, sizeof label, benchmark, dataset);
  return text_plain(b, label);
}

static const char *block_mode_text(const bs_noise_options *o, char *buf,
                                   size_t n) {
  if (o->block_mode == BS_BLOCK_AUTO)
    snprintf(buf, n, ", moving blocks of round(cbrt(n))");
  else if (o->block_mode == BS_BLOCK_FIXED)
    snprintf(buf, n, ", moving blocks of %zu", o->block_length);
  else
    buf[0] = '\0';
  return buf;
}

/* Display width of UTF-8 text in code points. */
static size_t width_of(const char *s, size_t n) {
  size_t w = 0;
  for (size_t i = 0; i < n; i++)
    w += ((unsigned char)s[i] & 0xC0) != 0x80;
  return w;
}

/* 1 when a line begun with `prefix` (blanks only, or nothing) is still
 * at its start for a CI log: what follows could be a workflow command. */
static int blank(const char *prefix) {
  return prefix[strspn(prefix, " ")] == '\0';
}

/* Appends the word p[0..n-1] that begins a line after a blank prefix,
 * escaped as a line start (bs_text_escape): the text may hold a name
 * (already escaped where it stood in the middle of a line), and any of its
 * words can come first on a wrapped line. Its width grows by *extra. */
static bs_status line_start_word(bs__buf *b, const char *p, size_t n,
                                 size_t *extra) {
  char *word = strndup(p, n);
  if (!word)
    return BS_ENOMEM;
  size_t need = bs_text_escape(NULL, 0, word, BS_TEXT_LINE_START);
  bs_status st = bs__buf_term(b, word, BS_TEXT_LINE_START);
  *extra = need > n ? need - n : 0;
  free(word);
  return st;
}

/* Writes `text` (escaped for a terminal or CI log) word-wrapped at `width`
 * columns: `first` before the first line, `rest` before the others. A
 * word that begins a line after a blank prefix is escaped as a line
 * start. */
static bs_status wrapped(bs__buf *b, const char *text, const char *first,
                         const char *rest, size_t width) {
  bs_status st = bs__buf_puts(b, first);
  size_t col = width_of(first, strlen(first));
  size_t indent = width_of(rest, strlen(rest));
  const char *p = text;
  int line_empty = 1;
  int at_start = blank(first); /* the next word begins a CI log line */
  while (!st && *p) {
    while (*p == ' ')
      p++;
    if (!*p)
      break;
    size_t n = strcspn(p, " ");
    /* Keep a unit with its number: "3 %" never breaks. */
    while (p[n] == ' ' && p[n + 1] == '%')
      n += 1 + strcspn(p + n + 1, " ");
    size_t w = width_of(p, n);
    if (!line_empty && col + 1 + w > width) {
      st = bs__buf_putc(b, '\n');
      if (!st)
        st = bs__buf_puts(b, rest);
      col = indent;
      line_empty = 1;
      at_start = blank(rest);
    }
    if (!st && !line_empty) {
      st = bs__buf_putc(b, ' ');
      col++;
    }
    size_t extra = 0;
    if (!st && line_empty && at_start)
      st = line_start_word(b, p, n, &extra);
    else if (!st)
      st = bs__buf_append(b, p, n);
    col += w + extra;
    line_empty = 0;
    p += n;
  }
  return st ? st : bs__buf_putc(b, '\n');
}

bs_status bs_text_noise(const bs_noise_result *r, char **out, size_t *len,
                        bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, BS__CAP_TEXT);
  const bs_noise_options *o = &r->options;
  char mode[64], mphrase[160];
  bs_status st = bs__buf_puts(&b, "A/A validation of ");
  if (!st)
    st = text_plain(&b, r->a);
  if (!st)
    st = bs__buf_puts(&b, " against ");
  if (!st)
    st = text_plain(&b, r->b);
  if (!st)
    st = bs__buf_printf(&b,
                        " (metric %s; %llu resamples, level %.2f, seed "
                        "%llu%s)\n",
                        bs__metric_phrase(mphrase, sizeof mphrase, o->metric),
                        (unsigned long long)o->resamples, o->level,
                        (unsigned long long)o->seed,
                        block_mode_text(o, mode, sizeof mode));
  if (!st) {
    bs__buf para;
    bs__buf_init(&para, BS__CAP_TEXT);
    st = planning(&para, r, text_case);
    if (!st && para.len && para.data[para.len - 1] == '\n')
      para.data[--para.len] = '\0'; /* wrapped ends the line itself */
    if (!st) {
      st = bs__buf_putc(&b, '\n');
      if (!st)
        st = wrapped(&b, para.data, "", "", 78);
    }
    bs__buf_release(&para);
  }
  for (size_t i = 0; i < r->ncases && !st; i++) {
    const bs_noise_case *c = &r->cases[i];
    char label[512];
    size_t lo, hi;
    bs__case_label(label, sizeof label, c->benchmark, c->dataset);
    blocks_range(c, &lo, &hi);
    st = bs__buf_puts(&b, "\n");
    if (!st)
      st = bs__buf_term(&b, label, BS_TEXT_LINE_START);
    if (!st && lo == hi)
      st = bs__buf_printf(&b, ": %zu runs of %zu blocks\n", c->runs, lo);
    else if (!st)
      st = bs__buf_printf(&b, ": %zu runs of %zu to %zu blocks\n", c->runs, lo,
                          hi);
    figures g;
    case_figures(&g, c);
    char expect[48];
    bs__fmt_rate_plain(expect, sizeof expect, 200.0 * (1.0 - o->level));
    if (!st)
      st = bs__buf_printf(
          &b,
          "  noise floor        %s of paired Δ%% (gate δ 3 %%: %s)\n"
          "  unpaired spread    %s (typical %s, largest %s)\n"
          "  gate on A/A        %s of runs flagged a regression\n"
          "  blocks for gate    %llu (now %g per run)\n"
          "  mean confidence    %.3f (0.500 expected, ties split)\n"
          "  median confidence  %.3f\n"
          "  tied replicates    %s\n"
          "  drifting runs      %s (median |shift| %s)\n"
          "  autocorrelation    %+.3f (blocks worthwhile above ~0.2)\n"
          "  false signals      %s at level %.2f (%s expected)\n",
          g.paired, c->gate_resolves ? "resolves" : "does not resolve", g.floor,
          g.typical, g.worst, g.flagged, (unsigned long long)c->blocks_for_gate,
          c->median_pairs, c->mean_confidence, c->median_confidence, g.ties,
          g.drifting, g.shift, c->autocorrelation, g.signals, o->level, expect);
    char **list = NULL;
    size_t nl = 0;
    if (!st)
      st = readings(r, c, 0, &list, &nl);
    if (!st)
      st = bs__buf_puts(&b, "  reading:\n");
    for (size_t k = 0; k < nl && !st; k++)
      st = wrapped(&b, list[k], "    - ", "      ", 78);
    bs__strlist_free(list, nl);
  }
  return bs__buf_finish(&b, st, "the report", out, len, err);
}

/* --- Markdown ---------------------------------------------------------- */

bs_status bs_summary_noise(const bs_noise_result *r, char **out, size_t *len,
                           bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, BS__CAP_TEXT);
  double lo = HUGE_VAL, hi = -HUGE_VAL;
  size_t resolves = 0;
  for (size_t i = 0; i < r->ncases; i++) {
    const bs_noise_case *c = &r->cases[i];
    lo = fmin(lo, c->paired_noise_floor_pct);
    hi = fmax(hi, c->paired_noise_floor_pct);
    resolves += c->gate_resolves != 0;
  }
  char mphrase[160];
  bs_status st = bs__buf_printf(
      &b, "A/A validation of %zu case%s (metric %s)", r->ncases,
      r->ncases == 1 ? "" : "s",
      bs__metric_phrase(mphrase, sizeof mphrase, r->options.metric));
  char f0[48], f1[48];
  if (!st && r->ncases)
    st = bs__buf_printf(&b,
                        ": noise floor %s to %s, the gate's "
                        "δ = 3 %% resolves %zu of %zu",
                        bs__fmt_floor_plain(f0, sizeof f0, lo),
                        bs__fmt_floor_plain(f1, sizeof f1, hi), resolves,
                        r->ncases);
  if (!st)
    st = bs__buf_putc(&b, '\n');
  return bs__buf_finish(&b, st, "the summary", out, len, err);
}

/* Room left for the line that says what was cut. */
#define NOISE_MD_RESERVE 600

bs_status bs_markdown_noise(const bs_noise_result *r, char **out, size_t *len,
                            bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, BS__CAP_MARKDOWN);
  const bs_noise_options *o = &r->options;
  char mode[64], mphrase[160];
  bs__buf row;
  bs__buf_init(&row, BS__CAP_MARKDOWN);
  size_t cut = 0, cut_readings = 0;
  char expect[48];
  bs_status st = bs__buf_puts(&b, BS_MARKDOWN_MARKER_NOISE
                              "\n### benchsite: A/A noise validation — ");
  if (!st)
    st = bs__md_text(&b, r->a);
  if (!st)
    st = bs__buf_puts(&b, " vs ");
  if (!st)
    st = bs__md_text(&b, r->b);
  if (!st)
    st = bs__buf_printf(&b, ", %s\n\n", bs_metric_get(o->metric)->quantity);
  if (!st)
    st = planning(&b, r, bs__md_case);
  if (!st)
    st = bs__buf_puts(
        &b, "\n| case | runs | noise floor | gate (δ 3 %) | "
            "blocks for the gate | "
            "false regressions | unpaired spread (typical, largest) | mean "
            "confidence | ties | drifting runs | autocorrelation | false "
            "signals |\n"
            "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (size_t i = 0; i < r->ncases && !st; i++) {
    const bs_noise_case *c = &r->cases[i];
    st = bs__buf_puts(&row, "| ");
    if (!st)
      st = bs__md_case(&row, c->benchmark, c->dataset);
    figures g;
    case_figures(&g, c);
    if (!st)
      st = bs__buf_printf(
          &row,
          " | %zu | %s | %s | %llu (now %g) | %s | %s (%s, %s) | %.3f | %s | "
          "%s | %+.2f | %s |\n",
          c->runs, g.paired,
          c->gate_resolves ? "resolves" : "⚠ does not resolve",
          (unsigned long long)c->blocks_for_gate, c->median_pairs, g.flagged,
          g.floor, g.typical, g.worst, c->mean_confidence, g.ties, g.drifting,
          c->autocorrelation, g.signals);
    if (!st)
      st = bs__md_fit(&b, &row, BS_MARKDOWN_LIMIT - NOISE_MD_RESERVE, &cut);
  }
  if (!st)
    st = bs__buf_printf(
        &b,
        "\n<sub>Metric %s. Every difference an A/A run finds is noise: A "
        "and B are the "
        "same code. Noise floor: 90th percentile of |paired Δ%%| over the "
        "runs, each run paired by block as the gate pairs it (B baseline). "
        "Unpaired spread: 90th percentile of |u|, u = 1 − med(A)/med(B). "
        "Confidences: "
        "unpaired median bootstrap with ties split, %llu resamples, seed "
        "%llu%s; false signals count runs outside [%.2f, %.2f] (%s "
        "expected).</sub>\n",
        bs__metric_phrase(mphrase, sizeof mphrase, o->metric),
        (unsigned long long)o->resamples, (unsigned long long)o->seed,
        block_mode_text(o, mode, sizeof mode), 1.0 - o->level, o->level,
        bs__fmt_rate_plain(expect, sizeof expect, 200.0 * (1.0 - o->level)));
  for (size_t i = 0; i < r->ncases && !st; i++) {
    const bs_noise_case *c = &r->cases[i];
    char **list = NULL;
    size_t nl = 0;
    st = bs__buf_puts(&row, "\n**");
    if (!st)
      st = bs__md_case(&row, c->benchmark, c->dataset);
    if (!st)
      st = bs__buf_puts(&row, "**\n\n");
    if (!st)
      st = readings(r, c, 1, &list, &nl);
    for (size_t k = 0; k < nl && !st; k++)
      st = bs__buf_printf(&row, "- %s\n", list[k]);
    bs__strlist_free(list, nl);
    if (!st)
      st = bs__md_fit(&b, &row, BS_MARKDOWN_LIMIT - NOISE_MD_RESERVE,
                      &cut_readings);
  }
  if (!st && (cut || cut_readings))
    st = bs__buf_printf(&b,
                        "\n**%zu of %zu cases are left out of the table and "
                        "the readings of %zu** to keep this comment under "
                        "GitHub's size limit; the full report is in the "
                        "output of `benchsite noise` (its text report, "
                        "`--json` and `--html` report).\n",
                        cut, r->ncases, cut_readings);
  bs__buf_release(&row);

  return bs__buf_finish(&b, st, "Markdown", out, len, err);
}
