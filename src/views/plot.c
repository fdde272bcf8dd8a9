/* The chart builder: what each chart holds, the gnuplot script and the
 * data written for a batch of charts, and a chart's digest. Running
 * gnuplot is plot_gnuplot.c. */
#include "benchsite/plot.h"

#include "buf.h"
#include "grow.h"
#include "markup.h"
#include "oom.h"
#include "plot_int.h"
#include "sha256.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LABEL_MAX_CHARS 160

bs_plot *bs_plot_new(void) { return calloc(1, sizeof(bs_plot)); }

static void chart_release(chart *c) {
  free(c->title);
  free(c->xlabel);
  free(c->ylabel);
  for (size_t i = 0; i < c->nytics; i++)
    free(c->ytics[i].label);
  free(c->ytics);
  for (size_t i = 0; i < c->nxtics; i++)
    free(c->xtics[i].label);
  free(c->xtics);
  for (size_t i = 0; i < c->ndecos; i++)
    free(c->decos[i].text);
  free(c->decos);
  for (size_t i = 0; i < c->nseries; i++)
    free(c->series[i].title);
  free(c->series);
  bs__buf_release(&c->data);
}

void bs_plot_free(bs_plot *p) {
  if (!p)
    return;
  for (size_t i = 0; i < p->n; i++)
    chart_release(&p->charts[i]);
  free(p->charts);
  free(p);
}

size_t bs_plot_count(const bs_plot *p) { return p ? p->n : 0; }

static void set_fail(bs_plot *p, bs_status st, const char *why) {
  if (p && p->status == BS_OK) {
    p->status = st;
    snprintf(p->why, sizeof p->why, "%s", why);
  }
}

static chart *cur(bs_plot *p) {
  if (!p)
    return NULL;
  if (p->status)
    return NULL;
  if (p->n == 0) {
    set_fail(p, BS_EINTERNAL, "chart call before bs_plot_chart");
    return NULL;
  }
  return &p->charts[p->n - 1];
}

/* ---- Text: valid UTF-8, no control bytes, every byte octal ------------- */

/* Appends one byte when it fits with room for the NUL; counts it always,
 * so a short buffer gets a cut literal and the full length is known. */
static void put_byte(char *buf, size_t n, size_t *pos, char c) {
  if (*pos + 1 < n)
    buf[*pos] = c;
  (*pos)++;
}

static void emit_octal(const unsigned char *b, size_t nb, char *buf, size_t n,
                       size_t *pos) {
  for (size_t i = 0; i < nb; i++) {
    put_byte(buf, n, pos, '\\');
    put_byte(buf, n, pos, (char)('0' + ((b[i] >> 6) & 7)));
    put_byte(buf, n, pos, (char)('0' + ((b[i] >> 3) & 7)));
    put_byte(buf, n, pos, (char)('0' + (b[i] & 7)));
  }
}

size_t bs_plot_quote(const char *s, size_t max_chars, char *buf, size_t n) {
  static const unsigned char replacement[] = {0xef, 0xbf, 0xbd};
  static const unsigned char ellipsis[] = {0xe2, 0x80, 0xa6};
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  static const unsigned char joiner[] = {0xe2, 0x81, 0xa0}; /* U+2060 */
  size_t left = strlen((const char *)p), pos = 0, chars = 0;
  /* The last two characters written: gnuplot's SVG terminal copies
   * "&#x..." (a character reference) and "]]>" into the SVG as they are,
   * which makes "&#x1;" an illegal reference and "]]>" illegal text. An
   * invisible word joiner after '&' or before that '>' keeps the XML
   * well-formed and the label looking the same. */
  unsigned last = 0, last2 = 0;
  put_byte(buf, n, &pos, '"');
  while (left > 0) {
    /* What is text is the one rule for markup (markup.h): the SVG that
     * gnuplot writes from a label is XML, like the pages and the feed. */
    size_t len;
    bs__markup_kind kind = bs__markup_char((const char *)p, left, &len);
    const unsigned char *bytes = p;
    size_t nb = len;
    if (kind == BS__MARKUP_INVALID) {
      bytes = replacement;
      nb = 3;
    } else if (kind == BS__MARKUP_BREAK) {
      bytes = (const unsigned char *)" "; /* a label is one line */
      nb = 1;
    } else if (kind == BS__MARKUP_CONTROL) {
      nb = 0; /* dropped: not text */
    }
    if (nb > 0) {
      if (max_chars && chars == max_chars) {
        emit_octal(ellipsis, sizeof ellipsis, buf, n, &pos);
        break;
      }
      unsigned now = nb == 1 ? bytes[0] : 0x80;
      if ((now == '#' && last == '&') ||
          (now == '>' && last == ']' && last2 == ']'))
        emit_octal(joiner, sizeof joiner, buf, n, &pos);
      last2 = last;
      last = now;
      emit_octal(bytes, nb, buf, n, &pos);
      chars++;
    }
    p += len;
    left -= len;
  }
  put_byte(buf, n, &pos, '"');
  if (n > 0)
    buf[pos < n ? pos : n - 1] = '\0';
  return pos;
}

/* A malloc'd quoted literal, or NULL (with the failure recorded). */
static char *quote(bs_plot *p, const char *s) {
  size_t need = bs_plot_quote(s, LABEL_MAX_CHARS, NULL, 0);
  char *q = malloc(need + 1);
  if (!q) {
    set_fail(p, BS_ENOMEM, BS__OOM_TEXT);
    return NULL;
  }
  bs_plot_quote(s, LABEL_MAX_CHARS, q, need + 1);
  return q;
}

static void set_text(bs_plot *p, char **slot, const char *text) {
  free(*slot);
  *slot = text ? quote(p, text) : NULL;
}

/* ---- Builder ------------------------------------------------------------ */

static int valid_file(const char *f) {
  size_t n = strlen(f);
  if (n < 5 || n > 68 || strcmp(f + n - 4, ".svg"))
    return 0;
  for (size_t i = 0; i < n - 4; i++) {
    char c = f[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_' || c == '-'))
      return 0;
  }
  return 1;
}

static int clamp_size(int v) { return v < 100 ? 100 : v > 20000 ? 20000 : v; }

size_t bs_plot_chart(bs_plot *p, const char *file, int width, int height) {
  if (!p || p->status)
    return (size_t)-1;
  if (!file || !valid_file(file)) {
    set_fail(p, BS_EINTERNAL, "chart file name is not [A-Za-z0-9_-]+.svg");
    return (size_t)-1;
  }
  for (size_t i = 0; i < p->n; i++) {
    if (!strcmp(p->charts[i].file, file)) {
      set_fail(p, BS_EINTERNAL, "two charts share a file name");
      return (size_t)-1;
    }
  }
  if (p->n == p->cap) {
    chart *c = BS__GROW(p->charts, p->cap, p->n + 1, 16);
    if (!c) {
      set_fail(p, BS_ENOMEM, BS__OOM_TEXT);
      return (size_t)-1;
    }
    p->charts = c;
  }
  chart *c = &p->charts[p->n];
  memset(c, 0, sizeof *c);
  snprintf(c->file, sizeof c->file, "%s", file);
  c->width = clamp_size(width);
  c->height = clamp_size(height);
  bs__buf_init(&c->data, BS__CAP_CHART_DATA);
  return p->n++;
}

void bs_plot_title(bs_plot *p, const char *text) {
  chart *c = cur(p);
  if (c)
    set_text(p, &c->title, text);
}

void bs_plot_xlabel(bs_plot *p, const char *text) {
  chart *c = cur(p);
  if (c)
    set_text(p, &c->xlabel, text);
}

void bs_plot_ylabel(bs_plot *p, const char *text) {
  chart *c = cur(p);
  if (c)
    set_text(p, &c->ylabel, text);
}

void bs_plot_key(bs_plot *p, bs_plot_keypos where) {
  chart *c = cur(p);
  if (c)
    c->key = where;
}

void bs_plot_xrange(bs_plot *p, double lo, double hi) {
  chart *c = cur(p);
  if (c && isfinite(lo) && isfinite(hi) && lo < hi) {
    c->has_xrange = 1;
    c->xr[0] = lo;
    c->xr[1] = hi;
  }
}

void bs_plot_yrange(bs_plot *p, double lo, double hi) {
  chart *c = cur(p);
  if (c && isfinite(lo) && isfinite(hi) && lo < hi) {
    c->has_yrange = 1;
    c->yr[0] = lo;
    c->yr[1] = hi;
  }
}

void bs_plot_logscale(bs_plot *p, int x, int y) {
  chart *c = cur(p);
  if (c) {
    c->xlog = x != 0;
    c->ylog = y != 0;
  }
}

void bs_plot_yreverse(bs_plot *p) {
  chart *c = cur(p);
  if (c)
    c->yreverse = 1;
}

/* Adds a labelled tic to `*tics`. */
static void add_tic(bs_plot *p, ytic **tics, size_t *n, double at,
                    const char *label) {
  if (!isfinite(at))
    return;
  ytic *t = realloc(*tics, (*n + 1) * sizeof *t);
  if (!t) {
    set_fail(p, BS_ENOMEM, BS__OOM_TEXT);
    return;
  }
  *tics = t;
  t[*n].y = at;
  /* gnuplot reads explicit tic labels as printf formats: a lone '%' in a
   * name would fail the chart ("Bad format character"), so each '%' is
   * doubled before quoting. */
  size_t len = 0;
  for (const char *q = label ? label : ""; *q; q++)
    len += *q == '%' ? 2 : 1;
  char *doubled = malloc(len + 1);
  if (!doubled) {
    set_fail(p, BS_ENOMEM, BS__OOM_TEXT);
    return;
  }
  len = 0;
  for (const char *q = label ? label : ""; *q; q++) {
    doubled[len++] = *q;
    if (*q == '%')
      doubled[len++] = '%';
  }
  doubled[len] = '\0';
  t[*n].label = quote(p, doubled);
  free(doubled);
  if (t[*n].label)
    (*n)++;
}

void bs_plot_ytic(bs_plot *p, double y, const char *label) {
  chart *c = cur(p);
  if (c)
    add_tic(p, &c->ytics, &c->nytics, y, label);
}

void bs_plot_xtic(bs_plot *p, double x, const char *label) {
  chart *c = cur(p);
  if (c)
    add_tic(p, &c->xtics, &c->nxtics, x, label);
}

static void add_deco(bs_plot *p, dkind kind, double a, double b, double cc,
                     double d, const bs_plot_style *s, const char *text) {
  chart *c = cur(p);
  if (!c || !isfinite(a) || !isfinite(b) || !isfinite(cc) || !isfinite(d))
    return;
  deco *nd = realloc(c->decos, (c->ndecos + 1) * sizeof *nd);
  if (!nd) {
    set_fail(p, BS_ENOMEM, BS__OOM_TEXT);
    return;
  }
  c->decos = nd;
  deco *x = &nd[c->ndecos];
  memset(x, 0, sizeof *x);
  x->kind = kind;
  x->a = a;
  x->b = b;
  x->c = cc;
  x->d = d;
  if (s)
    x->st = *s;
  if (text && !(x->text = quote(p, text)))
    return;
  c->ndecos++;
}

void bs_plot_hline(bs_plot *p, double y, const bs_plot_style *s,
                   const char *label) {
  add_deco(p, D_HLINE, y, 0, 0, 0, s, label);
}

void bs_plot_vline(bs_plot *p, double x, const bs_plot_style *s,
                   const char *label) {
  add_deco(p, D_VLINE, x, 0, 0, 0, s, label);
}

void bs_plot_xspan(bs_plot *p, double x0, double x1, const bs_plot_style *s) {
  add_deco(p, D_XSPAN, x0, x1, 0, 0, s, NULL);
}

void bs_plot_yspan(bs_plot *p, double y0, double y1, const bs_plot_style *s) {
  add_deco(p, D_YSPAN, y0, y1, 0, 0, s, NULL);
}

void bs_plot_label(bs_plot *p, double x, double y, const char *text) {
  add_deco(p, D_LABEL, x, y, 0, 0, NULL, text ? text : "");
}

void bs_plot_segment(bs_plot *p, double x0, double y0, double x1, double y1,
                     const bs_plot_style *s) {
  add_deco(p, D_SEG, x0, y0, x1, y1, s, NULL);
}

static size_t kind_columns(bs_plot_kind k) {
  switch (k) {
  case BS_PLOT_XERRORBARS:
  case BS_PLOT_YERRORBARS:
    return 4;
  case BS_PLOT_BOXES:
  case BS_PLOT_BAND:
    return 3;
  default:
    return 2;
  }
}

/* The largest magnitude a chart shows. Inputs may be any finite double
 * (1.7976931348623157e308 µs is a valid per-call time), but gnuplot
 * overflows on ranges, box widths and tic steps derived from such values
 * and then refuses the whole chart, which would make every later report
 * or site of an archived run fail. Beyond this, a value is missing from
 * the chart (the tables still show it). */
#define PLOT_MAX 1e100

static int plottable(double v) { return isfinite(v) && fabs(v) <= PLOT_MAX; }

/* Numbers in the script and the data: %.17g round-trips every double and
 * prints the same bytes on every run. */
static bs_status put_num(bs__buf *b, double v) {
  if (!plottable(v))
    return bs__buf_puts(b, "NaN");
  return bs__buf_printf(b, "%.17g", v);
}

/* Room for one more series of chart c, zeroed but for kind and style (s;
 * NULL: the defaults); c->nseries counts it once the caller is done. NULL
 * after recording an out-of-memory failure. */
static series *new_series(bs_plot *p, chart *c, bs_plot_kind kind,
                          const bs_plot_style *s) {
  series *ns = realloc(c->series, (c->nseries + 1) * sizeof *ns);
  if (!ns) {
    set_fail(p, BS_ENOMEM, BS__OOM_TEXT);
    return NULL;
  }
  c->series = ns;
  series *x = &ns[c->nseries];
  memset(x, 0, sizeof *x);
  x->kind = kind;
  if (s)
    x->st = *s;
  return x;
}

void bs_plot_series(bs_plot *p, bs_plot_kind kind, const char *title,
                    const bs_plot_style *s, const double *const *cols,
                    size_t n) {
  chart *c = cur(p);
  if (!c || n == 0)
    return;
  size_t ncol = kind_columns(kind);
  for (size_t j = 0; j < ncol; j++) {
    if (!cols || !cols[j]) {
      set_fail(p, BS_EINTERNAL, "series without its columns");
      return;
    }
  }
  series *x = new_series(p, c, kind, s);
  if (!x || (title && !(x->title = quote(p, title))))
    return;
  if (c->nblocks > 0)
    bs__buf_puts(&c->data, "\n\n");
  for (size_t i = 0; i < n; i++) {
    int ok = 1;
    for (size_t j = 0; j < ncol; j++) {
      if (j)
        bs__buf_putc(&c->data, ' ');
      put_num(&c->data, cols[j][i]);
      ok &= plottable(cols[j][i]);
    }
    c->valid += ok ? 1u : 0u;
    c->valid_pos += ok && cols[0][i] > 0 && cols[1][i] > 0 ? 1u : 0u;
    bs__buf_putc(&c->data, '\n');
  }
  bs_status st = bs__buf_status(&c->data);
  if (st) {
    free(x->title);
    set_fail(p, st, BS__OOM_TEXT);
    return;
  }
  x->block = c->nblocks++;
  c->nseries++;
}

void bs_plot_keyentry(bs_plot *p, bs_plot_kind kind, const char *title,
                      const bs_plot_style *s) {
  chart *c = cur(p);
  if (!c || !title)
    return;
  series *x = new_series(p, c, kind, s);
  if (!x)
    return;
  x->keyentry = 1;
  if (!(x->title = quote(p, title)))
    return;
  c->nseries++;
}

/* ---- Script ------------------------------------------------------------- */

static int marker_code(const bs_plot_style *s) {
  int open = s->open;
  switch (s->marker) {
  case BS_MARK_CIRCLE:
    return open ? 6 : 7;
  case BS_MARK_SQUARE:
    return open ? 4 : 5;
  case BS_MARK_TRIANGLE_UP:
    return open ? 8 : 9;
  case BS_MARK_TRIANGLE_DOWN:
    return open ? 10 : 11;
  case BS_MARK_DIAMOND:
    return open ? 12 : 13;
  case BS_MARK_CROSS:
    return 2;
  case BS_MARK_PLUS:
    return 1;
  case BS_MARK_NONE:
    break;
  }
  return 7;
}

static double lw_of(const bs_plot_style *s) {
  return s->line_width > 0 ? s->line_width : 1.5;
}

static double opacity_of(const bs_plot_style *s) {
  return s->opacity > 0 && s->opacity <= 1 ? s->opacity : 0.25;
}

static bs_status put_color(bs__buf *b, const char *what,
                           const bs_plot_style *s) {
  return bs__buf_printf(b, " %s rgb \"#%06x\"", what,
                        (unsigned)(s->color & 0xffffffu));
}

static bs_status put_line(bs__buf *b, const bs_plot_style *s) {
  put_color(b, "lc", s);
  return bs__buf_printf(b, " lw %.3g dt %d", lw_of(s), s->dashed ? 2 : 1);
}

/* Appends tmpl with each '@' replaced by the next of the double
 * arguments, written as put_num writes it. ('@' is never part of a
 * script; see script_is_clean.) */
static bs_status put_nums(bs__buf *b, const char *tmpl, ...) {
  va_list ap;
  va_start(ap, tmpl);
  while (*tmpl) {
    size_t n = strcspn(tmpl, "@");
    bs__buf_append(b, tmpl, n);
    tmpl += n;
    if (*tmpl == '@') {
      put_num(b, va_arg(ap, double));
      tmpl++;
    }
  }
  va_end(ap);
  return bs__buf_status(b);
}

/* A decoration at a position gnuplot cannot place is left out. */
static int deco_plottable(const deco *d) {
  return plottable(d->a) && plottable(d->b) && plottable(d->c) &&
         plottable(d->d);
}

static bs_status put_deco(bs__buf *b, const deco *d) {
  switch (d->kind) {
  case D_HLINE:
    put_nums(b,
             "set arrow from graph 0, first @ to graph 1, first @ "
             "nohead back",
             d->a, d->a);
    put_line(b, &d->st);
    if (d->text) {
      bs__buf_printf(b, "\nset label %s at graph 0.99, first ", d->text);
      put_nums(b,
               d->st.label_below ? "@ right offset 0,-0.7 front"
                                 : "@ right offset 0,0.6 front",
               d->a);
      put_color(b, "tc", &d->st);
    }
    break;
  case D_VLINE:
    put_nums(b,
             "set arrow from first @, graph 0 to first @, graph 1 "
             "nohead back",
             d->a, d->a);
    put_line(b, &d->st);
    if (d->text) {
      bs__buf_printf(b, "\nset label %s at first ", d->text);
      put_nums(b, "@, graph 0.97 left offset 0.4,0 front", d->a);
      put_color(b, "tc", &d->st);
    }
    break;
  case D_XSPAN:
  case D_YSPAN:
    put_nums(b,
             d->kind == D_XSPAN
                 ? "set object rect from first @, graph 0 to first @, "
                   "graph 1 back"
                 : "set object rect from graph 0, first @ to graph 1, "
                   "first @ back",
             d->a, d->b);
    put_color(b, "fc", &d->st);
    bs__buf_printf(b, " fs transparent solid %.3g noborder",
                   opacity_of(&d->st));
    break;
  case D_LABEL:
    bs__buf_printf(b, "set label %s at first ", d->text);
    put_nums(b, "@, first @ left offset 0.5,0.5 front", d->a, d->b);
    break;
  case D_SEG:
    put_nums(b,
             "set arrow from first @, first @ to first @, first @ "
             "nohead front",
             d->a, d->b, d->c, d->d);
    put_line(b, &d->st);
    break;
  }
  return bs__buf_putc(b, '\n');
}

static bs_status put_series(bs__buf *b, const char *data, size_t block0,
                            const series *s, int first) {
  const bs_plot_style *y = &s->st;
  double ps = y->point_size > 0 ? y->point_size : 0.8;
  if (s->keyentry)
    bs__buf_printf(b, "%skeyentry with ", first ? "plot " : ", \\\n  ");
  else
    bs__buf_printf(b, "%s\"%s\" index %zu using %s with ",
                   first ? "plot " : ", \\\n  ", data, block0 + s->block,
                   kind_columns(s->kind) == 4   ? "1:2:3:4"
                   : kind_columns(s->kind) == 3 ? "1:2:3"
                                                : "1:2");
  switch (s->kind) {
  case BS_PLOT_LINES:
    bs__buf_puts(b, "lines");
    put_line(b, y);
    break;
  case BS_PLOT_POINTS:
    bs__buf_printf(b, "points pt %d ps %.3g", marker_code(y), ps);
    put_color(b, "lc", y);
    break;
  case BS_PLOT_LINESPOINTS:
    bs__buf_printf(b, "linespoints pt %d ps %.3g", marker_code(y), ps);
    put_line(b, y);
    break;
  case BS_PLOT_XERRORBARS:
  case BS_PLOT_YERRORBARS:
    bs__buf_printf(b, "%s pt %d ps %.3g",
                   s->kind == BS_PLOT_XERRORBARS ? "xerrorbars" : "yerrorbars",
                   marker_code(y), ps);
    put_line(b, y);
    break;
  case BS_PLOT_BOXES:
    bs__buf_printf(b, "boxes fs transparent solid %.3g border", opacity_of(y));
    put_color(b, "lc", y);
    put_color(b, "fc", y);
    break;
  case BS_PLOT_BAND:
    bs__buf_printf(b, "filledcurves fs transparent solid %.3g noborder",
                   opacity_of(y));
    put_color(b, "fc", y);
    break;
  }
  if (s->title)
    return bs__buf_printf(b, " title %s", s->title);
  return bs__buf_puts(b, " notitle");
}

static const char *key_setting(bs_plot_keypos k) {
  switch (k) {
  case BS_KEY_TOP_LEFT:
    return "set key top left";
  case BS_KEY_BOTTOM_RIGHT:
    return "set key bottom right";
  case BS_KEY_BOTTOM_LEFT:
    return "set key bottom left";
  case BS_KEY_BELOW:
    return "set key below horizontal center reverse Left samplen 2 width 2";
  case BS_KEY_NONE:
    return "unset key";
  case BS_KEY_TOP_RIGHT:
    break;
  }
  return "set key top right";
}

/* gnuplot 5 honours "reverse" only for autoscaled axes; an explicit
 * range is reversed by writing it high to low. */
static bs_status put_range(bs__buf *b, const char *axis, const double *r,
                           int reverse) {
  if (r && (!plottable(r[0]) || !plottable(r[1])))
    r = NULL; /* autoscaled rather than an overflowing range */
  bs__buf_printf(b, "set %srange [", axis);
  if (r)
    put_num(b, r[reverse ? 1 : 0]);
  else
    bs__buf_putc(b, '*');
  bs__buf_putc(b, ':');
  if (r)
    put_num(b, r[reverse ? 0 : 1]);
  else
    bs__buf_putc(b, '*');
  return bs__buf_printf(b, "]%s\n", reverse && !r ? " reverse" : "");
}

/* Chart `index`, its data blocks numbered from block0 in the file `data`. */
static bs_status put_chart(bs__buf *b, const chart *c, size_t index,
                           const char *data, size_t block0) {
  bs__buf_printf(b,
                 "reset\n"
                 "set encoding utf8\n"
                 "set terminal svg noenhanced dynamic size %d,%d font "
                 "\"sans-serif,11\"\n"
                 "set output \"%s\"\n"
                 "set border 3 lc rgb \"#555555\"\n"
                 "set tics nomirror out\n"
                 "set grid back lc rgb \"#dddddd\" lw 0.6 dt 1\n"
                 "set style fill transparent solid 0.25 noborder\n"
                 "set bars small\n"
                 "%s\n",
                 c->width, c->height, c->file, key_setting(c->key));
  if (c->title)
    bs__buf_printf(b, "set title %s\n", c->title);
  if (c->xlabel)
    bs__buf_printf(b, "set xlabel %s\n", c->xlabel);
  if (c->ylabel)
    bs__buf_printf(b, "set ylabel %s\n", c->ylabel);
  if (c->has_xrange)
    put_range(b, "x", c->xr, 0);
  if (c->has_yrange || c->yreverse)
    put_range(b, "y", c->has_yrange ? c->yr : NULL, c->yreverse);
  if (c->xlog || c->ylog)
    bs__buf_printf(b, "set logscale %s%s\n", c->xlog ? "x" : "",
                   c->ylog ? "y" : "");
  /* No point gnuplot can place: autoscaling would fail ("range is
   * invalid"), so an unset range gets [0:1] and the chart is empty. */
  if (!((c->xlog || c->ylog) ? c->valid_pos : c->valid)) {
    if (!c->has_xrange || !plottable(c->xr[0]) || !plottable(c->xr[1]))
      bs__buf_puts(b, "set xrange [0:1]\n");
    if (!c->has_yrange || !plottable(c->yr[0]) || !plottable(c->yr[1]))
      bs__buf_puts(b, "set yrange [0:1]\n");
  }
  int added = 0;
  for (size_t i = 0; i < c->nytics; i++) {
    if (!plottable(c->ytics[i].y))
      continue;
    bs__buf_printf(b, "set ytics %s(%s ", added++ ? "add " : "",
                   c->ytics[i].label);
    put_num(b, c->ytics[i].y);
    bs__buf_puts(b, ")\n");
  }
  for (size_t i = 0; i < c->nxtics; i++) {
    bs__buf_printf(b, "set xtics %s(%s ", i ? "add " : "", c->xtics[i].label);
    put_num(b, c->xtics[i].y);
    bs__buf_puts(b, ")\n");
  }
  for (size_t i = 0; i < c->ndecos; i++)
    if (deco_plottable(&c->decos[i]))
      put_deco(b, &c->decos[i]);
  for (size_t i = 0; i < c->nseries; i++)
    put_series(b, data, block0, &c->series[i], i == 0);
  if (c->nseries == 0)
    bs__buf_puts(b, "plot NaN notitle");
  return bs__buf_printf(b, "\nunset output\nprint %zu\n", index + 1);
}

/* Defence in depth: the script may hold only what the generator writes.
 * Anything gnuplot could expand or run -- backquotes, '@' macros, '!'
 * shell escapes, '$' datablocks, '<' and '|' pipes, single quotes -- must
 * never appear, whatever a label contained. */
static int script_is_clean(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '`' || c == '@' || c == '!' || c == '$' || c == '<' || c == '|' ||
        c == '\'' || c == ';' || c == '{' || c == '}' ||
        (c < 0x20 && c != '\n') || c >= 0x7f)
      return 0;
  }
  return 1;
}

/* ---- Batches and digests --------------------------------------------------
 */

bs_status bs__plot_script(const bs_plot *p, size_t from, size_t to,
                          const char *data, bs__buf *script) {
  bs__buf_puts(script, "set print \"-\"\n");
  size_t block0 = 0;
  for (size_t i = from; i < to; i++) {
    put_chart(script, &p->charts[i], i, data, block0);
    block0 += p->charts[i].nblocks;
  }
  bs_status st = bs__buf_status(script);
  if (st)
    return st;
  return script_is_clean(script->data, script->len) ? BS_OK : BS_EINTERNAL;
}

bs_status bs__plot_data(const bs_plot *p, size_t from, size_t to,
                        bs__buf *all) {
  size_t blocks = 0;
  for (size_t i = from; i < to; i++) {
    const chart *c = &p->charts[i];
    if (c->nblocks == 0)
      continue;
    if (blocks > 0)
      bs__buf_puts(all, "\n\n");
    bs__buf_append(all, c->data.data, c->data.len);
    blocks += c->nblocks;
  }
  return bs__buf_status(all);
}

bs_status bs_plot_chart_digest(const bs_plot *p, size_t index, char out[65]) {
  out[0] = '\0';
  if (!p || p->status || index >= p->n)
    return p && p->status ? p->status : BS_EINTERNAL;
  const chart *c = &p->charts[index];
  bs__buf script;
  bs__buf_init(&script, BS__CAP_PLOT_SCRIPT);
  /* As the chart's own batch would start it, with the names that depend
   * on where it stands (its index, its batch's data file) fixed: the same
   * chart has the same digest wherever it is drawn. */
  bs_status st = put_chart(&script, c, 0, "data", 0);
  if (!st) {
    char len[32];
    int n = snprintf(len, sizeof len, "%zu\n", script.len);
    bs__sha256 h;
    bs__sha256_init(&h);
    bs__sha256_update(&h, "benchsite.chart/1\n", 18);
    bs__sha256_update(&h, len, (size_t)n);
    bs__sha256_update(&h, script.data, script.len);
    bs__sha256_update(&h, c->data.data ? c->data.data : "", c->data.len);
    unsigned char d[BS__SHA256_LEN];
    bs__sha256_final(&h, d);
    bs__sha256_tohex(d, out);
  }
  bs__buf_release(&script);
  return st;
}
