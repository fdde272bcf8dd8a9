/* libFuzzer target: the harness adapters' report parsers (src/run/run_gbench.c,
 * src/run/run_pytest.c, src/run/run_gobench.c) with every check `benchsite run`
 * makes on a report (bs__harness_parse: names, filter, duplicates). Every
 * input is read as a Google Benchmark JSON report, a pytest-benchmark JSON
 * report and `go test -bench` output, each without a filter and with
 * three. Properties: no crash, leak, undefined behaviour or quadratic
 * blow-up (libFuzzer's timeout); the status is BS_OK or BS_EINPUT (never
 * BS_EINTERNAL: a parser passed a time the sink refuses); an error is one
 * clean line, however hostile the names it quotes; a report the run
 * accepts whole is accepted under every filter, with no more rows. */
#include "run_harness.h"

#include "fuzz_util.h"

static void one(bs_run_mode mode, const char *text, size_t len) {
  static const char *const filters[] = {"^BM_a/1$", "test_", "^BenchmarkA"};
  bs_error err;
  size_t all = 0;
  bs_status st = bs__harness_parse(mode, text, len, NULL, &all, &err);
  FUZZ_CHECK(st == BS_OK || st == BS_EINPUT, "mode %d: status %d: %s",
             (int)mode, (int)st, err.message);
  if (st) {
    fz_check_message(&err);
    return;
  }
  for (size_t i = 0; i < sizeof filters / sizeof *filters; i++) {
    size_t some = 0;
    st = bs__harness_parse(mode, text, len, filters[i], &some, &err);
    FUZZ_CHECK(st == BS_OK, "mode %d: accepted whole, refused under %s: %s",
               (int)mode, filters[i], err.message);
    FUZZ_CHECK(some <= all, "mode %d: %zu rows under %s, %zu without",
               (int)mode, some, filters[i], all);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* The parsers are given a report that is not empty (run_harness.c says
   * so before it parses). */
  if (!size)
    return 0;
  static const bs_run_mode modes[] = {BS_RUN_GOOGLE_BENCHMARK,
                                      BS_RUN_PYTEST_BENCHMARK, BS_RUN_GO_BENCH};
  for (size_t m = 0; m < sizeof modes / sizeof *modes; m++)
    one(modes[m], (const char *)data, size);
  return 0;
}
