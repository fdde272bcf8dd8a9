/* What the bisection asks of programs and git (src/bisect/bisect_git.c):
 * command lines with {tree}, commit ids, the environment git and builds
 * get, a directory that is no repository. */
#include "bisect_int.h"

#include "support.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

TestSuite(bisect_git, .fini = ts_free_owned);

static char **split(const char *cmd, const char *tree) {
  char **argv = NULL;
  bs_error err;
  bs_error_clear(&err);
  cr_assert_eq(bs__split_with_tree(cmd, tree, &argv, &err), BS_OK, "%s",
               err.message);
  return ts_own(argv);
}

Test(bisect_git, tree_replaces_every_mark_in_every_word) {
  char **v =
      split("cc -o {tree}/b.so '{tree}/src dir/{tree}.c' {tree}", "/c/a b");
  cr_assert_str_eq(v[0], "cc");
  cr_assert_str_eq(v[1], "-o");
  cr_assert_str_eq(v[2], "/c/a b/b.so");
  cr_assert_str_eq(v[3], "/c/a b/src dir//c/a b.c");
  cr_assert_str_eq(v[4], "/c/a b");
  cr_assert_null(v[5]);
}

Test(bisect_git, the_tree_is_text_not_a_command) {
  /* A tree holding quotes, blanks, $ and ; stays one word, as it is. */
  char **v = split("make -C {tree}", "/x/'; rm -rf / $HOME");
  cr_assert_str_eq(v[2], "/x/'; rm -rf / $HOME");
  cr_assert_null(v[3]);
}

Test(bisect_git, without_a_tree_marks_stay) {
  char **v = split("a {tree} {tre} {tree", NULL);
  cr_assert_str_eq(v[1], "{tree}");
  cr_assert_str_eq(v[2], "{tre}");
  cr_assert_str_eq(v[3], "{tree");
}

Test(bisect_git, bad_command_lines_are_usage_errors) {
  char **argv = NULL;
  bs_error err;
  cr_assert_eq(bs__split_with_tree("cc 'open", "/t", &argv, &err), BS_EUSAGE);
  cr_assert_null(argv);
  cr_assert_eq(bs__split_with_tree("   ", "/t", &argv, &err), BS_EUSAGE);
  cr_assert_null(argv);
}

Test(bisect_git, commit_ids_are_40_or_64_lower_hex) {
  cr_assert(bs__is_commit_id("0123456789abcdef0123456789abcdef01234567"));
  cr_assert(bs__is_commit_id("0123456789abcdef0123456789abcdef01234567"
                             "0123456789abcdef01234567"));
  cr_assert(!bs__is_commit_id("0123456789ABCDEF0123456789abcdef01234567"));
  cr_assert(!bs__is_commit_id("0123456789abcdef0123456789abcdef0123456"));
  cr_assert(!bs__is_commit_id("-123456789abcdef0123456789abcdef01234567"));
  cr_assert(!bs__is_commit_id(""));
  cr_assert(!bs__is_commit_id("../../../../../../../../../../../../etc"));
}

Test(bisect_git, git_never_sees_another_repository) {
  setenv("GIT_DIR", "/elsewhere/.git", 1);
  setenv("GIT_WORK_TREE", "/elsewhere", 1);
  setenv("GIT_INDEX_FILE", "/elsewhere/index", 1);
  setenv("BISECT_TEST_KEPT", "yes", 1);
  bs__env e;
  cr_assert_eq(bs__env_init(&e, NULL), BS_OK);
  int kept = 0;
  for (char **v = e.vars; *v; v++) {
    cr_assert_neq(strncmp(*v, "GIT_DIR=", 8), 0);
    cr_assert_neq(strncmp(*v, "GIT_WORK_TREE=", 14), 0);
    cr_assert_neq(strncmp(*v, "GIT_INDEX_FILE=", 15), 0);
    kept |= !strcmp(*v, "BISECT_TEST_KEPT=yes");
  }
  cr_assert(kept, "other variables are kept");
  bs__env_release(&e);
  unsetenv("GIT_DIR");
  unsetenv("GIT_WORK_TREE");
  unsetenv("GIT_INDEX_FILE");
}

Test(bisect_git, a_directory_that_is_no_repository) {
  char *dir = ts_own(ts_tmpdir("bisect_norepo"));
  setenv("GIT_CEILING_DIRECTORIES", BENCHSITE_TEST_TMP, 1);
  bs__env e;
  cr_assert_eq(bs__env_init(&e, NULL), BS_OK);
  bs__repo r = {dir, &e, NULL, NULL};
  bs_error err;
  bs_error_clear(&err);
  cr_assert_eq(bs__repo_open(&r, &err), BS_EINPUT);
  cr_assert_str_eq(err.message, "not a git repository");
  cr_assert_null(r.common);
  bs__env_release(&e);
}

Test(bisect_git, a_program_that_cannot_start) {
  bs__job j;
  const char *argv[] = {"/nonexistent/benchsite-no-such-program", NULL};
  bs_error err;
  bs_error_clear(&err);
  cr_assert_eq(bs__job_start(&j, argv, NULL, NULL, -1, -1, &err), BS_EIO);
  cr_assert(strstr(err.message, "cannot run"), "%s", err.message);
  cr_assert(bs__job_done(&j), "nothing runs");
}

Test(bisect_git, a_job_ends_with_its_status_or_signal) {
  bs__job j;
  const char *exit3[] = {"/bin/sh", "-c", "exit 3", NULL};
  cr_assert_eq(bs__job_start(&j, exit3, NULL, NULL, -1, -1, NULL), BS_OK);
  while (!bs__job_done(&j))
    ;
  cr_assert_eq(j.status, 3);
  const char *hang[] = {"/bin/sh", "-c", "sleep 30", NULL};
  cr_assert_eq(bs__job_start(&j, hang, NULL, NULL, -1, -1, NULL), BS_OK);
  cr_assert(!bs__job_done(&j));
  bs__job_stop(&j);
  cr_assert(bs__job_done(&j));
  cr_assert_eq(j.status, 128 + 15, "SIGTERM: %d", j.status);
}
