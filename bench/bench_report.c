/* Times `benchsite report` stage by stage through the library:
 *   bench_report LOG MANIFEST OUT TEMPLATES ASSETS [CHARTS_PER_PROCESS]
 * Prints one line of figures per run (wall and CPU time, per chart). */
#include "benchsite/log.h"
#include "benchsite/manifest.h"
#include "benchsite/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double cpu_ms(void) {
  struct rusage self, kids;
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &kids);
  double s = (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec +
                      kids.ru_utime.tv_sec + kids.ru_stime.tv_sec);
  double us = (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec +
                       kids.ru_utime.tv_usec + kids.ru_stime.tv_usec);
  return s * 1e3 + us / 1e3;
}

typedef struct marks {
  double start, charts_begin, charts_end, pages_begin;
  int in_charts;
} marks;

static int on_progress(void *ctx, const char *stage, size_t done,
                       size_t total) {
  marks *m = ctx;
  double t = now_ms();
  if (!strcmp(stage, "charts")) {
    if (!m->in_charts) {
      m->in_charts = 1;
      m->charts_begin = t;
    }
    if (done == total)
      m->charts_end = t;
  } else if (!strcmp(stage, "pages") && done == 0) {
    m->pages_begin = t;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 6) {
    fputs("usage: bench_report LOG MANIFEST OUT TEMPLATES ASSETS "
          "[CHARTS_PER_PROCESS]\n",
          stderr);
    return 2;
  }
  bs_error err;
  bs_error_clear(&err);
  bs_log *log = bs_log_new();
  bs_manifest *mf = bs_manifest_new();
  if (!log || !mf || bs_log_read_file(log, argv[1], &err) ||
      bs_manifest_read_file(mf, argv[2], &err)) {
    char msg[2048];
    bs_error_format(&err, msg, sizeof msg);
    fprintf(stderr, "bench_report: %s\n", msg);
    return 2;
  }
  bs_report_options o;
  bs_report_options_init(&o);
  o.templates_dir = argv[4];
  o.assets_dir = argv[5];
  o.charts_per_process = argc > 6 ? (size_t)strtoull(argv[6], NULL, 10) : 0;
  marks m;
  memset(&m, 0, sizeof m);
  o.progress = on_progress;
  o.progress_ctx = &m;
  const bs_manifest *const env[] = {mf};
  bs_report_summary sum;
  double c0 = cpu_ms();
  m.start = now_ms();
  bs_analysis *an = NULL;
  bs_status st = bs_analyse(log, env, 1, NULL, &an, &err);
  if (!st)
    st = bs_report_write(an, argv[3], &o, &sum, &err);
  bs_analysis_free(an);
  double end = now_ms();
  double cpu = cpu_ms() - c0;
  if (st) {
    char msg[2048];
    bs_error_format(&err, msg, sizeof msg);
    fprintf(stderr, "bench_report: %s\n", msg);
    return 3;
  }
  double total = end - m.start, n = (double)sum.charts;
  printf("%zu cases, %zu charts, %zu per process: total %.0f ms wall "
         "(%.2f ms/chart), %.0f ms CPU (%.2f ms/chart); analysis %.0f ms, "
         "gnuplot %.0f ms (%.2f ms/chart), pages %.0f ms\n",
         sum.cases, sum.charts,
         o.charts_per_process ? o.charts_per_process : sum.charts, total,
         total / n, cpu, cpu / n, m.charts_begin - m.start,
         m.charts_end - m.charts_begin, (m.charts_end - m.charts_begin) / n,
         end - m.pages_begin);
  bs_log_free(log);
  bs_manifest_free(mf);
  return 0;
}
