/* A comparison whose every figure the views show follows by hand, for
 * the tests of the text report and comment (test_markdown_compare.c) and
 * of the pages (test_cli_html.c). Header-only.
 *
 *   layout   six pairs, d = 0, 0 (run 0), 2, 2 (run 1), 6, 6 (run 2), every
 *            baseline 100 us: the runs' paired changes are 0, 2 and 6 %,
 *            a spread of 6 % > delta = 3 %: layout-sensitive, "runs
 *            disagree by 6.0 %". Run 2 is look 1 (an extra run), so its
 *            interval is at 99.3 % while the others' (look 0) are at 96 %.
 *   narrow   eight pairs, d = 1 seven times and 50 once: 50 lies outside
 *            the Tukey fences (the quartiles are both 1).
 *   spiky    the same with 40: a second case with an outlier.
 *   WIDE     (a hostile name) two pairs, d = 0 and 10: med(d) = 5, delta
 *            5 %; a quarter of the resamples have median 0, so L = 0 and
 *            the minimum detectable change is max(3, 5 - 0) = 5 %: blind,
 *            "could not have seen a change below 5.0 %".
 * The manifest says what `benchsite run` spent on extra runs: one run of
 * one case, 2.5 s, at most 8 runs. */
#ifndef BENCHSITE_TEST_VIEWS_FIXTURE_H
#define BENCHSITE_TEST_VIEWS_FIXTURE_H

/* A name with a table's '|', markup, an escape sequence and a line
 * break. */
#define WIDE "wide|<img src=x>\x1b[31m\n@here"
#define WIDE_CSV "\"wide|<img src=x>\x1b[31m\n@here\""

static const char views_log_csv[] =
    "benchmark,impl,run,block,look,per_call_us\n"
    "layout,main,0,0,0,100\nlayout,pr,0,0,0,100\n"
    "layout,main,0,1,0,100\nlayout,pr,0,1,0,100\n"
    "layout,main,1,0,0,100\nlayout,pr,1,0,0,102\n"
    "layout,main,1,1,0,100\nlayout,pr,1,1,0,102\n"
    "layout,main,2,0,1,100\nlayout,pr,2,0,1,106\n"
    "layout,main,2,1,1,100\nlayout,pr,2,1,1,106\n"
    "narrow,main,0,0,0,100\nnarrow,pr,0,0,0,101\n"
    "narrow,main,0,1,0,100\nnarrow,pr,0,1,0,101\n"
    "narrow,main,0,2,0,100\nnarrow,pr,0,2,0,101\n"
    "narrow,main,0,3,0,100\nnarrow,pr,0,3,0,101\n"
    "narrow,main,0,4,0,100\nnarrow,pr,0,4,0,101\n"
    "narrow,main,0,5,0,100\nnarrow,pr,0,5,0,101\n"
    "narrow,main,0,6,0,100\nnarrow,pr,0,6,0,101\n"
    "narrow,main,0,7,0,100\nnarrow,pr,0,7,0,150\n"
    "spiky,main,0,0,0,100\nspiky,pr,0,0,0,101\n"
    "spiky,main,0,1,0,100\nspiky,pr,0,1,0,101\n"
    "spiky,main,0,2,0,100\nspiky,pr,0,2,0,101\n"
    "spiky,main,0,3,0,100\nspiky,pr,0,3,0,101\n"
    "spiky,main,0,4,0,100\nspiky,pr,0,4,0,101\n"
    "spiky,main,0,5,0,100\nspiky,pr,0,5,0,101\n"
    "spiky,main,0,6,0,100\nspiky,pr,0,6,0,101\n"
    "spiky,main,0,7,0,100\nspiky,pr,0,7,0,140\n" WIDE_CSV
    ",main,0,0,0,100\n" WIDE_CSV ",pr,0,0,0,100\n" WIDE_CSV
    ",main,0,1,0,100\n" WIDE_CSV ",pr,0,1,0,110\n";

static const char views_manifest_csv[] = "key,value\n"
                                         "target,native\n"
                                         "max_runs,8\n"
                                         "extra_runs,1\n"
                                         "adaptive_cases,1\n"
                                         "extra_seconds,2.5\n";

#endif
