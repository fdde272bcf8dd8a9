#include "sha256.h"

#include <string.h>

_Static_assert(BS__SHA256_LEN == SHA256_DIGEST_SIZE, "SHA-256 digest size");

void bs__sha256_init(bs__sha256 *s) { sha256_init(&s->ctx); }

void bs__sha256_update(bs__sha256 *s, const void *data, size_t n) {
  if (n)
    sha256_update(&s->ctx, n, (const uint8_t *)data);
}

void bs__sha256_final(bs__sha256 *s, unsigned char out[BS__SHA256_LEN]) {
  sha256_digest(&s->ctx, BS__SHA256_LEN, out);
  memset(s, 0, sizeof *s);
}

void bs__sha256_tohex(const unsigned char digest[BS__SHA256_LEN],
                      char hex[BS__SHA256_HEXLEN + 1]) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < BS__SHA256_LEN; i++) {
    hex[2 * i] = digits[digest[i] >> 4];
    hex[2 * i + 1] = digits[digest[i] & 15];
  }
  hex[BS__SHA256_HEXLEN] = '\0';
}

void bs__sha256_hex(const void *data, size_t n,
                    char hex[BS__SHA256_HEXLEN + 1]) {
  bs__sha256 s;
  unsigned char d[BS__SHA256_LEN];
  bs__sha256_init(&s);
  bs__sha256_update(&s, data, n);
  bs__sha256_final(&s, d);
  bs__sha256_tohex(d, hex);
}
