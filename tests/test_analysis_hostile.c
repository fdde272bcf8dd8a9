/* The analysis compare and report share, against hostile input: many
 * large manifests side by side, and medians whose delta overflows. Each
 * test failed before its fix (the note above it says how). */
#include "hostile.h"
#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

TestSuite(analysis_hostile, .fini = ts_free_owned);

/* Before: each environment key was compared with every key listed so far
 * (quadratic). The timeout is far above the linear time (well under a
 * second) and far below the quadratic one. */

Test(analysis_hostile, environment_table_of_20_manifests_of_10000_keys,
     .timeout = 60) {
  char *dir = ts_own(ts_tmpdir("env_table"));
  const char *args[80];
  size_t na = 0;
  args[na++] = "report";
  args[na++] = write_log(dir, "log.csv", "sort", 100, 100);
  for (int m = 0; m < 20; m++) {
    char *p = ts_pathf("%s/m%d.csv", dir, m);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fputs("key,value\ntarget,native\nprofile,release\ndtype,f64\n"
          "machine,box\nfrequency_policy,performance\nprotocol,Development\n",
          f);
    for (int i = 0; i < 9990; i++)
      fprintf(f, "k%d_%d,v\n", m, i);
    cr_assert_eq(fclose(f), 0);
    args[na++] = "--manifest";
    args[na++] = p;
  }
  const char *rest[] = {"--baseline", "base",  "--candidate",
                        "head",       "--out", ts_pathf("%s/out", dir),
                        NULL};
  for (size_t i = 0; rest[i]; i++)
    args[na++] = rest[i];
  args[na] = NULL;
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 0, "report: exit %d: %s", r.status, r.err);
  ts_run_free(&r);
}

/* Before: medians 1e-300 and 1.7e308 gave a delta that overflowed, which
 * `compare` reported as a significant regression with "delta_pct": null.
 * Now it is bad input naming the case, and no JSON is written. */
Test(analysis_hostile, an_overflowing_delta_is_bad_input_not_a_regression) {
  char *dir = ts_own(ts_tmpdir("delta_null"));
  char *log =
      edge_log(dir, "edge.csv", 1e-300, 1e-300, 1.7976931348623157e308, 1e304);
  char *env = write_env(dir, "env.csv", "abc1234", "2026-11-30T10:56:21Z");
  char *json = ts_pathf("%s/out.json", dir);
  const char *args[] = {"compare",    log,    "--manifest",  env,
                        "--baseline", "base", "--candidate", "head",
                        "--json",     json,   NULL};
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 2, "compare: exit %d: %s", r.status, r.err);
  cr_expect(strstr(r.err, "sort"), "%s", r.err);
  cr_expect(!strstr(r.out, "significant"), "%s", r.out);
  cr_expect(!ts_exists(json), "a JSON was written");
  ts_run_free(&r);
}
