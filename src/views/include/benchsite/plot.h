/* benchsite: SVG charts with gnuplot, safely and in one batch (SPEC §4.5).
 *
 * A bs_plot collects charts (settings, decorations, data series) and
 * renders all of them with one `gnuplot -d` process fed a script on its
 * stdin. User text (titles, labels, key entries, tick labels) reaches the
 * script only as a double-quoted string in which every byte is a
 * three-digit octal escape, after it has been made valid UTF-8 and
 * stripped of control bytes; numbers are printed with %.17g; data goes to
 * separate files named by chart index. Nothing else ever enters the
 * script, so names from pull requests cannot become gnuplot commands.
 *
 * Builder calls return nothing: the first failure (out of memory, a bad
 * file name, a call before bs_plot_chart) is remembered and returned by
 * bs_plot_render(). */
#ifndef BENCHSITE_PLOT_H
#define BENCHSITE_PLOT_H

#include "benchsite/error.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bs_plot bs_plot;

typedef enum bs_plot_kind {
  BS_PLOT_LINES,       /* columns: x y */
  BS_PLOT_POINTS,      /* x y */
  BS_PLOT_LINESPOINTS, /* x y */
  BS_PLOT_XERRORBARS,  /* x y xlow xhigh: a point with a horizontal bar */
  BS_PLOT_YERRORBARS,  /* x y ylow yhigh: a point with a vertical bar */
  BS_PLOT_BOXES,       /* x y width: filled bars centred on x */
  BS_PLOT_BAND         /* x ylow yhigh: a filled area between two curves */
} bs_plot_kind;

typedef enum bs_plot_marker {
  BS_MARK_NONE = 0,
  BS_MARK_CIRCLE,
  BS_MARK_SQUARE,
  BS_MARK_TRIANGLE_UP,
  BS_MARK_TRIANGLE_DOWN,
  BS_MARK_DIAMOND,
  BS_MARK_CROSS,
  BS_MARK_PLUS
} bs_plot_marker;

/* How a series or a line is drawn. Zero fields take defaults. */
typedef struct bs_plot_style {
  uint32_t color;        /* 0xRRGGBB */
  bs_plot_marker marker; /* points */
  int open;              /* hollow marker instead of a filled one */
  double point_size;     /* default 0.8 */
  double line_width;     /* default 1.5 */
  int dashed;            /* dashed line */
  double opacity;        /* fills (boxes, bands, spans): default 0.25 */
  int label_below;       /* hline labels: under the line, not above */
} bs_plot_style;

typedef enum bs_plot_keypos {
  BS_KEY_TOP_RIGHT = 0,
  BS_KEY_TOP_LEFT,
  BS_KEY_BOTTOM_RIGHT,
  BS_KEY_BOTTOM_LEFT,
  BS_KEY_BELOW, /* under the plot, horizontal */
  BS_KEY_NONE
} bs_plot_keypos;

/* Returns an empty batch, or NULL when out of memory. */
bs_plot *bs_plot_new(void);
/* NULL is a no-op. */
void bs_plot_free(bs_plot *p);

/* Starts a new chart; the calls below apply to it until the next one.
 * `file` is the SVG's name inside the render directory: 1 to 64
 * characters of [A-Za-z0-9_-] followed by ".svg", never user text.
 * `width` and `height` are the SVG's size in pixels (clamped to
 * 100..20000). Returns the chart's index. */
size_t bs_plot_chart(bs_plot *p, const char *file, int width, int height);
size_t bs_plot_count(const bs_plot *p);

/* Texts (user text allowed; sanitised and octal-escaped; NULL clears). */
void bs_plot_title(bs_plot *p, const char *text);
void bs_plot_xlabel(bs_plot *p, const char *text);
void bs_plot_ylabel(bs_plot *p, const char *text);
void bs_plot_key(bs_plot *p, bs_plot_keypos where);

/* Axis ranges (lo < hi, both finite, else the call is ignored and the
 * axis autoscales) and logarithmic axes. */
void bs_plot_xrange(bs_plot *p, double lo, double hi);
void bs_plot_yrange(bs_plot *p, double lo, double hi);
void bs_plot_logscale(bs_plot *p, int x, int y);
/* Reverses the y axis (first tick at the top). */
void bs_plot_yreverse(bs_plot *p);
/* Replaces the automatic y ticks by labelled ones (user text allowed). */
void bs_plot_ytic(bs_plot *p, double y, const char *label);
/* The same for the x axis. */
void bs_plot_xtic(bs_plot *p, double x, const char *label);

/* Decorations, drawn behind the data. Non-finite positions are ignored.
 * A horizontal or vertical line across the plot, optionally labelled
 * near its end; a shaded band across the plot between x0 and x1 (xspan)
 * or y0 and y1 (yspan); a text at a data position. */
void bs_plot_hline(bs_plot *p, double y, const bs_plot_style *s,
                   const char *label);
void bs_plot_vline(bs_plot *p, double x, const bs_plot_style *s,
                   const char *label);
void bs_plot_xspan(bs_plot *p, double x0, double x1, const bs_plot_style *s);
void bs_plot_yspan(bs_plot *p, double y0, double y1, const bs_plot_style *s);
void bs_plot_label(bs_plot *p, double x, double y, const char *text);
/* A line segment between two data points. */
void bs_plot_segment(bs_plot *p, double x0, double y0, double x1, double y1,
                     const bs_plot_style *s);

/* Adds a data series of n rows. `cols` holds the columns the kind needs
 * (see bs_plot_kind); non-finite values are written as missing. `title`
 * is the key entry (NULL: none). An empty series draws nothing. */
void bs_plot_series(bs_plot *p, bs_plot_kind kind, const char *title,
                    const bs_plot_style *s, const double *const *cols,
                    size_t n);

/* Adds a key entry without data: the sample of `kind` drawn in style `s`
 * next to `title` (for decorations such as bands and dashed segments). */
void bs_plot_keyentry(bs_plot *p, bs_plot_kind kind, const char *title,
                      const bs_plot_style *s);

/* The SHA-256 (64 lowercase hex digits and a NUL, into out) of exactly
 * what gnuplot is given for chart `index`: its script text (with the
 * names that depend on where it is drawn -- its index in the batch, its
 * batch's data file -- fixed) and its data. A one-byte change in a title,
 * a range or a value changes it; charts built alike have the same digest
 * in any batch. A cache of rendered charts keys on it (with the gnuplot
 * version, which is not part of it). Returns BS_OK; the batch's first
 * builder failure; BS_EINTERNAL when index is out of range (or p NULL);
 * BS_ENOMEM. out is "" on failure. */
bs_status bs_plot_chart_digest(const bs_plot *p, size_t index, char out[65]);

/* How bs_plot_render runs gnuplot. */
typedef struct bs_plot_run {
  const char *gnuplot; /* program (searched in PATH); NULL = "gnuplot" */
  /* Called after each chart is written (done of total) and while waiting;
   * returning non-zero stops rendering (BS_EPLOT, "cancelled"). May be
   * NULL. */
  int (*progress)(void *ctx, size_t done, size_t total);
  void *progress_ctx;
  int keep_data; /* leave the data files beside the charts */
  /* Charts per gnuplot process: 0 = all in one (the point of this
   * module); 1 = one process per chart, for benchmarks to compare. */
  size_t charts_per_process;
  /* gnuplot processes running at once, each rendering a share of the
   * charts: 0 = the online CPUs, 1 = one at a time. */
  size_t jobs;
  /* A gnuplot that takes no script and finishes no chart for this long
   * (messages on stderr do not count) is killed (BS_EPLOT): 0 = 120 000
   * ms. Once it has closed its output, or was told to stop, it gets this
   * long (at most 10 000 ms) to exit. gnuplot runs in its own process
   * group, killed whole with SIGKILL. */
  unsigned idle_timeout_ms;
} bs_plot_run;

/* Writes the data files into `dir` (which must exist; one script and one
 * data file per gnuplot process), runs one gnuplot process there with a minimal
 * environment, waits for it, removes the data files and checks that every
 * chart's SVG exists, is not empty and is a well-formed SVG without scripts,
 * event handlers or outside links (parsed with libxml2). A relative `gnuplot`
 * path with a '/' is taken from the current directory, not the output
 * directory. Returns BS_OK, the first builder failure, BS_EIO (writing data),
 * BS_EPLOT (gnuplot missing, failing or leaving a chart empty; the
 * message quotes its first error line) or BS_ENOMEM. Charts are rendered
 * in the order they were added; the same charts give the same bytes. */
bs_status bs_plot_render(bs_plot *p, const char *dir, const bs_plot_run *run,
                         bs_error *err);

/* A pool of gnuplot processes shared by many batches: a program with
 * charts in many directories (a site: every run's report and the history)
 * queues each batch as soon as it is described and goes on with its own
 * work while the pool keeps `jobs` gnuplot processes busy, from one
 * batch to the next. Each batch is rendered and checked exactly as
 * bs_plot_render does it, on threads of the pool; nothing is called back
 * from them. */
typedef struct bs_plot_pool bs_plot_pool;

/* Called once per submitted batch, on the thread that calls
 * bs_plot_pool_wait or bs_plot_pool_free: with ok = 1 when every chart
 * of the pool rendered and passed its checks (its status is what
 * bs_plot_pool_wait returns; `err` is for its message), else with ok = 0
 * and err NULL, to release ctx. */
typedef bs_status (*bs_plot_done_fn)(void *ctx, int ok, bs_error *err);

/* A pool running gnuplot as `run` says (gnuplot, jobs, charts_per_process,
 * keep_data, idle_timeout_ms; progress is ignored). Starts no process
 * until a batch is submitted. NULL when out of memory. */
bs_plot_pool *bs_plot_pool_new(const bs_plot_run *run);

/* Queues the charts of `p` (which the pool takes over and frees, however
 * the call ends) to be rendered into `dir`, which must exist until the
 * pool has finished with it; returns without waiting. `done` (NULL:
 * none) is called as described above, also when this call fails.
 * Returns BS_OK, the batch's first builder failure, BS_ENOMEM or BS_EIO
 * (no thread could start). */
bs_status bs_plot_pool_submit(bs_plot_pool *pool, bs_plot *p, const char *dir,
                              bs_plot_done_fn done, void *ctx, bs_error *err);

/* Waits until every queued chart is rendered and checked, then calls the
 * batches' `done` in the order they were submitted. Returns BS_OK, the
 * first rendering failure (as bs_plot_render reports it; once one batch
 * fails the others' gnuplot processes are killed and nothing more is
 * rendered by this pool) or the first failure of a `done`. NULL is a
 * no-op. */
bs_status bs_plot_pool_wait(bs_plot_pool *pool, bs_error *err);

/* The charts submitted to the pool so far (*total) and how many of them
 * are rendered and checked (*done), for a progress display. Safe while
 * the pool runs; NULL gives 0 and 0. */
void bs_plot_pool_count(bs_plot_pool *pool, size_t *done, size_t *total);

/* bs_plot_pool_wait, calling progress(ctx, done, total) (the counts of
 * bs_plot_pool_count) about every 50 ms on the calling thread while
 * charts are still being rendered. A non-zero return stops the pool as a
 * failure would and the call returns BS_EIO ("cancelled"). progress may
 * be NULL. */
bs_status bs_plot_pool_wait_progress(bs_plot_pool *pool,
                                     int (*progress)(void *ctx, size_t done,
                                                     size_t total),
                                     void *ctx, bs_error *err);

/* Kills the pool's gnuplot processes, drops what is queued, waits for its
 * threads and calls the outstanding `done`s with ok = 0. NULL is a no-op. */
void bs_plot_pool_free(bs_plot_pool *pool);

/* Writes `s` as a gnuplot double-quoted string literal into buf (size n,
 * always NUL-terminated when n > 0): by the rule every markup writer
 * follows (pages, feed, labels), each byte that is not UTF-8 becomes
 * U+FFFD, what is not text (C0 controls, DEL, C1 controls, noncharacters
 * such as U+FFFE) is dropped and tab and line breaks become a space; the
 * text is cut at `max_chars` code points with "…" (0 = no cut), and every
 * byte is written as \ooo. Returns the length the full
 * literal needs (excluding the NUL), like snprintf. */
size_t bs_plot_quote(const char *s, size_t max_chars, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
