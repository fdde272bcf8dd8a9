/* bs_bisect_run's refusals before it touches a repository (the search
 * itself runs on synthetic repositories in tests/bisect_cli.py). */
#include "benchsite/bisect.h"

#include "support.h"

#include <criterion/criterion.h>
#include <string.h>

TestSuite(bisect, .fini = ts_free_owned);

static bs_bisect_options valid(void) {
  bs_bisect_options o;
  bs_bisect_options_init(&o);
  /* A repository that does not exist: every refusal below must come
   * before anything asks it. */
  o.repo = "/nonexistent/benchsite-bisect-test";
  o.good = "v1";
  o.bad = "main";
  o.build = "make -C {tree}";
  o.bench = "libbench.so";
  return o;
}

static void refused(const bs_bisect_options *o, bs_status want,
                    const char *says) {
  bs_bisect_result *r = (bs_bisect_result *)1;
  bs_error err;
  bs_error_clear(&err);
  cr_assert_eq(bs_bisect_run(o, &r, &err), want, "%s", err.message);
  cr_assert_null(r);
  cr_assert(strstr(err.message, says), "\"%s\" lacks \"%s\"", err.message,
            says);
}

Test(bisect, option_like_commits_are_refused) {
  bs_bisect_options o = valid();
  o.good = "-x";
  refused(&o, BS_EUSAGE, "--good: \"-x\" looks like an option");
  o = valid();
  o.bad = "--output=/tmp/x";
  refused(&o, BS_EUSAGE, "--bad: \"--output=/tmp/x\" looks like an option");
  o = valid();
  o.good = "";
  refused(&o, BS_EUSAGE, "--good: name a commit");
  o = valid();
  o.bad = "main\nx";
  refused(&o, BS_EUSAGE, "no control characters");
}

Test(bisect, the_build_and_the_benchmark_are_required) {
  bs_bisect_options o = valid();
  o.build = "";
  refused(&o, BS_EUSAGE, "--build");
  o = valid();
  o.build = "make 'unterminated";
  refused(&o, BS_EUSAGE, "unterminated quote");
  o = valid();
  o.bench = NULL;
  refused(&o, BS_EUSAGE, "name the benchmark");
}

Test(bisect, a_benchmark_outside_the_tree_is_refused) {
  bs_bisect_options o = valid();
  o.bench = "/usr/lib/libbench.so";
  refused(&o, BS_EUSAGE, "the same library at every commit");
  o = valid();
  o.mode = BS_RUN_COMMAND;
  o.bench = "/usr/bin/bench --fast";
  refused(&o, BS_EUSAGE, "the same program at every commit");
  /* With {tree}, or run inside the tree as it is, it may. */
  o.bench = "/usr/bin/python3 {tree}/bench.py";
  refused(&o, BS_EINPUT, "not a git repository");
  o.mode = BS_RUN_GO_BENCH;
  o.bench = "/usr/bin/go test -bench .";
  refused(&o, BS_EINPUT, "not a git repository");
}

Test(bisect, protocol_threshold_and_runs_are_checked) {
  bs_bisect_options o = valid();
  o.protocol = "Fast";
  refused(&o, BS_EUSAGE, "unknown protocol");
  o = valid();
  o.threshold_pct = 0.05;
  refused(&o, BS_EUSAGE, "--threshold");
  o = valid();
  o.protocol = "Shared";
  o.max_runs = 2;
  refused(&o, BS_EUSAGE, "from the 5 runs of the protocol Shared");
  o.max_runs = 21;
  refused(&o, BS_EUSAGE, "to four times as many");
}

Test(bisect, names_and_exit_statuses) {
  cr_assert_str_eq(bs_bisect_outcome_name(BS_BISECT_FOUND), "found");
  cr_assert_str_eq(bs_bisect_outcome_name(BS_BISECT_NO_STEP), "no-step");
  cr_assert_str_eq(bs_bisect_outcome_name(BS_BISECT_UNDECIDED),
                   "undecided-range");
  cr_assert_str_eq(bs_bisect_verdict_name(BS_BISECT_NOT_SLOWER), "not slower");
  bs_bisect_result r;
  memset(&r, 0, sizeof r);
  r.outcome = BS_BISECT_FOUND;
  cr_assert_eq(bs_bisect_exit_status(&r), 1);
  r.outcome = BS_BISECT_NO_STEP;
  cr_assert_eq(bs_bisect_exit_status(&r), 0);
  r.outcome = BS_BISECT_UNDECIDED;
  cr_assert_eq(bs_bisect_exit_status(&r), 4);
}
