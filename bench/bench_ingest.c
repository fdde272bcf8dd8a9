/* Ingest speed of the observation log reader (issue 6 targets: a 100 MB log
 * at >= 100 MB/s, peak memory <= 2x the parsed rows). Prints figures;
 * asserts nothing (the script compares them with Python's csv module).
 *
 *   bench_ingest --generate FILE MB   writes a realistic log of about MB
 *                                     megabytes (10^6 bytes) to FILE: few
 *                                     large cases (1520 confirm rows each)
 *   bench_ingest --generate-small FILE MB
 *                                     the same size in many small cases,
 *                                     as a CI run of a large suite writes
 *                                     them: 20 blocks of two impls each
 *                                     (about 49 450 cases in 100 MB)
 *   bench_ingest FILE [REPS]          reads FILE REPS times (default 3)
 *                                     with bs_log_read_file and reports the
 *                                     best time, MB/s and peak RSS
 *   bench_ingest --libcsv FILE        the floor: libcsv alone counting the
 *                                     fields and records of FILE (the
 *                                     options benchsite uses), printing
 *                                     "FIELDS RECORDS"
 *   bench_ingest --floor FILE         the floor of a reader that keeps
 *                                     the rows: read(2) in 256 KiB blocks
 *                                     into one buffer, libcsv, every
 *                                     number converted exactly (the
 *                                     reader's own converters), each name
 *                                     compared with the row before's, and
 *                                     a row of the reader's size stored
 *                                     per record in memory grown as the
 *                                     reader grows its rows; nothing
 *                                     validated, no case looked up.
 *                                     Prints "ROWS CPU_S" */
#include "benchsite/benchsite.h"

#include "bigmem.h"
#include "num.h"

#include <csv.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this process: on a shared machine it says what the reader
 * costs when wall time also counts other processes. */
static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Timing-like values as a benchmark runner prints them (%.17g). */
static double sample(bs_rng *r, double base) {
  double u = (double)(bs_rng_next(r) >> 11) * 0x1.0p-53;
  double v = (double)(bs_rng_next(r) >> 11) * 0x1.0p-53;
  return base * (1.0 + 0.04 * (u + v - 1.0) + (u > 0.97 ? 0.2 * v : 0.0));
}

/* Cases of 19 runs x 20 blocks x 4 impls (1520 confirm rows) plus a short
 * calibration per impl, in measurement order, until `bytes` are written. */
static int generate(const char *path, double mb) {
  static const char *const impls[] = {"main", "pr", "simd_v2", "scalar"};
  static const char *const names[] = {"sort", "hash_map_insert", "sum",
                                      "matmul", "parse_json"};
  FILE *f = fopen(path, "w");
  if (!f)
    return -1;
  bs_rng g;
  bs_rng_seed(&g, 42);
  long long bytes = (long long)(mb * 1e6), written = 0;
  int n = fprintf(f, "benchmark,dataset,scale,impl,run,block,phase,"
                     "iterations,per_call_us\n");
  written += n;
  for (int c = 0; written < bytes; c++) {
    const char *name = names[c % 5];
    unsigned scale = 1u << (4 + c % 20);
    double base = 0.5 + (double)(c % 97) * 3.25;
    long last[4] = {1, 1, 1, 1};
    for (int k = 0; k < 4 && written < bytes; k++) {
      /* Calibration by the runner's rule (T = 5 ms, the Development
       * protocol), so that 'benchsite check' finds nothing: n' = max(n +
       * 1, ceil(n T / t)) with t = n * per_call_us as printed. */
      long iters = 1;
      for (;;) {
        double pc = sample(&g, base * (1 + 0.01 * k));
        n = fprintf(f, "%s_%03d,n=%u,%u,%s,0,,calibration,%ld,%.17g\n", name,
                    c / 5, scale, scale, impls[k], iters, pc);
        written += n;
        double t = (double)iters * pc; /* %.17g reads back as pc */
        if (t >= 5000.0)
          break;
        double want = ceil((double)iters * 5000.0 / t);
        iters = want > (double)(iters + 1) ? (long)want : iters + 1;
      }
      last[k] = iters;
    }
    for (int run = 0; run < 19 && written < bytes; run++)
      for (int b = 0; b < 20 && written < bytes; b++)
        for (int k = 0; k < 4; k++) {
          int which = (b + k) % 4;
          n = fprintf(f, "%s_%03d,n=%u,%u,%s,%d,%d,confirm,%ld,%.17g\n", name,
                      c / 5, scale, scale, impls[which], run, b, last[which],
                      sample(&g, base * (1 + 0.01 * which)));
          written += n;
        }
  }
  return fclose(f);
}

/* Many small cases: per case a calibration of each of two impls by the
 * runner's rule, then 20 rotated blocks of both (one run), the columns a
 * CI log of `benchsite run` needs and no more. */
static int generate_small(const char *path, double mb) {
  static const char *const impls[] = {"main", "pr"};
  FILE *f = fopen(path, "w");
  if (!f)
    return -1;
  bs_rng g;
  bs_rng_seed(&g, 7);
  long long bytes = (long long)(mb * 1e6), written = 0;
  int n = fprintf(f, "benchmark,impl,block,phase,iterations,per_call_us\n");
  written += n;
  for (int c = 0; written < bytes; c++) {
    double base = 0.5 + (double)(c % 89) * 1.75;
    long last[2] = {1, 1};
    for (int k = 0; k < 2 && written < bytes; k++) {
      long iters = 1;
      for (;;) {
        /* The rule on the value as printed, as check reads it back. */
        char v[32];
        snprintf(v, sizeof v, "%.17g", sample(&g, base * (1 + 0.01 * k)));
        n = fprintf(f, "c%06d,%s,,calibration,%ld,%s\n", c, impls[k], iters, v);
        written += n;
        double t = (double)iters * strtod(v, NULL);
        if (t >= 5000.0)
          break;
        double want = ceil((double)iters * 5000.0 / t);
        iters = want > (double)(iters + 1) ? (long)want : iters + 1;
      }
      last[k] = iters;
    }
    for (int b = 0; b < 20 && written < bytes; b++)
      for (int k = 0; k < 2; k++) {
        int which = (b + k) % 2;
        n = fprintf(f, "c%06d,%s,%d,confirm,%ld,%.17g\n", c, impls[which], b,
                    last[which], sample(&g, base * (1 + 0.01 * which)));
        written += n;
      }
  }
  return fclose(f);
}

static void count_field(void *s, size_t len, void *data) {
  (void)s;
  (void)len;
  ((size_t *)data)[0]++;
}

static void count_record(int c, void *data) {
  (void)c;
  ((size_t *)data)[1]++;
}

/* Parses FILE with libcsv as benchsite sets it up, read(2) in 256 KiB
 * blocks into one buffer: 0, or 3 with a message. */
static int parse_file(const char *path, void (*field)(void *, size_t, void *),
                      void (*record)(int, void *), void *data) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    fprintf(stderr, "bench_ingest: cannot open %s\n", path);
    return 3;
  }
  struct csv_parser p;
  char *buf = malloc((size_t)1 << 18);
  if (!buf || csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) {
    fprintf(stderr, "bench_ingest: out of memory\n");
    free(buf);
    close(fd);
    return 3;
  }
  csv_set_blk_size(&p, 4096);
  int rc = 0;
  ssize_t n;
  while (!rc && (n = read(fd, buf, (size_t)1 << 18)) > 0)
    if (csv_parse(&p, buf, (size_t)n, field, record, data) != (size_t)n) {
      fprintf(stderr, "bench_ingest: %s: %s\n", path,
              csv_strerror(csv_error(&p)));
      rc = 3;
    }
  if (!rc && n < 0) {
    fprintf(stderr, "bench_ingest: cannot read %s\n", path);
    rc = 3;
  }
  if (!rc)
    csv_fini(&p, field, record, data);
  csv_free(&p);
  free(buf);
  close(fd);
  return rc;
}

/* libcsv and nothing else: parse_file, counting. */
static int libcsv_count(const char *path) {
  size_t counts[2] = {0, 0};
  if (parse_file(path, count_field, count_record, counts))
    return 3;
  printf("%zu %zu\n", counts[0], counts[1]);
  return 0;
}

/* ---- the floor of a row-keeping reader (--floor) ---- */

enum { F_SKIP, F_NAME, F_DOUBLE, F_U64 };

typedef struct floor_name {
  char *text;
  size_t len, cap;
} floor_name;

typedef struct floor_state {
  int header;   /* reading the header */
  int kind[64]; /* each column's kind (columns past 64: skipped) */
  size_t field; /* fields of the current record so far */
  floor_name name[64];
  bs_row row;   /* the current record's row */
  bs__big mem;  /* the rows' memory */
  bs_row *rows; /* max_rows of room */
  size_t nrows, max_rows;
  int bad;
} floor_state;

static int floor_kind(const char *s, size_t n) {
  static const char *const names[] = {"benchmark", "dataset", "impl", "phase"};
  static const char *const ints[] = {"run", "block", "iterations"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strlen(names[i]) == n && memcmp(names[i], s, n) == 0)
      return F_NAME;
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
    if (strlen(ints[i]) == n && memcmp(ints[i], s, n) == 0)
      return F_U64;
  /* scale and the metrics (per_call_us, cpu_per_call_us, max_rss_kib) */
  if ((n == 5 && memcmp(s, "scale", 5) == 0) ||
      (n > 7 && memcmp(s + n - 7, "call_us", 7) == 0) ||
      (n == 11 && memcmp(s, "max_rss_kib", 11) == 0))
    return F_DOUBLE;
  return F_SKIP;
}

static void floor_field(void *s, size_t len, void *data) {
  floor_state *st = data;
  const char *f = s ? s : "";
  size_t i = st->field++;
  if (st->header) {
    if (i < 64)
      st->kind[i] = floor_kind(f, len);
    return;
  }
  if (i >= 64)
    return;
  switch (st->kind[i]) {
  case F_NAME: { /* what interning starts with: the same as the row before? */
    floor_name *nm = &st->name[i];
    if (nm->len != len || (len > 0 && memcmp(nm->text, f, len) != 0)) {
      if (len > nm->cap) {
        char *t = realloc(nm->text, len);
        if (!t) {
          st->bad = 1;
          return;
        }
        nm->text = t;
        nm->cap = len;
      }
      memcpy(nm->text, f, len);
      nm->len = len;
    }
    st->row.impl = nm->text;
    break;
  }
  case F_DOUBLE: {
    double v;
    st->bad |= bs__num_double(f, len, &v) != BS__NUM_OK;
    st->row.per_call_us = v;
    break;
  }
  case F_U64: {
    uint64_t v = 0;
    if (len)
      st->bad |= bs__num_u64(f, len, &v) != BS__NUM_OK;
    st->row.iterations = v;
    st->row.block32 = (int32_t)v;
    break;
  }
  default:
    break;
  }
}

static void floor_record(int c, void *data) {
  (void)c;
  floor_state *st = data;
  st->field = 0;
  if (st->header) {
    st->header = 0;
    return;
  }
  if (st->nrows == st->max_rows) {
    /* Grown as the reader grows its rows: doubling, on huge pages. */
    size_t cap = st->max_rows ? 2 * st->max_rows : 4096;
    if (bs__big_reserve(&st->mem, cap * sizeof(bs_row), 0) != 0) {
      st->bad = 1;
      return;
    }
    st->rows = st->mem.p;
    st->max_rows = st->mem.cap / sizeof(bs_row);
  }
  st->row.line = (uint32_t)st->nrows + 2;
  st->rows[st->nrows++] = st->row;
}

static int floor_read(const char *path) {
  static floor_state st;
  st.header = 1;
  double c0 = cpu_s();
  if (parse_file(path, floor_field, floor_record, &st))
    return 3;
  double c = cpu_s() - c0;
  if (st.bad) {
    fprintf(stderr, "bench_ingest: %s: not a log the floor reads\n", path);
    return 3;
  }
  printf("%zu %.4f\n", st.nrows, c);
  bs__big_release(&st.mem);
  for (size_t i = 0; i < 64; i++)
    free(st.name[i].text);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--libcsv") == 0)
    return libcsv_count(argv[2]);
  if (argc == 3 && strcmp(argv[1], "--floor") == 0)
    return floor_read(argv[2]);
  if (argc == 4 && (strcmp(argv[1], "--generate") == 0 ||
                    strcmp(argv[1], "--generate-small") == 0)) {
    double mb = strtod(argv[3], NULL);
    if ((argv[1][10] ? generate_small(argv[2], mb) : generate(argv[2], mb)) !=
        0) {
      fprintf(stderr, "bench_ingest: cannot write %s\n", argv[2]);
      return 3;
    }
    return 0;
  }
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: bench_ingest --generate FILE MB\n"
                    "       bench_ingest --generate-small FILE MB\n"
                    "       bench_ingest FILE [REPS]\n"
                    "       bench_ingest --libcsv FILE\n"
                    "       bench_ingest --floor FILE\n");
    return 2;
  }
  const char *path = argv[1];
  int reps = argc == 3 ? (int)strtol(argv[2], NULL, 10) : 3;
  if (reps < 1)
    reps = 1;
  FILE *f = fopen(path, "rb");
  if (!f || fseek(f, 0, SEEK_END) != 0) {
    fprintf(stderr, "bench_ingest: cannot open %s\n", path);
    return 3;
  }
  double mb = (double)ftell(f) / 1e6;
  fclose(f);

  double best = 1e30, best_cpu = 1e30;
  size_t rows = 0, cases = 0;
  for (int i = 0; i < reps; i++) {
    bs_error err;
    bs_log *log = bs_log_new();
    double t0 = now_s(), c0 = cpu_s();
    if (!log || bs_log_read_file(log, path, &err) != BS_OK) {
      char msg[2048];
      bs_error_format(&err, msg, sizeof msg);
      fprintf(stderr, "bench_ingest: %s\n", msg);
      return 3;
    }
    double t = now_s() - t0, c = cpu_s() - c0;
    if (t < best)
      best = t;
    if (c < best_cpu)
      best_cpu = c;
    rows = bs_log_count(log);
    cases = bs_log_case_count(log);
    bs_log_free(log);
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double rss_mb = (double)ru.ru_maxrss * 1024.0 / 1e6;
  double rows_mb = (double)rows * (double)sizeof(bs_row) / 1e6;
  printf("bs_log_read_file: %.1f MB, %zu rows, %zu cases: best of %d "
         "%.3f s = %.1f MB/s (CPU time %.3f s = %.1f MB/s)\n",
         mb, rows, cases, reps, best, mb / best, best_cpu, mb / best_cpu);
  printf("peak RSS %.1f MB = %.2fx the parsed rows (%zu x %zu B = %.1f MB)\n",
         rss_mb, rss_mb / rows_mb, rows, sizeof(bs_row), rows_mb);
  printf("RESULT mb_per_s=%.2f cpu_mb_per_s=%.2f seconds=%.4f rss_mb=%.2f "
         "rows_mb=%.2f\n",
         mb / best, mb / best_cpu, best, rss_mb, rows_mb);
  return 0;
}
