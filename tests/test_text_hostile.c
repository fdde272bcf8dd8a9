/* Untrusted text on its way to a CI log: names through compare, tune and
 * noise (its word-wrapped paragraphs too), the text escaper byte by byte,
 * manifest values, Markdown and JSON. Each test failed before its fix (the
 * note above it says how). */
#include "benchsite/error.h"
#include "benchsite/run.h"

#include "hostile.h"
#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(text_hostile, .fini = ts_free_owned);

/* ---- The CI log ---------------------------------------------------------- *
 * Before: names were printed raw in compare's warnings, its mismatched
 * pairs error, the text table (where a name starts the line) and archive
 * add's findings: "\n::error::" or "::add-mask::" started workflow
 * commands in a GitHub Actions log. */

Test(text_hostile, hostile_names_cannot_start_a_ci_log_line) {
  char *dir = ts_own(ts_tmpdir("ci_log"));
  /* Three cases: a hostile one in both impls (the table), a hostile one
   * in only the baseline (a warning) and "::add-mask::" at a line start. */
  char *log = ts_pathf("%s/log.csv", dir);
  FILE *f = fopen(log, "w");
  cr_assert_not_null(f);
  fputs("benchmark,dataset,impl,run,block,phase,iterations,per_call_us\n", f);
  const char *names[] = {HOSTILE, "::add-mask::secret", "  ::warning::x"};
  for (int c = 0; c < 3; c++)
    for (int j = 0; j < 12; j++)
      for (int k = 0; k < 2; k++) {
        field(f, names[c]);
        fprintf(f, ",,%s,0,%d,confirm,100,%d\n", (j + k) % 2 ? "head" : "base",
                j, 100 + j % 3);
      }
  field(f, "only\n::error::base");
  fputs(",,base,0,0,confirm,100,1\n", f);
  cr_assert_eq(fclose(f), 0);
  const char *cmp[] = {"compare",     log,    "--baseline", "base",
                       "--candidate", "head", NULL};
  ts_run r = ts_cli(NULL, cmp);
  cr_expect_eq(r.status, 0, "compare: %s", r.err);
  cr_expect(strstr(r.out, "\\x0a::error::pwned"), "%s", r.out);
  ci_safe("compare stdout", r.out);
  ci_safe("compare stderr", r.err);
  ts_run_free(&r);
  const char *tune[] = {"tune", log, NULL};
  r = ts_cli(NULL, tune);
  ci_safe("tune stdout", r.out);
  ci_safe("tune stderr", r.err);
  ts_run_free(&r);
  const char *noise[] = {"noise", log, "--a", "base", "--b", "head", NULL};
  r = ts_cli(NULL, noise);
  ci_safe("noise stdout", r.out);
  ci_safe("noise stderr", r.err);
  ts_run_free(&r);

  /* Mismatched pairs: an extra row of the hostile case. */
  f = fopen(log, "a");
  cr_assert_not_null(f);
  field(f, HOSTILE);
  fputs(",,base,0,99,confirm,100,1\n", f);
  cr_assert_eq(fclose(f), 0);
  r = ts_cli(NULL, cmp);
  cr_expect_eq(r.status, 2, "compare: %s", r.err);
  cr_expect(strstr(r.err, "mismatched pairs"), "%s", r.err);
  ci_safe("mismatched pairs", r.err);
  ts_run_free(&r);
}

/* The escaper itself, byte by byte (hand-written expectations). */
Test(text_hostile, text_escape_neutralises_controls_and_line_starts) {
  char out[256];
  bs_text_escape(out, sizeof out, "a\nb\rc\x1b[0m\x7f", 0);
  cr_expect_str_eq(out, "a\\x0ab\\x0dc\\x1b[0m\\x7f");
  bs_text_escape(out, sizeof out,
                 "\xc2\x85|\xe2\x80\xa8|\xe2\x80\xa9|\xff|\xc3", 0);
  cr_expect_str_eq(out,
                   "\\xc2\\x85|\\xe2\\x80\\xa8|\\xe2\\x80\\xa9|\\xff|\\xc3");
  bs_text_escape(out, sizeof out, "ok ##[group] \xc3\xa9 \\x41", 0);
  cr_expect_str_eq(out, "ok \\x23#[group] \xc3\xa9 \\x41");
  bs_text_escape(out, sizeof out, "::error::x", BS_TEXT_LINE_START);
  cr_expect_str_eq(out, "\\x3a:error::x");
  bs_text_escape(out, sizeof out, " ::error::x", BS_TEXT_LINE_START);
  cr_expect_str_eq(out, "\\x20::error::x");
  bs_text_escape(out, sizeof out, "::error::x", 0);
  cr_expect_str_eq(out, "::error::x");
  /* Too small: whole escapes and characters only, and the full length. */
  cr_expect_eq(bs_text_escape(out, 6, "ab\ncd", 0), 8);
  cr_expect_str_eq(out, "ab");
  cr_expect_eq(bs_text_escape(out, 4, "a\xc3\xa9", 0), 3);
  cr_expect_str_eq(out, "a\xc3\xa9");
  cr_expect_eq(bs_text_escape(out, 3, "a\xc3\xa9", 0), 3);
  cr_expect_str_eq(out, "a");
}

/* Before: the bidirectional formatting characters (U+202A..U+202E,
 * U+2066..U+2069, the marks U+200E, U+200F, U+061C) reached a terminal or
 * CI log raw, so a benchmark name holding RIGHT-TO-LEFT OVERRIDE showed
 * the rest of its line, the verdict included, reordered ("Trojan Source",
 * CVE-2021-42574). They print as bytes now; other non-ASCII text (é,
 * U+202F, U+2060) stays as it is. Expectations by hand from the UTF-8
 * encodings. */
Test(text_hostile, text_escape_neutralises_bidi_controls) {
  char out[256];
  bs_text_escape(out, sizeof out,
                 "a\xe2\x80\xae"
                 "b|\xe2\x80\xaa|\xe2\x81\xa6|\xe2\x81\xa9|"
                 "\xe2\x80\x8e|\xe2\x80\x8f|\xd8\x9c",
                 0);
  cr_expect_str_eq(out, "a\\xe2\\x80\\xaeb|\\xe2\\x80\\xaa|"
                        "\\xe2\\x81\\xa6|\\xe2\\x81\\xa9|"
                        "\\xe2\\x80\\x8e|\\xe2\\x80\\x8f|\\xd8\\x9c");
  bs_text_escape(out, sizeof out, "\xc3\xa9 \xe2\x80\xaf \xe2\x81\xa0", 0);
  cr_expect_str_eq(out, "\xc3\xa9 \xe2\x80\xaf \xe2\x81\xa0");
}

/* ---- Wrapped text, manifests, Markdown, JSON ----------------------------- */

/* An A/A log of one noisy case `bench` (impls A and B, 5 runs of 12
 * blocks, up to 80 % noise): the gate cannot resolve δ = 3 %, so the
 * planning paragraph names the case as the most demanding. */
static char *noisy_aa_log(const char *dir, const char *bench) {
  char *log = ts_pathf("%s/aa.csv", dir);
  FILE *f = fopen(log, "w");
  cr_assert_not_null(f);
  fputs("benchmark,dataset,impl,run,block,phase,iterations,per_call_us\n", f);
  unsigned long long s = 88172645463325252ULL;
  for (int run = 0; run < 5; run++)
    for (int j = 0; j < 12; j++)
      for (int k = 0; k < 2; k++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        field(f, bench);
        fprintf(f, ",,%s,%d,%d,confirm,100,%.6f\n", (j + k) % 2 ? "B" : "A",
                run, j, 100.0 * (1.0 + 0.8 * (double)(s % 1000) / 1000.0));
      }
  cr_assert_eq(fclose(f), 0);
  return log;
}

/* Before: the noise text's planning paragraph was word-wrapped after the
 * case name had been escaped in the middle of a line, so a word of the
 * name could begin a wrapped line: "::error::boom (paired floor ...)". A
 * name of many such words spans more than a line, so some word of it
 * begins one whatever the figures before it. */
Test(text_hostile, wrapped_noise_text_escapes_every_line_start, .timeout = 60) {
  char *dir = ts_own(ts_tmpdir("noise_wrap"));
  char name[400] = "ww";
  size_t used = 2;
  for (int i = 0; i < 24; i++)
    used += (size_t)snprintf(name + used, sizeof name - used, "%s",
                             i % 2 ? " ::error::boom" : " #::warning::x");
  char *log = noisy_aa_log(dir, name);
  const char *noise[] = {"noise", log, "--a", "A", "--b", "B", NULL};
  ts_run r = ts_cli(NULL, noise);
  cr_assert_eq(r.status, 0, "noise: exit %d: %s", r.status, r.err);
  cr_expect(strstr(r.out, "the most demanding is ww"), "%s", r.out);
  cr_expect(strstr(r.out, "\n\\x3a:error::boom") ||
                strstr(r.out, "\n\\x23::warning::x"),
            "no word of the name begins a wrapped line: %s", r.out);
  ci_safe("noise text", r.out);
  /* No line starts with '#' either (a wrapped "#::warning::x"). */
  cr_expect(!strstr(r.out, "\n#"), "%s", r.out);
  ts_run_free(&r);
}

/* Before: a --set value holding a line break was written as a quoted CSV
 * field spanning two lines, the second "::error::pwned" on stdout. */
Test(text_hostile, manifest_values_are_one_line_of_text) {
  static const char *const bad[] = {
      "k=a\n::error::pwned",
      "k=a\r::error::pwned",
      "k=a\tb",
      "k=a\xc2\x85::error::pwned", /* NEL, a C1 control */
      "k=a\xe2\x80\xa8::error::pwned",
      "k=a\xe2\x80\xa9p",
      "k=\x1b[31mred",
      "k\n::error::key=v"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *args[] = {"manifest", "--set", bad[i], NULL};
    ts_run r = ts_cli(NULL, args);
    cr_expect_eq(r.status, 2, "manifest --set %s: exit %d", bad[i], r.status);
    cr_expect_str_empty(r.out, "manifest --set %s wrote: %s", bad[i], r.out);
    cr_expect(strstr(r.err, "control character") ||
                  strstr(r.err, "line or paragraph separator"),
              "%s", r.err);
    cr_expect(strstr(r.err, "\"k"), "the message names no key: %s", r.err);
    ci_safe("manifest stderr", r.err);
    ts_run_free(&r);
  }
  const char *fine[] = {"manifest", "--set", "k=caf\xc3\xa9 \"1\",2", NULL};
  ts_run r = ts_cli(NULL, fine);
  cr_expect_eq(r.status, 0, "%s", r.err);
  cr_expect(strstr(r.out, "\n\"k\",\"caf\xc3\xa9 \"\"1\"\",2\"\n"), "%s",
            r.out);
  ts_run_free(&r);
  /* The library refuses them too (every value of a manifest it writes,
   * probed ones included, goes through it). */
  bs_manifest_draft d;
  bs_manifest_draft_init(&d);
  bs_error err;
  cr_expect_eq(bs_manifest_draft_set(&d, "machine", "x\xe2\x80\xa8y", &err),
               BS_EUSAGE);
  cr_expect_eq(bs_manifest_draft_set(&d, "machine", "x\xc2\x9fy", &err),
               BS_EUSAGE);
  cr_expect_eq(bs_manifest_draft_set(&d, "a\x7f", "v", &err), BS_EUSAGE);
  cr_expect_eq(bs_manifest_draft_set(&d, "machine", "x86_64 \xc3\x97 4", &err),
               BS_OK);
  bs_manifest_draft_release(&d);
}

/* Before: the Markdown escaper passed U+2028, U+2029 and C1 controls such
 * as NEL (U+0085) raw: a line separator in the CI log. They are numeric
 * character references now, which GitHub shows as the character. */
Test(text_hostile, markdown_writes_line_separators_as_references,
     .timeout = 60) {
  char *dir = ts_own(ts_tmpdir("md_ls"));
  char *log = write_log(dir, "log.csv",
                        "a\xe2\x80\xa8::error::x b\xc2\x85::error::y "
                        "c\xe2\x80\xa9::warning::z d\xc2\x9b"
                        "31m",
                        100, 101);
  const char *args[] = {"compare",    log,           "--baseline",
                        "base",       "--candidate", "head",
                        "--markdown", "-",           NULL};
  ts_run r = ts_cli(NULL, args);
  cr_assert(r.status == 0 || r.status == 1, "compare: exit %d: %s", r.status,
            r.err);
  cr_expect(strstr(r.out, "a&#x2028;\\:\\:error\\:\\:x"), "%s", r.out);
  cr_expect(strstr(r.out, "b&#x85;\\:\\:error"), "%s", r.out);
  cr_expect(strstr(r.out, "c&#x2029;\\:\\:warning"), "%s", r.out);
  cr_expect(strstr(r.out, "d&#x9b;31m"), "%s", r.out);
  cr_expect(!strstr(r.out, "\xe2\x80\xa8") && !strstr(r.out, "\xe2\x80\xa9") &&
                !strstr(r.out, "\xc2\x85") && !strstr(r.out, "\xc2\x9b"),
            "a raw separator or C1 control: %s", r.out);
  ts_run_free(&r);
}

/* Before: the JSON writer copied C1 controls and U+2028/U+2029 raw, so
 * `--json -` put a name's line separator into the CI log. They are \u
 * escapes now; the text they stand for is unchanged. */
Test(text_hostile, json_escapes_line_separators, .timeout = 60) {
  char *dir = ts_own(ts_tmpdir("json_ls"));
  char *log =
      write_log(dir, "log.csv",
                "a\xe2\x80\xa8::error::x b\xc2\x85y c\xe2\x80\xa9z", 100, 101);
  const char *args[] = {"compare", log,           "--baseline",
                        "base",    "--candidate", "head",
                        "--json",  "-",           NULL};
  ts_run r = ts_cli(NULL, args);
  cr_assert(r.status == 0 || r.status == 1, "compare: exit %d: %s", r.status,
            r.err);
  cr_expect(strstr(r.out, "\"a\\u2028::error::x b\\u0085y c\\u2029z\""), "%s",
            r.out);
  cr_expect(!strstr(r.out, "\xe2\x80\xa8") && !strstr(r.out, "\xe2\x80\xa9") &&
                !strstr(r.out, "\xc2\x85"),
            "a raw separator or C1 control: %s", r.out);
  ts_run_free(&r);
}
