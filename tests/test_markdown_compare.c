/* The comparison's text report, pull-request comment and one-line summary
 * (src/views/markdown_compare.c, with the notes of compare_notes.c): what
 * they say about adaptive runs, interval levels, layout-sensitive and
 * blind cases, and the outlier warnings folded into one line, on the
 * log of views_fixture.h, whose every figure follows by hand (each
 * expectation is written out here, none is produced by the views). */
#include <criterion/criterion.h>

#include "benchsite/benchsite.h"
#include "support.h"
#include "views_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fini(void) { ts_free_owned(); }
TestSuite(markdown_compare, .fini = fini);

typedef struct fixture {
  bs_log *log;
  bs_manifest *mf;
  bs_compare_result *r;
} fixture;

static fixture load(const char *manifest) {
  fixture fx = {bs_log_new(), NULL, NULL};
  bs_error err;
  cr_assert_eq(bs_log_read_buffer(fx.log, "log.csv", views_log_csv,
                                  strlen(views_log_csv), &err),
               BS_OK, "%s", err.message);
  if (manifest) {
    fx.mf = bs_manifest_new();
    cr_assert_eq(bs_manifest_read_buffer(fx.mf, "env.csv", manifest,
                                         strlen(manifest), &err),
                 BS_OK, "%s", err.message);
  }
  bs_compare_options o;
  bs_compare_options_init(&o, BS_MODE_CONFIRMATORY);
  cr_assert_eq(bs_compare_run(fx.log, "main", "pr", &o, &fx.r, &err), BS_OK,
               "%s", err.message);
  return fx;
}

static void unload(fixture *fx) {
  bs_compare_result_free(fx->r);
  bs_manifest_free(fx->mf);
  bs_log_free(fx->log);
}

typedef bs_status (*renderer)(const bs_compare_result *, const bs_manifest *,
                              const bs_markdown_options *, char **, size_t *,
                              bs_error *);

static char *render(renderer fn, const fixture *fx) {
  char *out = NULL;
  size_t len = 0;
  bs_error err;
  cr_assert_eq(fn(fx->r, fx->mf, NULL, &out, &len, &err), BS_OK, "%s",
               err.message);
  return ts_own(out);
}

#define expect_has(hay, needle)                                                \
  cr_expect(strstr((hay), (needle)) != NULL, "no \"%s\" in:\n%s", (needle),    \
            (hay))
#define expect_lacks(hay, needle)                                              \
  cr_expect(strstr((hay), (needle)) == NULL, "\"%s\" in:\n%s", (needle), (hay))

/* The line of `text` that starts with `start`, or NULL. */
static const char *line_of(const char *text, const char *start) {
  for (const char *p = text; p && *p;
       p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
    if (!strncmp(p, start, strlen(start)))
      return p;
  return NULL;
}

Test(markdown_compare, the_fixture_is_what_the_comment_says) {
  /* The figures the expectations below rest on. */
  fixture fx = load(views_manifest_csv);
  cr_assert_eq(fx.r->ncases, 4);
  cr_expect_str_eq(fx.r->cases[0].benchmark, "layout");
  cr_expect_eq(fx.r->cases[0].between_runs_pct, 6.0);
  cr_expect(fx.r->cases[0].layout_sensitive);
  cr_expect_eq(fx.r->cases[0].level_pct, 99.3);
  cr_expect_eq(fx.r->cases[1].level_pct, 96.0);
  cr_expect_eq(fx.r->cases[1].outliers, 1);
  cr_expect_eq(fx.r->cases[2].outliers, 1);
  cr_expect_str_eq(fx.r->cases[3].benchmark, WIDE);
  cr_expect_eq(fx.r->cases[3].mde_pct, 5.0);
  cr_expect_eq(fx.r->blind, 1);
  cr_expect_eq(fx.r->layout_sensitive, 1);
  cr_expect_eq(fx.r->adaptive, 1);
  unload(&fx);
}

Test(markdown_compare, text_names_levels_qualifiers_runs_and_blind_cases) {
  fixture fx = load(views_manifest_csv);
  const char *t = render(bs_text_compare, &fx);
  /* The headline counts the blind case apart from the verdicts. */
  expect_has(t, " equivalent; 1 blind below 5.0 % — pr vs main, ");
  /* The table names the level most cases share and marks the other. */
  expect_has(t, "  interval (96 % unless marked)  ");
  const char *row = line_of(t, "layout ");
  cr_assert_not_null(row, "%s", t);
  expect_has(row, "at 99.3 % [");
  expect_has(row, "· ↕ layout-sensitive: runs disagree by 6.0 %");
  const char *wide = line_of(t, "wide|<img src=x>\\x1b[31m\\x0a@here ");
  cr_assert_not_null(wide, "the hostile name, escaped, starts its row:\n%s", t);
  expect_has(wide, "· ◌ blind below 5.0 %");
  /* The notes under the table, one line each. */
  expect_has(t, "\nadaptive runs: 1 of 4 cases took extra runs (1 run, 2.5 s; "
                "at most 8 runs in all)\n");
  expect_has(t, "\n↕ 1 of 4 cases layout-sensitive: its runs, each in fresh "
                "processes with a memory layout of its own, disagree by more "
                "than δ = 3 % (layout by 6.0 %); the layout, not the code, "
                "may decide it, and more runs average it away\n");
  expect_has(t, "\n◌ 1 of 4 cases blind to a 3 % regression: "
                "wide|<img src=x>\\x1b[31m\\x0a@here could not have seen a "
                "change below 5.0 %; more blocks or runs, or a quieter "
                "machine, would sharpen it\n");
  expect_has(t, "intervals at 96 % (3 cases) and 99.3 % (1 case, measured "
                "again by the adaptive run)");
  /* The outliers of both cases in one line; no line per case. */
  expect_has(t, "\nwarning: Tukey-fence outliers in 2 of 4 cases, kept (the "
                "median is robust to them): narrow 1 of 8, spiky 1 of 8\n");
  expect_lacks(t, "warning: narrow");
  expect_lacks(t, "warning: spiky");
  expect_lacks(t, "lie outside the Tukey fences");
  /* Other warnings of a case keep their own line. */
  expect_has(t, "\nwarning: wide|<img src=x>\\x1b[31m\\x0a@here: only 2 pairs");
  /* Nothing of the name reaches the terminal raw. */
  expect_lacks(t, "\x1b");
  expect_lacks(t, "\n@here");
  /* The one-line summary is the text's first line. */
  const char *s = render(bs_summary_compare, &fx);
  cr_expect_eq(strncmp(t, s, strlen(s)), 0, "%s\n---\n%s", s, t);
  unload(&fx);
}

Test(markdown_compare, comment_names_levels_qualifiers_runs_and_blind_cases) {
  fixture fx = load(views_manifest_csv);
  const char *m = render(bs_markdown_compare, &fx);
  const char *second = strchr(m, '\n');
  cr_assert_not_null(second);
  cr_expect_eq(strncmp(second + 1,
                       "**✔ gate passed: no significant regression**",
                       strlen("**✔ gate passed: no significant regression**")),
               0, "%s", m);
  expect_has(m, " equivalent; 1 blind below 5.0 % — pr vs main, ");
  expect_has(m, "| case | paired Δ% \\[interval (96 % unless marked)\\] | "
                "verdict |\n");
  expect_has(m, "\\] at 99.3 % | ");
  expect_has(m, " · ↕ layout-sensitive: runs disagree by 6.0 % |");
  expect_has(m, " · ◌ blind below 5.0 % |");
  expect_has(m, "\n\nAdaptive runs: 1 of 4 cases took extra runs (1 run, "
                "2.5 s; at most 8 runs in all).\n");
  expect_has(m, "\n\n↕ 1 of 4 cases layout-sensitive: its runs, each in "
                "fresh processes with a memory layout of its own, disagree "
                "by more than δ = 3 % (layout by 6.0 %); the layout, not the "
                "code, may decide it, and more runs average it away.\n");
  /* The hostile name escaped as Markdown: no table cell ends, no tag, no
   * mention, no line break. */
  expect_has(m, "\n\n◌ 1 of 4 cases blind to a 3 % regression: "
                "wide\\|&lt;img src\\=x&gt; \\[31m \\@here could not have "
                "seen a change below 5.0 %; more blocks or runs, or a quieter "
                "machine, would sharpen it.\n");
  expect_lacks(m, "<img");
  expect_lacks(m, "\x1b");
  expect_lacks(m, "\n@here");
  /* Outliers one line (the comment already folded them), per case in the
   * folded details. */
  expect_has(m, "- ⚠ outliers in 2 cases, kept (the median is robust to "
                "them)\n");
  /* The legend explains what the comment shows. */
  expect_has(m, "\n- interval level: ");
  expect_has(m, "\n- ↕ layout\\-sensitive: ");
  expect_has(m, "\n- ◌ blind: ");
  expect_has(m, "\n- minimum detectable change: ");
  unload(&fx);
}

Test(markdown_compare, extra_runs_without_the_run_manifest) {
  /* No manifest: the looks of the log still say which cases took extra
   * runs. A manifest whose figures are not numbers counts as silent, and
   * its text never reaches the output. */
  static const char *const manifests[] = {
      NULL, "key,value\nextra_runs,\"1; @everyone\"\nextra_seconds,soon\n"};
  for (size_t i = 0; i < 2; i++) {
    fixture fx = load(manifests[i]);
    const char *t = render(bs_text_compare, &fx);
    expect_has(t, "\nadaptive runs: 1 of 4 cases took extra runs (the "
                  "manifest does not say how many or how long they took)\n");
    expect_lacks(t, "everyone");
    const char *m = render(bs_markdown_compare, &fx);
    expect_has(m, "\n\nAdaptive runs: 1 of 4 cases took extra runs (the "
                  "manifest does not say how many or how long they took).\n");
    /* (The folded environment table shows the manifest, escaped.) */
    expect_lacks(m, "1; @everyone");
    unload(&fx);
  }
  /* An adaptive run that needed no extra run says so. */
  fixture fx = load("key,value\nmax_runs,8\nextra_runs,0\nadaptive_cases,0\n"
                    "extra_seconds,0.0\n");
  expect_has(render(bs_text_compare, &fx),
             "\nadaptive runs: no case needed extra runs (at most 8 runs in "
             "all)\n");
  unload(&fx);
}

/* The gate's comparison of the log file at path, main against pr. */
static fixture load_file(const char *path) {
  fixture fx = {bs_log_new(), NULL, NULL};
  bs_error err;
  cr_assert_eq(bs_log_read_file(fx.log, path, &err), BS_OK, "%s", err.message);
  bs_compare_options o;
  bs_compare_options_init(&o, BS_MODE_CONFIRMATORY);
  cr_assert_eq(bs_compare_run(fx.log, "main", "pr", &o, &fx.r, &err), BS_OK,
               "%s", err.message);
  return fx;
}

Test(markdown_compare, one_level_keeps_its_header_and_marks_nothing) {
  /* examples/pr.csv: every case at the gate's 95 %, one run. */
  fixture fx =
      load_file(ts_own(ts_path(BENCHSITE_SOURCE_DIR, "examples/pr.csv")));
  const char *t = render(bs_text_compare, &fx);
  expect_has(t, "  95 % interval  ");
  expect_lacks(t, "unless marked");
  expect_lacks(t, "at 9");
  expect_lacks(t, "adaptive runs");
  expect_lacks(t, "layout-sensitive");
  expect_has(t, "confirmatory gate: δ = 3 %, 95 % interval, 10000 bootstrap");
  /* Three cases with outliers, one line. */
  expect_has(t, "\nwarning: Tukey-fence outliers in 3 of 4 cases, kept (the "
                "median is robust to them): dot [n=1024] 1 of 20, sort "
                "[n=1024] 2 of 20, sum [n=65536] 2 of 20\n");
  const char *m = render(bs_markdown_compare, &fx);
  expect_has(m, "| case | paired Δ% \\[95 % interval\\] | verdict |\n");
  expect_lacks(m, "unless marked");
  unload(&fx);
}

/* Layout-sensitive cases whose change the interval shows and their runs
 * do not (tests/data/compare/layout_held.csv: `held` and `faster_held`):
 * the note under the table says so, and neither row is significant. */
Test(markdown_compare, text_says_which_changes_the_runs_do_not_hold) {
  fixture fx = load_file(ts_own(ts_data("compare/layout_held.csv")));
  const char *t = render(bs_text_compare, &fx);
  expect_has(t, "; 2 of them are not called a significant change: their "
                "interval shows one, and a t test over their runs does not\n");
  const char *held = line_of(t, "held ");
  cr_assert_not_null(held, "%s", t);
  expect_has(held, "slower, not significant");
  const char *holds = line_of(t, "holds ");
  cr_assert_not_null(holds, "%s", t);
  expect_lacks(holds, "not significant");
  unload(&fx);
}
