/* Times the SVG compaction (src/views/svgmin.c) and the SVG check
 * (src/views/plotsafe.c) on hostile charts of a given size: what a
 * gnuplot fed hostile data, or a hostile gnuplot, could write. CPU time
 * of this process, the least of REPS runs each.
 *
 * The shapes, each about BYTES long:
 *   chain    definitions that each use the one before, the last used by
 *            nothing: every one of them draws nothing, found one after
 *            the other (the compaction was cubic in their number);
 *   unused   definitions nothing uses, beside as many elements whose
 *            attributes hold '#' references to other names;
 *   hashes   definitions and one attribute of '#' after '#';
 *   groups   neighbouring groups with the same attributes, each holding
 *            a text node (merged into one group);
 *   nested   groups 250 deep, each with a colour and a transform, around
 *            the bulk of the chart;
 *   plain    gnuplot-like lines and points (the ordinary case).
 *
 * usage: bench_svgmin [BYTES [REPS [SHAPE [OUT]]]]
 *   (default 1048576 3, every shape). With OUT, writes the SHAPE chart
 *   to OUT and times nothing (for a peer's parser). */
#include "plotsafe.h"
#include "svgmin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct text {
  char *s;
  size_t len, cap;
} text;

static void put(text *t, const char *s) {
  size_t n = strlen(s);
  if (t->len + n + 1 > t->cap) {
    t->cap = (t->len + n + 1) * 2;
    t->s = realloc(t->s, t->cap);
    if (!t->s) {
      fputs("bench_svgmin: out of memory\n", stderr);
      exit(3);
    }
  }
  memcpy(t->s + t->len, s, n + 1);
  t->len += n;
}

#define HEAD                                                                   \
  "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"                               \
  "<svg viewBox=\"0 0 600 400\" xmlns=\"http://www.w3.org/2000/svg\" "         \
  "xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"

static void chart(text *t, const char *shape, size_t bytes) {
  char line[256];
  put(t, HEAD);
  if (!strcmp(shape, "chain")) {
    put(t, "<defs>\n");
    for (size_t i = 0; t->len < bytes; i++) {
      if (i == 0)
        snprintf(line, sizeof line, "<path id='d%zu' d='M0,0L1,1'/>\n", i);
      else
        snprintf(line, sizeof line,
                 "<use id='d%zu' xlink:href='#d%zu' x='1'/>\n", i, i - 1);
      put(t, line);
    }
    put(t, "</defs>\n<path d='M0,0L9,9' stroke='black'/>\n");
  } else if (!strcmp(shape, "unused")) {
    put(t, "<defs>\n");
    for (size_t i = 0; t->len < bytes / 2; i++) {
      snprintf(line, sizeof line, "<circle id='u%zu' r='1'/>\n", i);
      put(t, line);
    }
    put(t, "</defs>\n");
    for (size_t i = 0; t->len < bytes; i++) {
      snprintf(line, sizeof line,
               "<path d='M%zu,0L1,1' fill='url(#x%zu)' stroke='#000'/>\n",
               i % 600, i);
      put(t, line);
    }
  } else if (!strcmp(shape, "hashes")) {
    put(t, "<defs>\n");
    for (size_t i = 0; t->len < bytes / 2; i++) {
      snprintf(line, sizeof line, "<circle id='h%zu' r='1'/>\n", i);
      put(t, line);
    }
    put(t, "</defs>\n<path d='M0,0' data-h='");
    while (t->len < bytes)
      put(t,
          "################################################################");
    put(t, "'/>\n");
  } else if (!strcmp(shape, "groups")) {
    while (t->len < bytes)
      put(t, "<g fill='red'>text </g>\n");
  } else if (!strcmp(shape, "nested")) {
    for (int i = 0; i < 250; i++)
      put(t, "<g color='red' transform='translate(1,1)'>");
    put(t, "\n");
    for (size_t i = 0; t->len < bytes; i++) {
      snprintf(line, sizeof line, "<path d='M%zu.00,1.00 L2.00,%zu.00'/>\n",
               i % 600, i % 400);
      put(t, line);
    }
    for (int i = 0; i < 250; i++)
      put(t, "</g>");
    put(t, "\n");
  } else { /* plain */
    put(t, "<defs><circle id='gpPt0' r='1'/></defs>\n");
    for (size_t i = 0; t->len < bytes; i++) {
      snprintf(line, sizeof line,
               "<g fill=\"none\" color=\"black\" stroke=\"rgb( 85,  85,  "
               "85)\" stroke-width=\"1.00\">\n\t<path d='M%zu.00,%zu.00 "
               "L%zu.00,%zu.00  '/>\n\t<use xlink:href='#gpPt0' "
               "x='%zu' y='3'/>\n</g>\n",
               i % 600, i % 400, (i + 1) % 600, (i + 7) % 400, i % 600);
      put(t, line);
    }
  }
  put(t, "</svg>\n");
}

static double best(const text *t, int check, int reps, size_t *outlen) {
  double least = -1;
  for (int r = 0; r < reps; r++) {
    bs_error err;
    bs_error_clear(&err);
    char *out = NULL;
    double t0 = cpu_seconds();
    bs_status st =
        check ? bs__svg_check_memory("bench.svg", t->s, t->len, &err)
              : bs__svg_compact("bench.svg", t->s, t->len, &out, outlen, &err);
    double dt = cpu_seconds() - t0;
    free(out);
    if (st) {
      fprintf(stderr, "bench_svgmin: %s\n", err.message);
      exit(3);
    }
    if (least < 0 || dt < least)
      least = dt;
  }
  return least;
}

int main(int argc, char **argv) {
  size_t bytes = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 1048576;
  int reps = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 3;
  const char *only = argc > 3 ? argv[3] : NULL;
  static const char *const shapes[] = {"chain",  "unused", "hashes",
                                       "groups", "nested", "plain"};
  if (bytes < 1024 || reps < 1) {
    fputs("usage: bench_svgmin [BYTES [REPS [SHAPE [OUT]]]]\n", stderr);
    return 2;
  }
  if (argc > 4) {
    text t = {0};
    chart(&t, only, bytes);
    FILE *f = fopen(argv[4], "wb");
    int ok = f && fwrite(t.s, 1, t.len, f) == t.len;
    if (f && fclose(f))
      ok = 0;
    free(t.s);
    if (!ok) {
      perror(argv[4]);
      return 3;
    }
    return 0;
  }
  printf("%-7s %10s %12s %12s %10s\n", "shape", "bytes", "compact (s)",
         "check (s)", "out bytes");
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    if (only && strcmp(only, shapes[i]))
      continue;
    text t = {0};
    chart(&t, shapes[i], bytes);
    size_t outlen = 0;
    double c = best(&t, 0, reps, &outlen);
    size_t unused = 0;
    double k = best(&t, 1, reps, &unused);
    printf("%-7s %10zu %12.3f %12.3f %10zu\n", shapes[i], t.len, c, k, outlen);
    fflush(stdout);
    free(t.s);
  }
  return 0;
}
