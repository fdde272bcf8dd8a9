/* What the chart builder (plot.c) shares with the code that runs gnuplot
 * (plot_gnuplot.c). Private. */
#ifndef BENCHSITE_PLOT_INT_H
#define BENCHSITE_PLOT_INT_H

#include "benchsite/plot.h"

#include "buf.h"

#include <stddef.h>

typedef enum dkind { D_HLINE, D_VLINE, D_XSPAN, D_YSPAN, D_LABEL, D_SEG } dkind;

typedef struct deco {
  dkind kind;
  double a, b, c, d;
  bs_plot_style st;
  char *text; /* a quoted literal or NULL */
} deco;

typedef struct series {
  bs_plot_kind kind;
  char *title; /* a quoted literal or NULL */
  bs_plot_style st;
  size_t block; /* index of its data block */
  int keyentry; /* no data: only a key sample */
} series;

typedef struct ytic {
  double y;
  char *label;
} ytic;

typedef struct chart {
  char file[72];
  int width, height;
  char *title, *xlabel, *ylabel;
  bs_plot_keypos key;
  int has_xrange, has_yrange, xlog, ylog, yreverse;
  double xr[2], yr[2];
  ytic *ytics;
  size_t nytics;
  ytic *xtics;
  size_t nxtics;
  deco *decos;
  size_t ndecos;
  series *series;
  size_t nseries;
  bs__buf data;
  size_t nblocks;
  /* Data rows gnuplot can place: every column plottable (and, for log
   * axes, the first two positive). */
  size_t valid, valid_pos;
} chart;

struct bs_plot {
  chart *charts;
  size_t n, cap;
  bs_status status;
  char why[160];
};

/* The script of charts [from, to) of p for one gnuplot process, which
 * reads their data (bs__plot_data) from the file `data`, appended to
 * script: BS_OK; BS_ENOMEM or BS_ELIMIT (the buffer's limit); BS_EINTERNAL
 * when the script holds a byte it never should (defence in depth: only
 * what the generator writes may reach gnuplot). */
bs_status bs__plot_script(const bs_plot *p, size_t from, size_t to,
                          const char *data, bs__buf *script);

/* The data of charts [from, to) for one file, appended to all: each
 * chart's blocks in turn, separated, like the blocks of one chart, by two
 * blank lines. BS_OK, BS_ENOMEM or BS_ELIMIT. */
bs_status bs__plot_data(const bs_plot *p, size_t from, size_t to, bs__buf *all);

#endif
