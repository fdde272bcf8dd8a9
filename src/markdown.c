#include "benchsite/markdown.h"

#include "buf.h"
#include "grow.h"
#include "mdw.h"
#include "present.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *bs_format_time_us(double us, char *buf, size_t n) {
  return bs__fmt_time_plain(buf, n, us);
}

/* "2 of 5 significant regressions survive Holm at 2.5 % over 40 cases". */
static bs_status family_line(bs__buf *b, const bs_compare_result *r) {
  if (r->regressions == 0)
    return bs__buf_printf(b,
                          "no significant regression, so none for Holm's "
                          "correction at 2.5 %% over %zu case%s",
                          r->ncases, r->ncases == 1 ? "" : "s");
  return bs__buf_printf(
      b,
      "%zu of %zu significant regression%s survive%s Holm "
      "at 2.5 %% over %zu case%s",
      r->family_regressions, r->regressions, r->regressions == 1 ? "" : "s",
      r->regressions == 1 ? "s" : "", r->ncases, r->ncases == 1 ? "" : "s");
}

/* What --noise did: thresholds raised, cases without a floor. */
static bs_status noise_line(bs__buf *b, const bs_compare_result *r) {
  if (!r->noise_applied)
    return BS_OK;
  bs_status st =
      r->raised == 0
          ? bs__buf_puts(b, "no case's A/A noise floor is "
                            "above δ, so no threshold was raised")
          : bs__buf_printf(b,
                           "%zu of %zu case%s had %s "
                           "threshold raised to %s A/A "
                           "noise floor (a change below the floor cannot be "
                           "told from noise on "
                           "this setup)",
                           r->raised, r->ncases, r->ncases == 1 ? "" : "s",
                           r->raised == 1 ? "its" : "their",
                           r->raised == 1 ? "its" : "their");
  if (!st && r->without_floor)
    st = bs__buf_printf(b, "; %zu had no floor and kept δ = %g %%",
                        r->without_floor, r->options.threshold_pct);
  return st;
}

/* A case the comment must show whatever its size: a significant
 * regression, a significant improvement (faster with the whole interval
 * below zero), an inconclusive case or a difference the noise floor
 * explains. */
static int flagged(const bs_case_compare *c) {
  return c->significant_regression || c->significant_improvement ||
         c->inconclusive || c->within_noise;
}

/* "gate passed; 12 of 25 cases inconclusive: a 3 % regression could not be
 * ruled out" (SPEC §2.9 Resolution), or nothing when no case is. */
static bs_status inconclusive_line(bs__buf *b, const bs_compare_result *r,
                                   const char *end) {
  if (!r->inconclusive)
    return BS_OK;
  size_t failures = bs_compare_gate_failures(r);
  bs_status st = BS_OK;
  if (r->options.mode != BS_MODE_CONFIRMATORY)
    st = BS_OK;
  else if (failures)
    st = bs__buf_printf(b, "gate failed (%zu significant regression%s); ",
                        failures, failures == 1 ? "" : "s");
  else
    st = bs__buf_puts(b, "gate passed; ");
  if (!st)
    st = bs__buf_printf(b,
                        "%zu of %zu case%s inconclusive: a %g %% regression "
                        "could not be ruled out%s%s",
                        r->inconclusive, r->ncases, r->ncases == 1 ? "" : "s",
                        r->options.threshold_pct,
                        r->raised ? " (nor, where a case's A/A noise floor is "
                                    "higher, one of that size)"
                                  : "",
                        end);
  return st;
}

/* 100·x/med(b): an interval end in percent of the baseline median, the
 * unit of Δ%. */
static double pct_of_baseline(const bs_case_compare *c, double us) {
  return 100.0 * (us / c->median_baseline_us);
}

static bs_status md_row(bs__buf *b, const bs_case_compare *c, bs_metric m) {
  char t1[48], t2[48], t3[48], t4[48], p[48], p1[48], p2[48];
  bs_status st = bs__buf_puts(b, "| ");
  if (!st)
    st = bs__md_case(b, c->benchmark, c->dataset);
  if (!st)
    st = bs__buf_printf(
        b, " | %s | %s | %s %% | %.3f× | %s %% … %s %% | %s … %s | %s%s%s |\n",
        bs__fmt_val_plain(t1, sizeof t1, m, c->median_baseline_us),
        bs__fmt_val_plain(t2, sizeof t2, m, c->median_candidate_us),
        bs__fmt_pct_num_plain(p, sizeof p, c->delta_pct), c->speedup,
        bs__fmt_pct_num_plain(p1, sizeof p1, pct_of_baseline(c, c->ci_low_us)),
        bs__fmt_pct_num_plain(p2, sizeof p2, pct_of_baseline(c, c->ci_high_us)),
        bs__fmt_val_signed_plain(t3, sizeof t3, m, c->ci_low_us),
        bs__fmt_val_signed_plain(t4, sizeof t4, m, c->ci_high_us),
        bs__verdict_markdown(bs__significance(c), c->verdict),
        c->within_noise ? " · within noise" : "",
        c->inconclusive ? " · ◐ inconclusive" : "");
  return st;
}

/* The pieces of a comparison comment, each rendered on its own so that a
 * comment too long for GitHub can keep the ones that matter. */
typedef struct md_piece {
  char *text;
  size_t len;
  int keep;
} md_piece;

typedef struct md_list {
  md_piece *p;
  size_t n, cap;
} md_list;

static bs_status piece_take(md_list *l, bs__buf *b, bs_status st) {
  if (st) {
    bs__buf_release(b);
    return st;
  }
  md_piece *p = BS__GROW(l->p, l->cap, l->n + 1, 16);
  if (!p) {
    bs__buf_release(b);
    return BS_ENOMEM;
  }
  l->p = p;
  p[l->n].len = b->len;
  p[l->n].text = bs__buf_detach(b, NULL);
  if (!p[l->n].text)
    return BS_ENOMEM;
  p[l->n].keep = 1;
  l->n++;
  return BS_OK;
}

static void list_free(md_list *l) {
  for (size_t i = 0; i < l->n; i++)
    free(l->p[i].text);
  free(l->p);
}

static size_t list_len(const md_list *l) {
  size_t n = 0;
  for (size_t i = 0; i < l->n; i++)
    n += l->p[i].len;
  return n;
}

/* Keeps the leading pieces of l that fit in *budget (stopping at the first
 * that does not) and returns how many were cut. */
static size_t list_fit(md_list *l, size_t *budget) {
  size_t cut = 0;
  for (size_t i = 0; i < l->n; i++) {
    if (!cut && l->p[i].len <= *budget) {
      *budget -= l->p[i].len;
    } else {
      l->p[i].keep = 0;
      cut++;
    }
  }
  return cut;
}

static bs_status list_emit(bs__buf *b, const md_list *l) {
  bs_status st = BS_OK;
  for (size_t i = 0; i < l->n && !st; i++)
    if (l->p[i].keep)
      st = bs__buf_append(b, l->p[i].text, l->p[i].len);
  return st;
}

static bs_status table_head(bs__buf *b, const bs_compare_result *r) {
  bs_status st = bs__buf_puts(b, "| case | ");
  if (!st)
    st = bs__md_text(b, r->baseline);
  if (!st)
    st = bs__buf_puts(b, " (baseline) | ");
  if (!st)
    st = bs__md_text(b, r->candidate);
  if (!st)
    st = bs__buf_printf(b,
                        " (candidate) | Δ%% | speedup | %g %% interval, %% of "
                        "baseline | %g %% interval of med(d) | verdict |\n"
                        "|---|---:|---:|---:|---:|---:|---:|---|\n",
                        r->options.level_pct, r->options.level_pct);
  return st;
}

/* Everything but the table rows, in the order the comment shows it. */
typedef struct md_compare {
  bs__buf head, thead, foot, noise_head, env;
  md_list flagged, other;   /* table rows */
  md_list warnings, floors; /* warning lines, noise-floor rows */
} md_compare;

/* One warning line, "- text", or "- case: text" for a case's warning. */
static bs_status warning_piece(md_compare *m, const bs_case_compare *c,
                               const char *text) {
  bs__buf w;
  bs__buf_init(&w, BS__CAP_MARKDOWN);
  bs_status st = bs__buf_puts(&w, "- ");
  if (!st && c) {
    st = bs__md_case(&w, c->benchmark, c->dataset);
    if (!st)
      st = bs__buf_puts(&w, ": ");
  }
  if (!st)
    st = bs__md_text(&w, text);
  if (!st)
    st = bs__buf_putc(&w, '\n');
  return piece_take(&m->warnings, &w, st);
}

static bs_status md_compare_pieces(md_compare *m, const bs_compare_result *r,
                                   const bs_manifest *env) {
  const bs_compare_options *o = &r->options;
  char mphrase[160];
  bs__buf *b = &m->head;
  bs_status st =
      bs__buf_puts(b, BS_MARKDOWN_MARKER_COMPARE "\n### benchsite: ");
  if (!st)
    st = bs__md_text(b, r->candidate);
  if (!st)
    st = bs__buf_puts(b, " vs ");
  if (!st)
    st = bs__md_text(b, r->baseline);
  if (!st)
    st = bs__buf_printf(b, " — %s in %s",
                        r->regressions == 0   ? "no significant regression"
                        : r->regressions == 1 ? "**1 significant regression**"
                                              : "**significant regressions**",
                        bs_metric_get(o->metric)->quantity);
  if (!st && r->inconclusive)
    st = bs__buf_printf(b, "; **%zu of %zu inconclusive**", r->inconclusive,
                        r->ncases);
  if (!st)
    st = bs__buf_puts(b, "\n\n");
  if (!st && r->regressions > 1)
    st = bs__buf_printf(b, "%zu of %zu cases regressed significantly.\n\n",
                        r->regressions, r->ncases);
  if (!st && r->inconclusive) {
    st = bs__buf_puts(b, "Resolution: ");
    if (!st)
      st = inconclusive_line(b, r,
                             "; the interval of each of them reaches "
                             "δ, so more blocks or a quieter machine "
                             "are needed to decide it.\n\n");
  }
  if (!st)
    st = bs__buf_puts(b, "Family-wise: ");
  if (!st)
    st = family_line(b, r);
  if (!st)
    st = bs__buf_puts(b, r->options.family_wise &&
                                 r->options.mode == BS_MODE_CONFIRMATORY
                             ? " (the gate counts only these).\n\n"
                             : ".\n\n");
  if (!st && r->noise_applied) {
    st = bs__buf_puts(b, "Noise-aware gate: ");
    if (!st)
      st = noise_line(b, r);
    if (!st)
      st = bs__buf_puts(b, ".\n\n");
  }
  if (!st)
    st = table_head(&m->thead, r);
  /* Regressions first, then the rest, each in case order. */
  for (int pass = 0; pass < 2 && !st; pass++) {
    for (size_t i = 0; i < r->ncases && !st; i++) {
      const bs_case_compare *c = &r->cases[i];
      if ((pass == 0) != (c->significant_regression != 0))
        continue;
      bs__buf row;
      bs__buf_init(&row, BS__CAP_MARKDOWN);
      st = piece_take(flagged(c) ? &m->flagged : &m->other, &row,
                      md_row(&row, c, o->metric));
    }
  }
  if (!st)
    st = bs__buf_printf(
        &m->foot,
        "\n<sub>Metric %s. %c%s mode: δ = %g %%, %llu bootstrap resamples of "
        "the median "
        "paired difference d = candidate − baseline per block, %g %% "
        "percentile interval, seed %llu. Δ%% is med(d) relative to the "
        "baseline median, so it need not equal the ratio of the two medians "
        "shown; speedup = med(baseline) / (med(baseline) + med(d)). A "
        "significant regression needs Δ%% ≥ δ and an interval entirely "
        "above zero, a significant improvement Δ%% ≤ −δ and an interval "
        "entirely below zero (δ raised to a case's A/A noise floor with the "
        "noise-aware gate)%s.</sub>\n",
        bs__metric_phrase(mphrase, sizeof mphrase, o->metric),
        toupper((unsigned char)bs_mode_name(o->mode)[0]),
        bs_mode_name(o->mode) + 1, o->threshold_pct,
        (unsigned long long)o->resamples, o->level_pct,
        (unsigned long long)o->seed,
        r->inconclusive ? "; a case is inconclusive when it is not a "
                          "significant regression and the interval's upper "
                          "end, as a percentage of the baseline median, "
                          "reaches δ"
                        : "");

  for (size_t i = 0; i < r->nwarnings && !st; i++)
    st = warning_piece(m, NULL, r->warnings[i]);
  for (size_t i = 0; i < r->ncases && !st; i++)
    for (size_t k = 0; k < r->cases[i].nwarnings && !st; k++)
      st = warning_piece(m, &r->cases[i], r->cases[i].warnings[k]);

  for (size_t i = 0; i < r->ncases && !st; i++) {
    const bs_case_compare *c = &r->cases[i];
    if (!c->has_noise_floor)
      continue;
    bs__buf w;
    bs__buf_init(&w, BS__CAP_MARKDOWN);
    bs_status s2 = bs__buf_puts(&w, "| ");
    if (!s2)
      s2 = bs__md_case(&w, c->benchmark, c->dataset);
    char fl[48];
    if (!s2)
      s2 = bs__buf_printf(
          &w, " | %s | %.2f %% | %.3g %%%s | %s |\n",
          bs__fmt_floor_plain(fl, sizeof fl, c->noise_floor_pct),
          fabs(c->delta_pct), c->effective_threshold_pct,
          c->effective_threshold_pct > r->options.threshold_pct ? " (raised)"
                                                                : "",
          c->within_noise ? "within noise" : "clears the floor");
    st = piece_take(&m->floors, &w, s2);
  }
  if (!st && m->floors.n)
    st = bs__buf_puts(&m->noise_head,
                      "\n**Noise floor** (A/A validation, 90th "
                      "percentile of \\|Δ%\\| between identical code)\n\n"
                      "| case | noise floor | \\|Δ%\\| | threshold | "
                      "reading |\n"
                      "|---|---:|---:|---:|---|\n");
  if (!st && env && bs_manifest_count(env)) {
    b = &m->env;
    st = bs__buf_puts(b, "\n<details><summary>Environment</summary>\n\n"
                         "| key | value |\n|---|---|\n");
    for (size_t i = 0; i < bs_manifest_count(env) && !st; i++) {
      st = bs__buf_puts(b, "| ");
      if (!st)
        st = bs__md_text(b, bs_manifest_key(env, i));
      if (!st)
        st = bs__buf_puts(b, " | ");
      if (!st)
        st = bs__md_text(b, bs_manifest_value(env, i));
      if (!st)
        st = bs__buf_puts(b, " |\n");
    }
    if (!st)
      st = bs__buf_puts(b, "\n</details>\n");
  }
  return st;
}

/* Room left for the lines that say what was folded or cut. */
#define MD_RESERVE 1200

bs_status bs_markdown_compare(const bs_compare_result *r,
                              const bs_manifest *env, char **out, size_t *len,
                              bs_error *err) {
  md_compare m;
  memset(&m, 0, sizeof m);
  bs__buf_init(&m.head, BS__CAP_MARKDOWN);
  bs__buf_init(&m.thead, BS__CAP_MARKDOWN);
  bs__buf_init(&m.foot, BS__CAP_MARKDOWN);
  bs__buf_init(&m.noise_head, BS__CAP_MARKDOWN);
  bs__buf_init(&m.env, BS__CAP_MARKDOWN);
  bs__buf b;
  bs__buf_init(&b, BS__CAP_MARKDOWN);
  bs_status st = md_compare_pieces(&m, r, env);
  size_t total = m.head.len + m.thead.len + m.foot.len + m.noise_head.len +
                 m.env.len + list_len(&m.flagged) + list_len(&m.other) +
                 list_len(&m.warnings) + list_len(&m.floors) + 32;
  if (!st && total <= BS_MARKDOWN_LIMIT) {
    /* It fits: one table, significant regressions first. */
    st = bs__buf_append(&b, m.head.data, m.head.len);
    if (!st)
      st = bs__buf_append(&b, m.thead.data, m.thead.len);
    /* Rows were split by flag; put them back in one sequence: the
     * regressions (all flagged) first, then the rest in case order. */
    size_t fi = 0, oi = 0;
    for (int pass = 0; pass < 2 && !st; pass++) {
      for (size_t i = 0; i < r->ncases && !st; i++) {
        const bs_case_compare *c = &r->cases[i];
        if ((pass == 0) != (c->significant_regression != 0))
          continue;
        const md_piece *p = flagged(c) ? &m.flagged.p[fi++] : &m.other.p[oi++];
        st = bs__buf_append(&b, p->text, p->len);
      }
    }
    if (!st)
      st = bs__buf_append(&b, m.foot.data, m.foot.len);
    if (!st && m.warnings.n)
      st = bs__buf_puts(&b, "\n**Warnings**\n\n");
    if (!st)
      st = list_emit(&b, &m.warnings);
    if (!st && m.floors.n)
      st = bs__buf_append(&b, m.noise_head.data, m.noise_head.len);
    if (!st)
      st = list_emit(&b, &m.floors);
    if (!st && m.env.len)
      st = bs__buf_append(&b, m.env.data, m.env.len);
  } else if (!st) {
    /* Too long for a comment: the flagged cases stay in the table, the
     * others fold into <details>; what still does not fit is cut, most
     * important last: other rows, the environment, noise-floor rows,
     * warnings, and flagged rows. */
    size_t fixed = m.head.len + 2 * m.thead.len + m.foot.len +
                   m.noise_head.len + MD_RESERVE;
    size_t budget = fixed < BS_MARKDOWN_LIMIT ? BS_MARKDOWN_LIMIT - fixed : 0;
    size_t cut_flagged = list_fit(&m.flagged, &budget);
    size_t cut_warnings = list_fit(&m.warnings, &budget);
    size_t cut_floors = list_fit(&m.floors, &budget);
    int env_kept = m.env.len <= budget;
    if (env_kept)
      budget -= m.env.len;
    size_t cut_other = list_fit(&m.other, &budget);
    size_t cut = cut_flagged + cut_other;

    st = bs__buf_append(&b, m.head.data, m.head.len);
    if (!st && m.flagged.n) {
      st = bs__buf_append(&b, m.thead.data, m.thead.len);
      if (!st)
        st = list_emit(&b, &m.flagged);
    }
    if (!st && m.other.n) {
      st = bs__buf_printf(&b,
                          "\n<details><summary>%zu other case%s: no "
                          "significant change</summary>\n\n",
                          m.other.n, m.other.n == 1 ? "" : "s");
      if (!st)
        st = bs__buf_append(&b, m.thead.data, m.thead.len);
      if (!st)
        st = list_emit(&b, &m.other);
      if (!st)
        st = bs__buf_puts(&b, "\n</details>\n");
    }
    if (!st && cut)
      st = bs__buf_printf(
          &b,
          "\n**%zu of %zu cases are left out** (%zu flagged, %zu without "
          "a significant change) to keep this comment under GitHub's size "
          "limit. The full table is in the output of `benchsite compare` "
          "(its text table, `--json` and `--html` report) in this job's "
          "log and artifacts.\n",
          cut, r->ncases, cut_flagged, cut_other);
    if (!st)
      st = bs__buf_append(&b, m.foot.data, m.foot.len);
    if (!st && m.warnings.n)
      st = bs__buf_puts(&b, "\n**Warnings**\n\n");
    if (!st)
      st = list_emit(&b, &m.warnings);
    if (!st && cut_warnings)
      st = bs__buf_printf(&b, "- … and %zu more warnings (left out)\n",
                          cut_warnings);
    if (!st && m.floors.n)
      st = bs__buf_append(&b, m.noise_head.data, m.noise_head.len);
    if (!st)
      st = list_emit(&b, &m.floors);
    if (!st && cut_floors)
      st = bs__buf_printf(&b, "\n%zu more noise-floor rows are left out.\n",
                          cut_floors);
    if (!st && m.env.len && env_kept)
      st = bs__buf_append(&b, m.env.data, m.env.len);
    else if (!st && m.env.len)
      st = bs__buf_puts(&b, "\nThe environment is left out (too long).\n");
  }
  bs__buf_release(&m.head);
  bs__buf_release(&m.thead);
  bs__buf_release(&m.foot);
  bs__buf_release(&m.noise_head);
  bs__buf_release(&m.env);
  list_free(&m.flagged);
  list_free(&m.other);
  list_free(&m.warnings);
  list_free(&m.floors);
  return bs__buf_finish(&b, st, "Markdown", out, len, err);
}

bs_status bs_markdown_tune(const bs_tune_result *r, char **out, size_t *len,
                           bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, BS__CAP_MARKDOWN);
  char t[48];
  bs__buf row;
  bs__buf_init(&row, BS__CAP_MARKDOWN);
  size_t cut = 0, cut_cross = 0;
  const bs_metric_info *mi = bs_metric_get(r->metric);
  bs_status st = bs__buf_printf(&b,
                                BS_MARKDOWN_MARKER_TUNE
                                "\n### benchsite: %s implementation per "
                                "case (%s)\n\n| case | scale | best | "
                                "median %s | others | win |\n"
                                "|---|---:|---|---:|---|---|\n",
                                mi->best, mi->quantity, mi->quantity);
  for (size_t i = 0; i < r->ncases && !st; i++) {
    const bs_tune_case *c = &r->cases[i];
    double best = 0;
    bs__buf_reset(&row);
    st = bs__buf_puts(&row, "| ");
    if (!st)
      st = bs__md_case(&row, c->benchmark, c->dataset);
    if (!st)
      st = c->has_scale ? bs__buf_printf(&row, " | %g | ", c->scale)
                        : bs__buf_puts(&row, " | | ");
    if (!st)
      st = bs__md_text(&row, c->best);
    for (size_t u = 0; u < c->nmedians; u++)
      if (c->medians[u].impl == c->best)
        best = c->medians[u].median_us;
    if (!st)
      st = bs__buf_printf(&row, " | %s | ",
                          bs__fmt_val_plain(t, sizeof t, r->metric, best));
    for (size_t u = 0, k = 0; u < c->nmedians && !st; u++) {
      if (c->medians[u].impl == c->best)
        continue;
      st = bs__buf_puts(&row, k++ ? ", " : "");
      if (!st)
        st = bs__md_text(&row, c->medians[u].impl);
      if (!st)
        st = bs__buf_printf(&row, " ×%.2f", c->medians[u].median_us / best);
    }
    if (!st)
      st = bs__buf_puts(&row, !c->runner_up ? " | only one impl |\n"
                              : c->decisive ? " | decisive |\n"
                                            : " | tie within noise |\n");
    if (!st)
      st = bs__md_fit(&b, &row, MD_RESERVE, &cut);
  }
  if (!st)
    st = bs__buf_printf(&b,
                        "\n<sub>Metric %s. A win is decisive when the 95 %% "
                        "paired "
                        "interval of med(best − runner-up) lies below zero "
                        "(2000 resamples); otherwise it is a tie within "
                        "noise.</sub>\n",
                        bs__metric_phrase(t, sizeof t, r->metric));
  for (int pass = 0; pass < 2 && !st; pass++) {
    size_t shown = 0;
    for (size_t i = 0; i < r->ncrossovers && !st; i++) {
      const bs_crossover *c = &r->crossovers[i];
      if ((c->decisive != 0) != (pass == 0))
        continue;
      if (shown++ == 0)
        st = bs__buf_puts(
            &b, pass == 0
                    ? "\n**Crossovers** (log-log interpolation)\n\n"
                      "| benchmark | a | b | scale |\n|---|---|---|---:|\n"
                    : "\n**Crossovers that are ties within noise** (the "
                      "paired interval includes zero at one of the two "
                      "scales)\n\n"
                      "| benchmark | a | b | scale |\n|---|---|---|---:|\n");
      bs__buf_reset(&row);
      if (!st)
        st = bs__buf_puts(&row, "| ");
      if (!st)
        st = bs__md_text(&row, c->benchmark);
      if (!st)
        st = bs__buf_puts(&row, " | ");
      if (!st)
        st = bs__md_text(&row, c->a);
      if (!st)
        st = bs__buf_puts(&row, " | ");
      if (!st)
        st = bs__md_text(&row, c->b);
      if (!st)
        st = bs__buf_printf(&row, " | %.4g |\n", c->scale);
      if (!st)
        st = bs__md_fit(&b, &row, MD_RESERVE, &cut_cross);
    }
  }
  if (!st && (cut || cut_cross))
    st = bs__buf_printf(&b,
                        "\n**%zu of %zu cases and %zu of %zu crossovers are "
                        "left out** to keep this comment under GitHub's size "
                        "limit; the full tables are in the output of "
                        "`benchsite tune` (its text table, `--json` and "
                        "`--html` report).\n",
                        cut, r->ncases, cut_cross, r->ncrossovers);
  bs__buf_release(&row);
  return bs__buf_finish(&b, st, "Markdown", out, len, err);
}

/* Display width of UTF-8 text: code points, control bytes dropped. */
/* Text cells are escaped for a terminal or CI log (bs_text_escape): a
 * hostile name cannot start a line, a workflow command or an escape
 * sequence. A cell that begins a line is escaped as a line start. */
static size_t plain_width(const char *s) {
  size_t w = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    if ((*p & 0xC0) != 0x80)
      w++;
  return w;
}

static size_t text_width_at(const char *s, int flags) {
  char tmp[1024];
  if (bs_text_escape(tmp, sizeof tmp, s, flags) >= sizeof tmp)
    return plain_width(s) * 4; /* an upper bound; cells are short */
  return plain_width(tmp);
}

/* Appends a cell padded to `width`; left- or right-aligned. */
static bs_status cell_at(bs__buf *b, const char *s, size_t width, int right,
                         int flags) {
  size_t w = text_width_at(s, flags);
  bs_status st = BS_OK;
  for (size_t i = w; right && i < width && !st; i++)
    st = bs__buf_putc(b, ' ');
  if (!st)
    st = bs__buf_term(b, s, flags);
  for (size_t i = w; !right && i < width && !st; i++)
    st = bs__buf_putc(b, ' ');
  return st;
}

static bs_status cell(bs__buf *b, const char *s, size_t width, int right) {
  return cell_at(b, s, width, right, 0);
}

#define TEXT_COLS 6

/* One line: the counts, the parameters and the metric; then, when some
 * case is inconclusive, the resolution (SPEC §2.9). */
static bs_status summary_compare(bs__buf *b, const bs_compare_result *r) {
  char mphrase[160];
  bs_status st = bs__buf_printf(
      b,
      "%zu case%s, %zu significant regression%s, %zu significant "
      "improvement%s (%s: delta %g%%, %llu resamples, seed %llu; metric "
      "%s)%s",
      r->ncases, r->ncases == 1 ? "" : "s", r->regressions,
      r->regressions == 1 ? "" : "s", r->improvements,
      r->improvements == 1 ? "" : "s", bs_mode_name(r->options.mode),
      r->options.threshold_pct, (unsigned long long)r->options.resamples,
      (unsigned long long)r->options.seed,
      bs__metric_phrase(mphrase, sizeof mphrase, r->options.metric),
      r->inconclusive ? "; " : "\n");
  if (!st)
    st = inconclusive_line(b, r, "\n");
  return st;
}

bs_status bs_summary_compare(const bs_compare_result *r, char **out,
                             size_t *len, bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, BS__CAP_TEXT);
  return bs__buf_finish(&b, summary_compare(&b, r), "the summary", out, len,
                        err);
}

bs_status bs_summary_tune(const bs_tune_result *r, char **out, size_t *len,
                          bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, BS__CAP_TEXT);
  char mphrase[160];
  bs_status st = bs__buf_printf(
      &b, "%zu case%s tuned, %zu crossover%s (metric %s)\n", r->ncases,
      r->ncases == 1 ? "" : "s", r->ncrossovers, r->ncrossovers == 1 ? "" : "s",
      bs__metric_phrase(mphrase, sizeof mphrase, r->metric));
  return bs__buf_finish(&b, st, "the summary", out, len, err);
}

bs_status bs_text_compare(const bs_compare_result *r, char **out, size_t *len,
                          bs_error *err) {
  size_t n = r->ncases + 1;
  char(*cells)[TEXT_COLS][160] = calloc(n, sizeof *cells);
  bs__buf b;
  bs__buf_init(&b, BS__CAP_TEXT);
  bs_status st = BS_ENOMEM;
  if (!cells)
    goto done;
  snprintf(cells[0][0], 160, "case");
  snprintf(cells[0][1], 160, "%s", r->baseline);
  snprintf(cells[0][2], 160, "%s", r->candidate);
  snprintf(cells[0][3], 160, "delta");
  snprintf(cells[0][4], 160, "%g%% interval of med(d)", r->options.level_pct);
  snprintf(cells[0][5], 160, "verdict");
  for (size_t i = 0; i < r->ncases; i++) {
    const bs_case_compare *c = &r->cases[i];
    char t1[48], t2[48];
    if (c->dataset[0])
      snprintf(cells[i + 1][0], 160, "%s [%s]", c->benchmark, c->dataset);
    else
      snprintf(cells[i + 1][0], 160, "%s", c->benchmark);
    bs_metric m = r->options.metric;
    bs__fmt_val_plain(cells[i + 1][1], 160, m, c->median_baseline_us);
    bs__fmt_val_plain(cells[i + 1][2], 160, m, c->median_candidate_us);
    snprintf(cells[i + 1][3], 160, "%s%%",
             bs__fmt_pct_num_plain(t1, sizeof t1, c->delta_pct));
    snprintf(cells[i + 1][4], 160, "[%s, %s]",
             bs__fmt_val_signed_plain(t1, sizeof t1, m, c->ci_low_us),
             bs__fmt_val_signed_plain(t2, sizeof t2, m, c->ci_high_us));
    snprintf(cells[i + 1][5], 160, "%s%s%s",
             bs__verdict_text(bs__significance(c), c->verdict),
             c->within_noise ? " (within noise)" : "",
             c->inconclusive ? " (inconclusive)" : "");
  }
  size_t width[TEXT_COLS] = {0};
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < TEXT_COLS; k++)
      if (text_width_at(cells[i][k], k ? 0 : BS_TEXT_LINE_START) > width[k])
        width[k] = text_width_at(cells[i][k], k ? 0 : BS_TEXT_LINE_START);
  st = BS_OK;
  for (size_t i = 0; i < n && !st; i++) {
    for (size_t k = 0; k < TEXT_COLS && !st; k++) {
      st = cell_at(&b, cells[i][k], k + 1 == TEXT_COLS ? 0 : width[k],
                   k >= 1 && k <= 3, k ? 0 : BS_TEXT_LINE_START);
      if (!st && k + 1 < TEXT_COLS)
        st = bs__buf_puts(&b, "  ");
    }
    if (!st)
      st = bs__buf_putc(&b, '\n');
  }
  if (!st)
    st = bs__buf_putc(&b, '\n');
  if (!st)
    st = summary_compare(&b, r);
  if (!st)
    st = bs__buf_puts(&b, "family-wise: ");
  if (!st)
    st = family_line(&b, r);
  if (!st)
    st = bs__buf_puts(&b, r->options.family_wise &&
                                  r->options.mode == BS_MODE_CONFIRMATORY
                              ? " (--family-wise: the exit status counts "
                                "only these)\n"
                              : "\n");
  if (!st && r->noise_applied) {
    st = bs__buf_puts(&b, "noise-aware gate: ");
    if (!st)
      st = noise_line(&b, r);
    if (!st)
      st = bs__buf_putc(&b, '\n');
  }
  for (size_t i = 0; i < r->nwarnings && !st; i++) {
    st = bs__buf_puts(&b, "warning: ");
    if (!st)
      st = bs__buf_term(&b, r->warnings[i], 0);
    if (!st)
      st = bs__buf_putc(&b, '\n');
  }
  for (size_t i = 0; i < r->ncases && !st; i++)
    for (size_t k = 0; k < r->cases[i].nwarnings && !st; k++) {
      st = bs__buf_puts(&b, "warning: ");
      if (!st)
        st = bs__buf_term(&b, cells[i + 1][0], 0);
      if (!st)
        st = bs__buf_puts(&b, ": ");
      if (!st)
        st = bs__buf_term(&b, r->cases[i].warnings[k], 0);
      if (!st)
        st = bs__buf_putc(&b, '\n');
    }
done:
  free(cells);
  return bs__buf_finish(&b, st, "the table", out, len, err);
}

static bs_status crossover_text(bs__buf *b, const bs_crossover *c);

bs_status bs_text_tune(const bs_tune_result *r, char **out, size_t *len,
                       bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, BS__CAP_TEXT);
  bs_status st = BS_OK;
  size_t w0 = 4;
  char label[200], t[48];
  for (size_t i = 0; i < r->ncases; i++) {
    const bs_tune_case *c = &r->cases[i];
    snprintf(label, sizeof label, c->dataset[0] ? "%s [%s]" : "%s",
             c->benchmark, c->dataset);
    if (text_width_at(label, BS_TEXT_LINE_START) > w0)
      w0 = text_width_at(label, BS_TEXT_LINE_START);
  }
  st = cell_at(&b, "case", w0, 0, BS_TEXT_LINE_START);
  if (!st)
    st = bs__buf_printf(&b, "  best  (median %s; others as ratio)\n",
                        bs_metric_get(r->metric)->quantity);
  for (size_t i = 0; i < r->ncases && !st; i++) {
    const bs_tune_case *c = &r->cases[i];
    snprintf(label, sizeof label, c->dataset[0] ? "%s [%s]" : "%s",
             c->benchmark, c->dataset);
    double best = 0;
    for (size_t u = 0; u < c->nmedians; u++)
      if (c->medians[u].impl == c->best)
        best = c->medians[u].median_us;
    st = cell_at(&b, label, w0, 0, BS_TEXT_LINE_START);
    if (!st)
      st = bs__buf_puts(&b, "  ");
    if (!st)
      st = cell(&b, c->best, 0, 0);
    if (!st)
      st = bs__buf_printf(&b, " (%s)",
                          bs__fmt_val_plain(t, sizeof t, r->metric, best));
    for (size_t u = 0; u < c->nmedians && !st; u++) {
      if (c->medians[u].impl == c->best)
        continue;
      st = bs__buf_puts(&b, "  ");
      if (!st)
        st = cell(&b, c->medians[u].impl, 0, 0);
      if (!st)
        st = bs__buf_printf(&b, " x%.2f", c->medians[u].median_us / best);
    }
    if (!st && c->runner_up) {
      st = bs__buf_puts(&b, c->decisive ? "  [decisive over "
                                        : "  [tie within noise with ");
      if (!st)
        st = cell(&b, c->runner_up, 0, 0);
      if (!st)
        st = bs__buf_putc(&b, ']');
    }
    if (!st)
      st = bs__buf_putc(&b, '\n');
  }
  for (int pass = 0; pass < 2 && !st; pass++) {
    size_t shown = 0;
    for (size_t i = 0; i < r->ncrossovers && !st; i++) {
      const bs_crossover *c = &r->crossovers[i];
      if ((c->decisive != 0) != (pass == 0))
        continue;
      if (shown++ == 0)
        st = bs__buf_puts(&b, pass == 0 ? "\ncrossovers:\n"
                                        : "\ncrossovers that are ties within "
                                          "noise (not decisive at both "
                                          "scales):\n");
      if (!st)
        st = crossover_text(&b, c);
    }
  }
  for (size_t i = 0; i < r->nwarnings && !st; i++) {
    st = bs__buf_puts(&b, "warning: ");
    if (!st)
      st = cell(&b, r->warnings[i], 0, 0);
    if (!st)
      st = bs__buf_putc(&b, '\n');
  }
  return bs__buf_finish(&b, st, "the table", out, len, err);
}

static bs_status crossover_text(bs__buf *b, const bs_crossover *c) {
  bs_status st = bs__buf_puts(b, "  ");
  if (!st)
    st = cell(b, c->benchmark, 0, 0);
  if (!st)
    st = bs__buf_puts(b, ": ");
  if (!st)
    st = cell(b, c->a, 0, 0);
  if (!st)
    st = bs__buf_puts(b, " / ");
  if (!st)
    st = cell(b, c->b, 0, 0);
  if (!st)
    st = bs__buf_printf(b, " cross at scale %.4g (between %g and %g)\n",
                        c->scale, c->scale_low, c->scale_high);
  return st;
}
