/* benchsite bisect: the result as text, JSON (benchsite.bisect/1) and
 * Markdown. Views of the result: they compute nothing. */
#include "benchsite/bisect.h"
#include "benchsite/date.h"

#include "buf.h"
#include "jsonw.h"
#include "mdw.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The short form of a commit id. */
#define SHORT 12

/* The case a line shows of probe p, or NULL (a skipped probe). */
static const bs_bisect_case *shown(const bs_bisect_probe *p) {
  return p && p->cases && p->ncases ? &p->cases[p->shown] : NULL;
}

/* The last probe: at the end, the culprit against its parent. */
static const bs_bisect_probe *last(const bs_bisect_result *r) {
  return r->nprobes ? &r->probes[r->nprobes - 1] : NULL;
}

static const bs_bisect_probe *start(const bs_bisect_result *r) {
  return r->nprobes ? &r->probes[0] : NULL;
}

/* Measured probes (skipped ones are not). */
static size_t measured(const bs_bisect_result *r) {
  size_t n = 0;
  for (size_t i = 0; r->probes && i < r->nprobes; i++)
    n += r->probes[i].verdict != BS_BISECT_SKIPPED;
  return n;
}

/* A case's name escaped for a terminal: "bench [dataset]". */
static void term_case(bs__buf *b, const bs_bisect_case *c) {
  bs__buf_term(b, c->benchmark, 0);
  if (c->dataset[0]) {
    bs__buf_puts(b, " [");
    bs__buf_term(b, c->dataset, 0);
    bs__buf_putc(b, ']');
  }
}

/* The headline, for a terminal (escaped). */
static void headline(bs__buf *b, const bs_bisect_result *r) {
  const bs_bisect_probe *l = last(r), *s0 = start(r);
  const bs_bisect_case *c = l ? shown(l) : NULL;
  switch (r->outcome) {
  case BS_BISECT_FOUND:
    bs__buf_printf(b, "benchsite bisect: found %s", r->culprit);
    if (c) {
      bs__buf_puts(b, ": ");
      term_case(b, c);
      bs__buf_printf(b,
                     " %+.2f %% [%+.2f %%, %+.2f %%] against its parent "
                     "%.*s",
                     c->delta_pct, c->ci_low_pct, c->ci_high_pct, SHORT,
                     r->parent);
    }
    break;
  case BS_BISECT_NO_STEP:
    bs__buf_printf(b,
                   "benchsite bisect: no step of at least %g %% between "
                   "good %.*s and bad %.*s",
                   r->threshold_pct, SHORT, r->good, SHORT, r->bad);
    if (s0 && shown(s0)) {
      bs__buf_puts(b, " (");
      term_case(b, shown(s0));
      bs__buf_printf(b, " %+.2f %% [%+.2f %%, %+.2f %%])", shown(s0)->delta_pct,
                     shown(s0)->ci_low_pct, shown(s0)->ci_high_pct);
    }
    break;
  case BS_BISECT_UNDECIDED:
    if (r->probes && r->nprobes &&
        r->probes[r->nprobes - 1].role == BS_BISECT_CONFIRM)
      bs__buf_printf(b,
                     "benchsite bisect: undecided: %.*s against its parent "
                     "did not confirm the step, which is at one of the "
                     "commits from %.*s to %.*s",
                     SHORT, r->probes[r->nprobes - 1].commit, SHORT,
                     r->range_first ? r->range_first : "?", SHORT,
                     r->range_last ? r->range_last : "?");
    else
      bs__buf_printf(b,
                     "benchsite bisect: undecided: the step is at one of "
                     "the commits from %.*s to %.*s, which the search could "
                     "not split",
                     SHORT, r->range_first ? r->range_first : "?", SHORT,
                     r->range_last ? r->range_last : "?");
    break;
  }
}

/* "N commits between good G and bad B; P probes, S skipped; builds: M
 * made, U reused; T" */
static void facts(bs__buf *b, const bs_bisect_result *r) {
  char t[32];
  bs__buf_printf(b,
                 "%zu commit%s from good %.*s to bad %.*s (first parents); "
                 "%zu probe%s, %zu skipped; builds: %zu made, %zu reused; "
                 "%s; %s, protocol %s%s",
                 r->commits, r->commits == 1 ? "" : "s", SHORT, r->good, SHORT,
                 r->bad, measured(r), measured(r) == 1 ? "" : "s", r->nskipped,
                 r->builds_made, r->builds_reused,
                 bs_date_duration(t, sizeof t, r->seconds),
                 bs_metric_get(r->metric)->quantity, r->protocol,
                 r->duet ? ", side by side" : "");
}

static void summary_line(bs__buf *b, const bs_bisect_result *r) {
  headline(b, r);
  bs__buf_putc(b, '\n');
}

bs_status bs_bisect_summary(const bs_bisect_result *r, char **out, size_t *len,
                            bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, BS__CAP_TEXT);
  summary_line(&b, r);
  return bs__buf_finish(&b, BS_OK, "the bisection's summary", out, len, err);
}

static void pct_cell(bs__buf *b, double v, size_t w) {
  char t[32];
  if (isfinite(v))
    snprintf(t, sizeof t, "%+.2f", v);
  else
    snprintf(t, sizeof t, "-");
  bs__text_cell(b, t, w, 1, 0);
}

bs_status bs_bisect_text(const bs_bisect_result *r, char **out, size_t *len,
                         bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, BS__CAP_TEXT);
  headline(&b, r);
  bs__buf_putc(&b, '\n');
  if (r->outcome == BS_BISECT_FOUND) {
    bs__buf_puts(&b, "  subject: ");
    bs__buf_term(&b, r->culprit_subject, 0);
    bs__buf_putc(&b, '\n');
  }
  bs__buf_puts(&b, "  ");
  facts(&b, r);
  bs__buf_puts(&b, "\n\n");
  /* The trail. */
  static const char *const head[] = {"probe",   "commit",  "against", "verdict",
                                     "delta %", "low %",   "high %",  "blocks",
                                     "runs",    "seconds", "case"};
  static const size_t w[] = {8, 12, 12, 11, 8, 8, 8, 6, 5, 8, 0};
  for (size_t i = 0; i < sizeof head / sizeof head[0]; i++) {
    bs__text_cell(&b, head[i], w[i], i >= 4 && i <= 9, 0);
    bs__buf_puts(&b, i + 1 < sizeof head / sizeof head[0] ? "  " : "\n");
  }
  for (size_t i = 0; r->probes && i < r->nprobes; i++) {
    const bs_bisect_probe *p = &r->probes[i];
    const bs_bisect_case *c = shown(p);
    char id[SHORT + 1], ag[SHORT + 1], t[32];
    snprintf(id, sizeof id, "%.*s", SHORT, p->commit);
    snprintf(ag, sizeof ag, "%.*s", SHORT, p->against);
    bs__text_cell(&b, bs_bisect_role_name(p->role), w[0], 0, 0);
    bs__buf_puts(&b, "  ");
    bs__text_cell(&b, id, w[1], 0, 0);
    bs__buf_puts(&b, "  ");
    bs__text_cell(&b, p->verdict == BS_BISECT_SKIPPED ? "" : ag, w[2], 0, 0);
    bs__buf_puts(&b, "  ");
    bs__text_cell(&b, bs_bisect_verdict_name(p->verdict), w[3], 0, 0);
    bs__buf_puts(&b, "  ");
    if (c) {
      pct_cell(&b, c->delta_pct, w[4]);
      bs__buf_puts(&b, "  ");
      pct_cell(&b, c->ci_low_pct, w[5]);
      bs__buf_puts(&b, "  ");
      pct_cell(&b, c->ci_high_pct, w[6]);
      bs__buf_puts(&b, "  ");
      snprintf(t, sizeof t, "%zu", c->blocks);
      bs__text_cell(&b, t, w[7], 1, 0);
      bs__buf_puts(&b, "  ");
      snprintf(t, sizeof t, "%llu", (unsigned long long)p->runs);
      bs__text_cell(&b, t, w[8], 1, 0);
      bs__buf_puts(&b, "  ");
      snprintf(t, sizeof t, "%.1f", p->seconds);
      bs__text_cell(&b, t, w[9], 1, 0);
      bs__buf_puts(&b, "  ");
      term_case(&b, c);
      if (p->ncases > 1)
        bs__buf_printf(&b, " (of %zu cases)", p->ncases);
    } else {
      bs__buf_puts(&b, "-- ");
      bs__buf_term(&b, p->reason ? p->reason : "", 0);
    }
    bs__buf_putc(&b, '\n');
  }
  if (r->nskipped) {
    bs__buf_puts(&b, "\nskipped:\n");
    for (size_t i = 0; i < r->nskipped; i++) {
      const bs_bisect_skip *k = &r->skipped[i];
      bs__buf_printf(&b, "  %.*s \"", SHORT, k->commit);
      bs__buf_term(&b, k->subject, 0);
      bs__buf_puts(&b, "\": ");
      bs__buf_term(&b, k->reason, 0);
      bs__buf_putc(&b, '\n');
    }
  }
  if (r->outcome != BS_BISECT_FOUND && r->range_first)
    bs__buf_printf(&b, "\nrange: %s\n       %s\n", r->range_first,
                   r->range_last);
  if (r->nnotes)
    bs__buf_putc(&b, '\n');
  for (size_t i = 0; i < r->nnotes; i++) {
    bs__buf_puts(&b, "note: ");
    bs__buf_term(&b, r->notes[i], 0);
    bs__buf_putc(&b, '\n');
  }
  return bs__buf_finish(&b, BS_OK, "the bisection's report", out, len, err);
}

/* ---- JSON ------------------------------------------------------------------
 */

static void json_string_or_null(bs__jobj *o, const char *key, const char *v) {
  if (v)
    bs__jobj_string(o, key, v);
  else if (bs__jobj_key(o, key))
    o->st = bs__buf_puts(o->b, "null");
}

static bs_status json_case(bs__buf *b, const void *ctx, size_t i) {
  const bs_bisect_case *c = (const bs_bisect_case *)ctx + i;
  bs__jobj o;
  bs__jobj_begin_case(&o, b, 10, c->benchmark, c->dataset);
  bs__jobj_string(&o, "outcome", bs_bisect_verdict_name(c->verdict));
  bs__jobj_number(&o, "threshold_pct", c->threshold_pct);
  bs__jobj_number(&o, "delta_pct", c->delta_pct);
  bs__jobj_number(&o, "ci_low_pct", c->ci_low_pct);
  bs__jobj_number(&o, "ci_high_pct", c->ci_high_pct);
  bs__jobj_u64(&o, "blocks", c->blocks);
  return bs__jobj_end(&o);
}

static bs_status json_probe(bs__buf *b, const void *ctx, size_t i) {
  const bs_bisect_probe *p = (const bs_bisect_probe *)ctx + i;
  const bs_bisect_case *c = shown(p);
  bs__jobj o;
  bs__jobj_begin(&o, b, 6);
  bs__jobj_string(&o, "role", bs_bisect_role_name(p->role));
  bs__jobj_string(&o, "commit", p->commit);
  json_string_or_null(&o, "against",
                      p->verdict == BS_BISECT_SKIPPED ? NULL : p->against);
  bs__jobj_u64(&o, "index", p->index);
  bs__jobj_string(&o, "outcome", bs_bisect_verdict_name(p->verdict));
  bs__jobj_number(&o, "delta_pct", c ? c->delta_pct : (double)NAN);
  bs__jobj_number(&o, "ci_low_pct", c ? c->ci_low_pct : (double)NAN);
  bs__jobj_number(&o, "ci_high_pct", c ? c->ci_high_pct : (double)NAN);
  bs__jobj_u64(&o, "blocks", c ? c->blocks : 0);
  bs__jobj_u64(&o, "runs", p->runs);
  bs__jobj_u64(&o, "looks", p->looks);
  bs__jobj_number(&o, "seconds", p->seconds);
  bs__jobj_bool(&o, "duet", p->duet);
  bs__jobj_bool(&o, "built", p->built);
  json_string_or_null(&o, "reason", p->reason);
  bs__jobj_objects(&o, "cases", p->ncases, json_case, p->cases);
  return bs__jobj_end(&o);
}

static bs_status json_skip(bs__buf *b, const void *ctx, size_t i) {
  const bs_bisect_skip *k = (const bs_bisect_skip *)ctx + i;
  bs__jobj o;
  bs__jobj_begin(&o, b, 6);
  bs__jobj_string(&o, "commit", k->commit);
  bs__jobj_string(&o, "subject", k->subject);
  bs__jobj_string(&o, "reason", k->reason);
  return bs__jobj_end(&o);
}

bs_status bs_bisect_json(const bs_bisect_result *r, char **out, size_t *len,
                         bs_error *err) {
  bs__buf b;
  bs__jobj j;
  const bs_bisect_probe *l = last(r);
  const bs_bisect_case *c =
      r->outcome == BS_BISECT_FOUND && l ? shown(l) : NULL;
  bs__json_doc_begin(&j, &b, "benchsite.bisect/1");
  bs__jobj_string(&j, "outcome", bs_bisect_outcome_name(r->outcome));
  bs__jobj_string(&j, "good", r->good);
  bs__jobj_string(&j, "bad", r->bad);
  bs__jobj_u64(&j, "commits", r->commits);
  json_string_or_null(&j, "culprit", r->culprit);
  json_string_or_null(&j, "culprit_subject", r->culprit_subject);
  json_string_or_null(&j, "parent", r->parent);
  bs__jobj_number(&j, "delta_pct", c ? c->delta_pct : (double)NAN);
  bs__jobj_number(&j, "ci_low_pct", c ? c->ci_low_pct : (double)NAN);
  bs__jobj_number(&j, "ci_high_pct", c ? c->ci_high_pct : (double)NAN);
  if (bs__jobj_key(&j, "range")) {
    if (r->range_first) {
      char *range[2] = {r->range_first, r->range_last};
      j.st = bs__json_string_array(&b, range, 2);
    } else {
      j.st = bs__buf_puts(&b, "null");
    }
  }
  bs__jobj_number(&j, "threshold_pct", r->threshold_pct);
  bs__jobj_bool(&j, "threshold_given", r->threshold_given);
  bs__jobj_string(&j, "protocol", r->protocol);
  bs__jobj_string(&j, "metric", bs_metric_get(r->metric)->name);
  bs__jobj_bool(&j, "duet", r->duet);
  bs__jobj_objects(&j, "probes", r->nprobes, json_probe, r->probes);
  bs__jobj_objects(&j, "skipped", r->nskipped, json_skip, r->skipped);
  bs__jobj_u64(&j, "builds_made", r->builds_made);
  bs__jobj_u64(&j, "builds_reused", r->builds_reused);
  bs__jobj_number(&j, "seconds", r->seconds);
  bs__jobj_string(&j, "cache", r->cache ? r->cache : "");
  if (bs__jobj_key(&j, "notes"))
    j.st = bs__json_string_array(&b, r->notes, r->nnotes);
  return bs__json_doc_end(&j, out, len, err);
}

/* ---- Markdown
 * ----------------------------------------------------------------
 */

/* The most skipped commits a comment lists. */
#define MD_SKIPS 40

static void md_pct(bs__buf *b, const bs_bisect_case *c) {
  bs__buf_printf(b, "%+.2f %% (%+.2f to %+.2f)", c->delta_pct, c->ci_low_pct,
                 c->ci_high_pct);
}

bs_status bs_bisect_markdown(const bs_bisect_result *r, char **out, size_t *len,
                             bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, BS__CAP_MARKDOWN);
  const bs_bisect_probe *l = last(r);
  const bs_bisect_case *c = l ? shown(l) : NULL;
  char t[32];
  bs__buf_puts(&b, "<!-- benchsite:bisect -->\n");
  switch (r->outcome) {
  case BS_BISECT_FOUND:
    bs__buf_printf(&b, "### benchsite bisect: `%.*s` made ", SHORT, r->culprit);
    if (c) {
      bs__md_case(&b, c->benchmark, c->dataset);
      bs__buf_printf(&b, " %+.2f %% slower\n\n", c->delta_pct);
    } else {
      bs__buf_puts(&b, "the cases slower\n\n");
    }
    bs__buf_printf(&b, "**Culprit** `%s`: ", r->culprit);
    bs__md_text(&b, r->culprit_subject);
    if (c) {
      bs__buf_puts(&b, ". ");
      md_pct(&b, c);
      bs__buf_printf(&b, " against its parent `%.*s`, %zu blocks.\n\n", SHORT,
                     r->parent, c->blocks);
    } else {
      bs__buf_puts(&b, ".\n\n");
    }
    break;
  case BS_BISECT_NO_STEP:
    bs__buf_printf(&b,
                   "### benchsite bisect: no step of at least %g %% between "
                   "`%.*s` and `%.*s`\n\n",
                   r->threshold_pct, SHORT, r->good, SHORT, r->bad);
    break;
  case BS_BISECT_UNDECIDED:
    bs__buf_printf(&b,
                   "### benchsite bisect: undecided between `%.*s` and "
                   "`%.*s`\n\n",
                   SHORT, r->range_first ? r->range_first : "?", SHORT,
                   r->range_last ? r->range_last : "?");
    bs__buf_puts(&b, "The search could not split this range and names no "
                     "commit.\n\n");
    break;
  }
  bs__buf_printf(&b,
                 "%zu commits from good `%.*s` to bad `%.*s`; %zu probes, "
                 "%zu skipped; builds: %zu made, %zu reused; %s; %s, "
                 "protocol ",
                 r->commits, SHORT, r->good, SHORT, r->bad, measured(r),
                 r->nskipped, r->builds_made, r->builds_reused,
                 bs_date_duration(t, sizeof t, r->seconds),
                 bs_metric_get(r->metric)->quantity);
  bs__md_text(&b, r->protocol);
  bs__buf_puts(&b, r->duet ? ", side by side.\n\n" : ".\n\n");
  bs__buf_puts(&b, "| probe | commit | verdict | Δ% (interval) |\n"
                   "|---|---|---|---|\n");
  for (size_t i = 0; r->probes && i < r->nprobes; i++) {
    const bs_bisect_probe *p = &r->probes[i];
    const bs_bisect_case *k = shown(p);
    bs__buf_printf(&b, "| %s | `%.*s` | %s | ", bs_bisect_role_name(p->role),
                   SHORT, p->commit, bs_bisect_verdict_name(p->verdict));
    if (k) {
      md_pct(&b, k);
      if (p->ncases > 1) {
        bs__buf_puts(&b, " ");
        bs__md_case(&b, k->benchmark, k->dataset);
      }
    } else {
      bs__md_text(&b, p->reason ? p->reason : "");
    }
    bs__buf_puts(&b, " |\n");
  }
  if (r->nskipped) {
    bs__buf_puts(&b, "\n<details><summary>Skipped commits</summary>\n\n");
    for (size_t i = 0; i < r->nskipped && i < MD_SKIPS; i++) {
      const bs_bisect_skip *k = &r->skipped[i];
      bs__buf_printf(&b, "- `%.*s` ", SHORT, k->commit);
      bs__md_text(&b, k->subject);
      bs__buf_puts(&b, ": ");
      bs__md_text(&b, k->reason);
      bs__buf_putc(&b, '\n');
    }
    if (r->nskipped > MD_SKIPS)
      bs__buf_printf(&b, "- and %zu more\n", r->nskipped - MD_SKIPS);
    bs__buf_puts(&b, "\n</details>\n");
  }
  if (r->nnotes)
    bs__buf_putc(&b, '\n');
  for (size_t i = 0; i < r->nnotes; i++) {
    bs__buf_puts(&b, "- ");
    bs__md_text(&b, r->notes[i]);
    bs__buf_putc(&b, '\n');
  }
  return bs__buf_finish(&b, BS_OK, "the bisection's comment", out, len, err);
}
