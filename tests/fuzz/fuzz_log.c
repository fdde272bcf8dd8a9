/* libFuzzer target: the observation log reader (src/input/log.c,
 * src/base/csvin.c).
 *
 * The input is read as a log; when it holds a 0x00 0xFF pair, the bytes
 * after it are read as a second file (with a hostile name) into the same
 * log, to reach the
 * checks that span files and the rollback of a failed read. Properties:
 * no crash, leak or undefined behaviour (ASan + UBSan); an error is one
 * clean line naming the file; a failed read leaves the log exactly as it
 * was; every kept row is well-formed and in exactly one case. */
#include "benchsite/log.h"
#include "benchsite/order.h"

#include "fuzz_util.h"

#include <math.h>

static void check_log(const bs_log *log) {
  size_t n = bs_log_count(log), seen = 0;
  const bs_row *rows = bs_log_rows(log);
  for (size_t i = 0; i < n; i++) {
    const bs_row *r = &rows[i];
    const bs_case *c = bs_log_row_case(log, r);
    FUZZ_CHECK(c->benchmark[0] && r->impl[0], "row %zu: empty name", i);
    FUZZ_CHECK(
        fz_utf8_ok((const unsigned char *)c->benchmark, strlen(c->benchmark)),
        "row %zu: benchmark not UTF-8", i);
    FUZZ_CHECK(isfinite(r->per_call_us) && r->per_call_us > 0, "row %zu", i);
    FUZZ_CHECK(!c->has_scale || (isfinite(c->scale) && c->scale > 0), "row %zu",
               i);
    FUZZ_CHECK(r->line >= 1, "row %zu: line %ld", i, (long)r->line);
    FUZZ_CHECK(r->phase == BS_PHASE_CALIBRATION || bs_row_block(log, r) >= 0,
               "row %zu: confirm row without block", i);
  }
  const bs_case *prev = NULL;
  for (size_t c = 0; c < bs_log_case_count(log); c++) {
    const bs_case *k = bs_log_case(log, c);
    if (prev) {
      /* Case order: benchmarks in natural order; within one, by scale
       * when every case of it has one, else by dataset (natural order). */
      int o = bs_natural_cmp(prev->benchmark, k->benchmark);
      int all_scaled = 1;
      for (size_t d = 0; d < bs_log_case_count(log); d++) {
        const bs_case *q = bs_log_case(log, d);
        if (!strcmp(q->benchmark, k->benchmark))
          all_scaled &= q->has_scale != 0;
      }
      int ds = bs_natural_cmp(prev->dataset, k->dataset);
      FUZZ_CHECK(o < 0 ||
                     (o == 0 && all_scaled &&
                      (prev->scale < k->scale ||
                       (prev->scale == k->scale && ds < 0))) ||
                     (o == 0 && !all_scaled && ds < 0),
                 "cases out of order");
    }
    for (size_t j = 0; j < k->nrows; j++) {
      const bs_row *r = &rows[k->rows[j]];
      FUZZ_CHECK(bs_log_row_case(log, r) == k, "row in the wrong case");
      FUZZ_CHECK(j == 0 || k->rows[j - 1] < k->rows[j], "rows out of order");
      /* No two confirm rows share (run, block, impl): quadratic, so only
       * for small cases. */
      if (k->nrows <= 64 && r->phase == BS_PHASE_CONFIRM) {
        for (size_t i = 0; i < j; i++) {
          const bs_row *q = &rows[k->rows[i]];
          FUZZ_CHECK(q->phase != BS_PHASE_CONFIRM ||
                         bs_row_run(log, q) != bs_row_run(log, r) ||
                         bs_row_block(log, q) != bs_row_block(log, r) ||
                         q->impl != r->impl,
                     "duplicate confirm rows kept");
        }
      }
    }
    seen += k->nrows;
    prev = k;
  }
  FUZZ_CHECK(seen == n, "%zu rows in cases, %zu rows", seen, n);
}

static void read_one(bs_log *log, const char *name, const uint8_t *data,
                     size_t size) {
  size_t before = bs_log_count(log), cases = bs_log_case_count(log);
  size_t unknown = bs_log_unknown_count(log);
  bs_error err;
  bs_status st = bs_log_read_buffer(log, name, (const char *)data, size, &err);
  if (st == BS_OK) {
    FUZZ_CHECK(err.status == BS_OK, "error left set");
  } else {
    FUZZ_CHECK(st == BS_EINPUT || st == BS_ELIMIT, "status %d", (int)st);
    FUZZ_CHECK(err.status == st, "err.status %d", (int)err.status);
    fz_check_message(&err);
    FUZZ_CHECK(bs_log_count(log) == before && bs_log_case_count(log) == cases &&
                   bs_log_unknown_count(log) == unknown,
               "a failed read changed the log");
  }
  check_log(log);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  bs_log *log = bs_log_new();
  if (!log)
    return 0;
  /* Small caps keep every input fast; the code paths are the same. */
  bs_log_limits lim = {.max_field_bytes = 512,
                       .max_columns = 64,
                       .max_rows = 20000,
                       .max_case_rows = 5000,
                       .max_memory_bytes = 64u << 20};
  bs_log_set_limits(log, &lim);
  size_t split = size;
  for (size_t i = 0; i + 1 < size; i++) {
    if (data[i] == 0x00 && data[i + 1] == 0xFF) {
      split = i;
      break;
    }
  }
  read_one(log, "a.csv", data, split);
  if (split < size)
    /* A file name from a pull request: messages must escape it. */
    read_one(log, "b\n::error::\x1b[2J\xc2\x9b\xff\\.csv", data + split + 2,
             size - split - 2);
  bs_log_free(log);
  return 0;
}
