/* Start-up (src/views/xmlload.c): a command that draws no chart never loads
 * libxml2 (nor ICU and the rest behind it); the first chart checked loads
 * it, and when it cannot be loaded the command says so and exits 3. Nor
 * does a command that calls no transcendental function map libm
 * (src/base/lmath.c): --help, compare and check. What
 * the dynamic loader maps is read from its own account (LD_DEBUG=files,
 * one file per process), so a library pulled in by anything else, or a
 * measuring process of `run`, is seen too. */
#include "support.h"
#include "xmlload.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <gnu/lib-names.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

TestSuite(startup, .fini = ts_free_owned);

/* A sanitizer's runtime (ASan's needs libm) maps libm before benchsite
 * runs: what the program itself needs cannot be told there. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

#define EXAMPLES BENCHSITE_SOURCE_DIR "/examples/"

typedef struct ld_account {
  int processes; /* LD_DEBUG files that name benchsite as loading something */
  int xml;       /* ... of which mention libxml2's soname */
  int libm;      /* ... of which mention libm's */
} ld_account;

/* Whether an LD_DEBUG=files account is benchsite's: "file=libm.so.6 [0];
 * needed by /.../benchsite [0]" (its measuring processes go by
 * "benchsite-measure"; /bin/true run by `run --cmd` by its own name). */
static int is_benchsite(const char *text) {
  static const char key[] = "needed by ";
  for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) {
    const char *name = p + sizeof key - 1, *end = strchr(name, ' ');
    if (!end)
      break;
    const char *base = name;
    for (const char *q = name; q < end; q++)
      if (*q == '/')
        base = q + 1;
    if (!strncmp(base, "benchsite", 9))
      return 1;
  }
  return 0;
}

/* Runs benchsite with args under LD_DEBUG=files, one account per process
 * in a fresh directory, and counts the processes that were benchsite and
 * those that loaded libxml2. The exit status goes to *status. */
static ld_account ld_files(const char *tag, const char *const *args,
                           int *status) {
  char *dir = ts_own(ts_tmpdir(tag));
  char *prefix = ts_own(ts_path(dir, "ld"));
  setenv("LD_DEBUG", "files", 1);
  setenv("LD_DEBUG_OUTPUT", prefix, 1);
  ts_run r = ts_cli(NULL, args);
  unsetenv("LD_DEBUG");
  unsetenv("LD_DEBUG_OUTPUT");
  *status = r.status;
  ts_run_free(&r);
  ld_account a = {0, 0, 0};
  DIR *d = opendir(dir);
  cr_assert_not_null(d);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strncmp(e->d_name, "ld.", 3))
      continue;
    char *path = ts_path(dir, e->d_name);
    char *text = ts_read(path, NULL);
    free(path);
    cr_assert_not_null(text);
    if (is_benchsite(text)) {
      a.processes++;
      if (strstr(text, bs__xml_soname()))
        a.xml++;
      if (strstr(text, "file=" LIBM_SO))
        a.libm++;
    }
    free(text);
  }
  closedir(d);
  return a;
}

Test(startup, commands_without_charts_never_map_libxml2) {
  char *out = ts_own(ts_tmpdir("startup-nochart"));
  char *log = ts_own(ts_path(out, "run.csv"));
  char *json = ts_own(ts_path(out, "c.json"));
  const char *help[] = {"--help", NULL};
  const char *compare[] = {"compare",    EXAMPLES "pr.csv",
                           "--manifest", EXAMPLES "env.csv",
                           "--json",     json,
                           NULL};
  const char *check[] = {"check", EXAMPLES "pr.csv", "--manifest",
                         EXAMPLES "env.csv", NULL};
  /* Every block in a new measuring process (benchsite started again). */
  const char *run[] = {"run",     "--cmd", "t=/bin/true", "--blocks", "2",
                       "--fresh", "block", "--out",       log,        NULL};
  struct {
    const char *name;
    const char *const *args;
    int status, min_processes;
  } c[] = {{"help", help, 0, 1},
           {"compare", compare, 1, 1},
           {"check", check, 0, 1},
           {"run", run, 0, 3}};
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    int status;
    ld_account a = ld_files(c[i].name, c[i].args, &status);
    cr_expect_eq(status, c[i].status, "%s: exit %d", c[i].name, status);
    cr_expect_geq(a.processes, c[i].min_processes, "%s: %d processes seen",
                  c[i].name, a.processes);
    cr_expect_eq(a.xml, 0, "%s: %d of %d processes loaded %s", c[i].name, a.xml,
                 a.processes, bs__xml_soname());
    if (!SANITIZED)
      cr_expect_eq(a.libm, 0, "%s: %d of %d processes loaded %s", c[i].name,
                   a.libm, a.processes, LIBM_SO);
  }
}

/* The other side for libm: noise tests every series for drift (erfc), so
 * it opens libm, once, and the account shows it. */
Test(startup, noise_opens_libm_for_its_drift_tests, .disabled = SANITIZED) {
  const char *args[] = {"noise",       EXAMPLES "aa.csv",
                        "--manifest",  EXAMPLES "aa-env.csv",
                        "--resamples", "100",
                        NULL};
  int status;
  ld_account a = ld_files("noise", args, &status);
  cr_expect_eq(status, 0);
  cr_expect_eq(a.processes, 1);
  cr_expect_eq(a.libm, 1, "noise did not load %s", LIBM_SO);
}

/* Without libm the command that needs it ends as the dynamic loader ends
 * a program whose library is missing: the reason, and status 127. A
 * directory first in the loader's path holds a file of libm's soname that
 * is no library; compare, which needs none of libm, goes on. */
Test(startup, without_libm_noise_ends_with_127_and_compare_works,
     .disabled = SANITIZED) {
  char *out = ts_own(ts_tmpdir("startup-nolibm"));
  char *libdir = ts_own(ts_path(out, "lib"));
  cr_assert_eq(mkdir(libdir, 0755), 0);
  char *stub = ts_own(ts_path(libdir, LIBM_SO));
  cr_assert_eq(ts_write(stub, "not a shared object\n"), 0);
  const char *noise[] = {"noise",       EXAMPLES "aa.csv",
                         "--manifest",  EXAMPLES "aa-env.csv",
                         "--resamples", "100",
                         NULL};
  const char *compare[] = {"compare", EXAMPLES "pr.csv", "--manifest",
                           EXAMPLES "env.csv", NULL};
  setenv("LD_LIBRARY_PATH", libdir, 1);
  ts_run n = ts_cli(NULL, noise);
  ts_run c = ts_cli(NULL, compare);
  unsetenv("LD_LIBRARY_PATH");
  cr_expect_eq(n.status, 127, "exit %d: %s", n.status, n.err);
  cr_expect_not_null(strstr(n.err, "benchsite: cannot load " LIBM_SO ": "),
                     "%s", n.err);
  cr_expect_eq(c.status, 1, "compare: exit %d: %s", c.status, c.err);
  ts_run_free(&n);
  ts_run_free(&c);
}

/* The other side, so the test above can fail: a report loads libxml2 to
 * check its charts, and the account shows it. */
Test(startup, a_report_loads_libxml2_to_check_its_charts) {
  char *out = ts_own(ts_tmpdir("startup-report"));
  char *rep = ts_own(ts_path(out, "report"));
  const char *args[] = {"report",     EXAMPLES "pr.csv",
                        "--manifest", EXAMPLES "env.csv",
                        "--out",      rep,
                        NULL};
  int status;
  ld_account a = ld_files("report", args, &status);
  cr_expect_eq(status, 0);
  cr_expect_eq(a.processes, 1);
  cr_expect_eq(a.xml, 1, "report did not load %s", bs__xml_soname());
}

Test(startup, the_soname_is_the_one_the_build_found) {
  /* Recorded from the library's own SONAME: "libxml2.so.<major>". */
  cr_expect_eq(strncmp(bs__xml_soname(), "libxml2.so.", 11), 0, "%s",
               bs__xml_soname());
  bs__xml_api api;
  bs_error err;
  bs_error_clear(&err);
  cr_assert_eq(bs__xml_open(bs__xml_soname(), &api, &err), BS_OK, "%s",
               err.message);
  cr_expect_not_null(api.xmlReadMemory);
  cr_expect_not_null(api.xmlFree);
  cr_expect_not_null(*api.xmlFree); /* the library's free function */
}

Test(startup, a_library_that_cannot_be_loaded_is_named_with_the_reason) {
  bs__xml_api api;
  bs_error err;
  bs_error_clear(&err);
  cr_assert_eq(bs__xml_open("libxml2-absent.so.2", &api, &err), BS_EPLOT);
  cr_expect_not_null(strstr(err.message,
                            "cannot load libxml2 "
                            "(libxml2-absent.so.2), which checks "
                            "every chart before it is published: "),
                     "%s", err.message);
  cr_expect_not_null(strstr(err.message, "No such file"), "%s", err.message);
  cr_expect_null(api.xmlReadMemory);
  /* A library that loads but is not libxml2: the missing function named. */
  bs_error_clear(&err);
  cr_assert_eq(bs__xml_open("libc.so.6", &api, &err), BS_EPLOT);
  cr_expect_not_null(strstr(err.message, "cannot use libxml2 (libc.so.6)"),
                     "%s", err.message);
  cr_expect_not_null(strstr(err.message, "xmlInitParser"), "%s", err.message);
  cr_expect_null(api.xmlInitParser);
}

/* The command that needs charts fails cleanly, exit 3, with the reason,
 * and writes no report; the ones that need none go on as before. The
 * library is made unloadable the ordinary way: a directory first in the
 * loader's path holding a file of libxml2's soname that is no library. */
Test(startup, without_libxml2_a_report_fails_with_exit_3_and_compare_works) {
  char *out = ts_own(ts_tmpdir("startup-nolib"));
  char *libdir = ts_own(ts_path(out, "lib"));
  cr_assert_eq(mkdir(libdir, 0755), 0);
  char *stub = ts_own(ts_path(libdir, bs__xml_soname()));
  cr_assert_eq(ts_write(stub, "not a shared object\n"), 0);
  char *rep = ts_own(ts_path(out, "report"));
  const char *report[] = {"report",     EXAMPLES "pr.csv",
                          "--manifest", EXAMPLES "env.csv",
                          "--out",      rep,
                          NULL};
  const char *compare[] = {"compare", EXAMPLES "pr.csv", "--manifest",
                           EXAMPLES "env.csv", NULL};
  setenv("LD_LIBRARY_PATH", libdir, 1);
  ts_run r = ts_cli(NULL, report);
  ts_run c = ts_cli(NULL, compare);
  unsetenv("LD_LIBRARY_PATH");
  cr_expect_eq(r.status, 3, "exit %d: %s", r.status, r.err);
  char *want = ts_pathf("benchsite: cannot load libxml2 (%s), which checks "
                        "every chart before it is published: %s: ",
                        bs__xml_soname(), stub);
  cr_expect_not_null(strstr(r.err, want), "%s", r.err);
  cr_expect_eq(ts_exists(rep), 0, "a report was written");
  cr_expect_eq(c.status, 1, "compare: exit %d: %s", c.status, c.err);
  cr_expect_not_null(strstr(c.out, "■ significant regression"), "%s", c.out);
  ts_run_free(&r);
  ts_run_free(&c);
}
