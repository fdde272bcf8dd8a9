/* benchsite: the benchmark library ABI that `benchsite run --lib` loads.
 *
 * A benchmark library is a shared object that includes this header (and
 * nothing else of benchsite: it links no benchsite library) and defines
 * one symbol, benchsite_cases. benchsite loads each library given with
 * `--lib IMPL=PATH.so` into a measuring child process, as a private copy
 * (two builds of one library, or the same path given twice, never share
 * globals), and then only ever calls what the case table points to.
 *
 * The contract, ABI version 1:
 *
 * - benchsite_cases(abi, &count) is called once per loaded copy, with abi
 *   = the BS_HARNESS_ABI benchsite was built with. A library built for
 *   another version returns NULL (BS_HARNESS_DEFINE_CASES does this), and
 *   benchsite refuses it as an ABI mismatch. Otherwise it returns an array
 *   of *count >= 1 cases that stays valid, unchanged, until the process
 *   ends: benchsite never writes to it and never frees it.
 * - A case is named by (benchmark, dataset): `benchmark` non-empty,
 *   `dataset` "" when there is none, both valid UTF-8 and unique within the
 *   library. Cases of different libraries are matched by that pair; a case
 *   some library lacks is skipped with a warning.
 * - `scale` is the dataset's size (> 0) for tuning crossovers, or 0.
 * - setup() (may be NULL: state is NULL) is called once per (impl, case),
 *   before its first batch, outside any timing. The state it returns
 *   belongs to the library.
 * - run(state, n) is the timed batch: it must perform the measured
 *   operation exactly n times (n >= 1, up to 10^9) and is timed as a whole
 *   with CLOCK_MONOTONIC; benchsite reports the mean time per call. The
 *   loop is the library's own, so it should keep the compiler from
 *   hoisting or deleting the work (a volatile sink, an opaque call).
 *   run is called many times on one state, interleaved with other cases
 *   and other libraries: it must leave the state ready for the next batch.
 * - digest(state) (may be NULL) is called once, after the last batch, and
 *   returns a hash of the result. Impls whose digests differ on a case
 *   fail the run: a fast wrong answer never wins.
 * - teardown(state) (may be NULL) is called last.
 * - Everything runs on one thread, the process's only one; benchsite
 *   starts none and the library should start none (a thread left running
 *   would be timed with the next batch).
 * - A crash, an abort or a hang (past `--timeout`) ends the measuring
 *   process only: benchsite reports the impl and the case and writes no
 *   log. Output on stdout or stderr is allowed but not captured: both go
 *   to benchsite's standard error (its standard output is the log's). A
 *   process the library starts is killed when the run ends.
 */
#ifndef BENCHSITE_HARNESS_H
#define BENCHSITE_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bs_bench_case {
  const char *benchmark;                         /* required, non-empty */
  const char *dataset;                           /* "" when none */
  double scale;                                  /* > 0, or 0 when none */
  void *(*setup)(void);                          /* may be NULL */
  void (*run)(void *state, uint64_t iterations); /* the timed loop */
  uint64_t (*digest)(void *state);               /* may be NULL */
  void (*teardown)(void *state);                 /* may be NULL */
} bs_bench_case;

#define BS_HARNESS_ABI 1

/* The library defines this symbol (see above). */
const bs_bench_case *benchsite_cases(int abi, size_t *count);

/* Defines benchsite_cases over a static array of cases:
 *   static const bs_bench_case cases[] = {{"sum", "n=1024", 1024, ...}};
 *   BS_HARNESS_DEFINE_CASES(cases)
 */
#define BS_HARNESS_DEFINE_CASES(array)                                         \
  const bs_bench_case *benchsite_cases(int abi, size_t *count) {               \
    if (abi != BS_HARNESS_ABI || !count)                                       \
      return NULL;                                                             \
    *count = sizeof(array) / sizeof((array)[0]);                               \
    return (array);                                                            \
  }

#ifdef __cplusplus
}
#endif
#endif
