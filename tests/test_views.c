/* The table of views (src/views/views.c): every command has every format,
 * each row renders what the renderer of its command and format renders
 * (the row is wired to the right function and result), and what is not in
 * the table is NULL. */
#include "benchsite/views.h"

#include "benchsite/json.h"
#include "support.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define EXAMPLES BENCHSITE_SOURCE_DIR "/examples/"

static const char *const commands[] = {"compare", "noise", "tune"};

Test(views, every_command_has_every_format) {
  size_t n = 0;
  const bs_view *v = bs_views(&n);
  cr_assert_eq(n, 3 * BS_VIEW_FORMATS, "%zu rows", n);
  for (size_t c = 0; c < 3; c++)
    for (int f = 0; f < BS_VIEW_FORMATS; f++) {
      const bs_view *row = bs_view_find(commands[c], (bs_view_format)f);
      cr_assert_not_null(row, "%s has no %s view", commands[c],
                         bs_view_format_name((bs_view_format)f));
      cr_expect_str_eq(row->command, commands[c]);
      cr_expect_eq(row->format, (bs_view_format)f);
      cr_expect_not_null(row->render);
      cr_expect(row >= v && row < v + n);
    }
}

Test(views, unknown_command_or_format_is_null) {
  cr_expect_null(bs_view_find("report", BS_VIEW_TEXT));
  cr_expect_null(bs_view_find("", BS_VIEW_JSON));
  cr_expect_null(bs_view_find(NULL, BS_VIEW_JSON));
  cr_expect_null(bs_view_find("Compare", BS_VIEW_JSON));
  cr_expect_null(bs_view_find("compare", BS_VIEW_FORMATS));
  cr_expect_null(bs_view_find("compare", (bs_view_format)-1));
  cr_expect_null(bs_view_format_name(BS_VIEW_FORMATS));
  cr_expect_null(bs_view_format_name((bs_view_format)-1));
  cr_expect_eq(bs_view_format_is_file(BS_VIEW_FORMATS), 0);
}

/* The name of a file format is its option (--json F, --markdown F). */
Test(views, format_names_and_files) {
  cr_expect_str_eq(bs_view_format_name(BS_VIEW_TEXT), "text");
  cr_expect_str_eq(bs_view_format_name(BS_VIEW_SUMMARY), "summary");
  cr_expect_str_eq(bs_view_format_name(BS_VIEW_JSON), "json");
  cr_expect_str_eq(bs_view_format_name(BS_VIEW_MARKDOWN), "markdown");
  cr_expect_eq(bs_view_format_is_file(BS_VIEW_TEXT), 0);
  cr_expect_eq(bs_view_format_is_file(BS_VIEW_SUMMARY), 0);
  cr_expect_eq(bs_view_format_is_file(BS_VIEW_JSON), 1);
  cr_expect_eq(bs_view_format_is_file(BS_VIEW_MARKDOWN), 1);
}

/* The examples' analysis (a comparison, an A/A validation and tuning) and
 * the direct rendering of each command and format. */
static bs_analysis *example(bs_log **log, bs_manifest **mf) {
  bs_error err;
  bs_error_clear(&err);
  *log = bs_log_new();
  const char *logs[] = {EXAMPLES "pr.csv", EXAMPLES "aa.csv",
                        EXAMPLES "tune.csv"};
  for (size_t i = 0; i < 3; i++)
    cr_assert_eq(bs_log_read_file(*log, logs[i], &err), BS_OK, "%s",
                 err.message);
  const char *mfs[] = {EXAMPLES "env.csv", EXAMPLES "aa-env.csv"};
  for (size_t i = 0; i < 2; i++) {
    mf[i] = bs_manifest_new();
    cr_assert_eq(bs_manifest_read_file(mf[i], mfs[i], &err), BS_OK, "%s",
                 err.message);
  }
  bs_analysis_options o;
  bs_analysis_options_init(&o);
  bs_noise_options no;
  bs_noise_options_init(&no);
  no.resamples = 200;
  o.noise = &no;
  bs_analysis *a = NULL;
  cr_assert_eq(
      bs_analyse(*log, (const bs_manifest *const *)mf, 2, &o, &a, &err), BS_OK,
      "%s", err.message);
  cr_assert(a->compare && a->aa && a->tune);
  return a;
}

static bs_status direct(const bs_analysis *a, const bs_manifest *env,
                        const bs_markdown_options *mo, size_t c, int f,
                        char **out, size_t *len) {
  switch (c * BS_VIEW_FORMATS + (size_t)f) {
  case 0 * BS_VIEW_FORMATS + BS_VIEW_TEXT:
    return bs_text_compare(a->compare, env, mo, out, len, NULL);
  case 0 * BS_VIEW_FORMATS + BS_VIEW_SUMMARY:
    return bs_summary_compare(a->compare, env, mo, out, len, NULL);
  case 0 * BS_VIEW_FORMATS + BS_VIEW_JSON:
    return bs_json_compare(a->compare, env, out, len, NULL);
  case 0 * BS_VIEW_FORMATS + BS_VIEW_MARKDOWN:
    return bs_markdown_compare(a->compare, env, mo, out, len, NULL);
  case 1 * BS_VIEW_FORMATS + BS_VIEW_TEXT:
    return bs_text_noise(a->aa, out, len, NULL);
  case 1 * BS_VIEW_FORMATS + BS_VIEW_SUMMARY:
    return bs_summary_noise(a->aa, out, len, NULL);
  case 1 * BS_VIEW_FORMATS + BS_VIEW_JSON:
    return bs_json_noise(a->aa, env, out, len, NULL);
  case 1 * BS_VIEW_FORMATS + BS_VIEW_MARKDOWN:
    return bs_markdown_noise(a->aa, out, len, NULL);
  case 2 * BS_VIEW_FORMATS + BS_VIEW_TEXT:
    return bs_text_tune(a->tune, out, len, NULL);
  case 2 * BS_VIEW_FORMATS + BS_VIEW_SUMMARY:
    return bs_summary_tune(a->tune, out, len, NULL);
  case 2 * BS_VIEW_FORMATS + BS_VIEW_JSON:
    return bs_json_tune(a->tune, out, len, NULL);
  case 2 * BS_VIEW_FORMATS + BS_VIEW_MARKDOWN:
    return bs_markdown_tune(a->tune, out, len, NULL);
  }
  return BS_EINTERNAL;
}

Test(views, each_row_renders_its_command_in_its_format) {
  bs_log *log;
  bs_manifest *mf[2];
  bs_analysis *a = example(&log, mf);
  bs_markdown_options mo = {.link_base = "https://example.org/r"};
  for (size_t c = 0; c < 3; c++)
    for (int f = 0; f < BS_VIEW_FORMATS; f++) {
      const bs_view *row = bs_view_find(commands[c], (bs_view_format)f);
      cr_assert_not_null(row);
      char *got = NULL, *want = NULL;
      size_t ng = 0, nw = 0;
      cr_assert_eq(row->render(a, mf[0], &mo, &got, &ng, NULL), BS_OK);
      cr_assert_eq(direct(a, mf[0], &mo, c, f, &want, &nw), BS_OK);
      cr_expect(ng == nw && !memcmp(got, want, nw), "%s %s differs",
                commands[c], bs_view_format_name((bs_view_format)f));
      free(got);
      free(want);
    }
  bs_analysis_free(a);
  for (size_t i = 0; i < 2; i++)
    bs_manifest_free(mf[i]);
  bs_log_free(log);
}

/* A row whose result the analysis lacks refuses, naming it. */
Test(views, a_missing_result_is_refused) {
  bs_analysis a;
  memset(&a, 0, sizeof a);
  for (size_t c = 0; c < 3; c++)
    for (int f = 0; f < BS_VIEW_FORMATS; f++) {
      char *out = NULL;
      size_t len = 0;
      bs_error err;
      bs_error_clear(&err);
      cr_expect_eq(bs_view_find(commands[c], (bs_view_format)f)
                       ->render(&a, NULL, NULL, &out, &len, &err),
                   BS_EUSAGE);
      cr_expect_null(out);
      cr_expect(strstr(err.message, "the analysis has no"), "%s", err.message);
    }
}
