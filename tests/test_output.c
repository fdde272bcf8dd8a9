/* The atomic output module: files committed together or not at all,
 * output directories built beside the target and swapped in. */
#include "benchsite/output.h"

#include "support.h"

#include <criterion/criterion.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

TestSuite(output, .fini = ts_free_owned);

Test(output, files_appear_only_at_commit) {
  char *dir = ts_own(ts_tmpdir("output_files"));
  char *a = ts_own(ts_path(dir, "a.json")), *b = ts_own(ts_path(dir, "b.md"));
  cr_assert_eq(ts_write(a, "old\n"), 0);
  bs_error err;
  bs_output_files *f = bs_output_files_new();
  cr_assert_not_null(f);
  cr_assert_eq(bs_output_files_add(f, a, "new a\n", 6, &err), BS_OK);
  cr_assert_eq(bs_output_files_add(f, b, "new b\n", 6, &err), BS_OK);
  /* Staged, not yet visible. */
  cr_assert_str_eq(ts_own(ts_read(a, NULL)), "old\n");
  cr_assert(!ts_exists(b));
  cr_assert_eq(bs_output_files_commit(f, &err), BS_OK);
  bs_output_files_free(f);
  cr_assert_str_eq(ts_own(ts_read(a, NULL)), "new a\n");
  cr_assert_str_eq(ts_own(ts_read(b, NULL)), "new b\n");
  cr_assert_eq(ts_count_entries(dir), 2);
}

Test(output, a_set_not_committed_leaves_no_trace) {
  char *dir = ts_own(ts_tmpdir("output_abort"));
  char *a = ts_own(ts_path(dir, "a.json")), *sub = ts_own(ts_path(dir, "sub"));
  cr_assert_eq(mkdir(sub, 0755), 0);
  bs_error err;
  bs_output_files *f = bs_output_files_new();
  cr_assert_eq(bs_output_files_add(f, a, "x", 1, &err), BS_OK);
  /* A directory where a file should go is refused before it is written. */
  cr_assert_eq(bs_output_files_add(f, sub, "y", 1, &err),
               BS_EUSAGE); /* status 2: a usage error */
  cr_assert_str_eq(err.message, "is a directory");
  bs_output_files_free(f);
  bs_output_files_free(NULL);
  cr_assert(!ts_exists(a));
  cr_assert_eq(ts_count_entries(dir), 1);
}

Test(output, a_directory_is_swapped_in_whole) {
  char *dir = ts_own(ts_tmpdir("output_dir"));
  char *out = ts_own(ts_path(dir, "public"));
  bs_error err;
  for (int round = 0; round < 2; round++) {
    bs_output_dir *d;
    cr_assert_eq(
        bs_output_dir_open(out, "--out", "site", ".marker", 0, &d, &err),
        BS_OK);
    cr_assert_eq(bs_output_dir_exists(d), round);
    cr_assert_null(bs_output_dir_path(d));
    cr_assert_eq(bs_output_dir_start(d, &err), BS_OK);
    const char *b = bs_output_dir_path(d);
    cr_assert_not_null(b);
    cr_assert_eq(ts_write(ts_own(ts_path(b, ".marker")), ""), 0);
    cr_assert_eq(
        ts_write(ts_own(ts_path(b, "index.html")), round ? "second" : "first"),
        0);
    if (round)
      cr_assert_str_eq(
          ts_own(ts_read(ts_own(ts_path(out, "index.html")), NULL)), "first");
    cr_assert_eq(bs_output_dir_commit(d, &err), BS_OK);
    bs_output_dir_free(d);
    cr_assert_str_eq(ts_own(ts_read(ts_own(ts_path(out, "index.html")), NULL)),
                     round ? "second" : "first");
    /* Neither the build directory nor the old tree remains. */
    cr_assert_eq(ts_count_entries(dir), 1);
  }
}

Test(output, a_directory_that_is_not_an_output_is_refused) {
  char *dir = ts_own(ts_tmpdir("output_refuse"));
  char *out = ts_own(ts_path(dir, "home"));
  cr_assert_eq(mkdir(out, 0755), 0);
  cr_assert_eq(ts_write(ts_own(ts_path(out, "thesis.tex")), "x"), 0);
  bs_error err;
  bs_output_dir *d = (bs_output_dir *)1;
  cr_assert_eq(bs_output_dir_open(out, "--out", "site", ".marker", 0, &d, &err),
               BS_EUSAGE);
  cr_assert_null(d);
  cr_assert(strstr(err.message, "not a benchsite site"));
  cr_assert_eq(bs_output_dir_open(".", "--out", "site", ".marker", 0, &d, &err),
               BS_EUSAGE);
  bs_output_dir_free(NULL);
  cr_assert_eq(ts_count_entries(out), 1);
}

/* Before: a directory holding a regular FORMAT and runs/ counted as an
 * archive, so a site whose --static files included one named FORMAT
 * refused every later build. What FORMAT says decides now. */
Test(output, an_archive_is_known_by_what_its_format_file_says, .timeout = 120) {
  char *work = ts_own(ts_tmpdir("output_format"));
  char *stat_dir = ts_pathf("%s/static", work);
  cr_assert_eq(mkdir(stat_dir, 0755), 0);
  cr_assert_eq(ts_write(ts_pathf("%s/FORMAT", stat_dir), "our format\n"), 0);
  char *web = ts_pathf("%s/web", work);
  const char *site[] = {
      "site",   "--archive", BENCHSITE_SOURCE_DIR "/examples/archive",
      "--out",  web,         "--static",
      stat_dir, "--jobs",    "1",
      NULL};
  for (int build = 0; build < 2; build++) {
    ts_run r = ts_cli(NULL, site);
    cr_expect_eq(r.status, 0, "build %d: exit %d: %s", build, r.status, r.err);
    ts_run_free(&r);
  }
  cr_expect(ts_exists(ts_pathf("%s/FORMAT", web)));
  /* The site has runs/ of its own: with FORMAT, the shape of an archive. */
  cr_expect(ts_exists(ts_pathf("%s/runs", web)));
  /* A real archive's FORMAT still keeps output out of it. */
  char *arch = ts_pathf("%s/arch", work);
  cr_assert_eq(mkdir(arch, 0755), 0);
  cr_assert_eq(mkdir(ts_pathf("%s/runs", arch), 0755), 0);
  cr_assert_eq(ts_write(ts_pathf("%s/FORMAT", arch), "benchsite.archive/1\n"),
               0);
  const char *into[] = {"site",
                        "--archive",
                        BENCHSITE_SOURCE_DIR "/examples/archive",
                        "--out",
                        ts_pathf("%s/web", arch),
                        NULL};
  ts_run r = ts_cli(NULL, into);
  cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
  cr_expect(strstr(r.err, "inside the benchsite archive"), "%s", r.err);
  ts_run_free(&r);
}

/* Before: a --static file named FORMAT that says "benchsite.archive/1"
 * (a copy of an archive's, or --static pointed at the archive itself)
 * was published, and with the site's own runs/ the site was then an
 * archive by content: the first build succeeded and every later build
 * (and any output into the site) was refused until the file was deleted
 * by hand. It is refused now, with status 2, before anything is written. */
Test(output, a_static_format_file_that_says_archive_is_refused,
     .timeout = 120) {
  char *work = ts_own(ts_tmpdir("output_static_format"));
  char *stat_dir = ts_pathf("%s/static", work);
  cr_assert_eq(mkdir(stat_dir, 0755), 0);
  cr_assert_eq(
      ts_write(ts_pathf("%s/FORMAT", stat_dir), "benchsite.archive/1\n"), 0);
  char *web = ts_pathf("%s/web", work);
  const char *site[] = {
      "site",   "--archive", BENCHSITE_SOURCE_DIR "/examples/archive",
      "--out",  web,         "--static",
      stat_dir, "--jobs",    "1",
      NULL};
  ts_run r = ts_cli(NULL, site);
  cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
  cr_expect(strstr(r.err, "FORMAT"), "%s", r.err);
  ts_run_free(&r);
  cr_expect(!ts_exists(web), "a site was written");
  /* Without it the site builds, and builds again. */
  cr_assert_eq(unlink(ts_pathf("%s/FORMAT", stat_dir)), 0);
  for (int build = 0; build < 2; build++) {
    r = ts_cli(NULL, site);
    cr_expect_eq(r.status, 0, "build %d: exit %d: %s", build, r.status, r.err);
    ts_run_free(&r);
  }
}
