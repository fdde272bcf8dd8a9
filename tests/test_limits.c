/* Every cap of bs_log_limits and of the manifest reader: the value at the
 * cap is accepted, one more is a BS_ELIMIT error with file:line, and the
 * log is left as it was before the failed read. */
#include "benchsite/log.h"
#include "benchsite/manifest.h"

#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char errtext[2048];

static const char *fmt_err(const bs_error *e) {
  bs_error_format(e, errtext, sizeof errtext);
  return errtext;
}

/* A growable string for building big inputs. */
typedef struct sb {
  char *s;
  size_t n, cap;
} sb;

static void sb_add(sb *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    b->cap = (b->n + n + 1) * 2;
    b->s = realloc(b->s, b->cap);
  }
  memcpy(b->s + b->n, s, n);
  b->n += n;
  b->s[b->n] = '\0';
}

static void sb_puts(sb *b, const char *s) { sb_add(b, s, strlen(s)); }

static void sb_rep(sb *b, char c, size_t n) {
  for (size_t i = 0; i < n; i++)
    sb_add(b, &c, 1);
}

static bs_status read_sb(bs_log *log, const char *name, const sb *b,
                         bs_error *err) {
  return bs_log_read_buffer(log, name, b->s, b->n, err);
}

Test(limits, defaults_are_the_documented_values) {
  cr_assert_eq(BS_LOG_DEFAULT_MAX_FIELD_BYTES, 4096);
  cr_assert_eq(BS_LOG_DEFAULT_MAX_COLUMNS, 256);
  cr_assert_eq(BS_LOG_DEFAULT_MAX_ROWS, 20000000);
  cr_assert_eq(BS_LOG_DEFAULT_MAX_CASE_ROWS, 100000);
  cr_assert_eq(BS_LOG_DEFAULT_MAX_MEMORY_BYTES, (size_t)2 << 30);
}

Test(limits, field_at_the_cap_is_read_one_more_is_refused) {
  for (int quoted = 0; quoted < 2; quoted++) {
    sb b = {0};
    sb_puts(&b, "benchmark,impl,block,per_call_us\n");
    sb_puts(&b, quoted ? "\"" : "");
    sb_rep(&b, 'a', 4095);
    sb_puts(&b, quoted ? "\n\"" : "b"); /* 4096 bytes, or a line break */
    sb_puts(&b, ",main,0,1\n");
    bs_log *log = bs_log_new();
    bs_error err;
    cr_assert_eq(read_sb(log, "f.csv", &b, &err), BS_OK, "%s", fmt_err(&err));
    cr_assert_eq(strlen(bs_log_row_case(log, &bs_log_rows(log)[0])->benchmark),
                 4096);
    b.n = 0;
    sb_puts(&b, "benchmark,impl,block,per_call_us\nok,main,0,1\n");
    sb_puts(&b, quoted ? "\"x\n" : "x");
    sb_rep(&b, 'a', 4096);
    sb_puts(&b, quoted ? "\"" : "");
    sb_puts(&b, ",main,1,1\n");
    cr_assert_eq(read_sb(log, "f.csv", &b, &err), BS_ELIMIT);
    cr_assert_str_eq(fmt_err(&err), "f.csv:3: field longer than 4096 bytes");
    cr_assert_eq(bs_log_count(log), 1, "the failed read kept nothing");
    bs_log_free(log);
    free(b.s);
  }
}

Test(limits, field_cap_holds_for_a_field_longer_than_a_feed_piece) {
  sb b = {0};
  sb_puts(&b, "benchmark,impl,block,per_call_us\n\"");
  sb_rep(&b, 'a', 3 << 20); /* many 64 KiB pieces, one field */
  sb_puts(&b, "\",main,0,1\n");
  bs_log *log = bs_log_new();
  bs_log_limits lim = {.max_field_bytes = 1 << 20};
  bs_log_set_limits(log, &lim);
  bs_error err;
  cr_assert_eq(read_sb(log, "f.csv", &b, &err), BS_ELIMIT);
  cr_assert_str_eq(fmt_err(&err), "f.csv:2: field longer than 1048576 bytes");
  bs_log_free(log);
  free(b.s);
}

Test(limits, columns_at_the_cap_are_read_one_more_is_refused) {
  sb b = {0};
  sb_puts(&b, "benchmark,impl,block,per_call_us");
  for (int i = 4; i < 256; i++) {
    char c[16];
    snprintf(c, sizeof c, ",c%d", i);
    sb_puts(&b, c);
  }
  sb_puts(&b, "\n");
  bs_log *log = bs_log_new();
  bs_error err;
  cr_assert_eq(read_sb(log, "c.csv", &b, &err), BS_OK, "%s", fmt_err(&err));
  cr_assert_eq(bs_log_unknown_count(log), 252);
  b.n--; /* drop the newline */
  sb_puts(&b, ",one_more\n");
  cr_assert_eq(read_sb(log, "c.csv", &b, &err), BS_ELIMIT);
  cr_assert_str_eq(fmt_err(&err), "c.csv:1: more than 256 columns");
  cr_assert_eq(bs_log_unknown_count(log), 252, "the failed read kept nothing");
  bs_log_free(log);
  free(b.s);
}

Test(limits, extra_fields_in_a_record_are_counted_not_stored) {
  sb b = {0};
  sb_puts(&b, "benchmark,impl,block,per_call_us\nsort,main,0,1");
  sb_rep(&b, ',', 1000000);
  sb_puts(&b, "\n");
  bs_log *log = bs_log_new();
  bs_log_limits lim = {.max_memory_bytes = 1 << 20}; /* far below 1M spans */
  bs_log_set_limits(log, &lim);
  bs_error err;
  cr_assert_eq(read_sb(log, "x.csv", &b, &err), BS_EINPUT);
  cr_assert_str_eq(fmt_err(&err), "x.csv:2: expected 4 fields, found 1000004");
  bs_log_free(log);
  free(b.s);
}

Test(limits, total_rows_span_files) {
  bs_log *log = bs_log_new();
  bs_log_limits lim = {.max_rows = 3};
  bs_log_set_limits(log, &lim);
  bs_error err;
  const char *a = "benchmark,impl,block,per_call_us\ns,x,0,1\ns,x,1,1\n";
  const char *b = "benchmark,impl,block,per_call_us\nt,x,0,1\nt,x,1,1\n";
  cr_assert_eq(bs_log_read_buffer(log, "a.csv", a, strlen(a), &err), BS_OK);
  cr_assert_eq(bs_log_read_buffer(log, "b.csv", b, strlen(b), &err), BS_ELIMIT);
  cr_assert_str_eq(fmt_err(&err), "b.csv:3: more than 3 rows");
  cr_assert_eq(bs_log_count(log), 2);
  cr_assert_eq(bs_log_case_count(log), 1, "the new case was forgotten");
  bs_log_free(log);
}

Test(limits, rows_of_one_case) {
  bs_log *log = bs_log_new();
  bs_log_limits lim = {.max_case_rows = 3};
  bs_log_set_limits(log, &lim);
  bs_error err;
  const char *a = "benchmark,dataset,impl,block,per_call_us\n"
                  "s,d,x,0,1\ns,d,y,0,1\ns,e,x,0,1\ns,d,x,1,1\n";
  cr_assert_eq(bs_log_read_buffer(log, "a.csv", a, strlen(a), &err), BS_OK,
               "%s", fmt_err(&err));
  /* Across files too: a fourth row of (s, d). */
  const char *b = "benchmark,dataset,impl,block,per_call_us\n"
                  "s,e,y,0,1\ns,d,y,1,1\n";
  cr_assert_eq(bs_log_read_buffer(log, "b.csv", b, strlen(b), &err), BS_ELIMIT);
  cr_assert_str_eq(fmt_err(&err), "b.csv:3: more than 3 rows for benchmark "
                                  "\"s\", dataset \"d\"");
  cr_assert_eq(bs_log_count(log), 4);
  /* The failed read is forgotten: (s, e) can still take two more rows. */
  const char *c = "benchmark,dataset,impl,block,per_call_us\n"
                  "s,e,y,0,1\ns,e,y,1,1\n";
  cr_assert_eq(bs_log_read_buffer(log, "c.csv", c, strlen(c), &err), BS_OK,
               "%s", fmt_err(&err));
  cr_assert_eq(bs_log_count(log), 6);
  bs_log_free(log);
}

Test(limits, memory_cap_refuses_a_log_that_needs_more) {
  sb b = {0};
  sb_puts(&b, "benchmark,impl,block,per_call_us\n");
  for (int j = 0; j < 20000; j++) {
    char row[64];
    snprintf(row, sizeof row, "sort,main,%d,1.5\n", j);
    sb_puts(&b, row);
  }
  bs_log *log = bs_log_new();
  bs_log_limits lim = {.max_memory_bytes = 1 << 20};
  bs_log_set_limits(log, &lim);
  bs_error err;
  const char *small = "benchmark,impl,block,per_call_us\nx,main,0,1\n";
  cr_assert_eq(bs_log_read_buffer(log, "s.csv", small, strlen(small), &err),
               BS_OK);
  cr_assert_eq(read_sb(log, "big.csv", &b, &err), BS_ELIMIT);
  cr_assert(strncmp(fmt_err(&err), "big.csv:", 8) == 0, "%s", errtext);
  cr_assert(strstr(errtext, ": the log needs more than 1048576 bytes of "
                            "memory"),
            "%s", errtext);
  cr_assert_eq(bs_log_count(log), 1, "the failed read kept nothing");
  cr_assert_eq(bs_log_case_count(log), 1);
  bs_log_free(log);

  /* The same log fits the default. */
  log = bs_log_new();
  cr_assert_eq(read_sb(log, "big.csv", &b, &err), BS_OK, "%s", fmt_err(&err));
  cr_assert_eq(bs_log_count(log), 20000);
  bs_log_free(log);
  free(b.s);
}

Test(limits, memory_cap_counts_names) {
  /* Few rows, but every one with a new 4 KiB name. */
  sb b = {0};
  sb_puts(&b, "benchmark,impl,block,per_call_us\n");
  for (int j = 0; j < 400; j++) {
    char id[32];
    snprintf(id, sizeof id, "%05d", j);
    sb_puts(&b, id);
    sb_rep(&b, 'n', 4000);
    sb_puts(&b, ",main,0,1\n");
  }
  bs_log *log = bs_log_new();
  bs_log_limits lim = {.max_memory_bytes = 1 << 20};
  bs_log_set_limits(log, &lim);
  bs_error err;
  cr_assert_eq(read_sb(log, "n.csv", &b, &err), BS_ELIMIT);
  cr_assert(strstr(fmt_err(&err), "the log needs more than 1048576 bytes of "
                                  "memory"),
            "%s", errtext);
  cr_assert_gt(err.line, 200, "it failed late: %s", errtext);
  bs_log_free(log);
  free(b.s);
}

Test(limits, set_limits_null_restores_the_defaults) {
  bs_log *log = bs_log_new();
  bs_log_limits lim = {.max_rows = 1};
  bs_log_set_limits(log, &lim);
  bs_log_set_limits(log, NULL);
  const char *a = "benchmark,impl,block,per_call_us\ns,x,0,1\ns,x,1,1\n";
  bs_error err;
  cr_assert_eq(bs_log_read_buffer(log, "a.csv", a, strlen(a), &err), BS_OK);
  bs_log_free(log);
}

static bs_status read_manifest(bs_manifest *m, const sb *b, bs_error *err) {
  return bs_manifest_read_buffer(m, "m.csv", b->s, b->n, err);
}

Test(limits, manifest_entries) {
  sb b = {0};
  sb_puts(&b, "key,value\n");
  for (int i = 0; i < 10000; i++) {
    char kv[32];
    snprintf(kv, sizeof kv, "k%d,v\n", i);
    sb_puts(&b, kv);
  }
  bs_manifest *m = bs_manifest_new();
  bs_error err;
  cr_assert_eq(read_manifest(m, &b, &err), BS_OK, "%s", fmt_err(&err));
  cr_assert_eq(bs_manifest_count(m), 10000);
  sb_puts(&b, "one_more,v\n");
  cr_assert_eq(read_manifest(m, &b, &err), BS_ELIMIT);
  cr_assert_str_eq(fmt_err(&err), "m.csv:10002: more than 10000 entries");
  cr_assert_eq(bs_manifest_count(m), 0);
  bs_manifest_free(m);
  free(b.s);
}

Test(limits, manifest_field) {
  sb b = {0};
  sb_puts(&b, "key,value\nnote,");
  sb_rep(&b, 'x', 65536);
  sb_puts(&b, "\n");
  bs_manifest *m = bs_manifest_new();
  bs_error err;
  cr_assert_eq(read_manifest(m, &b, &err), BS_OK, "%s", fmt_err(&err));
  cr_assert_eq(strlen(bs_manifest_get(m, "note")), 65536);
  sb_puts(&b, "more,\"");
  sb_rep(&b, 'x', 65537);
  sb_puts(&b, "\"\n");
  cr_assert_eq(read_manifest(m, &b, &err), BS_ELIMIT);
  cr_assert_str_eq(fmt_err(&err), "m.csv:3: field longer than 65536 bytes");
  bs_manifest_free(m);
  free(b.s);
}

Test(limits, manifest_file_size) {
  sb b = {0};
  sb_puts(&b, "key,value\ntarget,native\n");
  sb_rep(&b, '\n', (16 << 20) - b.n); /* exactly 16 MiB */
  bs_manifest *m = bs_manifest_new();
  bs_error err;
  cr_assert_eq(read_manifest(m, &b, &err), BS_OK, "%s", fmt_err(&err));
  char *dir = ts_tmpdir("limits_manifest");
  char *path = ts_path(dir, "big.csv");
  cr_assert_eq(ts_write(path, b.s), 0);
  cr_assert_eq(bs_manifest_read_file(m, path, &err), BS_OK, "%s",
               fmt_err(&err));
  sb_puts(&b, "\n");
  cr_assert_eq(ts_write(path, b.s), 0);
  cr_assert_eq(bs_manifest_read_file(m, path, &err), BS_ELIMIT);
  char want[1024];
  snprintf(want, sizeof want,
           "%s: file is larger than the limit of 16777216 bytes", path);
  cr_assert_str_eq(fmt_err(&err), want);
  cr_assert_eq(read_manifest(m, &b, &err), BS_ELIMIT);
  bs_manifest_free(m);
  free(path);
  free(dir);
  free(b.s);
}

Test(limits, a_log_file_is_read_in_blocks) {
  /* Line numbers, CRLF pairs and fields stay right across the reader's
   * 256 KiB blocks and 64 KiB pieces. */
  sb b = {0};
  sb_puts(&b, "\xEF\xBB\xBF"
              "benchmark,impl,block,per_call_us\r\n");
  int rows = 60000;
  for (int j = 0; j < rows; j++) {
    char row[96];
    snprintf(row, sizeof row, "\"be\nnch\",%s,%d,%d.5%s", j % 2 ? "a" : "b",
             j / 2, j % 7 + 1,
             j % 3 == 0   ? "\n"
             : j % 3 == 1 ? "\r"
                          : "\r\n");
    sb_puts(&b, row);
  }
  char *dir = ts_tmpdir("limits_blocks");
  char *path = ts_path(dir, "blocks.csv");
  cr_assert_eq(ts_write(path, b.s), 0);
  bs_log *log = bs_log_new();
  bs_error err;
  cr_assert_eq(bs_log_read_file(log, path, &err), BS_OK, "%s", fmt_err(&err));
  cr_assert_eq(bs_log_count(log), (size_t)rows);
  const bs_row *r = bs_log_rows(log);
  for (int j = 0; j < rows; j++) {
    cr_assert_eq(r[j].line, 2 + 2 * j, "row %d at line %ld", j,
                 (long)r[j].line);
    cr_assert_eq(r[j].per_call_us, j % 7 + 1.5);
  }
  cr_assert_str_eq(bs_log_row_case(log, &r[rows - 1])->benchmark, "be\nnch");
  bs_log_free(log);
  free(path);
  free(dir);
  free(b.s);
}
