/* The one directory listing (bs__list_dir, also behind bs_output_dir_open) and
 * the one array growth (bs__grow). readdir is wrapped at link time
 * (-Wl,--wrap=readdir, see tests/CMakeLists.txt) so a test can make it fail
 * part way, as it can on a real file system (EIO, an NFS server gone), and
 * check the failure is reported instead of being taken for the end of the
 * directory. */
#include "benchsite/archive.h"
#include "benchsite/output.h"
#include "fsutil.h"
#include "grow.h"
#include "strlist.h"

#include "support.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct dirent *__real_readdir(DIR *d);
struct dirent *__wrap_readdir(DIR *d);

/* readdir fails with EIO after this many entries; -1: never. */
static int fail_after = -1;

struct dirent *__wrap_readdir(DIR *d) {
  if (fail_after == 0) {
    errno = EIO;
    return NULL;
  }
  if (fail_after > 0)
    fail_after--;
  return __real_readdir(d);
}

static void reset(void) { fail_after = -1; }

TestSuite(fsutil, .init = reset, .fini = ts_free_owned);

static char *fill(const char *tag) {
  char *dir = ts_own(ts_tmpdir(tag));
  const char *names[] = {"b", "a", ".hidden", "c"};
  for (size_t i = 0; i < 4; i++)
    cr_assert_eq(ts_write(ts_own(ts_path(dir, names[i])), "x"), 0);
  return dir;
}

static int no_hidden(const char *name) { return name[0] != '.'; }

Test(fsutil, list_dir_sorted_without_dots) {
  char *dir = fill("ls");
  char **names;
  size_t n;
  bs_error e;
  cr_assert_eq(bs__list_dir(dir, NULL, &names, &n, &e), BS_OK);
  cr_assert_eq(n, 4);
  cr_assert_str_eq(names[0], ".hidden");
  cr_assert_str_eq(names[1], "a");
  cr_assert_str_eq(names[2], "b");
  cr_assert_str_eq(names[3], "c");
  bs__strlist_free(names, n);
  cr_assert_eq(bs__list_dir(dir, no_hidden, &names, &n, &e), BS_OK);
  cr_assert_eq(n, 3);
  cr_assert_str_eq(names[0], "a");
  bs__strlist_free(names, n);
}

Test(fsutil, list_dir_readdir_failure_is_an_error) {
  char *dir = fill("lsfail");
  char **names = (char **)1;
  size_t n = 7;
  bs_error e;
  fail_after = 2; /* ".", ".." or a name or two, then EIO */
  cr_assert_eq(bs__list_dir(dir, NULL, &names, &n, &e), BS_EIO);
  cr_assert_null(names);
  cr_assert_eq(n, 0);
  cr_assert(strstr(e.message, "cannot read directory"), "%s", e.message);
  cr_assert(strstr(e.message, strerror(EIO)), "%s", e.message);
}

Test(fsutil, list_dir_missing) {
  char **names;
  size_t n;
  bs_error e;
  char *dir = ts_pathf("%s/absent", (char *)ts_own(ts_tmpdir("lsmissing")));
  cr_assert_eq(bs__list_dir(dir, NULL, &names, &n, &e), BS_EIO);
  cr_assert(strstr(e.message, "cannot open directory"), "%s", e.message);
}

/* A directory whose listing fails is not taken for an empty one (which
 * would be replaced, its files deleted). */
Test(fsutil, check_out_readdir_failure_refuses) {
  char *dir = ts_own(ts_tmpdir("out"));
  cr_assert_eq(ts_write(ts_own(ts_path(dir, "precious")), "x"), 0);
  bs_output_dir *d = NULL;
  bs_error e;
  cr_assert_eq(bs_output_dir_open(dir, "--out", "report", ".marker", 0, &d, &e),
               BS_EUSAGE);
  fail_after = 0;
  cr_assert_eq(bs_output_dir_open(dir, "--out", "report", ".marker", 0, &d, &e),
               BS_EIO);
  cr_assert(strstr(e.message, "cannot read directory"), "%s", e.message);
  cr_assert_null(d);
  fail_after = -1;
  char *empty = ts_own(ts_tmpdir("outempty"));
  cr_assert_eq(
      bs_output_dir_open(empty, "--out", "report", ".marker", 0, &d, &e),
      BS_OK);
  cr_assert_eq(bs_output_dir_exists(d), 1);
  bs_output_dir_free(d);
}

/* The archive lists its runs with the same function: a failing readdir
 * fails the listing instead of showing fewer runs. */
Test(fsutil, archive_list_readdir_failure) {
  char *arch = ts_pathf("%s/a", (char *)ts_own(ts_tmpdir("arch")));
  char *log = ts_own(ts_data("../../examples/pr.csv"));
  char *env = ts_own(ts_data("../../examples/env.csv"));
  const char *add[] = {"archive", "add",        "--archive", arch,
                       log,       "--manifest", env,         NULL};
  ts_run r = ts_cli(NULL, add);
  cr_assert_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);
  bs_archive *a = NULL;
  bs_error e;
  cr_assert_eq(bs_archive_open(arch, &a, &e), BS_OK, "%s", e.message);
  bs_archive_free(a);
  fail_after = 3;
  a = NULL;
  cr_assert_eq(bs_archive_open(arch, &a, &e), BS_EIO);
  cr_assert(strstr(e.message, "cannot read directory"), "%s", e.message);
  bs_archive_free(a);
}

Test(fsutil, grow_doubles_and_refuses_overflow) {
  cr_assert_eq(bs__grow_cap(0, 1, 16, 8), 16);
  cr_assert_eq(bs__grow_cap(16, 17, 16, 8), 32);
  cr_assert_eq(bs__grow_cap(16, 100, 16, 8), 128);
  cr_assert_eq(bs__grow_cap(0, SIZE_MAX / 4, 16, 8), 0);
  cr_assert_eq(bs__grow_cap(0, BS__GROW_MAX_BYTES / 8 + 1, 16, 8), 0);
  cr_assert_eq(
      bs__grow_cap(BS__GROW_MAX_BYTES / 8 - 1, BS__GROW_MAX_BYTES / 8, 16, 8),
      BS__GROW_MAX_BYTES / 8);
  size_t cap = 0;
  int *a = BS__GROW((int *)NULL, cap, 5, 4);
  cr_assert_not_null(a);
  cr_assert_eq(cap, 8);
  for (int i = 0; i < 8; i++)
    a[i] = i;
  int *b = BS__GROW(a, cap, 9, 4);
  cr_assert_not_null(b);
  cr_assert_eq(cap, 16);
  cr_assert_eq(b[7], 7);
  cr_assert_null(BS__GROW(b, cap, SIZE_MAX / 2, 4));
  cr_assert_eq(cap, 16); /* unchanged, b still valid */
  cr_assert_eq(b[7], 7);
  free(b);
}

Test(fsutil, an_archive_format_line_is_recognised_by_its_content) {
  const char *yes[] = {"benchsite.archive/1\n", "benchsite.archive/12\n"};
  const char *no[] = {"",
                      "hello\n",
                      "benchsite.archive/1",
                      "benchsite.archive/\n",
                      "benchsite.archive/1\nmore\n",
                      "benchsite.archive/1x\n",
                      "Benchsite.archive/1\n"};
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
    cr_expect(bs__archive_format_line(yes[i], strlen(yes[i])), "%s", yes[i]);
  for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
    cr_expect(!bs__archive_format_line(no[i], strlen(no[i])), "%s", no[i]);
}
