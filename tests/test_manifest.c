#include "benchsite/manifest.h"

#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char errtext[2048];

static const char *fmt_err(const bs_error *e) {
  bs_error_format(e, errtext, sizeof errtext);
  return errtext;
}

static bs_status read_str(bs_manifest *m, const char *text, bs_error *err) {
  return bs_manifest_read_buffer(m, "m.csv", text, strlen(text), err);
}

static void expect_error(const char *text, const char *msg) {
  bs_manifest *m = bs_manifest_new();
  bs_error err;
  cr_assert_eq(read_str(m, text, &err), BS_EINPUT, "for: %s", text);
  cr_assert_str_eq(fmt_err(&err), msg);
  cr_assert_eq(bs_manifest_count(m), 0);
  cr_assert_str_eq(bs_manifest_path(m), "");
  bs_manifest_free(m);
}

static bs_manifest *read_ok(const char *name, const char *text) {
  bs_manifest *m = bs_manifest_new();
  bs_error err;
  bs_status st = bs_manifest_read_buffer(m, name, text, strlen(text), &err);
  cr_assert_eq(st, BS_OK, "%s", fmt_err(&err));
  return m;
}

Test(manifest, reads_entries_in_file_order) {
  bs_manifest *m = read_ok("env.csv", "key,value\n"
                                      "target,native\n"
                                      "note,\"a, b\nc\"\n"
                                      "empty,\n");
  cr_assert_str_eq(bs_manifest_path(m), "env.csv");
  cr_assert_eq(bs_manifest_count(m), 3);
  cr_assert_str_eq(bs_manifest_key(m, 0), "target");
  cr_assert_str_eq(bs_manifest_value(m, 0), "native");
  cr_assert_str_eq(bs_manifest_key(m, 1), "note");
  cr_assert_str_eq(bs_manifest_value(m, 1), "a, b\nc");
  cr_assert_str_eq(bs_manifest_value(m, 2), "");
  cr_assert_str_eq(bs_manifest_get(m, "note"), "a, b\nc");
  cr_assert_eq(bs_manifest_get(m, "absent"), NULL);
  cr_assert_eq(bs_manifest_get(NULL, "target"), NULL);
  cr_assert_eq(bs_manifest_key(m, 3), NULL);
  bs_manifest_free(m);
}

Test(manifest, new_manifest_is_empty) {
  bs_manifest *m = bs_manifest_new();
  cr_assert_eq(bs_manifest_count(m), 0);
  cr_assert_str_eq(bs_manifest_path(m), "");
  cr_assert_eq(bs_manifest_get(m, "target"), NULL);
  bs_manifest_free(m);
  bs_manifest_free(NULL);
}

Test(manifest, bom_and_crlf_are_accepted) {
  bs_manifest *m = read_ok("env.csv", "\xEF\xBB\xBFkey,value\r\n"
                                      "target,native\r\n"
                                      "\r\n"
                                      "dtype,f64\r\n");
  cr_assert_eq(bs_manifest_count(m), 2);
  cr_assert_str_eq(bs_manifest_get(m, "dtype"), "f64");
  bs_manifest_free(m);
  expect_error("\xEF\xBB\xBFkey,value\r\n"
               "target,native\r\n"
               "\r\n"
               "target,wasm32\r\n",
               "m.csv:4: duplicate key \"target\" (first at line 2)");
}

Test(manifest, header_must_be_key_value) {
  expect_error("name,value\ntarget,native\n",
               "m.csv:1: header must be \"key,value\"");
  expect_error("key,value,x\n", "m.csv:1: header must be \"key,value\"");
  expect_error("key\n", "m.csv:1: header must be \"key,value\"");
  expect_error("Key,Value\n", "m.csv:1: header must be \"key,value\"");
  expect_error("", "m.csv:1: header must be \"key,value\"");
}

Test(manifest, rows_must_have_two_fields) {
  expect_error("key,value\ntarget,native\nprofile,release,x\n",
               "m.csv:3: expected 2 fields, found 3");
  expect_error("key,value\n\"multi\nline\",v\nprofile\n",
               "m.csv:4: expected 2 fields, found 1");
}

Test(manifest, key_must_not_be_empty) {
  expect_error("key,value\n,native\n", "m.csv:2: column key: must not be "
                                       "empty");
}

Test(manifest, duplicate_key_names_the_first_line) {
  expect_error("key,value\n"
               "target,native\n"
               "profile,release\n"
               "target,wasm32\n",
               "m.csv:4: duplicate key \"target\" (first at line 2)");
}

Test(manifest, malformed_and_bad_bytes_are_errors) {
  expect_error("key,value\ntarget,nat\"ive\n",
               "m.csv:2: malformed CSV: quote inside an unquoted field (byte "
               "11 of the line)");
  expect_error("key,value\ntarget,\"native\n",
               "m.csv:2: malformed CSV: quoted field not closed at end of "
               "file");
  expect_error("key,value\ntarget,nat\xFFive\n",
               "m.csv:2: column value: invalid UTF-8 at byte 4 of the field");
  static const char nul[] = "key,value\nta\0rget,x\n";
  bs_manifest *m = bs_manifest_new();
  bs_error err;
  cr_assert_eq(bs_manifest_read_buffer(m, "m.csv", nul, sizeof nul - 1, &err),
               BS_EINPUT);
  cr_assert_str_eq(fmt_err(&err), "m.csv:2: column key: contains a NUL byte");
  bs_manifest_free(m);
}

Test(manifest, error_leaves_the_manifest_empty) {
  bs_manifest *m = read_ok("good.csv", "key,value\ntarget,native\n");
  cr_assert_eq(bs_manifest_count(m), 1);
  bs_error err;
  cr_assert_eq(read_str(m, "key,value\na,1\na,2\n", &err), BS_EINPUT);
  cr_assert_eq(bs_manifest_count(m), 0);
  cr_assert_eq(bs_manifest_get(m, "target"), NULL);
  cr_assert_str_eq(bs_manifest_path(m), "");
  bs_manifest_free(m);
}

Test(manifest, reread_replaces_the_contents) {
  bs_manifest *m = read_ok("one.csv", "key,value\ntarget,native\n");
  bs_error err;
  const char *two = "key,value\ndtype,f32\n";
  cr_assert_eq(bs_manifest_read_buffer(m, "two.csv", two, strlen(two), &err),
               BS_OK);
  cr_assert_eq(bs_manifest_count(m), 1);
  cr_assert_eq(bs_manifest_get(m, "target"), NULL);
  cr_assert_str_eq(bs_manifest_get(m, "dtype"), "f32");
  cr_assert_str_eq(bs_manifest_path(m), "two.csv");
  bs_manifest_free(m);
}

Test(manifest, many_keys_are_found) {
  size_t n = 5000;
  size_t cap = n * 32 + 32;
  char *text = malloc(cap);
  size_t o = (size_t)snprintf(text, cap, "key,value\n");
  for (size_t i = 0; i < n; i++)
    o += (size_t)snprintf(text + o, cap - o, "k%zu,v%zu\n", i, i * 3);
  bs_manifest *m = read_ok("big.csv", text);
  cr_assert_eq(bs_manifest_count(m), n);
  cr_assert_str_eq(bs_manifest_get(m, "k4321"), "v12963");
  bs_manifest_free(m);
  o += (size_t)snprintf(text + o, cap - o, "k17,again\n");
  expect_error(text, "m.csv:5002: duplicate key \"k17\" (first at line 19)");
  free(text);
}

/* SPEC §1.2's six keys, and the runner's duet (§6: duet and sequential
 * runs are not comparable). */
Test(manifest, comparability_keys_follow_the_spec) {
  static const char *const want[] = {"target",  "profile",          "dtype",
                                     "machine", "frequency_policy", "protocol",
                                     "duet"};
  cr_assert_eq(BS_MANIFEST_NCOMPARABILITY, sizeof want / sizeof want[0]);
  for (size_t i = 0; i < BS_MANIFEST_NCOMPARABILITY; i++)
    cr_assert_str_eq(bs_manifest_comparability_keys[i], want[i]);
}

Test(manifest, comparable_when_all_keys_present_and_equal) {
  char *path = ts_data("manifest/native.csv");
  bs_manifest *a = bs_manifest_new(), *b = bs_manifest_new();
  bs_error err;
  cr_assert_eq(bs_manifest_read_file(a, path, &err), BS_OK, "%s",
               fmt_err(&err));
  cr_assert_str_eq(bs_manifest_path(a), path);
  cr_assert_eq(bs_manifest_count(a), 7);
  const char *text = "key,value\nprotocol,RegressionGate\nfrequency_policy,"
                     "performance\nmachine,ci-runner-7\ndtype,f64\nprofile,"
                     "release\ntarget,native\ncommit,def456\n";
  cr_assert_eq(bs_manifest_read_buffer(b, "b.csv", text, strlen(text), &err),
               BS_OK, "%s", fmt_err(&err));
  const char *diff[BS_MANIFEST_NCOMPARABILITY] = {0};
  size_t nd = 99;
  cr_assert_eq(bs_manifest_comparable(a, b, diff, &nd), 1);
  cr_assert_eq(nd, 0);
  cr_assert_eq(diff[0], NULL);
  cr_assert_eq(bs_manifest_comparable(a, b, NULL, NULL), 1);
  free(path);
  bs_manifest_free(a);
  bs_manifest_free(b);
}

Test(manifest, differing_and_missing_keys_are_listed_in_order) {
  bs_manifest *a = read_ok("a.csv", "key,value\ntarget,native\nprofile,"
                                    "release\ndtype,f64\nmachine,m1\n"
                                    "frequency_policy,performance\n"
                                    "protocol,Development\n");
  bs_manifest *b = read_ok("b.csv", "key,value\ntarget,native\nprofile,"
                                    "debug\ndtype,f64\n"
                                    "frequency_policy,performance\n"
                                    "protocol,Development\n");
  const char *diff[BS_MANIFEST_NCOMPARABILITY];
  size_t nd = 0;
  cr_assert_eq(bs_manifest_comparable(a, b, diff, &nd), 0);
  cr_assert_eq(nd, 2);
  cr_assert_str_eq(diff[0], "profile");
  cr_assert_str_eq(diff[1], "machine");
  /* SPEC §1.2: a key absent from both counts as equal (reports name it),
   * a key present in one only as different. (Main at eb6f279 held every
   * missing key against comparability, so a project without dtype could
   * never compare two runs.) */
  bs_manifest *c = read_ok("c.csv", "key,value\ntarget,native\n");
  cr_assert_eq(bs_manifest_comparable(c, c, diff, &nd), 1);
  cr_assert_eq(nd, 0);
  cr_assert_eq(bs_manifest_comparable(c, a, diff, &nd), 0);
  cr_assert_eq(nd, 5);
  cr_assert_str_eq(diff[0], "profile");
  cr_assert_str_eq(diff[4], "protocol");
  cr_assert_eq(bs_manifest_comparable(NULL, a, diff, &nd), 0);
  cr_assert_eq(nd, 6);
  cr_assert_str_eq(diff[0], "target");
  const char *unrec[BS_MANIFEST_NCOMPARABILITY];
  const bs_manifest *both[] = {c, c};
  cr_assert_eq(bs_manifest_unrecorded(both, 2, unrec), 5);
  cr_assert_str_eq(unrec[0], "profile");
  cr_assert_str_eq(unrec[4], "protocol");
  bs_manifest_free(a);
  bs_manifest_free(b);
  bs_manifest_free(c);
}

Test(manifest, require_native_refuses_other_targets) {
  char *path = ts_data("manifest/wasm.csv");
  bs_manifest *m = bs_manifest_new();
  bs_error err;
  cr_assert_eq(bs_manifest_read_file(m, path, &err), BS_OK);
  cr_assert_eq(bs_manifest_require_native(m, &err), BS_EINPUT);
  char want[1024];
  snprintf(want, sizeof want,
           "%s: target is \"wasm32\", not native; benchsite makes performance "
           "claims only for native builds",
           path);
  cr_assert_str_eq(fmt_err(&err), want);
  cr_assert_eq(bs_manifest_require_native(m, NULL), BS_EINPUT);
  free(path);

  bs_manifest *n = read_ok("n.csv", "key,value\ntarget,native\n");
  cr_assert_eq(bs_manifest_require_native(n, &err), BS_OK);
  bs_manifest *none = read_ok("none.csv", "key,value\nprofile,release\n");
  cr_assert_eq(bs_manifest_require_native(none, &err), BS_OK);
  cr_assert_eq(bs_manifest_require_native(NULL, &err), BS_OK);
  bs_manifest *odd = read_ok("odd.csv", "key,value\ntarget,\"a\tb\"\n");
  cr_assert_eq(bs_manifest_require_native(odd, &err), BS_EINPUT);
  cr_assert_str_eq(fmt_err(&err),
                   "odd.csv: target is \"a\\tb\", not native; benchsite "
                   "makes performance claims only for native builds");
  bs_manifest_free(m);
  bs_manifest_free(n);
  bs_manifest_free(none);
  bs_manifest_free(odd);
}

Test(manifest, read_file_errors) {
  char *dup = ts_data("manifest/dup_key.csv");
  bs_manifest *m = bs_manifest_new();
  bs_error err;
  cr_assert_eq(bs_manifest_read_file(m, dup, &err), BS_EINPUT);
  char want[1024];
  snprintf(want, sizeof want,
           "%s:4: duplicate key \"target\" (first at line 2)", dup);
  cr_assert_str_eq(fmt_err(&err), want);
  char *missing = ts_data("manifest/no_such.csv");
  cr_assert_eq(bs_manifest_read_file(m, missing, &err), BS_EIO);
  cr_assert_eq(bs_manifest_count(m), 0);
  free(dup);
  free(missing);
  bs_manifest_free(m);
}

/* Before: `manifest --set date=x` wrote a manifest the archive refuses
 * (or orders wrongly): a date that is not an ISO 8601 UTC date. */
Test(manifest, set_date_must_be_an_iso_8601_utc_date, .timeout = 60) {
  const char *bad[] = {"x",
                       "2026-13-01",
                       "2026-02-30",
                       "2026-11-30T10:56:21",
                       "2026-11-30T10:56:21+01:00",
                       "30.11.2026"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char *set = ts_pathf("date=%s", bad[i]);
    const char *args[] = {"manifest", "--set", set, NULL};
    ts_run r = ts_cli(NULL, args);
    cr_expect_eq(r.status, 2, "%s: exit %d", bad[i], r.status);
    cr_expect(strstr(r.err, "key date:") &&
                  strstr(r.err, "is not an ISO 8601 UTC date"),
              "%s: %s", bad[i], r.err);
    cr_expect_str_empty(r.out, "%s: wrote %s", bad[i], r.out);
    ts_run_free(&r);
  }
  const char *good[] = {"2026-11-30T10:56:21Z", "2026-11-30",
                        "2026-11-30T10:56:21.25+00:00"};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    char *set = ts_pathf("date=%s", good[i]);
    const char *args[] = {"manifest", "--set", set, NULL};
    ts_run r = ts_cli(NULL, args);
    cr_expect_eq(r.status, 0, "%s: exit %d: %s", good[i], r.status, r.err);
    cr_expect(strstr(r.out, good[i]), "%s", r.out);
    ts_run_free(&r);
  }
}

/* The runner records duet,1 in duet mode; duet and sequential runs are not
 * comparable, and a run that does not record it ran sequentially. */
Test(manifest, duet_takes_part_in_comparability) {
  const char *base = "key,value\ntarget,native\nprofile,release\ndtype,f64\n"
                     "machine,m1\nfrequency_policy,performance\n"
                     "protocol,Development\n";
  char duet[512], zero[512];
  snprintf(duet, sizeof duet, "%sduet,1\n", base);
  snprintf(zero, sizeof zero, "%sduet,0\n", base);
  bs_manifest *seq = read_ok("seq.csv", base);
  bs_manifest *d1 = read_ok("duet.csv", duet);
  bs_manifest *d0 = read_ok("zero.csv", zero);
  const char *diff[BS_MANIFEST_NCOMPARABILITY];
  size_t nd = 0;
  cr_assert_eq(bs_manifest_comparable(seq, d1, diff, &nd), 0);
  cr_assert_eq(nd, 1);
  cr_assert_str_eq(diff[0], "duet");
  cr_assert_eq(bs_manifest_comparable(d1, d1, NULL, NULL), 1);
  cr_assert_eq(bs_manifest_comparable(seq, d0, NULL, NULL), 1,
               "absent means sequential");
  cr_assert_str_eq(bs_manifest_comparability_value(seq, "duet"), "0");
  cr_assert_null(bs_manifest_comparability_value(seq, "commit"));
  const char *unrec[BS_MANIFEST_NCOMPARABILITY];
  const bs_manifest *one[] = {seq};
  cr_assert_eq(bs_manifest_unrecorded(one, 1, unrec), 0,
               "duet has a default: never unrecorded");
  bs_manifest_free(seq);
  bs_manifest_free(d1);
  bs_manifest_free(d0);
}
