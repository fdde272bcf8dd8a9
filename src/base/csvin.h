/* The CSV input feed shared by the log and manifest readers. Private.
 *
 * libcsv counts no lines, so the feed hands it the input in pieces that
 * end after each line ending: the line of every byte fed is known, a
 * record's first line is the line of the first piece that starts outside
 * any record with something other than a line ending, and a short
 * csv_parse() turns into a line and a 1-based byte column. CRLF, LF and a
 * lone CR each end one line. A UTF-8 BOM at the very start is skipped.
 * Input can come in any number of pieces (a whole buffer, or a file read
 * in blocks), so a file never has to be held in memory. */
#ifndef BENCHSITE_CSVIN_H
#define BENCHSITE_CSVIN_H

#include "benchsite/error.h"

#include "utf8.h" /* bs__utf8_trim, for the callers of the message quoting */

#include <csv.h>
#include <stddef.h>
#include <stdint.h>

/* Room for a name in messages: bs_error's path, which it fills. */
#define BS__PATH_BUF 512

/* Called for each field (`s` holds `len` bytes, not NUL-terminated; `s`
 * may be NULL when len is 0) and at the end of each record. */
typedef void (*bs__csvin_field_fn)(void *ctx, const char *s, size_t len);
typedef void (*bs__csvin_record_fn)(void *ctx);

/* A field callback libcsv calls directly, with the feed (a bs__csvin *)
 * as `in`: a reader whose feed is its first member converts it back to
 * itself. It runs even after a failure, so it must return at once while
 * the feed's status is set. Saves a call a field on large logs. */
typedef void (*bs__csvin_raw_fn)(void *s, size_t len, void *in);

/* Handed each block bs__csvin_feed_file reads, before the block is parsed:
 * `archive add` hashes and copies a log in the pass that parses it.
 * Returns BS_OK, or a failure it has described in err (which may be NULL);
 * the feed then stops with that status. */
typedef bs_status (*bs__csvin_tee_fn)(void *ctx, const char *data, size_t len,
                                      bs_error *err);

typedef struct bs__csvin {
  struct csv_parser p;
  bs__csvin_field_fn field;
  bs__csvin_raw_fn raw_field; /* NULL, or used instead of `field` */
  bs__csvin_record_fn record;
  void *ctx;
  /* The name for messages, control characters escaped (a file name can
   * come from a pull request: "x\n::error::" must not start a line). */
  char name[BS__PATH_BUF];
  bs_error *err; /* may be NULL */
  /* A field still being buffered fails with BS_ELIMIT once it is surely
   * longer than this; the field callback must refuse a complete field
   * longer than this with bs__csvin_fail(in, BS_ELIMIT, in->rec_line, 0,
   * "field longer than %zu bytes", max_field), the same error. */
  size_t max_field;
  uint64_t max_bytes; /* more input fails with BS_ELIMIT; 0: no limit */
  /* The first failure, from the feed or a callback (bs__csvin_fail). Once
   * set, nothing more is fed and callbacks are not called again. */
  bs_status status;
  long line;       /* line of the next byte fed */
  long rec_line;   /* line where the current record starts */
  uint64_t fed;    /* bytes fed to libcsv so far (after the BOM) */
  uint64_t total;  /* bytes given to bs__csvin_feed so far */
  uint64_t lstart; /* offset of the current line's first byte */
  int in_record;
  /* A NUL or a byte >= 0x80 was fed since the current record started:
   * while 0, every field of the record is plain ASCII without NUL, so
   * readers can skip their byte checks. */
  int dirty;
  int prev_cr; /* the last byte fed was a CR */
  /* While 1, libcsv is parsing a batch of whole lines, one record each
   * (feed_raw): each record's end starts the next line, and `dirty`
   * stays what it was for the whole batch. */
  int batch;
  int batch_dirty;
  int started; /* the first byte was seen (BOM check done) */
  unsigned char bom[3];
  size_t nbom; /* bytes of a possible BOM held back */
  size_t nrecords;
  /* bs__csvin_feed_file reads a file of the run archive: a regular file
   * only, opened without blocking and never through a symbolic link
   * (bs__open_regular). 0 (bs__csvin_init's default): any readable path,
   * as a user names it (a FIFO from a shell's <(...) included). */
  int archived;
  /* 1: a regular file only (bs__open_regular, links followed), as
   * `archive add` takes a log; refused unread when it is larger than
   * max_bytes. */
  int regular;
  bs__csvin_tee_fn tee; /* NULL, or called with every block read */
  void *tee_ctx;
} bs__csvin;

/* Prepares a feed; returns BS_OK or BS_ENOMEM (with `err` filled). */
bs_status bs__csvin_init(bs__csvin *in, const char *name, bs_error *err,
                         size_t max_field, bs__csvin_field_fn field,
                         bs__csvin_record_fn record, void *ctx);
/* Feeds `len` bytes. Returns in->status. */
bs_status bs__csvin_feed(bs__csvin *in, const char *data, size_t len);
/* Ends the input (a last record without a final newline, an open quote).
 * Returns in->status. */
bs_status bs__csvin_finish(bs__csvin *in);
/* Feeds the whole file at `path` in blocks and finishes. BS_EIO when it
 * cannot be opened or read; nothing else is allocated for it. */
bs_status bs__csvin_feed_file(bs__csvin *in, const char *path);
void bs__csvin_release(bs__csvin *in);

/* Records the first failure (later ones are ignored) and stops the feed.
 * `line` and `column` are 1-based, 0 for unknown. Returns in->status. */
bs_status bs__csvin_fail(bs__csvin *in, bs_status st, long line, long column,
                         const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Returns the offset of the first byte of s[0..n-1] that does not start a
 * valid UTF-8 sequence (overlong forms, surrogates and code points past
 * U+10FFFF are invalid), or n when all of it is valid. */
size_t bs__utf8_invalid_at(const unsigned char *s, size_t n);

/* Writes `path` for a message into out (BS__PATH_BUF bytes): bytes that are
 * not valid UTF-8, C0 and C1 controls and DEL as \xNN, a backslash
 * doubled, cut at a character boundary with "..." when too long. Returns
 * out. */
const char *bs__csvin_path(char *out, const char *path);

/* Buffer size bs__csvin_quote needs. */
#define BS__QUOTE_BUF 256
/* Writes n bytes of valid UTF-8 `s` for a message into out
 * (BS__QUOTE_BUF bytes): quotes, backslashes and control characters (C0,
 * DEL, C1) escaped, at most 40 input bytes (cut at a character boundary)
 * followed by "...", in double quotes when `quoted`. Returns out. */
const char *bs__csvin_quote(char *out, const char *s, size_t n, int quoted);

#endif
