/* libFuzzer target: the acks.csv reader (src/history/archive.c), a file people
 * (and pull requests) write into the run archive. Properties: no crash,
 * leak, undefined behaviour or quadratic blow-up (libFuzzer's timeout); an
 * error is one clean line; on success every field is valid UTF-8, no two
 * rows share (commit, benchmark, dataset), and bs_acks_find (hashed)
 * answers exactly what a scan of the rows in file order answers, for every
 * row's own case and for commits cut and extended around the 7-character
 * prefix rule. */
#include "archived.h"
#include "fuzz_util.h"

static int naive_matches(const char *ack, const char *commit) {
  size_t n = strlen(ack);
  return !strcmp(ack, commit) || (n >= 7 && !strncmp(ack, commit, n));
}

static const bs_ack *naive_find(const bs_acks *a, const char *commit,
                                const char *bench, const char *ds) {
  for (size_t i = 0; i < bs_acks_count(a); i++) {
    const bs_ack *r = bs_acks_at(a, i);
    if (!strcmp(r->benchmark, bench) && !strcmp(r->dataset, ds) &&
        naive_matches(r->commit, commit))
      return r;
  }
  return NULL;
}

static void same_answer(const bs_acks *a, const char *commit, const char *b,
                        const char *d) {
  const bs_ack *x = bs_acks_find(a, commit, b, d),
               *y = naive_find(a, commit, b, d);
  FUZZ_CHECK(x == y, "find(%s) gives row %ld, a scan row %ld", commit,
             x ? x->line : -1L, y ? y->line : -1L);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  bs_acks *a = NULL;
  bs_error err;
  bs_status st = bs__acks_parse("acks.csv", (const char *)data, size, &a, &err);
  if (st) {
    FUZZ_CHECK(!a, "a set left on error");
    FUZZ_CHECK(st == BS_EINPUT || st == BS_ELIMIT, "status %d", (int)st);
    fz_check_message(&err);
    return 0;
  }
  size_t n = bs_acks_count(a);
  for (size_t i = 0; i < n && i < 64; i++) {
    const bs_ack *r = bs_acks_at(a, i);
    const char *f[4] = {r->commit, r->benchmark, r->dataset, r->reason};
    for (int k = 0; k < 4; k++)
      FUZZ_CHECK(fz_utf8_ok((const unsigned char *)f[k], strlen(f[k])),
                 "row %zu field %d not UTF-8", i, k);
    FUZZ_CHECK(r->commit[0] && r->benchmark[0] && r->reason[0], "empty field");
    for (size_t j = 0; j < i; j++) {
      const bs_ack *o = bs_acks_at(a, j);
      FUZZ_CHECK(strcmp(o->commit, r->commit) ||
                     strcmp(o->benchmark, r->benchmark) ||
                     strcmp(o->dataset, r->dataset),
                 "rows %zu and %zu are the same", j, i);
    }
    same_answer(a, r->commit, r->benchmark, r->dataset);
    char c[64];
    size_t cl = strlen(r->commit);
    for (size_t cut = 5; cut <= 9 && cut < cl && cut < sizeof c; cut++) {
      memcpy(c, r->commit, cut);
      c[cut] = '\0';
      same_answer(a, c, r->benchmark, r->dataset);
    }
    if (cl + 2 < sizeof c) {
      memcpy(c, r->commit, cl);
      memcpy(c + cl, "ab", 3);
      same_answer(a, c, r->benchmark, r->dataset);
    }
  }
  bs_acks_free(a);
  return 0;
}
