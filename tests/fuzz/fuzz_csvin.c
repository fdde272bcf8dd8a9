/* libFuzzer target: the line-tracking CSV feed (src/base/csvin.c) under any
 * split of the input. Reading a file in blocks must give exactly what one
 * buffer gives: the same fields, records, record lines and error (status,
 * line, column, message), wherever the blocks end (inside a CRLF, a BOM, a
 * quoted field, a UTF-8 sequence). The first 8 bytes seed the block
 * sizes. */
#include "csvin.h"

#include "fuzz_util.h"

typedef struct trace {
  char *s; /* fields and record ends, serialised */
  size_t n, cap;
  bs__csvin *in;
} trace;

static void add(trace *t, const void *p, size_t n) {
  if (t->n + n > t->cap) {
    t->cap = (t->n + n) * 2 + 64;
    t->s = realloc(t->s, t->cap);
    if (!t->s)
      abort();
  }
  memcpy(t->s + t->n, p, n);
  t->n += n;
}

static void on_field(void *ctx, const char *s, size_t len) {
  trace *t = ctx;
  if (len > 300) { /* the contract of bs__csvin.max_field */
    bs__csvin_fail(t->in, BS_ELIMIT, t->in->rec_line, 0,
                   "field longer than %zu bytes", (size_t)300);
    return;
  }
  char hdr[64];
  int k = snprintf(hdr, sizeof hdr, "F%zu:", len);
  add(t, hdr, (size_t)k);
  if (len)
    add(t, s, len);
}

static void on_record(void *ctx) {
  trace *t = ctx;
  char hdr[64];
  int k = snprintf(hdr, sizeof hdr, "R@%ld\n", t->in->rec_line);
  add(t, hdr, (size_t)k);
}

static bs_status run(const uint8_t *data, size_t size, uint64_t seed, trace *t,
                     bs_error *err) {
  bs__csvin in;
  t->in = &in;
  bs_status st = bs__csvin_init(&in, "x.csv", err, 300, on_field, on_record, t);
  size_t pos = 0;
  while (st == BS_OK && pos < size) {
    size_t n = size - pos;
    if (seed) {
      seed ^= seed << 13;
      seed ^= seed >> 7;
      seed ^= seed << 17;
      size_t k = 1 + (size_t)(seed % 9);
      if (k < n)
        n = k;
    }
    st = bs__csvin_feed(&in, (const char *)data + pos, n);
    pos += n;
  }
  if (st == BS_OK)
    st = bs__csvin_finish(&in);
  bs__csvin_release(&in);
  return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 8)
    return 0;
  uint64_t seed = 0;
  for (int i = 0; i < 8; i++)
    seed = seed << 8 | data[i];
  seed |= 1;
  data += 8;
  size -= 8;
  trace a = {0}, b = {0};
  bs_error ea, eb;
  bs_error_clear(&ea);
  bs_error_clear(&eb);
  bs_status sa = run(data, size, 0, &a, &ea);
  bs_status sb = run(data, size, seed, &b, &eb);
  FUZZ_CHECK(sa == sb, "status %d whole, %d in blocks", (int)sa, (int)sb);
  FUZZ_CHECK(a.n == b.n && (a.n == 0 || memcmp(a.s, b.s, a.n) == 0),
             "different fields or records in blocks");
  if (sa != BS_OK) {
    FUZZ_CHECK(ea.line == eb.line && ea.column == eb.column &&
                   strcmp(ea.message, eb.message) == 0,
               "error %ld:%ld %s whole, %ld:%ld %s in blocks", ea.line,
               ea.column, ea.message, eb.line, eb.column, eb.message);
    fz_check_message(&ea);
  }
  free(a.s);
  free(b.s);
  return 0;
}
