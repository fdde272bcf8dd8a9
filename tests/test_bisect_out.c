/* The bisection's views (src/bisect/bisect_out.c): text, summary,
 * benchsite.bisect/1 JSON and Markdown of results written by hand here,
 * with hostile commit subjects and case names. */
#include "benchsite/bisect.h"

#include "jsonread.h"
#include "support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

TestSuite(bisect_out, .fini = ts_free_owned);

#define G "1111111111111111111111111111111111111111"
#define B "2222222222222222222222222222222222222222"
#define M "3333333333333333333333333333333333333333"
#define C "4444444444444444444444444444444444444444"
#define P "5555555555555555555555555555555555555555"

/* Text that would start a line, a workflow command, a colour, a link and
 * a table cell if any view copied it as it is. */
#define HOSTILE "\x1b[31mred\n::error::owned | <b>x</b> [l](http://e)"

static bs_bisect_case cases_start[] = {
    {(char *)"sort", (char *)"n=8", 3, 50.25, 48.5, 52.0, 20, BS_BISECT_SLOWER},
    {(char *)HOSTILE, (char *)"", 3, 0.5, -0.25, 1.0, 20,
     BS_BISECT_NOT_SLOWER}};
static bs_bisect_case cases_probe[] = {{(char *)"sort", (char *)"n=8", 25.125,
                                        0.125, -0.5, 0.75, 20,
                                        BS_BISECT_NOT_SLOWER}};
static bs_bisect_case cases_confirm[] = {{(char *)"sort", (char *)"n=8", 25.125,
                                          49.5, 47.25, 51.75, 40,
                                          BS_BISECT_SLOWER}};

static bs_bisect_probe probes[] = {
    {.role = BS_BISECT_START,
     .commit = (char *)B,
     .against = (char *)G,
     .index = 9,
     .verdict = BS_BISECT_SLOWER,
     .cases = cases_start,
     .ncases = 2,
     .runs = 1,
     .looks = 1,
     .seconds = 1.5,
     .built = 1},
    {.role = BS_BISECT_PROBE,
     .commit = (char *)M,
     .against = (char *)G,
     .index = 4,
     .verdict = BS_BISECT_SKIPPED,
     .reason = (char *)"does not build (" HOSTILE ")"},
    {.role = BS_BISECT_PROBE,
     .commit = (char *)P,
     .against = (char *)G,
     .index = 5,
     .verdict = BS_BISECT_NOT_SLOWER,
     .cases = cases_probe,
     .ncases = 1,
     .runs = 1,
     .looks = 1,
     .seconds = 0.75,
     .duet = 1,
     .built = 1},
    {.role = BS_BISECT_CONFIRM,
     .commit = (char *)C,
     .against = (char *)P,
     .index = 6,
     .verdict = BS_BISECT_SLOWER,
     .cases = cases_confirm,
     .ncases = 1,
     .runs = 2,
     .looks = 2,
     .seconds = 2.5}};

static bs_bisect_skip skips[] = {
    {(char *)M, (char *)HOSTILE, (char *)"does not build (exit status 2)"}};

static char *notes[] = {(char *)"the search assumes one step", (char *)HOSTILE};

static bs_bisect_result found(void) {
  bs_bisect_result r;
  memset(&r, 0, sizeof r);
  r.outcome = BS_BISECT_FOUND;
  r.good = (char *)G;
  r.bad = (char *)B;
  r.commits = 9;
  r.threshold_pct = 3;
  r.protocol = (char *)"Development";
  r.culprit = (char *)C;
  r.culprit_subject = (char *)HOSTILE;
  r.parent = (char *)P;
  r.probes = probes;
  r.nprobes = 4;
  r.skipped = skips;
  r.nskipped = 1;
  r.builds_made = 5;
  r.builds_reused = 1;
  r.seconds = 75;
  r.cache = (char *)"/tmp/cache";
  r.notes = notes;
  r.nnotes = 2;
  return r;
}

static char *render(bs_status (*fn)(const bs_bisect_result *, char **, size_t *,
                                    bs_error *),
                    const bs_bisect_result *r) {
  char *out = NULL;
  size_t len = 0;
  bs_error err;
  bs_error_clear(&err);
  cr_assert_eq(fn(r, &out, &len, &err), BS_OK, "%s", err.message);
  cr_assert_eq(strlen(out), len);
  return ts_own(out);
}

/* No byte of text can move a terminal's cursor, start a line that a CI
 * runner takes as a command, or change colour. */
static void assert_terminal_safe(const char *text) {
  cr_assert_null(strchr(text, '\x1b'), "an escape sequence got through");
  for (const char *l = text; *l;
       l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
    while (*l == ' ')
      l++;
    cr_assert(strncmp(l, "::", 2), "a line starts with a workflow command");
  }
}

Test(bisect_out, text_names_the_culprit_and_escapes_the_subject) {
  bs_bisect_result r = found();
  char *t = render(bs_bisect_text, &r);
  assert_terminal_safe(t);
  cr_assert(strstr(t, "benchsite bisect: found " C ": sort [n=8] +49.50 % "
                      "[+47.25 %, +51.75 %] against its parent 555555555555"),
            "%s", t);
  cr_assert(strstr(t, "\\x1b[31mred\\x0a::error::owned"), "%s", t);
  cr_assert(strstr(t, "9 commits from good 111111111111 to bad "
                      "222222222222 (first parents); 3 probes, 1 skipped; "
                      "builds: 5 made, 1 reused; 1:15; wall time per call, "
                      "protocol Development"),
            "%s", t);
  /* The trail: a line a probe, the skipped one with its reason. */
  cr_assert(strstr(t, "start     222222222222  111111111111  slower"), "%s", t);
  cr_assert(strstr(t, "probe     333333333333                skipped"), "%s",
            t);
  cr_assert(strstr(t, "confirm   444444444444  555555555555  slower"), "%s", t);
  cr_assert(strstr(t, "+49.50    +47.25    +51.75      40      2       2.5  "
                      "sort [n=8]\n"),
            "%s", t);
  cr_assert(strstr(t, "start     222222222222  111111111111  slower         "
                      "+50.25    +48.50    +52.00      20      1       1.5  "
                      "sort [n=8] (of 2 cases)\n"),
            "%s", t);
  cr_assert(strstr(t, "note: the search assumes one step\n"), "%s", t);
}

Test(bisect_out, summary_is_the_first_line) {
  bs_bisect_result r = found();
  char *s = render(bs_bisect_summary, &r);
  char *t = render(bs_bisect_text, &r);
  size_t n = strlen(s);
  cr_assert_gt(n, 0);
  cr_assert_eq(s[n - 1], '\n');
  cr_assert_eq(strchr(s, '\n'), s + n - 1, "one line: %s", s);
  cr_assert_eq(strncmp(s, t, n), 0);
}

static const bs__jvalue *member(const bs__jvalue *v, const char *key) {
  const bs__jvalue *m = bs__json_member(v, key);
  cr_assert_not_null(m, "no member %s", key);
  return m;
}

static bs__jvalue *parse(const char *text) {
  bs__jvalue *v = NULL;
  bs_error err;
  bs_error_clear(&err);
  cr_assert_eq(bs__json_parse("bisect.json", text, strlen(text), &v, &err),
               BS_OK, "%s", err.message);
  return v;
}

Test(bisect_out, json_carries_outcome_culprit_range_probes) {
  bs_bisect_result r = found();
  bs__jvalue *v = parse(render(bs_bisect_json, &r));
  cr_assert_str_eq(member(v, "schema")->string, "benchsite.bisect/1");
  cr_assert_str_eq(member(v, "outcome")->string, "found");
  cr_assert_str_eq(member(v, "metric")->string, "wall");
  cr_assert_str_eq(member(v, "culprit")->string, C);
  cr_assert_str_eq(member(v, "parent")->string, P);
  cr_assert_str_eq(member(v, "culprit_subject")->string, HOSTILE);
  cr_assert_eq(member(v, "range")->type, BS__JNULL);
  cr_assert_eq(member(v, "delta_pct")->number, 49.5);
  cr_assert_eq(member(v, "ci_low_pct")->number, 47.25);
  cr_assert_eq(member(v, "commits")->number, 9);
  cr_assert_eq(member(v, "builds_made")->number, 5);
  cr_assert_eq(member(v, "builds_reused")->number, 1);
  const bs__jvalue *ps = member(v, "probes");
  cr_assert_eq(ps->type, BS__JARRAY);
  cr_assert_eq(ps->n, 4);
  cr_assert_str_eq(member(&ps->items[0], "role")->string, "start");
  cr_assert_eq(member(&ps->items[0], "cases")->n, 2);
  cr_assert_str_eq(
      member(&member(&ps->items[0], "cases")->items[1], "benchmark")->string,
      HOSTILE);
  cr_assert_str_eq(member(&ps->items[1], "outcome")->string, "skipped");
  cr_assert_eq(member(&ps->items[1], "delta_pct")->type, BS__JNULL);
  cr_assert_eq(member(&ps->items[1], "against")->type, BS__JNULL);
  cr_assert_str_eq(member(&ps->items[2], "outcome")->string, "not slower");
  cr_assert_eq(member(&ps->items[2], "ci_high_pct")->number, 0.75);
  cr_assert_str_eq(member(&ps->items[3], "role")->string, "confirm");
  cr_assert_str_eq(member(&ps->items[3], "against")->string, P);
  cr_assert_eq(member(&ps->items[3], "runs")->number, 2);
  cr_assert_eq(member(v, "skipped")->n, 1);
  cr_assert_str_eq(member(&member(v, "skipped")->items[0], "commit")->string,
                   M);
  bs__json_free(v);
}

Test(bisect_out, json_of_an_undecided_range_has_no_culprit) {
  bs_bisect_result r = found();
  r.outcome = BS_BISECT_UNDECIDED;
  r.culprit = r.culprit_subject = r.parent = NULL;
  r.range_first = (char *)M;
  r.range_last = (char *)B;
  r.nprobes = 3; /* the search ended on a probe, not on a confirmation */
  bs__jvalue *v = parse(render(bs_bisect_json, &r));
  cr_assert_str_eq(member(v, "outcome")->string, "undecided-range");
  cr_assert_eq(member(v, "culprit")->type, BS__JNULL);
  cr_assert_eq(member(v, "delta_pct")->type, BS__JNULL);
  const bs__jvalue *range = member(v, "range");
  cr_assert_eq(range->type, BS__JARRAY);
  cr_assert_eq(range->n, 2);
  cr_assert_str_eq(range->items[0].string, M);
  cr_assert_str_eq(range->items[1].string, B);
  bs__json_free(v);
  char *t = render(bs_bisect_text, &r);
  cr_assert(strstr(t, "benchsite bisect: undecided: the step is at one of the "
                      "commits from 333333333333 to 222222222222, which the "
                      "search could not split\n"),
            "%s", t);
  cr_assert(strstr(t, "\nrange: " M "\n       " B "\n"), "%s", t);
}

/* The culprit against its parent did not confirm: the summary names it
 * and the range the other verdicts leave. */
Test(bisect_out, a_failed_confirmation_names_the_commit_and_the_range) {
  bs_bisect_result r = found();
  r.outcome = BS_BISECT_UNDECIDED;
  r.culprit = r.culprit_subject = r.parent = NULL;
  r.range_first = (char *)M;
  r.range_last = (char *)B;
  char *s = render(bs_bisect_summary, &r);
  cr_assert_str_eq(s, "benchsite bisect: undecided: 444444444444 against its "
                      "parent did not confirm the step, which is at one of "
                      "the commits from 333333333333 to 222222222222\n");
}

Test(bisect_out, no_step_says_so) {
  bs_bisect_result r = found();
  r.outcome = BS_BISECT_NO_STEP;
  r.culprit = r.culprit_subject = r.parent = NULL;
  r.nprobes = 1;
  r.nskipped = 0;
  char *s = render(bs_bisect_summary, &r);
  cr_assert_str_eq(s, "benchsite bisect: no step of at least 3 % between good "
                      "111111111111 and bad 222222222222 (sort [n=8] +50.25 % "
                      "[+48.50 %, +52.00 %])\n");
  char *md = render(bs_bisect_markdown, &r);
  cr_assert(strstr(md, "### benchsite bisect: no step of at least 3 % between "
                       "`111111111111` and `222222222222`\n"),
            "%s", md);
}

Test(bisect_out, markdown_is_a_comment_with_the_trail) {
  bs_bisect_result r = found();
  char *md = render(bs_bisect_markdown, &r);
  cr_assert_eq(strncmp(md,
                       "<!-- benchsite:bisect -->\n### benchsite bisect: "
                       "`444444444444` made sort \\[n\\=8\\] +49.50 % "
                       "slower\n",
                       strlen("<!-- benchsite:bisect -->\n### benchsite "
                              "bisect: `444444444444` made sort \\[n\\=8\\] "
                              "+49.50 % slower\n")),
               0, "%s", md);
  /* The subject and the notes carry no markup, no raw HTML, no line of
   * their own and no cell break. */
  cr_assert_null(strstr(md, "<b>"), "%s", md);
  cr_assert_null(strstr(md, "\n::error"), "%s", md);
  cr_assert_null(strstr(md, "](http"), "%s", md);
  cr_assert(strstr(md, "\\| &lt;b&gt;x&lt;\\/b&gt;"), "%s", md);
  cr_assert(strstr(md, "| probe | commit | verdict | Δ% (interval) |\n"
                       "|---|---|---|---|\n"
                       "| start | `222222222222` | slower | +50.25 % (+48.50 "
                       "to +52.00) sort \\[n\\=8\\] |\n"),
            "%s", md);
  cr_assert(strstr(md, "| confirm | `444444444444` | slower | +49.50 % "
                       "(+47.25 to +51.75) |\n"),
            "%s", md);
  /* Every table row has the header's five bars. */
  for (const char *l = strstr(md, "| probe |"); l && *l == '|';
       l = strchr(l, '\n') + 1) {
    size_t bars = 0;
    for (const char *c = l; *c != '\n'; c++)
      bars += *c == '|' && (c == l || c[-1] != '\\');
    cr_assert_eq(bars, 5, "%.*s", (int)(strchr(l, '\n') - l), l);
  }
}
