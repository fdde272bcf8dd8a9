/* A comparison in words: the headline every view leads with, the
 * pull-request comment (SPEC §4.3) and the text report. The headline is
 * written once, by headline(), for both typographies (Markdown and a
 * terminal), so the comment's second line, the text report's first and
 * the one-line summary are the same sentence. */
#include "benchsite/markdown.h"

#include "buf.h"
#include "compare_notes.h"
#include "grow.h"
#include "mdw.h"
#include "present.h"
#include "strlist.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Links ----------------------------------------------------------------
 */

bs_status bs_markdown_check_link_base(const char *url, bs_error *err) {
  const char *host = NULL;
  if (url && !strncmp(url, "https://", 8))
    host = url + 8;
  else if (url && !strncmp(url, "http://", 7))
    host = url + 7;
  if (!host || !*host || *host == '/' || *host == '?' || *host == '#')
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "--link-base wants an http:// or https:// URL with "
                        "a host, where the report is published");
  for (const unsigned char *p = (const unsigned char *)url; *p; p++)
    if (*p <= 0x20 || *p == 0x7f)
      return bs_error_set(err, BS_EUSAGE, NULL, 0,
                          "--link-base: a URL holds no space or control "
                          "character (percent-encode it)");
  return BS_OK;
}

/* base (its trailing '/' dropped) + "/" + page, as a link destination. */
static bs_status link_to(bs__buf *b, const char *base, const char *page) {
  size_t n = strlen(base);
  while (n > 0 && base[n - 1] == '/')
    n--;
  char *trimmed = malloc(n + 1);
  if (!trimmed)
    return bs__buf_fail(b, BS_ENOMEM);
  memcpy(trimmed, base, n);
  trimmed[n] = '\0';
  bs__md_url(b, trimmed);
  free(trimmed);
  bs__buf_putc(b, '/');
  return bs__md_url(b, page);
}

static const char *link_base(const bs_markdown_options *o) {
  return o && o->link_base && o->link_base[0] ? o->link_base : NULL;
}

/* ---- What the headline counts --------------------------------------------
 * Each case falls in exactly one kind, the first that applies; the first
 * four are the cases that matter (the comment's table). */
enum {
  K_REGRESSION,   /* significant regression */
  K_IMPROVEMENT,  /* significant improvement */
  K_INCONCLUSIVE, /* neither, and the interval reaches delta */
  K_NOISE,        /* slower or faster, within the case's noise floor */
  K_EQUIVALENT,
  K_SLOWER, /* slower, not significant (neither inconclusive nor noise) */
  K_FASTER, /* faster, not significant, not inconclusive */
  NKINDS
};
#define FLAGGED(k) ((k) <= K_NOISE)

static int kind_of(const bs_case_compare *c) {
  if (c->significant_regression)
    return K_REGRESSION;
  if (c->significant_improvement)
    return K_IMPROVEMENT;
  if (c->inconclusive)
    return K_INCONCLUSIVE;
  if (c->within_noise && c->verdict != BS_VERDICT_EQUIVALENT)
    return K_NOISE;
  return c->verdict == BS_VERDICT_SLOWER   ? K_SLOWER
         : c->verdict == BS_VERDICT_FASTER ? K_FASTER
                                           : K_EQUIVALENT;
}

/* The glossary term each kind is shown with. */
static bs__term kind_term(int k) {
  static const bs__term t[NKINDS] = {BS__T_REGRESSION,   BS__T_IMPROVEMENT,
                                     BS__T_INCONCLUSIVE, BS__T_WITHIN_NOISE,
                                     BS__T_EQUIVALENT,   BS__T_SLOWER,
                                     BS__T_FASTER};
  return t[k];
}

typedef struct facts {
  size_t n[NKINDS];
  const bs_case_compare *worst; /* the largest paired delta regressed */
  char cand_commit[64], base_commit[64];
  const char *protocol;
  size_t bmin, bmax;   /* blocks (pairs) per case */
  double common_level; /* the tables' interval level (bs__level_common) */
  size_t other_levels; /* cases at another level, marked */
} facts;

/* A commit as the headline names it: a hexadecimal id cut to 7 digits
 * (GitHub links those in a comment), any other value (a tag) cut to 16
 * characters, nothing for none or "unknown". */
static void short_commit(char *out, size_t n, const char *v) {
  out[0] = '\0';
  if (!v || !v[0] || !strcmp(v, "unknown"))
    return;
  size_t hex = 0;
  while (isxdigit((unsigned char)v[hex]))
    hex++;
  if (hex >= 7 && !v[hex])
    snprintf(out, n, "%.7s", v);
  else
    bs__clip(out, n, v, 16);
}

static void facts_of(facts *f, const bs_compare_result *r,
                     const bs_manifest *env) {
  memset(f, 0, sizeof *f);
  f->bmin = (size_t)-1;
  for (size_t i = 0; i < r->ncases; i++) {
    const bs_case_compare *c = &r->cases[i];
    int k = kind_of(c);
    f->n[k]++;
    if (k == K_REGRESSION && (!f->worst || c->delta_pct > f->worst->delta_pct))
      f->worst = c;
    f->bmin = c->blocks < f->bmin ? c->blocks : f->bmin;
    f->bmax = c->blocks > f->bmax ? c->blocks : f->bmax;
  }
  if (!r->ncases)
    f->bmin = 0;
  f->common_level = bs__level_common(r, &f->other_levels);
  short_commit(f->cand_commit, sizeof f->cand_commit,
               bs_manifest_get(env, "commit"));
  short_commit(f->base_commit, sizeof f->base_commit,
               bs_manifest_get(env, "baseline_commit"));
  f->protocol = bs_manifest_get(env, "protocol");
  if (f->protocol && !f->protocol[0])
    f->protocol = NULL;
}

/* ---- One writer, two typographies ------------------------------------------
 * Our own words go out as they are (they hold no markup); user text is
 * escaped for the medium: Markdown (bs__md_text) or a terminal
 * (bs_text_escape). */
typedef struct hw {
  bs__buf *b;
  int md;
} hw;

static bs_status w_lit(hw *w, const char *s) { return bs__buf_puts(w->b, s); }

static bs_status w_user(hw *w, const char *s) {
  return w->md ? bs__md_text(w->b, s) : bs__buf_term(w->b, s, 0);
}

static bs_status w_case(hw *w, const bs_case_compare *c) {
  if (w->md)
    return bs__md_case(w->b, c->benchmark, c->dataset);
  char label[1024];
  bs__case_label(label, sizeof label, c->benchmark, c->dataset);
  return bs__buf_term(w->b, label, 0);
}

/* "+75.51 %" */
static char *pct(char *buf, size_t n, double v) {
  char num[48];
  snprintf(buf, n, "%s %%", bs__fmt_pct_num_plain(num, sizeof num, v));
  return buf;
}

static const char *plural(size_t n) { return n == 1 ? "" : "s"; }

/* The headline, without a newline (see bs_summary_compare). */
static bs_status headline(hw *w, const bs_compare_result *r, const facts *f,
                          const bs_markdown_options *o) {
  const bs_compare_options *op = &r->options;
  size_t fails = bs_compare_gate_failures(r);
  const bs__gloss *gate =
      bs__glossary(op->mode == BS_MODE_HOTSPOT ? BS__T_HOTSPOT
                   : fails                     ? BS__T_GATE_FAILED
                                               : BS__T_GATE_PASSED);
  char buf[160];
  w_lit(w, w->md ? "**" : "");
  bs__buf_printf(w->b, "%s%s: ", gate->label,
                 op->mode == BS_MODE_HOTSPOT ? " (exploratory, does "
                                               "not gate)"
                 : !fails && r->regressions  ? " (family-wise)"
                                             : "");
  if (r->regressions)
    bs__buf_printf(w->b, "%zu %s%s", r->regressions,
                   bs__glossary(BS__T_REGRESSION)->word,
                   plural(r->regressions));
  else
    bs__buf_printf(w->b, "no %s", bs__glossary(BS__T_REGRESSION)->word);
  w_lit(w, w->md ? "**" : "");
  if (f->worst) {
    w_lit(w, r->regressions > 1 ? " (worst " : " (");
    w_case(w, f->worst);
    bs__buf_printf(w->b, " %s)", pct(buf, sizeof buf, f->worst->delta_pct));
  }
  bs__buf_printf(w->b, ", %zu %s%s, %zu %s", f->n[K_IMPROVEMENT],
                 bs__glossary(BS__T_IMPROVEMENT)->word,
                 plural(f->n[K_IMPROVEMENT]), f->n[K_INCONCLUSIVE],
                 bs__glossary(BS__T_INCONCLUSIVE)->word);
  /* What an inconclusive case means, where there is one (SPEC §2.9). */
  if (f->n[K_INCONCLUSIVE])
    bs__buf_printf(w->b, " (a %g %% regression could not be ruled out)",
                   op->threshold_pct);
  bs__buf_printf(w->b, ", %zu %s", f->n[K_EQUIVALENT],
                 bs__glossary(BS__T_EQUIVALENT)->word);
  /* The rest, when there are any, so that the counts add up. */
  static const int rest[] = {K_NOISE, K_SLOWER, K_FASTER};
  for (size_t i = 0; i < 3; i++)
    if (f->n[rest[i]])
      bs__buf_printf(w->b, ", %zu %s", f->n[rest[i]],
                     bs__glossary(kind_term(rest[i]))->word);
  /* What the gate could not see, apart: a blind case is also counted
   * above (SPEC §2.15). */
  bs__blind_count(w->b, r);
  w_lit(w, " — ");
  w_user(w, r->candidate);
  if (f->cand_commit[0]) {
    w_lit(w, " ");
    w_user(w, f->cand_commit);
  }
  w_lit(w, " vs ");
  w_user(w, r->baseline);
  if (f->base_commit[0]) {
    w_lit(w, " ");
    w_user(w, f->base_commit);
  }
  bs__buf_printf(w->b, ", %s", bs_metric_get(op->metric)->quantity);
  if (f->protocol) {
    w_lit(w, ", protocol ");
    w_user(w, f->protocol);
  }
  if (f->bmin == f->bmax)
    bs__buf_printf(w->b, ", %zu block%s", f->bmax, plural(f->bmax));
  else
    bs__buf_printf(w->b, ", %zu–%zu blocks", f->bmin, f->bmax);
  const char *base = link_base(o);
  if (base && w->md) {
    w_lit(w, " — [full report](");
    link_to(w->b, base, "index.html");
    w_lit(w, ")");
  } else if (base) {
    w_lit(w, " — report ");
    w_user(w, base);
  }
  return bs__buf_status(w->b);
}

bs_status bs_summary_compare(const bs_compare_result *r, const bs_manifest *env,
                             const bs_markdown_options *o, char **out,
                             size_t *len, bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, BS__CAP_TEXT);
  facts f;
  facts_of(&f, r, env);
  hw w = {&b, 0};
  headline(&w, r, &f, o);
  bs__buf_putc(&b, '\n');
  return bs__buf_finish(&b, BS_OK, "the summary", out, len, err);
}

/* The interval of the paired delta, in percent of the baseline median:
 * 100 L / med(b) and 100 U / med(b). */
static void interval_pct(const bs_case_compare *c, double *lo, double *hi) {
  *lo = 100.0 * (c->ci_low_us / c->median_baseline_us);
  *hi = 100.0 * (c->ci_high_us / c->median_baseline_us);
}

/* ---- The comment's pieces ---------------------------------------------------
 * Each row and detail line is rendered on its own, so that a comment too
 * long for GitHub keeps the ones that matter most. */
typedef struct md_piece {
  char *text;
  size_t len;
  int keep;
} md_piece;

typedef struct md_list {
  md_piece *p;
  size_t n, cap;
  bs_status st; /* the first failure of a piece, its row's or the list's */
} md_list;

/* Moves the text of `row` into l as its next piece and releases row. Once
 * a piece has failed (its row, or growing the list), l keeps that error
 * and drops every later piece. */
static void piece_take(md_list *l, bs__buf *row) {
  if (!l->st)
    l->st = bs__buf_status(row);
  md_piece *p = l->st ? NULL : BS__GROW(l->p, l->cap, l->n + 1, 16);
  if (!p) {
    bs__buf_release(row);
    if (!l->st)
      l->st = BS_ENOMEM;
    return;
  }
  l->p = p;
  p[l->n].len = row->len;
  p[l->n].text = bs__buf_detach(row, NULL);
  if (!p[l->n].text) {
    l->st = BS_ENOMEM;
    return;
  }
  p[l->n].keep = 1;
  l->n++;
}

static void list_free(md_list *l) {
  for (size_t i = 0; i < l->n; i++)
    free(l->p[i].text);
  free(l->p);
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
  for (size_t i = 0; i < l->n; i++)
    if (l->p[i].keep)
      bs__buf_append(b, l->p[i].text, l->p[i].len);
  return bs__buf_status(b);
}

typedef struct md_compare {
  bs__buf head;  /* marker, headline, the table's header */
  md_list rows;  /* the cases that matter */
  bs__buf notes; /* family-wise, noise-aware gate, resolution */
  md_list other; /* every other case, folded */
  bs__buf warn;  /* one line per kind of warning */
  md_list wcase; /* each case's warnings, folded */
  md_list floors;
  bs__buf env, foot;
} md_compare;

/* "| case | paired Δ% [95 % interval] | verdict |" (or "[interval (96 %
 * unless marked)]") and its delimiter. */
static bs_status table_head(bs__buf *b, const bs_compare_result *r, int links) {
  bs__buf_puts(b, "| case | paired Δ% \\[");
  bs__level_header(b, r, BS__TYPO_MD);
  return bs__buf_printf(b, "\\] | verdict |%s\n|---|---:|---|%s\n",
                        links ? " link |" : "", links ? "---|" : "");
}

static bs_status md_row(bs__buf *b, const bs_compare_result *r, size_t i, int k,
                        const char *base, double common) {
  const bs_case_compare *c = &r->cases[i];
  char p[48], p1[48], p2[48];
  double lo, hi;
  interval_pct(c, &lo, &hi);
  bs__buf_puts(b, "| ");
  bs__md_case(b, c->benchmark, c->dataset);
  bs__buf_printf(b, " | %s %% \\[%s, %s\\]",
                 bs__fmt_pct_num_plain(p, sizeof p, c->delta_pct),
                 bs__fmt_pct_num_plain(p1, sizeof p1, lo),
                 bs__fmt_pct_num_plain(p2, sizeof p2, hi));
  if (*bs__level_mark(p, sizeof p, c, common, BS__TYPO_MD))
    bs__buf_printf(b, " at %s", p);
  bs__buf_puts(b, " | ");
  /* The table's rows say why the case is there; the folded list its
   * verdict. */
  const char *label = FLAGGED(k)
                          ? bs__glossary(kind_term(k))->label
                          : bs__verdict_marker(bs__significance(c), c->verdict);
  bs__buf_puts(b, label);
  if (k == K_INCONCLUSIVE && c->within_noise &&
      c->verdict != BS_VERDICT_EQUIVALENT)
    bs__buf_printf(b, " · %s", bs__glossary(BS__T_WITHIN_NOISE)->label);
  if (k == K_NOISE)
    bs__buf_printf(b, " (floor %s)",
                   bs__fmt_floor_plain(p, sizeof p, c->noise_floor_pct));
  bs__qualifiers(b, c, r->options.threshold_pct, " · ", BS__TYPO_MD);
  if (base) {
    char page[32];
    bs__buf_puts(b, " | [page](");
    link_to(b, base, bs__case_page(page, sizeof page, i));
    bs__buf_puts(b, ")");
  }
  return bs__buf_puts(b, " |\n");
}

/* The cases that matter in table order: significant regressions, largest
 * paired delta first; then improvements, inconclusive cases and changes
 * within noise, each in case order (SPEC §4.6). */
typedef struct ranked {
  size_t i;
  int k;
  double d;
} ranked;

static int ranked_cmp(const void *pa, const void *pb) {
  const ranked *a = pa, *b = pb;
  if (a->k != b->k)
    return a->k < b->k ? -1 : 1;
  if (a->k == K_REGRESSION && a->d != b->d)
    return a->d > b->d ? -1 : 1;
  return a->i < b->i ? -1 : a->i > b->i;
}

/* Per-case warnings by kind: the compare module writes three (few pairs,
 * Tukey outliers, a threshold raised to the noise floor); any other is
 * counted as such. */
static bs_status warning_lines(bs__buf *b, const bs_compare_result *r) {
  size_t few = 0, outliers = 0, raised = 0, other = 0;
  for (size_t i = 0; i < r->ncases; i++) {
    const bs_case_compare *c = &r->cases[i];
    size_t known = 0;
    if (c->blocks < BS_MIN_RELIABLE_PAIRS)
      few++, known++;
    if (c->outliers)
      outliers++, known++;
    if (c->effective_threshold_pct > r->options.threshold_pct)
      raised++, known++;
    other += c->nwarnings > known;
  }
  const char *w = bs__glossary(BS__T_WARNING)->symbol;
  if (outliers)
    bs__buf_printf(b,
                   "- %s outliers in %zu case%s, kept (the median is "
                   "robust to them)\n",
                   w, outliers, plural(outliers));
  if (few)
    bs__buf_printf(b,
                   "- %s fewer than %d pairs in %zu case%s: %s "
                   "interval%s unreliable\n",
                   w, BS_MIN_RELIABLE_PAIRS, few, plural(few),
                   few == 1 ? "its" : "their", few == 1 ? " is" : "s are");
  if (raised)
    bs__buf_printf(b,
                   "- %s threshold raised to the noise floor in %zu "
                   "case%s\n",
                   w, raised, plural(raised));
  if (other)
    bs__buf_printf(b, "- %s other warnings in %zu case%s\n", w, other,
                   plural(other));
  for (size_t i = 0; i < r->nwarnings; i++) {
    bs__buf_printf(b, "- %s ", w);
    bs__md_text(b, r->warnings[i]);
    bs__buf_putc(b, '\n');
  }
  return bs__buf_status(b);
}

/* The glossary entries the comment shows, folded, with the method. */
static bs_status legend(bs__buf *b, const bs_compare_result *r,
                        const facts *f) {
  bs__buf_puts(b, "\n<details><summary>How to read this"
                  "</summary>\n\n");
  bs__term terms[6 + NKINDS];
  size_t nt = 0;
  terms[nt++] = BS__T_PAIRED_DELTA;
  terms[nt++] = BS__T_THRESHOLD;
  for (int k = 0; k < NKINDS; k++)
    if (f->n[k])
      terms[nt++] = kind_term(k);
  if (f->other_levels)
    terms[nt++] = BS__T_LEVEL;
  if (r->layout_sensitive)
    terms[nt++] = BS__T_LAYOUT;
  if (r->blind) {
    terms[nt++] = BS__T_BLIND;
    terms[nt++] = BS__T_MDE;
  }
  /* The glossary's words go through the Markdown escaper like any text:
   * they hold '*', '#' or '|' one day without breaking the comment. */
  for (size_t i = 0; i < nt; i++) {
    bs__buf_puts(b, "- ");
    bs__md_text(b, bs__glossary(terms[i])->label);
    bs__buf_puts(b, ": ");
    bs__md_text(b, bs__glossary(terms[i])->meaning);
    bs__buf_puts(b, ".\n");
  }
  bs__buf_puts(b, "\nMethod: ");
  bs__method_line(b, r);
  return bs__buf_puts(b, "; pairs by (run, block), d = candidate − baseline "
                         "per block.\n\n</details>\n");
}

static bs_status md_pieces(md_compare *m, const bs_compare_result *r,
                           const bs_manifest *env, const bs_markdown_options *o,
                           facts *f) {
  const char *base = link_base(o);
  bs__buf *b = &m->head;
  hw w = {b, 1};
  bs__buf_puts(b, BS_MARKDOWN_MARKER_COMPARE "\n");
  headline(&w, r, f, o);
  bs__buf_puts(b, "\n\n");
  size_t nflag = 0;
  for (int k = 0; k < NKINDS; k++)
    nflag += FLAGGED(k) ? f->n[k] : 0;
  if (nflag)
    table_head(b, r, base != NULL);
  else
    bs__buf_puts(b, "No case changed significantly, none is "
                    "inconclusive.\n");

  ranked *rk = malloc((nflag ? nflag : 1) * sizeof *rk);
  if (!rk)
    return BS_ENOMEM;
  size_t nr = 0;
  for (size_t i = 0; i < r->ncases; i++) {
    int k = kind_of(&r->cases[i]);
    if (FLAGGED(k))
      rk[nr++] = (ranked){i, k, r->cases[i].delta_pct};
  }
  qsort(rk, nr, sizeof *rk, ranked_cmp);
  for (size_t j = 0; j < nr; j++) {
    bs__buf row;
    bs__buf_init(&row, BS__CAP_MARKDOWN);
    md_row(&row, r, rk[j].i, rk[j].k, base, f->common_level);
    piece_take(&m->rows, &row);
  }
  free(rk);
  for (size_t i = 0; i < r->ncases; i++) {
    int k = kind_of(&r->cases[i]);
    if (FLAGGED(k))
      continue;
    bs__buf row;
    bs__buf_init(&row, BS__CAP_MARKDOWN);
    md_row(&row, r, i, k, base, f->common_level);
    piece_take(&m->other, &row);
  }

  b = &m->notes;
  if (r->regressions) {
    bs__buf_puts(b, "\nFamily-wise: ");
    bs__family_line(b, r);
    bs__buf_puts(b, r->options.family_wise &&
                            r->options.mode == BS_MODE_CONFIRMATORY
                        ? " (the gate counts only these).\n"
                        : ".\n");
  }
  if (r->noise_applied) {
    bs__buf_puts(b, "\nNoise-aware gate: ");
    bs__noise_line(b, r);
    bs__buf_puts(b, ".\n");
  }
  if (r->inconclusive) {
    bs__buf_puts(b, "\n");
    bs__inconclusive_line(b, r);
    bs__buf_puts(b, ".\n");
  }
  /* How the run was measured and what it can see, a paragraph each. */
  const bs__notes_in in = {r, env};
  for (int k = 0; k < BS__NOTES; k++) {
    bs__buf note;
    bs__buf_init(&note, BS__CAP_MARKDOWN);
    if (bs__note(&note, k, &in, BS__TYPO_MD)) {
      bs__buf_puts(b, "\n");
      bs__buf_append(b, note.data, note.len);
      bs__buf_puts(b, ".\n");
    }
    bs__buf_fail(b, bs__buf_status(&note));
    bs__buf_release(&note);
  }

  b = &m->warn;
  warning_lines(b, r);
  for (size_t i = 0; i < r->ncases; i++)
    for (size_t k = 0; k < r->cases[i].nwarnings; k++) {
      bs__buf line;
      bs__buf_init(&line, BS__CAP_MARKDOWN);
      bs__buf_puts(&line, "- ");
      bs__md_case(&line, r->cases[i].benchmark, r->cases[i].dataset);
      bs__buf_puts(&line, ": ");
      bs__md_text(&line, r->cases[i].warnings[k]);
      bs__buf_putc(&line, '\n');
      piece_take(&m->wcase, &line);
    }

  for (size_t i = 0; i < r->ncases; i++) {
    const bs_case_compare *c = &r->cases[i];
    if (!c->has_noise_floor)
      continue;
    bs__buf row;
    bs__buf_init(&row, BS__CAP_MARKDOWN);
    bs__buf_puts(&row, "| ");
    bs__md_case(&row, c->benchmark, c->dataset);
    char fl[48];
    bs__buf_printf(&row, " | %s | %.2f %% | %.3g %%%s | %s |\n",
                   bs__fmt_floor_plain(fl, sizeof fl, c->noise_floor_pct),
                   fabs(c->delta_pct), c->effective_threshold_pct,
                   c->effective_threshold_pct > r->options.threshold_pct
                       ? " (raised)"
                       : "",
                   c->within_noise ? bs__glossary(BS__T_WITHIN_NOISE)->label
                                   : "clears the floor");
    piece_take(&m->floors, &row);
  }

  if (env && bs_manifest_count(env)) {
    b = &m->env;
    bs__buf_puts(b, "\n<details><summary>Environment</summary>\n\n"
                    "| key | value |\n|---|---|\n");
    for (size_t i = 0; i < bs_manifest_count(env); i++) {
      bs__buf_puts(b, "| ");
      bs__md_text(b, bs_manifest_key(env, i));
      bs__buf_puts(b, " | ");
      bs__md_text(b, bs_manifest_value(env, i));
      bs__buf_puts(b, " |\n");
    }
    bs__buf_puts(b, "\n</details>\n");
  }

  b = &m->foot;
  legend(b, r, f);
  char mphrase[160];
  bs__buf_printf(b,
                 "\n<sub>benchsite · paired Δ%% = 100 · med(d) / "
                 "med(baseline) · %s, δ = %g %% · metric %s</sub>\n",
                 r->options.mode == BS_MODE_CONFIRMATORY
                     ? "confirmatory gate"
                     : "hotspot (exploratory)",
                 r->options.threshold_pct,
                 bs__metric_phrase(mphrase, sizeof mphrase, r->options.metric));
  if (o && o->footer_note)
    bs__buf_printf(b, "\n<sub>%s</sub>\n", o->footer_note);
  /* The first failure, in the order the pieces were written. */
  const bs_status each[] = {bs__buf_status(&m->head),
                            m->rows.st,
                            m->other.st,
                            bs__buf_status(&m->notes),
                            bs__buf_status(&m->warn),
                            m->wcase.st,
                            m->floors.st,
                            bs__buf_status(&m->env),
                            bs__buf_status(&m->foot)};
  for (size_t i = 0; i < sizeof each / sizeof each[0]; i++)
    if (each[i])
      return each[i];
  return BS_OK;
}

/* Room for the lines that say what was folded or cut, and the wrappers. */
#define MD_RESERVE 1200

bs_status bs_markdown_compare(const bs_compare_result *r,
                              const bs_manifest *env,
                              const bs_markdown_options *o, char **out,
                              size_t *len, bs_error *err) {
  const char *base = link_base(o);
  if (base && bs_markdown_check_link_base(base, err))
    return BS_EUSAGE;
  md_compare m;
  memset(&m, 0, sizeof m);
  bs__buf *fixed[] = {&m.head, &m.notes, &m.warn, &m.env, &m.foot};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
    bs__buf_init(fixed[i], BS__CAP_MARKDOWN);
  bs__buf b, thead;
  bs__buf_init(&b, BS__CAP_MARKDOWN);
  bs__buf_init(&thead, BS__CAP_MARKDOWN);
  facts f;
  facts_of(&f, r, env);
  bs__buf_fail(&b, md_pieces(&m, r, env, o, &f));
  bs__buf_fail(&b, table_head(&thead, r, base != NULL));

  /* What always shows, then the lists by importance: the cases that
   * matter, every other case, the noise floors, each case's warnings,
   * the environment. */
  size_t need = m.head.len + m.notes.len + m.warn.len + m.foot.len + thead.len +
                MD_RESERVE;
  size_t budget = need < BS_MARKDOWN_LIMIT ? BS_MARKDOWN_LIMIT - need : 0;
  size_t cut_rows = list_fit(&m.rows, &budget);
  size_t cut_other = list_fit(&m.other, &budget);
  size_t cut_floors = list_fit(&m.floors, &budget);
  size_t cut_wcase = list_fit(&m.wcase, &budget);
  int env_kept = m.env.len <= budget;
  size_t cut = cut_rows + cut_other;

  bs__buf_append(&b, m.head.data, m.head.len);
  list_emit(&b, &m.rows);
  bs__buf_append(&b, m.notes.data ? m.notes.data : "", m.notes.len);
  if (m.other.n) {
    /* Counted in a line, listed folded. */
    bs__buf_printf(&b, "\n<details><summary>%zu other case%s: ", m.other.n,
                   plural(m.other.n));
    int first = 1;
    for (int k = K_EQUIVALENT; k < NKINDS; k++)
      if (f.n[k]) {
        bs__buf_printf(&b, "%s%zu %s", first ? "" : ", ", f.n[k],
                       bs__glossary(kind_term(k))->label);
        first = 0;
      }
    bs__buf_puts(&b, "</summary>\n\n");
    bs__buf_append(&b, thead.data, thead.len);
    list_emit(&b, &m.other);
    bs__buf_puts(&b, "\n</details>\n");
  }
  if (cut) {
    bs__buf_printf(&b,
                   "\n**%zu of %zu cases are left out** (%zu that "
                   "matter, %zu other) to keep this comment under "
                   "GitHub's size limit. ",
                   cut, r->ncases, cut_rows, cut_other);
    if (base) {
      bs__buf_puts(&b, "Every case is in [the full report](");
      link_to(&b, base, "index.html");
      bs__buf_puts(&b, ").\n");
    } else {
      bs__buf_puts(&b, "Every case is in the output of `benchsite "
                       "compare` (its text table, `--json` and "
                       "`--html` report) in this job's log and "
                       "artifacts.\n");
    }
  }
  if (m.warn.len) {
    bs__buf_puts(&b, "\n");
    bs__buf_append(&b, m.warn.data, m.warn.len);
  }
  if (m.wcase.n) {
    bs__buf_printf(&b,
                   "\n<details><summary>Warnings per case (%zu)"
                   "</summary>\n\n",
                   m.wcase.n);
    list_emit(&b, &m.wcase);
    if (cut_wcase)
      bs__buf_printf(&b, "- … and %zu more (left out)\n", cut_wcase);
    bs__buf_puts(&b, "\n</details>\n");
  }
  if (m.floors.n) {
    bs__buf_printf(&b,
                   "\n<details><summary>Noise floors (A/A) of %zu "
                   "case%s</summary>\n\n"
                   "| case | noise floor | \\|paired Δ%%\\| | "
                   "threshold | reading |\n"
                   "|---|---:|---:|---:|---|\n",
                   m.floors.n, plural(m.floors.n));
    list_emit(&b, &m.floors);
    if (cut_floors)
      bs__buf_printf(&b, "\n%zu more noise-floor rows are left out.\n",
                     cut_floors);
    bs__buf_puts(&b, "\n</details>\n");
  }
  if (m.env.len && env_kept)
    bs__buf_append(&b, m.env.data, m.env.len);
  else if (m.env.len)
    bs__buf_puts(&b, "\nThe environment is left out (too long).\n");
  bs__buf_append(&b, m.foot.data, m.foot.len);

  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
    bs__buf_release(fixed[i]);
  bs__buf_release(&thead);
  list_free(&m.rows);
  list_free(&m.other);
  list_free(&m.wcase);
  list_free(&m.floors);
  return bs__buf_finish(&b, BS_OK, "Markdown", out, len, err);
}

/* ---- The text report --------------------------------------------------------
 */

#define TEXT_COLS 6
#define TEXT_CELL 320

/* The index in c->warnings of its Tukey-outlier warning, or (size_t)-1:
 * compare.h fixes their order (too few pairs, outliers, the others). */
static size_t outlier_warning(const bs_case_compare *c) {
  if (!c->outliers)
    return (size_t)-1;
  size_t i = c->blocks < BS_MIN_RELIABLE_PAIRS;
  return i < c->nwarnings ? i : (size_t)-1;
}

/* "warning: Tukey-fence outliers in 3 of 4 cases, kept (the median is
 * robust to them): dot [n=1024] 1 of 20, sort [n=1024] 2 of 20, …": one
 * line for every case's outliers, as the comment has (labels as the
 * table's first column holds them). */
static bs_status outlier_line(bs__buf *b, const bs_compare_result *r,
                              char (*cells)[TEXT_COLS][TEXT_CELL]) {
  size_t n = 0, named = 0;
  for (size_t i = 0; i < r->ncases; i++)
    n += r->cases[i].outliers > 0;
  if (!n)
    return bs__buf_status(b);
  bs__buf_printf(b,
                 "warning: Tukey-fence outliers in %zu of %zu case%s, kept "
                 "(the median is robust to them): ",
                 n, r->ncases, plural(r->ncases));
  for (size_t i = 0; i < r->ncases && named < 8; i++) {
    const bs_case_compare *c = &r->cases[i];
    if (!c->outliers)
      continue;
    bs__buf_puts(b, named++ ? ", " : "");
    bs__buf_term(b, cells[i + 1][0], 0);
    bs__buf_printf(b, " %zu of %zu", c->outliers, c->blocks);
  }
  if (n > named)
    bs__buf_printf(b, ", and %zu more", n - named);
  return bs__buf_putc(b, '\n');
}

bs_status bs_text_compare(const bs_compare_result *r, const bs_manifest *env,
                          const bs_markdown_options *o, char **out, size_t *len,
                          bs_error *err) {
  size_t n = r->ncases + 1;
  char(*cells)[TEXT_COLS][TEXT_CELL] = calloc(n, sizeof *cells);
  bs__buf b;
  bs__buf_init(&b, BS__CAP_TEXT);
  size_t disagree = 0;
  if (!cells)
    return bs__buf_finish(&b, BS_ENOMEM, "the table", out, len, err);
  bs_metric m = r->options.metric;
  facts f;
  facts_of(&f, r, env);
  double delta = r->options.threshold_pct;
  snprintf(cells[0][0], TEXT_CELL, "case");
  snprintf(cells[0][1], TEXT_CELL, "paired Δ%%");
  {
    bs__buf h;
    bs__buf_init(&h, TEXT_CELL - 1);
    bs__level_header(&h, r, BS__TYPO_TERM);
    snprintf(cells[0][2], TEXT_CELL, "%s", h.data ? h.data : "");
    bs__buf_release(&h);
  }
  snprintf(cells[0][3], TEXT_CELL, "med(d)");
  snprintf(cells[0][4], TEXT_CELL, "verdict");
  /* The medians last, unpaired, with the glossary's mark where they
   * point elsewhere than the paired delta. */
  snprintf(cells[0][5], TEXT_CELL, "medians %s → %s", r->baseline,
           r->candidate);
  for (size_t i = 0; i < r->ncases; i++) {
    const bs_case_compare *c = &r->cases[i];
    char t1[48], t2[48];
    double lo, hi;
    interval_pct(c, &lo, &hi);
    bs__case_label(cells[i + 1][0], TEXT_CELL, c->benchmark, c->dataset);
    snprintf(cells[i + 1][1], TEXT_CELL, "%s%%",
             bs__fmt_pct_num_plain(t1, sizeof t1, c->delta_pct));
    /* The level first, so that the intervals stay aligned on their
     * right: "at 99.3 % [-1.56, +0.55]". */
    char mark[48], t3[48];
    bs__level_mark(mark, sizeof mark, c, f.common_level, BS__TYPO_TERM);
    snprintf(cells[i + 1][2], TEXT_CELL, "%s%s%s[%s, %s]", mark[0] ? "at " : "",
             mark, mark[0] ? " " : "", bs__fmt_pct_num_plain(t1, sizeof t1, lo),
             bs__fmt_pct_num_plain(t3, sizeof t3, hi));
    bs__fmt_val_signed_plain(cells[i + 1][3], TEXT_CELL, m, c->median_delta_us);
    snprintf(cells[i + 1][4], TEXT_CELL, "%s%s%s",
             bs__verdict_marker(bs__significance(c), c->verdict),
             c->within_noise && c->verdict != BS_VERDICT_EQUIVALENT
                 ? " · " /* ≈ within noise */
                 : "",
             c->within_noise && c->verdict != BS_VERDICT_EQUIVALENT
                 ? bs__glossary(BS__T_WITHIN_NOISE)->label
                 : "");
    if (c->inconclusive) {
      size_t used = strlen(cells[i + 1][4]);
      snprintf(cells[i + 1][4] + used, TEXT_CELL - used, " · %s",
               bs__glossary(BS__T_INCONCLUSIVE)->label);
    }
    bs__qualifiers_cell(cells[i + 1][4], TEXT_CELL, c, delta);
    int dis = bs__medians_disagree(c, delta);
    disagree += dis != 0;
    snprintf(cells[i + 1][5], TEXT_CELL, "%s → %s%s%s",
             bs__fmt_val_plain(t1, sizeof t1, m, c->median_baseline_us),
             bs__fmt_val_plain(t2, sizeof t2, m, c->median_candidate_us),
             dis ? " " : "", dis ? bs__glossary(BS__T_MEDIANS)->symbol : "");
  }
  size_t width[TEXT_COLS] = {0};
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < TEXT_COLS; k++) {
      size_t wd = bs__text_width(cells[i][k], k ? 0 : BS_TEXT_LINE_START);
      width[k] = wd > width[k] ? wd : width[k];
    }
  hw w = {&b, 0};
  headline(&w, r, &f, o);
  bs__buf_puts(&b, "\n\n");
  for (size_t i = 0; i < n; i++) {
    for (size_t k = 0; k < TEXT_COLS; k++) {
      bs__text_cell(&b, cells[i][k], k + 1 == TEXT_COLS ? 0 : width[k],
                    k >= 1 && k <= 3, k ? 0 : BS_TEXT_LINE_START);
      if (k + 1 < TEXT_COLS)
        bs__buf_puts(&b, "  ");
    }
    bs__buf_putc(&b, '\n');
  }
  bs__buf_putc(&b, '\n');
  bs__method_line(&b, r);
  bs__buf_putc(&b, '\n');
  if (disagree)
    bs__buf_printf(&b, "%s %s (%zu case%s): %s\n",
                   bs__glossary(BS__T_MEDIANS)->symbol,
                   bs__glossary(BS__T_MEDIANS)->word, disagree,
                   plural(disagree), bs__glossary(BS__T_MEDIANS)->meaning);
  if (r->inconclusive) {
    bs__inconclusive_line(&b, r);
    bs__buf_putc(&b, '\n');
  }
  const bs__notes_in in = {r, env};
  for (int k = 0; k < BS__NOTES; k++)
    if (bs__note(&b, k, &in, BS__TYPO_TERM))
      bs__buf_putc(&b, '\n');
  bs__buf_puts(&b, "family-wise: ");
  bs__family_line(&b, r);
  bs__buf_puts(&b,
               r->options.family_wise && r->options.mode == BS_MODE_CONFIRMATORY
                   ? " (--family-wise: the exit status counts "
                     "only these)\n"
                   : "\n");
  if (r->noise_applied) {
    bs__buf_puts(&b, "noise-aware gate: ");
    bs__noise_line(&b, r);
    bs__buf_putc(&b, '\n');
  }
  for (size_t i = 0; i < r->nwarnings; i++) {
    bs__buf_puts(&b, "warning: ");
    bs__buf_term(&b, r->warnings[i], 0);
    bs__buf_putc(&b, '\n');
  }
  /* Outliers in one line for every case; each case's other warnings
   * (few pairs, a raised threshold) a line each. */
  outlier_line(&b, r, cells);
  for (size_t i = 0; i < r->ncases; i++)
    for (size_t k = 0; k < r->cases[i].nwarnings; k++) {
      if (k == outlier_warning(&r->cases[i]))
        continue;
      bs__buf_puts(&b, "warning: ");
      bs__buf_term(&b, cells[i + 1][0], 0);
      bs__buf_puts(&b, ": ");
      bs__buf_term(&b, r->cases[i].warnings[k], 0);
      bs__buf_putc(&b, '\n');
    }
  free(cells);
  return bs__buf_finish(&b, BS_OK, "the table", out, len, err);
}
