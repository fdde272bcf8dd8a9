/* Growable byte buffer with a size cap (after curl's dynbuf) that remembers
 * its first error (after SQLite's sqlite3_str): once an append fails, every
 * later append to the buffer does nothing and returns that error, so a
 * writer can append without checking each call and ask once, with
 * bs__buf_status() or bs__buf_finish(). Private. */
#ifndef BENCHSITE_BUF_H
#define BENCHSITE_BUF_H

#include "benchsite/error.h"

#include <stdarg.h>
#include <stddef.h>

typedef struct bs__buf {
  char *data; /* NUL-terminated when non-NULL */
  size_t len;
  size_t cap;
  size_t limit;  /* maximum len; appends beyond it fail with BS_ELIMIT */
  bs_status err; /* the first append's error; BS_OK while none failed */
} bs__buf;

#define BS__BUF_DEFAULT_LIMIT ((size_t)1 << 30)

/* Caps per use (curl's dynbuf style): each well above the most its use
 * can legitimately hold, so reaching one means runaway input or a bug.
 * Outputs that grow with the number of cases keep the 1 GiB default. */
#define BS__MiB ((size_t)1 << 20)
#define BS__CAP_JSON BS__BUF_DEFAULT_LIMIT     /* a JSON document */
#define BS__CAP_JSON_STRING (16 * BS__MiB)     /* one string read from JSON */
#define BS__CAP_MARKDOWN BS__BUF_DEFAULT_LIMIT /* a Markdown summary */
#define BS__CAP_TEXT BS__BUF_DEFAULT_LIMIT     /* a terminal table */
#define BS__CAP_MANIFEST_RECORD (32 * BS__MiB) /* a manifest (16 MiB file) */
#define BS__CAP_SUMS (4 * BS__MiB)             /* SHA256SUMS, 999 logs */
#define BS__CAP_CHART_DATA (256 * BS__MiB)     /* one chart's data points */
#define BS__CAP_PLOT_SCRIPT BS__BUF_DEFAULT_LIMIT /* a gnuplot batch */
#define BS__CAP_SVG (256 * BS__MiB)               /* an inline SVG chart */
#define BS__CAP_SITE_STATE BS__BUF_DEFAULT_LIMIT  /* the site's state file */
#define BS__CAP_SITE_FILES (256 * BS__MiB)        /* the site's file list */
#define BS__CAP_PAGE BS__BUF_DEFAULT_LIMIT        /* a rendered page */

void bs__buf_init(bs__buf *b, size_t limit);
/* Frees the storage; the buffer is as bs__buf_init left it, error
 * included. */
void bs__buf_release(bs__buf *b);
/* Empties the text; an error stays (the text it cut short is gone, the
 * writing still failed). */
void bs__buf_reset(bs__buf *b);
/* The first error an append met, or BS_OK. */
bs_status bs__buf_status(const bs__buf *b);
/* Makes err the buffer's error unless it has one already (a writer that
 * fails by itself, or hands on the error of a buffer it copied from);
 * BS_OK changes nothing. Returns the buffer's error. */
bs_status bs__buf_fail(bs__buf *b, bs_status err);
bs_status bs__buf_append(bs__buf *b, const void *p, size_t n);
bs_status bs__buf_puts(bs__buf *b, const char *s);
bs_status bs__buf_putc(bs__buf *b, char c);
/* w in single quotes, a quote inside written '\'': one word to a POSIX
 * shell, and to the splitting of a command line by `run`. */
bs_status bs__buf_put_quoted(bs__buf *b, const char *w);
bs_status bs__buf_printf(bs__buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
bs_status bs__buf_vprintf(bs__buf *b, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 0)))
#endif
    ;
/* Appends `s` escaped for a terminal or CI log (bs_text_escape, with
 * its flags). */
bs_status bs__buf_term(bs__buf *b, const char *s, int flags);
/* Gives the storage to the caller (free() it); the buffer is emptied and
 * its error cleared, as bs__buf_init left it. NULL when out of memory. */
char *bs__buf_detach(bs__buf *b, size_t *len);
/* Ends rendering a text into b, st being the rendering's status (or
 * BS_OK, when b's own error is the only one to ask about): on BS_OK
 * hands the text to the caller (*out, free() it; *len its length, len may
 * be NULL); otherwise releases b and reports "cannot render WHAT: reason"
 * in err. Returns BS_OK, st, or BS_ENOMEM. */
bs_status bs__buf_finish(bs__buf *b, bs_status st, const char *what, char **out,
                         size_t *len, bs_error *err);

#endif
