#include "benchsite/log.h"

#include "support.h"

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDR                                                                    \
  "benchmark,dataset,scale,impl,run,block,phase,iterations,per_call_us\n"

static char errtext[2048];

/* "file:line: message" of the last error. */
static const char *fmt_err(const bs_error *e) {
  bs_error_format(e, errtext, sizeof errtext);
  return errtext;
}

static bs_status read_str(bs_log *log, const char *name, const char *text,
                          bs_error *err) {
  return bs_log_read_buffer(log, name, text, strlen(text), err);
}

/* Reads `text` as pr.csv into a fresh log, expects failure with `status`
 * and exactly `msg`, and that nothing was kept. */
static void expect_error(const char *text, bs_status status, const char *msg) {
  bs_log *log = bs_log_new();
  bs_error err;
  bs_status st = read_str(log, "pr.csv", text, &err);
  cr_assert_eq(st, status, "status %d (%s) for: %s", st, fmt_err(&err), text);
  cr_assert_eq(err.status, status);
  cr_assert_str_eq(fmt_err(&err), msg);
  cr_assert_eq(bs_log_count(log), 0);
  cr_assert_eq(bs_log_case_count(log), 0);
  bs_log_free(log);
}

static bs_log *read_ok(const char *text) {
  bs_log *log = bs_log_new();
  bs_error err;
  bs_status st = read_str(log, "pr.csv", text, &err);
  cr_assert_eq(st, BS_OK, "%s", fmt_err(&err));
  return log;
}

Test(log, reads_every_column_and_keeps_read_order) {
  bs_log *log = read_ok(HDR "sort,n=1024,1024,base,3,,calibration,100,2.5\n"
                            "sort,n=1024,1024,fast,3,7,confirm,200,1.75\n");
  cr_assert_eq(bs_log_count(log), 2);
  const bs_row *r = bs_log_rows(log);
  cr_assert_str_eq(bs_log_row_case(log, &r[0])->benchmark, "sort");
  cr_assert_str_eq(bs_log_row_case(log, &r[0])->dataset, "n=1024");
  cr_assert_str_eq(r[0].impl, "base");
  cr_assert_str_eq(bs_log_row_file(log, &r[0]), "pr.csv");
  cr_assert_eq(r[0].line, 2);
  cr_assert_eq(bs_log_row_case(log, &r[0])->has_scale, 1);
  cr_assert_eq(bs_log_row_case(log, &r[0])->scale, 1024.0);
  cr_assert_eq(bs_row_run(log, &r[0]), 3);
  cr_assert_eq(bs_row_block(log, &r[0]), -1);
  cr_assert_eq(r[0].phase, BS_PHASE_CALIBRATION);
  cr_assert_eq(r[0].iterations, 100);
  cr_assert_eq(r[0].per_call_us, 2.5);
  cr_assert_str_eq(r[1].impl, "fast");
  cr_assert_eq(r[1].line, 3);
  cr_assert_eq(bs_row_block(log, &r[1]), 7);
  cr_assert_eq(r[1].phase, BS_PHASE_CONFIRM);
  cr_assert_eq(r[1].iterations, 200);
  cr_assert_eq(r[1].per_call_us, 1.75);
  cr_assert_eq(bs_log_unknown_count(log), 0);
  bs_log_free(log);
}

Test(log, optional_columns_take_their_defaults) {
  bs_log *log = read_ok("per_call_us,impl,block,benchmark\n"
                        "4e-1,base,2,sort\n");
  cr_assert_eq(bs_log_count(log), 1);
  const bs_row *r = bs_log_rows(log);
  cr_assert_str_eq(bs_log_row_case(log, &r[0])->benchmark, "sort");
  cr_assert_str_eq(bs_log_row_case(log, &r[0])->dataset, "");
  cr_assert_eq(bs_log_row_case(log, &r[0])->has_scale, 0);
  cr_assert_eq(bs_row_run(log, &r[0]), 0);
  cr_assert_eq(r[0].iterations, 0);
  cr_assert_eq(bs_row_block(log, &r[0]), 2);
  cr_assert_eq(r[0].phase, BS_PHASE_CONFIRM);
  cr_assert_eq(r[0].per_call_us, 0.4);
  bs_log_free(log);
}

Test(log, empty_optional_fields_count_as_absent) {
  bs_log *log = read_ok(HDR "sort,,,base,,4,,,1\n");
  const bs_row *r = bs_log_rows(log);
  cr_assert_str_eq(bs_log_row_case(log, &r[0])->dataset, "");
  cr_assert_eq(bs_log_row_case(log, &r[0])->has_scale, 0);
  cr_assert_eq(bs_row_run(log, &r[0]), 0);
  cr_assert_eq(r[0].iterations, 0);
  cr_assert_eq(r[0].phase, BS_PHASE_CONFIRM);
  cr_assert_eq(bs_row_block(log, &r[0]), 4);
  bs_log_free(log);
}

Test(log, quoted_field_spanning_two_lines_keeps_later_line_numbers) {
  const char *text = "benchmark,dataset,impl,block,per_call_us\n"
                     "sort,\"two\nlines\",base,0,1\n"
                     "sort,x,base,0,1\n"
                     "sort,x,fast,0,-3\n";
  bs_log *log = bs_log_new();
  bs_error err;
  cr_assert_eq(read_str(log, "pr.csv", text, &err), BS_EINPUT);
  cr_assert_str_eq(fmt_err(&err),
                   "pr.csv:5: column per_call_us: \"-3\" is not a positive "
                   "number");
  bs_log_free(log);

  log = read_ok("benchmark,dataset,impl,block,per_call_us\n"
                "sort,\"two\nlines\",base,0,1\n"
                "sort,\"a\r\nb\",base,0,1\n"
                "sort,x,base,0,1\n");
  const bs_row *r = bs_log_rows(log);
  cr_assert_eq(bs_log_count(log), 3);
  cr_assert_str_eq(bs_log_row_case(log, &r[0])->dataset, "two\nlines");
  cr_assert_eq(r[0].line, 2);
  cr_assert_eq(r[1].line, 4);
  cr_assert_str_eq(bs_log_row_case(log, &r[1])->dataset, "a\r\nb");
  cr_assert_eq(r[2].line, 6);
  bs_log_free(log);
}

Test(log, crlf_line_endings_are_accepted) {
  bs_log *log = read_ok("benchmark,impl,block,per_call_us\r\n"
                        "sort,base,0,1.5\r\n"
                        "sort,fast,0,2\r\n");
  const bs_row *r = bs_log_rows(log);
  cr_assert_eq(bs_log_count(log), 2);
  cr_assert_str_eq(r[1].impl, "fast");
  cr_assert_eq(r[1].per_call_us, 2.0);
  cr_assert_eq(r[1].line, 3);
  bs_log_free(log);
  expect_error("benchmark,impl,block,per_call_us\r\n"
               "sort,base,0,1.5\r\n"
               "\r\n"
               "sort,fast,0,0\r\n",
               BS_EINPUT,
               "pr.csv:4: column per_call_us: \"0\" is not a positive number");
}

Test(log, lone_cr_ends_a_line_too) {
  expect_error("benchmark,impl,block,per_call_us\r"
               "sort,base,0,1\r"
               "sort,base,x,1\r",
               BS_EINPUT,
               "pr.csv:3: column block: \"x\" is not a non-negative integer");
}

Test(log, utf8_bom_at_start_is_stripped) {
  bs_log *log = read_ok("\xEF\xBB\xBF"
                        "benchmark,impl,block,per_call_us\n"
                        "sort,base,0,1\n");
  cr_assert_eq(bs_log_count(log), 1);
  cr_assert_str_eq(bs_log_row_case(log, &bs_log_rows(log)[0])->benchmark,
                   "sort");
  cr_assert_eq(bs_log_unknown_count(log), 0);
  bs_log_free(log);
}

Test(log, bom_after_the_start_is_not_stripped) {
  expect_error("benchmark,impl,block,per_call_us\n"
               "\xEF\xBB\xBF"
               "sort,base,0,1\n"
               "\xEF\xBB\xBF"
               "sort,base,0,1\n",
               BS_EINPUT,
               "pr.csv:3: duplicate confirm row for benchmark "
               "\"\xEF\xBB\xBFsort\", dataset \"\", run 0, block 0, impl "
               "\"base\" (first at pr.csv:2)");
}

Test(log, blank_lines_and_missing_final_newline_are_fine) {
  bs_log *log = read_ok("\n\nbenchmark,impl,block,per_call_us\n"
                        "\n"
                        "sort,base,0,1\n"
                        "\n\n"
                        "sort,fast,0,2");
  cr_assert_eq(bs_log_count(log), 2);
  cr_assert_eq(bs_log_rows(log)[0].line, 5);
  cr_assert_eq(bs_log_rows(log)[1].line, 8);
  cr_assert_str_eq(bs_log_rows(log)[1].impl, "fast");
  bs_log_free(log);
}

Test(log, header_only_gives_an_empty_log) {
  bs_log *log = read_ok("benchmark,impl,per_call_us\n");
  cr_assert_eq(bs_log_count(log), 0);
  cr_assert_eq(bs_log_case_count(log), 0);
  bs_log_free(log);
}

Test(log, empty_file_is_an_error) {
  expect_error("", BS_EINPUT, "pr.csv: empty file: no header row");
  expect_error("\n\r\n", BS_EINPUT, "pr.csv: empty file: no header row");
}

Test(log, blanks_around_fields_are_kept) {
  expect_error("benchmark,impl,block,per_call_us\n"
               "sort,base,0, 3\n",
               BS_EINPUT,
               "pr.csv:2: column per_call_us: \" 3\" is not a positive "
               "number");
  bs_log *log = read_ok("benchmark,impl,block,per_call_us\n"
                        " sort ,base,0,3\n");
  cr_assert_str_eq(bs_log_row_case(log, &bs_log_rows(log)[0])->benchmark,
                   " sort ");
  bs_log_free(log);
}

Test(log, malformed_csv_names_the_line) {
  expect_error("benchmark,impl,block,per_call_us\n"
               "sort,base,0,1\n"
               "sort,ba\"se,1,1\n",
               BS_EINPUT,
               "pr.csv:3: malformed CSV: quote inside an unquoted field "
               "(byte 8 of the line)");
  expect_error("benchmark,impl,block,per_call_us\n"
               "\"multi\nline\",base,0,1\n"
               "sort,\"base\"x,1,1\n",
               BS_EINPUT,
               "pr.csv:4: malformed CSV: text after a closing quote "
               "(byte 12 of the line)");
  expect_error("benchmark,impl,block,per_call_us\r\n"
               "sort,base,0,1\r\n"
               "sort,\"base,1,1\r\n"
               "sort,base,2,1\r\n",
               BS_EINPUT,
               "pr.csv:3: malformed CSV: quoted field not closed at end of "
               "file");
}

Test(log, malformed_error_sets_the_column) {
  bs_log *log = bs_log_new();
  bs_error err;
  cr_assert_eq(read_str(log, "pr.csv", "a,b\"c\n", &err), BS_EINPUT);
  cr_assert_eq(err.line, 1);
  cr_assert_eq(err.column, 4);
  bs_log_free(log);
}

Test(log, nul_byte_is_rejected) {
  static const char text[] = "benchmark,impl,block,per_call_us\n"
                             "sort,ba\0se,0,1\n";
  bs_log *log = bs_log_new();
  bs_error err;
  cr_assert_eq(bs_log_read_buffer(log, "pr.csv", text, sizeof text - 1, &err),
               BS_EINPUT);
  cr_assert_str_eq(fmt_err(&err), "pr.csv:2: column impl: contains a NUL byte");
  cr_assert_eq(err.column, 2);
  static const char hdr[] = "benchmark,im\0pl\n";
  cr_assert_eq(bs_log_read_buffer(log, "pr.csv", hdr, sizeof hdr - 1, &err),
               BS_EINPUT);
  cr_assert_str_eq(fmt_err(&err),
                   "pr.csv:1: header field 2: contains a NUL byte");
  bs_log_free(log);
}

Test(log, invalid_utf8_is_rejected) {
  expect_error("benchmark,impl,block,per_call_us\n"
               "sort,ok\xC3\xA9\xFF,0,1\n",
               BS_EINPUT,
               "pr.csv:2: column impl: invalid UTF-8 at byte 5 of the field");
  /* Overlong encoding of '/', and a UTF-16 surrogate. */
  expect_error("benchmark,impl,block,per_call_us\n"
               "\xC0\xAF,b,0,1\n",
               BS_EINPUT,
               "pr.csv:2: column benchmark: invalid UTF-8 at byte 1 of the "
               "field");
  expect_error("benchmark,impl,block,per_call_us\n"
               "x\xED\xA0\x80,b,0,1\n",
               BS_EINPUT,
               "pr.csv:2: column benchmark: invalid UTF-8 at byte 2 of the "
               "field");
  bs_log *log = read_ok("benchmark,impl,block,per_call_us\n"
                        "tri\xC3\xA9,\xF0\x9F\x9A\x80,0,1\n");
  cr_assert_str_eq(bs_log_row_case(log, &bs_log_rows(log)[0])->benchmark,
                   "tri\xC3\xA9");
  cr_assert_str_eq(bs_log_rows(log)[0].impl, "\xF0\x9F\x9A\x80");
  bs_log_free(log);
}

Test(log, duplicate_header_name_is_an_error) {
  expect_error("benchmark,impl,run,per_call_us,run,impl\n", BS_EINPUT,
               "pr.csv:1: column run: appears twice in the header");
  expect_error("benchmark,impl,per_call_us,x,x\n", BS_EINPUT,
               "pr.csv:1: column x: appears twice in the header");
}

Test(log, missing_required_column_is_an_error) {
  expect_error("benchmark,dataset,per_call_us\nsort,a,1\n", BS_EINPUT,
               "pr.csv:1: missing required column \"impl\"");
  expect_error("impl,per_call_us\n", BS_EINPUT,
               "pr.csv:1: missing required column \"benchmark\"");
  expect_error("benchmark,impl,per_call\n", BS_EINPUT,
               "pr.csv:1: missing required column \"per_call_us\"");
}

Test(log, confirm_row_needs_a_block) {
  expect_error("benchmark,impl,phase,per_call_us\n"
               "sort,base,calibration,1\n"
               "sort,base,confirm,1\n",
               BS_EINPUT, "pr.csv:3: column block: missing for a confirm row");
  expect_error("benchmark,impl,block,per_call_us\n"
               "sort,base,0,1\n"
               "sort,base,,1\n",
               BS_EINPUT, "pr.csv:3: column block: missing for a confirm row");
  /* phase absent means confirm */
  expect_error("benchmark,impl,per_call_us\nsort,base,1\n", BS_EINPUT,
               "pr.csv:2: column block: missing for a confirm row");
}

Test(log, calibration_rows_need_no_block) {
  bs_log *log = read_ok("benchmark,impl,phase,iterations,per_call_us\n"
                        "sort,base,calibration,1,9\n"
                        "sort,base,calibration,1,9\n");
  cr_assert_eq(bs_log_count(log), 2);
  cr_assert_eq(bs_row_block(log, &bs_log_rows(log)[1]), -1);
  bs_log_free(log);
}

Test(log, record_with_wrong_field_count_is_an_error) {
  expect_error(HDR "sort,n=1,1,base,0,0,confirm\n", BS_EINPUT,
               "pr.csv:2: expected 9 fields, found 7");
  expect_error(HDR "sort,n=1,1,base,0,0,confirm,1,1,extra,extra\n", BS_EINPUT,
               "pr.csv:2: expected 9 fields, found 11");
}

Test(log, bad_numbers_are_named_with_column_and_value) {
  static const struct {
    const char *row, *msg;
  } cases[] = {
      {"sort,a,1,b,0,0,confirm,1,-3",
       "pr.csv:2: column per_call_us: \"-3\" is not a positive number"},
      {"sort,a,1,b,0,0,confirm,1,0",
       "pr.csv:2: column per_call_us: \"0\" is not a positive number"},
      {"sort,a,1,b,0,0,confirm,1,nan",
       "pr.csv:2: column per_call_us: \"nan\" is not a positive number "
       "(nan and infinity are not allowed)"},
      {"sort,a,1,b,0,0,confirm,1,inf",
       "pr.csv:2: column per_call_us: \"inf\" is not a positive number "
       "(nan and infinity are not allowed)"},
      {"sort,a,1,b,0,0,confirm,1,1e999",
       "pr.csv:2: column per_call_us: \"1e999\" is not a positive number "
       "(out of range for a double)"},
      {"sort,a,1,b,0,0,confirm,1,0x10",
       "pr.csv:2: column per_call_us: \"0x10\" is not a positive number "
       "(hexadecimal is not allowed)"},
      {"sort,a,1,b,0,0,confirm,1,",
       "pr.csv:2: column per_call_us: must not be empty"},
      {"sort,a,-5,b,0,0,confirm,1,1",
       "pr.csv:2: column scale: \"-5\" is not a positive number"},
      {"sort,a,0,b,0,0,confirm,1,1",
       "pr.csv:2: column scale: \"0\" is not a positive number"},
      {"sort,a,1,b,-1,0,confirm,1,1",
       "pr.csv:2: column run: \"-1\" is not a non-negative integer"},
      {"sort,a,1,b,1.5,0,confirm,1,1",
       "pr.csv:2: column run: \"1.5\" is not a non-negative integer"},
      {"sort,a,1,b,0,-1,confirm,1,1",
       "pr.csv:2: column block: \"-1\" is not a non-negative integer"},
      {"sort,a,1,b,0,+1,confirm,1,1",
       "pr.csv:2: column block: \"+1\" is not a non-negative integer"},
      {"sort,a,1,b,0,9223372036854775808,confirm,1,1",
       "pr.csv:2: column block: \"9223372036854775808\" is too large"},
      {"sort,a,1,b,99999999999999999999,0,confirm,1,1",
       "pr.csv:2: column run: \"99999999999999999999\" is too large"},
      {"sort,a,1,b,0,0,confirm,0,1",
       "pr.csv:2: column iterations: \"0\" is not a positive integer"},
      {"sort,a,1,b,0,0,confirm,2.5,1",
       "pr.csv:2: column iterations: \"2.5\" is not a positive integer"},
      {"sort,a,1,b,0,0,warmup,1,1",
       "pr.csv:2: column phase: \"warmup\" is not calibration or confirm"},
      {"sort,a,1,b,0,0,Confirm,1,1",
       "pr.csv:2: column phase: \"Confirm\" is not calibration or confirm"},
      {",a,1,b,0,0,confirm,1,1", "pr.csv:2: column benchmark: must not be "
                                 "empty"},
      {"sort,a,1,,0,0,confirm,1,1", "pr.csv:2: column impl: must not be empty"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[512];
    snprintf(text, sizeof text, "%s%s\n", HDR, cases[i].row);
    expect_error(text, BS_EINPUT, cases[i].msg);
  }
}

Test(log, error_column_is_the_header_position) {
  bs_log *log = bs_log_new();
  bs_error err;
  cr_assert_eq(read_str(log, "pr.csv", HDR "s,a,1,b,0,0,confirm,1,-3\n", &err),
               BS_EINPUT);
  cr_assert_eq(err.line, 2);
  cr_assert_eq(err.column, 9);
  cr_assert_str_eq(err.path, "pr.csv");
  bs_log_free(log);
}

Test(log, quoted_values_are_escaped_and_truncated) {
  expect_error("benchmark,impl,block,phase,per_call_us\n"
               "sort,base,0,\"war\nm\tup\x01\\\"\"\",1\n",
               BS_EINPUT,
               "pr.csv:2: column phase: \"war\\nm\\tup\\x01\\\\\\\"\" is not "
               "calibration or confirm");
  expect_error("benchmark,impl,block,per_call_us\n"
               "sort,base,0,1234567890123456789012345678901234567890xyz\n",
               BS_EINPUT,
               "pr.csv:2: column per_call_us: "
               "\"1234567890123456789012345678901234567890...\" is not a "
               "positive number");
  /* A cut never splits a UTF-8 character; C1 controls are escaped. */
  expect_error("benchmark,impl,block,per_call_us\n"
               "sort,base,0,123456789012345678901234567890123456789\xC3\xA9"
               "\n",
               BS_EINPUT,
               "pr.csv:2: column per_call_us: "
               "\"123456789012345678901234567890123456789...\" is not a "
               "positive number");
  expect_error("benchmark,impl,block,per_call_us\n"
               "sort,base,0,\xC2\x9B"
               "31m\n",
               BS_EINPUT,
               "pr.csv:2: column per_call_us: \"\\u009b31m\" is not a "
               "positive number");
}

Test(log, duplicate_confirm_row_names_the_first) {
  expect_error("benchmark,dataset,impl,run,block,per_call_us\n"
               "sort,n=1,base,0,0,1\n"
               "sort,n=1,fast,0,0,1\n"
               "sort,n=1,base,1,0,1\n"
               "sort,n=2,base,0,0,1\n"
               "sort,n=1,base,0,1,1\n"
               "sort,n=1,base,0,0,2\n",
               BS_EINPUT,
               "pr.csv:7: duplicate confirm row for benchmark \"sort\", "
               "dataset \"n=1\", run 0, block 0, impl \"base\" (first at "
               "pr.csv:2)");
}

Test(log, calibration_rows_may_repeat_a_key) {
  bs_log *log = read_ok("benchmark,impl,block,phase,per_call_us\n"
                        "sort,base,0,calibration,1\n"
                        "sort,base,0,calibration,1\n"
                        "sort,base,0,confirm,1\n");
  cr_assert_eq(bs_log_count(log), 3);
  bs_log_free(log);
}

Test(log, many_rows_have_no_false_duplicates) {
  size_t n = 20000;
  size_t cap = n * 40 + 64;
  char *text = malloc(cap);
  size_t o =
      (size_t)snprintf(text, cap, "benchmark,impl,run,block,per_call_us\n");
  for (size_t i = 0; i < n; i++)
    o += (size_t)snprintf(text + o, cap - o, "b%zu,%s,%zu,%zu,1\n", i % 7,
                          i % 2 ? "x" : "y", i % 3, i);
  bs_log *log = bs_log_new();
  bs_error err;
  cr_assert_eq(bs_log_read_buffer(log, "big.csv", text, o, &err), BS_OK, "%s",
               fmt_err(&err));
  cr_assert_eq(bs_log_count(log), n);
  cr_assert_eq(bs_log_case_count(log), 7);
  /* and the same rows again are all duplicates: the first is reported */
  cr_assert_eq(bs_log_read_buffer(log, "again.csv", text, o, &err), BS_EINPUT);
  cr_assert_str_eq(fmt_err(&err),
                   "again.csv:2: duplicate confirm row for benchmark \"b0\", "
                   "dataset \"\", run 0, block 0, impl \"y\" (first at "
                   "big.csv:2)");
  cr_assert_eq(bs_log_count(log), n);
  bs_log_free(log);
  free(text);
}

/* The reader rules out duplicates without an index while each impl's
 * confirm rows of a case come in increasing (run, block) order, as a
 * runner writes them, and switches to per-case tables at the first row
 * that breaks it: the first duplicate is the same either way. */
Test(log, duplicates_are_found_in_and_out_of_order) {
  /* in order until the repeat itself */
  expect_error("benchmark,impl,run,block,per_call_us\n"
               "s,a,0,0,1\ns,b,0,0,1\ns,a,0,1,1\ns,b,0,1,1\n"
               "s,a,1,0,1\ns,a,0,1,2\n",
               BS_EINPUT,
               "pr.csv:7: duplicate confirm row for benchmark \"s\", "
               "dataset \"\", run 0, block 1, impl \"a\" (first at pr.csv:4)");
  /* out of order well before it: blocks 2, 0, 1, then 0 again */
  expect_error("benchmark,impl,block,per_call_us\n"
               "s,a,2,1\ns,a,0,1\ns,a,1,1\nt,a,0,1\ns,b,0,1\ns,a,0,3\n",
               BS_EINPUT,
               "pr.csv:7: duplicate confirm row for benchmark \"s\", "
               "dataset \"\", run 0, block 0, impl \"a\" (first at pr.csv:3)");
  /* a fifth impl in a case, then a repeat of the first row */
  expect_error("benchmark,impl,block,per_call_us\n"
               "s,a,0,1\ns,b,0,1\ns,c,0,1\ns,d,0,1\ns,e,0,1\ns,e,1,1\n"
               "s,a,0,1\n",
               BS_EINPUT,
               "pr.csv:8: duplicate confirm row for benchmark \"s\", "
               "dataset \"\", run 0, block 0, impl \"a\" (first at pr.csv:2)");
  /* out of order and no repeat: all kept */
  bs_log *log = read_ok("benchmark,impl,run,block,per_call_us\n"
                        "s,a,1,0,1\ns,a,0,5,1\ns,a,0,4,1\ns,a,1,1,1\n"
                        "s,b,0,0,1\ns,c,0,0,1\ns,d,0,0,1\ns,e,0,0,1\n");
  cr_assert_eq(bs_log_count(log), 8);
  bs_log_free(log);
}

Test(log, duplicates_span_a_failed_read_that_left_the_order) {
  bs_log *log = bs_log_new();
  bs_error err;
  cr_assert_eq(read_str(log, "a.csv",
                        "benchmark,impl,block,per_call_us\n"
                        "s,a,0,1\ns,a,1,1\ns,b,0,1\n",
                        &err),
               BS_OK);
  /* b.csv goes out of order (block 0 of a again is in b.csv's own rows),
   * then fails: its rows are forgotten */
  cr_assert_eq(read_str(log, "b.csv",
                        "benchmark,impl,block,per_call_us\n"
                        "s,a,5,1\ns,a,3,1\ns,a,4,x\n",
                        &err),
               BS_EINPUT);
  cr_assert_str_eq(fmt_err(&err),
                   "b.csv:4: column per_call_us: \"x\" is not a positive "
                   "number");
  cr_assert_eq(bs_log_count(log), 3);
  /* b.csv's rows are no duplicates now; a.csv's still are */
  cr_assert_eq(read_str(log, "c.csv",
                        "benchmark,impl,block,per_call_us\n"
                        "s,a,5,1\ns,a,3,1\ns,b,1,1\ns,a,1,1\n",
                        &err),
               BS_EINPUT);
  cr_assert_str_eq(
      fmt_err(&err),
      "c.csv:5: duplicate confirm row for benchmark \"s\", "
      "dataset \"\", run 0, block 1, impl \"a\" (first at a.csv:3)");
  cr_assert_eq(bs_log_count(log), 3);
  cr_assert_eq(read_str(log, "d.csv",
                        "benchmark,impl,block,per_call_us\n"
                        "s,a,5,1\ns,a,3,1\ns,b,1,1\n",
                        &err),
               BS_OK, "%s", fmt_err(&err));
  cr_assert_eq(bs_log_count(log), 6);
  cr_assert_eq(bs_log_case(log, 0)->nrows, 6);
  bs_log_free(log);
}

Test(log, duplicates_span_a_failed_read_in_order) {
  bs_log *log = bs_log_new();
  bs_error err;
  cr_assert_eq(read_str(log, "a.csv",
                        "benchmark,impl,block,per_call_us\ns,a,0,1\ns,a,5,1\n",
                        &err),
               BS_OK);
  cr_assert_eq(read_str(log, "b.csv",
                        "benchmark,impl,block,per_call_us\ns,a,9,1\ns,a,8,x\n",
                        &err),
               BS_EINPUT);
  /* the row of b.csv is forgotten, a.csv's block 0 is not */
  cr_assert_eq(read_str(log, "c.csv",
                        "benchmark,impl,block,per_call_us\nt,x,0,1\ns,a,0,1\n",
                        &err),
               BS_EINPUT);
  cr_assert_str_eq(
      fmt_err(&err),
      "c.csv:3: duplicate confirm row for benchmark \"s\", "
      "dataset \"\", run 0, block 0, impl \"a\" (first at a.csv:2)");
  cr_assert_eq(read_str(log, "d.csv",
                        "benchmark,impl,block,per_call_us\ns,a,9,1\ns,a,10,1\n",
                        &err),
               BS_OK, "%s", fmt_err(&err));
  cr_assert_eq(bs_log_count(log), 4);
  bs_log_free(log);
}

/* A row holds run and block in 32 bits; wider ones are kept by the log,
 * and every reader of them (the duplicate check, pairing) sees the whole
 * value. */
Test(log, runs_and_blocks_past_32_bits_read_back_whole) {
  bs_log *log = read_ok("benchmark,impl,run,block,per_call_us\n"
                        "s,a,4294967295,2147483647,1\n"
                        "s,a,4294967296,0,1\n"
                        "s,a,18446744073709551615,2147483648,1\n"
                        "s,a,18446744073709551615,9223372036854775807,1\n"
                        "s,b,0,9223372036854775806,1\n"
                        "s,b,1,0,1\n");
  const bs_row *r = bs_log_rows(log);
  cr_assert_eq(bs_row_run(log, &r[0]), 4294967295u);
  cr_assert_eq(bs_row_block(log, &r[0]), 2147483647);
  cr_assert_eq(bs_row_run(log, &r[1]), 4294967296u);
  cr_assert_eq(bs_row_block(log, &r[1]), 0);
  cr_assert_eq(bs_row_run(log, &r[2]), UINT64_MAX);
  cr_assert_eq(bs_row_block(log, &r[2]), 2147483648);
  cr_assert_eq(bs_row_run(log, &r[3]), UINT64_MAX);
  cr_assert_eq(bs_row_block(log, &r[3]), INT64_MAX);
  cr_assert_eq(bs_row_block(log, &r[4]), INT64_MAX - 1);
  cr_assert_eq(bs_row_run(log, &r[5]), 1);
  cr_assert_eq(bs_row_block(log, &r[5]), 0);
  cr_assert_eq(
      r[0].wide + r[1].wide + r[2].wide + r[3].wide + r[4].wide + r[5].wide, 4);
  bs_log_free(log);
  /* equal only in their low 32 bits: no duplicate */
  log = read_ok("benchmark,impl,run,block,per_call_us\n"
                "s,a,4294967296,0,1\ns,a,0,0,1\ns,a,0,4294967296,1\n");
  cr_assert_eq(bs_log_count(log), 3);
  bs_log_free(log);
  /* equal in full: a duplicate, named with its whole key */
  expect_error("benchmark,impl,run,block,per_call_us\n"
               "s,a,4294967296,5,1\ns,a,4294967297,5,1\n"
               "s,a,4294967296,5,2\n",
               BS_EINPUT,
               "pr.csv:4: duplicate confirm row for benchmark \"s\", "
               "dataset \"\", run 4294967296, block 5, impl \"a\" (first at "
               "pr.csv:2)");
}

Test(log, scale_must_agree_within_a_case) {
  expect_error("benchmark,dataset,scale,impl,block,per_call_us\n"
               "sort,n=1,1024,base,0,1\n"
               "sort,n=2,4096,base,0,1\n"
               "sort,n=1,1024.0,fast,0,1\n"
               "sort,n=1,2048,fast,1,1\n",
               BS_EINPUT,
               "pr.csv:5: column scale: \"2048\" differs from 1024 at "
               "pr.csv:2 (same benchmark and dataset)");
  expect_error("benchmark,dataset,scale,impl,block,per_call_us\n"
               "sort,n=1,0.1,base,0,1\n"
               "sort,n=1,,fast,0,1\n",
               BS_EINPUT,
               "pr.csv:3: column scale: missing, but 0.1 at pr.csv:2 (same "
               "benchmark and dataset)");
  expect_error("benchmark,dataset,scale,impl,block,per_call_us\n"
               "sort,n=1,,base,0,1\n"
               "sort,n=1,8,fast,0,1\n",
               BS_EINPUT,
               "pr.csv:3: column scale: \"8\", but none at pr.csv:2 (same "
               "benchmark and dataset)");
}

Test(log, files_concatenate_and_checks_span_them) {
  bs_log *log = bs_log_new();
  bs_error err;
  cr_assert_eq(read_str(log, "a.csv",
                        "benchmark,dataset,scale,impl,block,per_call_us\n"
                        "sort,n=1,16,base,0,1\n"
                        "sort,n=1,16,fast,0,2\n",
                        &err),
               BS_OK);
  cr_assert_eq(read_str(log, "b.csv",
                        "impl,benchmark,block,per_call_us,dataset,scale\n"
                        "base,sort,1,3,n=1,16\n",
                        &err),
               BS_OK, "%s", fmt_err(&err));
  cr_assert_eq(bs_log_count(log), 3);
  cr_assert_str_eq(bs_log_row_file(log, &bs_log_rows(log)[2]), "b.csv");
  cr_assert_eq(bs_log_rows(log)[2].line, 2);
  cr_assert_eq(bs_log_case_count(log), 1);
  cr_assert_eq(bs_log_case(log, 0)->nrows, 3);

  /* a duplicate of a.csv's row in a third file */
  cr_assert_eq(read_str(log, "c.csv",
                        "benchmark,dataset,scale,impl,block,per_call_us\n"
                        "sort,n=1,16,fast,1,1\n"
                        "sort,n=1,16,fast,0,1\n",
                        &err),
               BS_EINPUT);
  cr_assert_str_eq(fmt_err(&err),
                   "c.csv:3: duplicate confirm row for benchmark \"sort\", "
                   "dataset \"n=1\", run 0, block 0, impl \"fast\" (first at "
                   "a.csv:3)");
  /* a scale conflict with a.csv, from a file without the scale column */
  cr_assert_eq(read_str(log, "d.csv",
                        "benchmark,dataset,impl,block,per_call_us\n"
                        "sort,n=1,fast,7,1\n",
                        &err),
               BS_EINPUT);
  cr_assert_str_eq(fmt_err(&err),
                   "d.csv:2: column scale: missing, but 16 at a.csv:2 (same "
                   "benchmark and dataset)");
  cr_assert_eq(bs_log_count(log), 3);
  cr_assert_eq(bs_log_case(log, 0)->nrows, 3);
  bs_log_free(log);
}

Test(log, failed_read_leaves_the_log_as_it_was) {
  bs_log *log = bs_log_new();
  bs_error err;
  cr_assert_eq(read_str(log, "a.csv",
                        "benchmark,impl,block,per_call_us,note\n"
                        "sort,base,0,1,x\n",
                        &err),
               BS_OK);
  const bs_case *before = bs_log_case(log, 0);
  /* b.csv adds a case, rows and an unknown column, then fails */
  cr_assert_eq(read_str(log, "b.csv",
                        "benchmark,impl,block,per_call_us,extra\n"
                        "sort,fast,0,1,y\n"
                        "zip,base,0,1,y\n"
                        "zip,base,1,-1,y\n",
                        &err),
               BS_EINPUT);
  cr_assert_eq(bs_log_count(log), 1);
  cr_assert_eq(bs_log_case_count(log), 1);
  cr_assert_eq(bs_log_case(log, 0), before);
  cr_assert_eq(before->nrows, 1);
  cr_assert_eq(before->rows[0], 0);
  cr_assert_eq(bs_log_unknown_count(log), 1);
  cr_assert_str_eq(bs_log_unknown(log, 0)->name, "note");
  /* the forgotten rows are not duplicates of anything now */
  cr_assert_eq(read_str(log, "c.csv",
                        "benchmark,impl,block,per_call_us\n"
                        "sort,fast,0,1\n"
                        "zip,base,0,1\n",
                        &err),
               BS_OK, "%s", fmt_err(&err));
  cr_assert_eq(bs_log_count(log), 3);
  cr_assert_eq(bs_log_case_count(log), 2);
  cr_assert_str_eq(bs_log_case(log, 1)->benchmark, "zip");
  cr_assert_eq(err.status, BS_OK);
  bs_log_free(log);
}

Test(log, cases_in_case_order_with_rows_in_read_order) {
  bs_log *log = read_ok("benchmark,dataset,impl,block,per_call_us\n"
                        "b,n=2,x,0,1\n"
                        "\xC3\xA9t\xC3\xA9,,x,0,1\n"
                        "b,n=10,x,0,1\n"
                        "B,z,x,0,1\n"
                        "a,,x,0,1\n"
                        "b,n=2,y,0,1\n"
                        "b,n=2,x,1,1\n");
  /* Natural order: n=2 before n=10 (no case has a scale). */
  static const char *const want[][2] = {{"B", "z"},
                                        {"a", ""},
                                        {"b", "n=2"},
                                        {"b", "n=10"},
                                        {"\xC3\xA9t\xC3\xA9", ""}};
  cr_assert_eq(bs_log_case_count(log), 5);
  for (size_t i = 0; i < 5; i++) {
    const bs_case *c = bs_log_case(log, i);
    cr_assert_str_eq(c->benchmark, want[i][0], "case %zu", i);
    cr_assert_str_eq(c->dataset, want[i][1], "case %zu", i);
  }
  const bs_case *c = bs_log_case(log, 2);
  cr_assert_eq(c->nrows, 3);
  cr_assert_eq(c->rows[0], 0);
  cr_assert_eq(c->rows[1], 5);
  cr_assert_eq(c->rows[2], 6);
  cr_assert_eq(bs_log_case(log, 5), NULL);
  bs_log_free(log);
}

Test(log, case_records_its_scale) {
  bs_log *log = read_ok("benchmark,dataset,scale,impl,block,per_call_us\n"
                        "sort,n=1,64,x,0,1\n"
                        "sort,n=2,,x,0,1\n");
  cr_assert_eq(bs_log_case(log, 0)->has_scale, 1);
  cr_assert_eq(bs_log_case(log, 0)->scale, 64.0);
  cr_assert_eq(bs_log_case(log, 1)->has_scale, 0);
  bs_log_free(log);
}

Test(log, equal_strings_share_a_pointer) {
  bs_log *log = read_ok("benchmark,dataset,impl,block,per_call_us\n"
                        "sort,n,base,0,1\n"
                        "sort,n,base,1,1\n"
                        "sort,m,base,0,1\n");
  const bs_row *r = bs_log_rows(log);
  cr_assert_eq(bs_log_row_case(log, &r[0]), bs_log_row_case(log, &r[1]));
  cr_assert_eq(bs_log_case(log, 0)->benchmark, bs_log_case(log, 1)->benchmark);
  cr_assert_neq(bs_log_case(log, 0)->dataset, bs_log_case(log, 1)->dataset);
  cr_assert_eq(r[0].impl, r[1].impl);
  cr_assert_eq(r[0].impl, r[2].impl);
  cr_assert_eq(bs_log_row_case(log, &r[2]), bs_log_case(log, 0), "m < n");
  bs_log_free(log);
}

Test(log, unknown_columns_are_recorded) {
  bs_log *log = bs_log_new();
  bs_error err;
  cr_assert_eq(read_str(log, "a.csv",
                        "host,benchmark,impl,block,per_call_us,Impl\n"
                        "h,sort,x,0,1,y\n",
                        &err),
               BS_OK);
  cr_assert_eq(read_str(log, "b.csv",
                        "benchmark,impl,block,per_call_us,note\n"
                        "sort,x,1,1,n\n",
                        &err),
               BS_OK);
  cr_assert_eq(bs_log_unknown_count(log), 3);
  const bs_log_column *u = bs_log_unknown(log, 0);
  cr_assert_str_eq(u->file, "a.csv");
  cr_assert_str_eq(u->name, "host");
  cr_assert_eq(u->index, 1);
  u = bs_log_unknown(log, 1);
  cr_assert_str_eq(u->name, "Impl");
  cr_assert_eq(u->index, 6);
  u = bs_log_unknown(log, 2);
  cr_assert_str_eq(u->file, "b.csv");
  cr_assert_str_eq(u->name, "note");
  cr_assert_eq(u->index, 5);
  cr_assert_eq(bs_log_unknown(log, 3), NULL);
  bs_log_free(log);
}

Test(log, field_length_limit) {
  bs_log *log = bs_log_new();
  bs_log_limits lim = {.max_field_bytes = 11}; /* "per_call_us" is 11 bytes */
  bs_log_set_limits(log, &lim);
  bs_error err;
  cr_assert_eq(read_str(log, "pr.csv",
                        "benchmark,impl,block,per_call_us\n"
                        "12345678901,base,0,1\n"
                        "123456789012,base,0,1\n",
                        &err),
               BS_ELIMIT);
  cr_assert_str_eq(fmt_err(&err), "pr.csv:3: field longer than 11 bytes");
  bs_log_free(log);

  /* default 4096, also for a field longer than one chunk of input */
  size_t n = 200000;
  size_t cap = n + 100;
  char *text = malloc(cap);
  size_t o =
      (size_t)snprintf(text, cap, "benchmark,impl,block,per_call_us\nx,\"");
  memset(text + o, 'a', n);
  o += n;
  o += (size_t)snprintf(text + o, cap - o, "\",0,1\n");
  log = bs_log_new();
  cr_assert_eq(bs_log_read_buffer(log, "pr.csv", text, o, &err), BS_ELIMIT);
  cr_assert_str_eq(fmt_err(&err), "pr.csv:2: field longer than 4096 bytes");
  free(text);
  bs_log_free(log);
}

Test(log, column_limit) {
  bs_log *log = bs_log_new();
  bs_log_limits lim = {.max_columns = 4};
  bs_log_set_limits(log, &lim);
  bs_error err;
  cr_assert_eq(
      read_str(log, "pr.csv", "benchmark,impl,block,per_call_us\n", &err),
      BS_OK);
  cr_assert_eq(
      read_str(log, "pr.csv", "benchmark,impl,block,per_call_us,x\n", &err),
      BS_ELIMIT);
  cr_assert_str_eq(fmt_err(&err), "pr.csv:1: more than 4 columns");
  bs_log_free(log);

  char hdr[4096];
  size_t o = (size_t)snprintf(hdr, sizeof hdr, "benchmark,impl,per_call_us");
  for (int i = 0; i < 254; i++)
    o += (size_t)snprintf(hdr + o, sizeof hdr - o, ",c%d", i);
  expect_error(hdr, BS_ELIMIT, "pr.csv:1: more than 256 columns");
}

Test(log, row_limit_counts_all_files) {
  bs_log *log = bs_log_new();
  bs_log_limits lim = {.max_rows = 2};
  bs_log_set_limits(log, &lim);
  bs_error err;
  cr_assert_eq(read_str(log, "a.csv",
                        "benchmark,impl,block,per_call_us\n"
                        "s,x,0,1\ns,x,1,1\n",
                        &err),
               BS_OK);
  cr_assert_eq(read_str(log, "b.csv",
                        "benchmark,impl,block,per_call_us\n"
                        "s,x,2,1\n",
                        &err),
               BS_ELIMIT);
  cr_assert_str_eq(fmt_err(&err), "b.csv:2: more than 2 rows");
  cr_assert_eq(bs_log_count(log), 2);
  bs_log_free(log);
}

Test(log, reads_files_and_names_them_as_given) {
  char *good = ts_data("log/good.csv");
  bs_log *log = bs_log_new();
  bs_error err;
  cr_assert_eq(bs_log_read_file(log, good, &err), BS_OK, "%s", fmt_err(&err));
  cr_assert_eq(bs_log_count(log), 5);
  cr_assert_str_eq(bs_log_row_file(log, &bs_log_rows(log)[4]), good);
  cr_assert_eq(bs_log_rows(log)[4].per_call_us, 1.5);
  cr_assert_eq(bs_log_case(log, 0)->scale, 1024.0);

  char *bad = ts_data("log/bad_value.csv");
  cr_assert_eq(bs_log_read_file(log, bad, &err), BS_EINPUT);
  char want[1024];
  snprintf(want, sizeof want,
           "%s:3: column per_call_us: \"-3\" is not a positive number", bad);
  cr_assert_str_eq(fmt_err(&err), want);
  cr_assert_eq(bs_log_count(log), 5);

  char *missing = ts_data("log/no_such_file.csv");
  cr_assert_eq(bs_log_read_file(log, missing, &err), BS_EIO);
  cr_assert_str_eq(err.path, missing);
  cr_assert_eq(bs_log_count(log), 5);
  free(good);
  free(bad);
  free(missing);
  bs_log_free(log);
}

Test(log, duplicate_across_fixture_files) {
  char *a = ts_data("log/part1.csv");
  char *b = ts_data("log/part2_dup.csv");
  bs_log *log = bs_log_new();
  bs_error err;
  cr_assert_eq(bs_log_read_file(log, a, &err), BS_OK);
  cr_assert_eq(bs_log_read_file(log, b, &err), BS_EINPUT);
  char want[1024];
  snprintf(want, sizeof want,
           "%s:3: duplicate confirm row for benchmark \"sort\", dataset "
           "\"n=8\", run 0, block 0, impl \"fast\" (first at %s:3)",
           b, a);
  cr_assert_str_eq(fmt_err(&err), want);
  cr_assert_eq(bs_log_count(log), 2);
  free(a);
  free(b);
  bs_log_free(log);
}

Test(log, free_null_is_a_no_op) { bs_log_free(NULL); }

/* A log long enough to span several of the reader's pieces and file
 * blocks, mixing plain lines (read in batches) with what batches leave to
 * the line-by-line path: a quoted field holding a line ending, a blank
 * line, CRLF and a lone CR, a quoted name, a name with a blank, non-ASCII
 * names. Every row's line is counted here as the text is built. */
typedef struct mixed_log {
  char *text;
  size_t len, nrows;
  long *lines; /* the expected line of each row */
} mixed_log;

static void mixed_add(mixed_log *m, long *line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void mixed_add(mixed_log *m, long *line, const char *fmt, ...) {
  char row[256];
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(row, sizeof row, fmt, ap);
  va_end(ap);
  cr_assert(k > 0 && (size_t)k < sizeof row);
  memcpy(m->text + m->len, row, (size_t)k);
  m->len += (size_t)k;
  int i = 0;
  for (; row[i] == '\n'; i++) /* blank lines before the row */
    ++*line;
  m->lines[m->nrows++] = *line;
  for (; i < k; i++) /* CRLF, LF and a lone CR end one line */
    if (row[i] == '\n' || (row[i] == '\r' && row[i + 1] != '\n'))
      ++*line;
}

static mixed_log mixed_build(size_t n, size_t bad_at, const char *bad_impl) {
  mixed_log m = {malloc(n * 128 + 256), 0, 0, malloc(n * sizeof(long))};
  cr_assert(m.text && m.lines);
  memcpy(m.text, HDR, strlen(HDR));
  m.len = strlen(HDR);
  long line = 2;
  for (size_t i = 0; i < n; i++) {
    const char *impl = i == bad_at ? bad_impl : i % 2 ? "pr" : "main";
    size_t b = i / 2;
    if (i % 997 == 500) /* a quoted dataset with a line ending inside */
      mixed_add(&m, &line, "q,\"two\nlines\",1,%s,0,%zu,confirm,1,1.5\n", impl,
                b);
    else if (i % 1009 == 700) /* a blank line before the row */
      mixed_add(&m, &line, "\nb,d,1,%s,0,%zu,confirm,1,2.5e-3\n", impl, b);
    else if (i % 1013 == 800)
      mixed_add(&m, &line, "crlf,d,1,%s,0,%zu,confirm,1,3\r\n", impl, b);
    else if (i % 1019 == 900)
      mixed_add(&m, &line, "cr,d,1,%s,0,%zu,confirm,1,3\r", impl, b);
    else if (i % 331 == 5)
      mixed_add(&m, &line, "\"quoted\",d,1,%s,0,%zu,confirm,1,4\n", impl, b);
    else if (i % 337 == 6)
      mixed_add(&m, &line, "with blank,d,1,%s,0,%zu,confirm,1,4\n", impl, b);
    else if (i % 347 == 7)
      mixed_add(&m, &line, "caf\xc3\xa9,d,1,%s,0,%zu,confirm,1,4\n", impl, b);
    else
      mixed_add(&m, &line, "sort_%03zu,n=%zu,%zu,%s,0,%zu,confirm,1,%zu.%zu\n",
                i % 7, i % 7, i % 7 + 1, impl, b, i % 13 + 1, i);
  }
  m.text[m.len] = '\0';
  return m;
}

static void mixed_free(mixed_log *m) {
  free(m->text);
  free(m->lines);
}

Test(log, line_numbers_hold_across_batches_pieces_and_blocks) {
  mixed_log m = mixed_build(20000, (size_t)-1, "");
  cr_assert_gt(m.len, (size_t)3 << 17, "spans several file blocks");
  char *dir = ts_own(ts_tmpdir("mixed"));
  char *path = ts_own(ts_path(dir, "mixed.csv"));
  cr_assert_eq(ts_write(path, m.text), 0);
  for (int how = 0; how < 2; how++) {
    bs_log *log = bs_log_new();
    bs_error err;
    bs_status st;
    if (how == 0)
      st = bs_log_read_buffer(log, "pr.csv", m.text, m.len, &err);
    else /* in blocks, which end inside lines */
      st = bs_log_read_file(log, path, &err);
    cr_assert_eq(st, BS_OK, "%s", fmt_err(&err));
    cr_assert_eq(bs_log_count(log), m.nrows);
    const bs_row *r = bs_log_rows(log);
    for (size_t i = 0; i < m.nrows; i++)
      cr_assert_eq(r[i].line, m.lines[i], "row %zu: line %ld, want %ld", i,
                   (long)r[i].line, m.lines[i]);
    cr_assert_str_eq(bs_log_row_case(log, &r[500])->dataset, "two\nlines");
    cr_assert_str_eq(bs_log_row_case(log, &r[5])->benchmark, "quoted");
    cr_assert_str_eq(bs_log_row_case(log, &r[6])->benchmark, "with blank");
    cr_assert_str_eq(bs_log_row_case(log, &r[7])->benchmark, "caf\xc3\xa9");
    cr_assert_eq(r[700].per_call_us, 2.5e-3);
    bs_log_free(log);
  }
  mixed_free(&m);
}

Test(log, errors_deep_in_a_long_log_name_their_line) {
  /* Invalid UTF-8, a NUL byte and a bad number, each among plain rows
   * far into the log, are found and placed exactly. */
  static const struct {
    const char *impl;
    const char *msg;
  } bad[] = {
      {"x\xff", "column impl: invalid UTF-8 at byte 2 of the field"},
      {"", "column impl: must not be empty"},
  };
  for (size_t t = 0; t < sizeof bad / sizeof bad[0]; t++) {
    mixed_log m = mixed_build(9000, 8123, bad[t].impl);
    bs_log *log = bs_log_new();
    bs_error err;
    cr_assert_eq(bs_log_read_buffer(log, "pr.csv", m.text, m.len, &err),
                 BS_EINPUT);
    char want[256];
    snprintf(want, sizeof want, "pr.csv:%ld: %s", m.lines[8123], bad[t].msg);
    cr_assert_str_eq(fmt_err(&err), want);
    bs_log_free(log);
    mixed_free(&m);
  }
  /* A NUL inside a plain stretch (memcpy: the builder is printf-based). */
  mixed_log m = mixed_build(9000, (size_t)-1, "");
  char *at = strstr(m.text + m.len / 2, "\nsort_");
  cr_assert(at);
  at[3] = '\0';
  long line = 1; /* the line of at + 1: the header's, plus each ending */
  for (const char *p = m.text; p <= at; p++)
    if (*p == '\n' || (*p == '\r' && p[1] != '\n'))
      line++;
  bs_log *log = bs_log_new();
  bs_error err;
  cr_assert_eq(bs_log_read_buffer(log, "pr.csv", m.text, m.len, &err),
               BS_EINPUT);
  char want[256];
  snprintf(want, sizeof want,
           "pr.csv:%ld: column benchmark: contains a NUL byte", line);
  cr_assert_str_eq(fmt_err(&err), want);
  bs_log_free(log);
  mixed_free(&m);
}

/* The reader sends stretches of plain lines to libcsv in one call and
 * looks for the bytes that end such a stretch 64 at a time: a blank, a
 * quote, a CR, a byte >= 0x80, a NUL or an empty line. Each is put at
 * every offset of a 64-byte stretch, deep in a log of plain rows, and the
 * row that holds it, its line and the line of the row after it are
 * checked against what the text was built to say. */
Test(log, special_bytes_at_every_offset_of_a_plain_stretch) {
  static const struct {
    const char *lead, *name, *close, *eol; /* the special row's parts */
    const char *read;                      /* its benchmark as read */
    int blank;                             /* an empty line before it */
  } kinds[] = {
      {"", "a b", "", "\n", "a b", 0},
      {"", "s ", "", "\n", "s ", 0},
      {"", "t\t", "", "\n", "t\t", 0},
      {"", "a\tb", "", "\n", "a\tb", 0},
      {"\"", "q\"\"", "\"", "\n", "q\"", 0},
      {"", "crlf", "", "\r\n", "crlf", 0},
      {"", "cr", "", "\r", "cr", 0},
      {"\n", "blank", "", "\n", "blank", 1},
      {"\r\n", "crlfblank", "", "\r\n", "crlfblank", 1},
      {"", "caf\xc3\xa9", "", "\n", "caf\xc3\xa9", 0},
  };
  static const char pad[] = "pppppppppppppppppppppppppppppppppppppppppppppppp"
                            "pppppppppppppppppppppp";
  const size_t special = 150, nrows = 300;
  char *text = malloc(1 << 16);
  cr_assert(text);
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
    for (size_t shift = 0; shift < 64; shift++) {
      const char *p = pad + sizeof pad - 1 - shift; /* shift bytes */
      size_t len = (size_t)sprintf(text, "%s", HDR), plain_at = 0, name_at = 0;
      for (size_t i = 0; i < nrows; i++)
        if (i == special + 50) {
          plain_at = len;
          len += (size_t)sprintf(text + len,
                                 "%ssort,d,1,main,0,%zu,confirm,1,2\n", p, i);
        } else if (i == special) {
          name_at = len + strlen(kinds[k].lead);
          len += (size_t)sprintf(
              text + len, "%s%s%s%s,d,1,main,0,%zu,confirm,1,2%s",
              kinds[k].lead, p, kinds[k].name, kinds[k].close, i, kinds[k].eol);
        } else
          len += (size_t)sprintf(text + len,
                                 "sort,d,1,main,0,%zu,confirm,1,2\n", i);
      bs_log *log = bs_log_new();
      bs_error err;
      bs_status st = bs_log_read_buffer(log, "pr.csv", text, len, &err);
      cr_assert_eq(st, BS_OK, "kind %zu shift %zu: %s", k, shift,
                   fmt_err(&err));
      cr_assert_eq(bs_log_count(log), nrows);
      const bs_row *r = bs_log_rows(log);
      char want[128];
      snprintf(want, sizeof want, "%s%s", p, kinds[k].read);
      cr_assert_str_eq(bs_log_row_case(log, &r[special])->benchmark, want,
                       "kind %zu shift %zu", k, shift);
      /* Row i starts on line i + 2 (the header is line 1), one later from
       * the empty line on. */
      long at = (long)special + 2 + kinds[k].blank;
      cr_assert_eq(r[special].line, at, "kind %zu shift %zu", k, shift);
      cr_assert_eq(r[special + 1].line, at + 1, "kind %zu shift %zu", k, shift);
      cr_assert_eq(r[nrows - 1].line, (long)nrows + 1 + kinds[k].blank);
      bs_log_free(log);

      /* A NUL there instead is refused, on its line and column. */
      char was = text[name_at];
      text[name_at] = '\0';
      log = bs_log_new();
      cr_assert_eq(bs_log_read_buffer(log, "pr.csv", text, len, &err),
                   BS_EINPUT, "kind %zu shift %zu", k, shift);
      char msg[128];
      snprintf(msg, sizeof msg,
               "pr.csv:%ld: column benchmark: contains a NUL byte", at);
      cr_assert_str_eq(fmt_err(&err), msg, "kind %zu shift %zu", k, shift);
      bs_log_free(log);
      if (k > 0)
        continue;

      /* In a plain row, a NUL and a byte that is not UTF-8 are refused. */
      long plain_line = (long)special + 50 + 2;
      for (int bad = 0; bad < 2; bad++) {
        text[name_at] = was; /* mended */
        text[plain_at + shift] = bad ? '\xff' : '\0';
        log = bs_log_new();
        cr_assert_eq(bs_log_read_buffer(log, "pr.csv", text, len, &err),
                     BS_EINPUT, "shift %zu", shift);
        if (bad)
          snprintf(msg, sizeof msg,
                   "pr.csv:%ld: column benchmark: invalid UTF-8 at byte %zu "
                   "of the field",
                   plain_line, shift + 1);
        else
          snprintf(msg, sizeof msg,
                   "pr.csv:%ld: column benchmark: contains a NUL byte",
                   plain_line);
        cr_assert_str_eq(fmt_err(&err), msg, "shift %zu", shift);
        bs_log_free(log);
      }
    }
  free(text);
}

/* A blank or a byte to check, then a quote soon after in the same 64 bytes:
 * the lines before the quote still go as one batch, which must keep the
 * blank and check the byte. At every offset. */
Test(log, a_blank_or_odd_byte_just_before_a_quote_is_seen) {
  static const char pad[] = "pppppppppppppppppppppppppppppppppppppppppppppppp"
                            "pppppppppppppppppppppp";
  char *text = malloc(1 << 16);
  cr_assert(text);
  for (int odd = 0; odd < 2; odd++)
    for (size_t shift = 0; shift < 64; shift++) {
      const char *p = pad + sizeof pad - 1 - shift;
      size_t len = (size_t)sprintf(text, "%s", HDR);
      for (size_t i = 0; i < 300; i++)
        if (i == 150)
          len +=
              (size_t)sprintf(text + len, "%st%s,d,1,main,0,%zu,confirm,1,2\n",
                              p, odd ? "\xff" : " ", i);
        else if (i == 151)
          len += (size_t)sprintf(text + len,
                                 "\"q\",d,1,main,0,%zu,confirm,1,2\n", i);
        else
          len += (size_t)sprintf(text + len,
                                 "sort,d,1,main,0,%zu,confirm,1,2\n", i);
      bs_log *log = bs_log_new();
      bs_error err;
      bs_status st = bs_log_read_buffer(log, "pr.csv", text, len, &err);
      if (odd) {
        cr_assert_eq(st, BS_EINPUT, "shift %zu", shift);
        char msg[128];
        snprintf(msg, sizeof msg,
                 "pr.csv:152: column benchmark: invalid UTF-8 at byte %zu of "
                 "the field",
                 shift + 2);
        cr_assert_str_eq(fmt_err(&err), msg, "shift %zu", shift);
      } else {
        cr_assert_eq(st, BS_OK, "shift %zu: %s", shift, fmt_err(&err));
        char want[128];
        snprintf(want, sizeof want, "%st ", p);
        const bs_row *r = bs_log_rows(log);
        cr_assert_str_eq(bs_log_row_case(log, &r[150])->benchmark, want,
                         "shift %zu", shift);
        cr_assert_str_eq(bs_log_row_case(log, &r[151])->benchmark, "q");
      }
      bs_log_free(log);
    }
  free(text);
}

/* The `look` column of an adaptive run: each case's looks are 1 + its
 * largest look, a row's look is kept, and a log without the column has
 * none (a single look). */
Test(log, looks_are_counted_per_case) {
  bs_log *log = bs_log_new();
  bs_error err;
  cr_assert_eq(read_str(log, "a.csv",
                        "benchmark,impl,run,block,look,per_call_us\n"
                        "a,x,0,0,0,1\n"
                        "a,y,0,0,0,1\n"
                        "b,x,0,0,0,1\n"
                        "b,y,0,0,0,1\n"
                        "b,x,1,0,2,1\n"
                        "b,y,1,0,2,1\n"
                        "c,x,0,0,,1\n",
                        &err),
               BS_OK, "%s", err.message);
  cr_assert_eq(bs_log_case_count(log), 3);
  cr_assert_eq(bs_log_case(log, 0)->looks, 1);
  cr_assert_eq(bs_log_case(log, 1)->looks, 3);
  cr_assert_eq(bs_log_case(log, 2)->looks, 0);
  const bs_row *rows = bs_log_rows(log);
  cr_assert_eq(bs_row_look(&rows[0]), 0);
  cr_assert_eq(bs_row_look(&rows[4]), 2);
  cr_assert_eq(bs_row_look(&rows[6]), -1);
  cr_assert_eq(bs_log_unknown_count(log), 0);
  bs_log_free(log);

  log = bs_log_new();
  cr_assert_eq(read_str(log, "b.csv",
                        "benchmark,impl,block,per_call_us\na,x,0,1\n", &err),
               BS_OK);
  cr_assert_eq(bs_log_case(log, 0)->looks, 0);
  bs_log_free(log);
}

Test(log, a_look_past_three_is_refused) {
  expect_error("benchmark,impl,block,look,per_call_us\na,x,0,4,1\n", BS_EINPUT,
               "pr.csv:2: column look: \"4\" is not a look (0 to 3)");
  expect_error("benchmark,impl,block,look,per_call_us\na,x,0,-1,1\n", BS_EINPUT,
               "pr.csv:2: column look: \"-1\" is not a look (0 to 3)");
}
