/* SHA-256 against FIPS 180-2 vectors and coreutils sha256sum output. */
#include "sha256.h"

#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void expect_hex(const char *msg, size_t n, const char *want) {
  char hex[BS__SHA256_HEXLEN + 1];
  bs__sha256_hex(msg, n, hex);
  cr_assert_str_eq(hex, want, "sha256 of %zu bytes", n);
}

Test(sha256, fips_180_2_abc) {
  expect_hex(
      "abc", 3,
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

Test(sha256, empty_string) {
  expect_hex(
      "", 0,
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  char hex[BS__SHA256_HEXLEN + 1];
  bs__sha256_hex(NULL, 0, hex);
  cr_assert_str_eq(
      hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

Test(sha256, fips_180_2_two_blocks) {
  const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  expect_hex(
      m, strlen(m),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

Test(sha256, fips_180_2_million_a) {
  /* Fed in uneven pieces so the block buffering is exercised too. */
  static char a[1000];
  memset(a, 'a', sizeof a);
  bs__sha256 s;
  unsigned char d[BS__SHA256_LEN];
  char hex[BS__SHA256_HEXLEN + 1];
  bs__sha256_init(&s);
  size_t left = 1000000, step = 1;
  while (left) {
    size_t n = step < left ? step : left;
    bs__sha256_update(&s, a, n);
    left -= n;
    step = step % 991 + 7; /* at most 997 < sizeof a */
  }
  bs__sha256_final(&s, d);
  bs__sha256_tohex(d, hex);
  cr_assert_str_eq(
      hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

Test(sha256, fips_180_4_896_bit_message) {
  const char *m = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                  "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
  expect_hex(
      m, strlen(m),
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

/* Every split of a message into two updates gives the one-shot digest. */
Test(sha256, incremental_equals_one_shot) {
  unsigned char msg[200];
  for (size_t i = 0; i < sizeof msg; i++)
    msg[i] = (unsigned char)(i * 37u + 11u);
  for (size_t n = 0; n <= sizeof msg; n++) {
    char want[BS__SHA256_HEXLEN + 1], got[BS__SHA256_HEXLEN + 1];
    bs__sha256_hex(msg, n, want);
    for (size_t cut = 0; cut <= n; cut++) {
      bs__sha256 s;
      unsigned char d[BS__SHA256_LEN];
      bs__sha256_init(&s);
      bs__sha256_update(&s, msg, cut);
      bs__sha256_update(&s, msg + cut, n - cut);
      bs__sha256_final(&s, d);
      bs__sha256_tohex(d, got);
      cr_assert_str_eq(got, want, "length %zu cut at %zu", n, cut);
    }
  }
}

/* tests/data/archive/sha256/SHA256SUMS.expected was written by coreutils
 * sha256sum (make_sha256_fixtures.sh); lengths straddle the padding
 * boundaries and the bytes are binary. */
Test(sha256, matches_coreutils_sha256sum) {
  char *dir = ts_data("archive/sha256");
  char *sums_path = ts_path(dir, "SHA256SUMS.expected");
  FILE *f = fopen(sums_path, "r");
  cr_assert_not_null(f, "cannot open %s", sums_path);
  char line[512];
  int checked = 0;
  while (fgets(line, sizeof line, f)) {
    char *nl = strchr(line, '\n');
    if (nl)
      *nl = '\0';
    cr_assert_gt(strlen(line), 66);
    cr_assert(line[64] == ' ' && line[65] == ' ', "line: %s", line);
    line[64] = '\0';
    char *file = ts_path(dir, line + 66);
    FILE *in = fopen(file, "rb");
    cr_assert_not_null(in, "cannot open %s", file);
    bs__sha256 s;
    bs__sha256_init(&s);
    char buf[777]; /* an odd size: reads end mid-block */
    size_t r;
    while ((r = fread(buf, 1, sizeof buf, in)) > 0)
      bs__sha256_update(&s, buf, r);
    fclose(in);
    unsigned char d[BS__SHA256_LEN];
    char hex[BS__SHA256_HEXLEN + 1];
    bs__sha256_final(&s, d);
    bs__sha256_tohex(d, hex);
    cr_assert_str_eq(hex, line, "%s", file);
    free(file);
    checked++;
  }
  fclose(f);
  cr_assert_geq(checked, 14);
  free(sums_path);
  free(dir);
}
