#include "csvin.h"

#include "fsutil.h"
#include "oom.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes handed to csv_parse at most at once (a piece also ends after each
 * line ending, and where a field could outgrow max_field). */
#define PIECE_MAX ((size_t)65536)
/* Block size for files: large enough that read() costs nothing. */
#define READ_BLOCK ((size_t)1 << 18)
/* How much of a value a message quotes. */
#define QUOTE_MAX ((size_t)40)

bs_status bs__csvin_fail(bs__csvin *in, bs_status st, long line, long column,
                         const char *fmt, ...) {
  if (in->status)
    return in->status;
  in->status = st;
  if (in->err) {
    char msg[sizeof in->err->message];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (k >= (int)sizeof msg) /* cut: never inside a character */
      msg[bs__utf8_trim(msg, sizeof msg - 1)] = '\0';
    bs_error_set(in->err, st, in->name, line, "%s", msg);
    in->err->column = column;
  }
  return st;
}

/* libcsv trims blanks around unquoted fields by default; RFC 4180 keeps
 * them, and " 3" is not a number, so nothing counts as a blank. */
static int no_space(unsigned char c) {
  (void)c;
  return 0;
}

static void on_field(void *s, size_t len, void *data) {
  bs__csvin *in = data;
  if (!in->status)
    in->field(in->ctx, s, len);
}

static bs__csvin_raw_fn field_cb(const bs__csvin *in) {
  return in->raw_field ? in->raw_field : on_field;
}

static void on_record(int c, void *data) {
  (void)c;
  bs__csvin *in = data;
  if (!in->status)
    in->record(in->ctx);
  in->in_record = 0;
  in->dirty = in->batch_dirty;
  in->nrecords++;
  if (in->batch) /* the next record starts on the next line */
    in->rec_line = ++in->line;
}

bs_status bs__csvin_init(bs__csvin *in, const char *name, bs_error *err,
                         size_t max_field, bs__csvin_field_fn field,
                         bs__csvin_record_fn record, void *ctx) {
  memset(in, 0, sizeof *in);
  in->field = field;
  in->record = record;
  in->ctx = ctx;
  bs__csvin_path(in->name, name ? name : "");
  in->err = err;
  in->max_field = max_field;
  in->line = 1;
  if (csv_init(&in->p, CSV_STRICT | CSV_STRICT_FINI) != 0)
    return bs__csvin_fail(in, BS_ENOMEM, 0, 0, BS__OOM_TEXT);
  csv_set_space_func(&in->p, no_space);
  /* libcsv grows its field buffer by this much at a time (default 128). */
  csv_set_blk_size(&in->p, 4096);
  return BS_OK;
}

void bs__csvin_release(bs__csvin *in) { csv_free(&in->p); }

static void parse_error(bs__csvin *in, const unsigned char *at) {
  long col = (long)(in->fed - in->lstart) + 1;
  int e = csv_error(&in->p);
  if (e == CSV_ENOMEM)
    bs__csvin_fail(in, BS_ENOMEM, in->line, col, BS__OOM_TEXT);
  else if (e == CSV_ETOOBIG)
    bs__csvin_fail(in, BS_ELIMIT, in->line, col, "field too large");
  else if (*at == '"')
    bs__csvin_fail(in, BS_EINPUT, in->line, col,
                   "malformed CSV: quote inside an unquoted field (byte %ld "
                   "of the line)",
                   col);
  else
    bs__csvin_fail(in, BS_EINPUT, in->line, col,
                   "malformed CSV: text after a closing quote (byte %ld of "
                   "the line)",
                   col);
}

/* Whether d[0..n-1] has no NUL and no byte >= 0x80, eight bytes at a
 * time: a byte is 0 or >= 0x80 exactly when (x - 1) or x has its top bit
 * set there (a borrow only starts at a zero byte). */
static int plain_ascii(const unsigned char *d, size_t n) {
  const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
  uint64_t acc = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x;
    memcpy(&x, d + i, 8);
    acc |= (x - ones) | x;
  }
  if (i < n) {
    uint64_t x = ones; /* pad with a harmless byte */
    memcpy(&x, d + i, n - i);
    acc |= (x - ones) | x;
  }
  return (acc & highs) == 0;
}

/* Position of the first `c` in d[from..len-1], or len. */
static size_t find(const unsigned char *d, size_t from, size_t len, int c) {
  const unsigned char *p = memchr(d + from, c, len - from);
  return p ? (size_t)(p - d) : len;
}

/* One pass over what the feed is given, ahead of libcsv: where the next
 * byte is that a batch of lines cannot hold (a quote, a CR, or an LF right
 * after an LF: an empty line), and which 64-byte chunks before it hold a
 * blank (space or tab) or a NUL or byte >= 0x80. A batch of lines then
 * knows, without looking at its bytes again, whether libcsv must keep
 * blanks (no_space) and whether the reader must check its fields' bytes;
 * a chunk's bits may cover bytes just outside a batch, which only makes
 * that batch take the careful path. The pass looks at most SCAN_CHUNKS
 * chunks ahead, 16 bytes at a time in vectors. */
#define SCAN_CHUNKS 4096 /* 256 KiB */
#define SCAN_WORDS (SCAN_CHUNKS / 64)

typedef struct scan {
  size_t base;  /* offset of chunk 0's first byte */
  size_t stop;  /* the first such byte at or after base, or where it stopped */
  int hard;     /* stop is such a byte */
  size_t words; /* words of the bitmaps in use */
  uint64_t blank[SCAN_WORDS]; /* bit j: chunk j has a space or a tab */
  uint64_t odd[SCAN_WORDS];   /* bit j: chunk j has a NUL or a byte >= 0x80 */
} scan;

typedef unsigned char bs__v16 __attribute__((vector_size(16)));

static int any16(bs__v16 m) {
  uint64_t lo, hi;
  memcpy(&lo, &m, 8);
  memcpy(&hi, (const unsigned char *)&m + 8, 8);
  return (lo | hi) != 0;
}

/* The index of the first nonzero byte of m, which has one. */
static size_t first16(bs__v16 m) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t lo, hi;
  memcpy(&lo, &m, 8);
  memcpy(&hi, (const unsigned char *)&m + 8, 8);
  return lo ? (size_t)__builtin_ctzll(lo) / 8
            : 8 + (size_t)__builtin_ctzll(hi) / 8;
#else
  unsigned char b[16];
  memcpy(b, &m, sizeof b);
  size_t i = 0;
  while (!b[i])
    i++;
  return i;
#endif
}

/* Fills s for d[from..len-1]; d[from - 1], when from > 0, is the byte
 * before (for the empty-line test). */
static void scan_from(scan *s, const unsigned char *d, size_t from,
                      size_t len) {
  s->base = from;
  if (from < len && (d[from] == '"' || d[from] == '\r')) {
    s->stop = from; /* nothing to mark: a log that quotes its first field */
    s->hard = 1;
    return;
  }
  for (size_t w = 0; w < s->words; w++)
    s->blank[w] = s->odd[w] = 0;
  s->hard = 0;
  size_t end = len - from > (size_t)SCAN_CHUNKS * 64
                   ? from + (size_t)SCAN_CHUNKS * 64
                   : len;
  size_t i = from, j = 0;
  /* Whole chunks in vectors; b holds the bytes before c's. */
  for (; end - i >= 64; i += 64, j++) {
    bs__v16 blank = {0}, odd = {0};
    for (size_t k = 0; k < 4; k++) {
      bs__v16 c, b;
      memcpy(&c, d + i + 16 * k, sizeof c);
      if (i + 16 * k > 0) {
        memcpy(&b, d + i + 16 * k - 1, sizeof b);
      } else { /* nothing before the input's first byte */
        unsigned char t[16] = {0};
        memcpy(t + 1, d, 15);
        memcpy(&b, t, sizeof b);
      }
      bs__v16 hard =
          (bs__v16)((c == '"') | (c == '\r') | ((c == '\n') & (b == '\n')));
      blank |= (bs__v16)((c == ' ') | (c == '\t'));
      odd |= (bs__v16)((c == 0) | (c >= 0x80));
      if (any16(hard)) {
        /* The chunk's marks cover all of it up to here, past the stop. */
        s->blank[j / 64] |= (uint64_t)any16(blank) << (j % 64);
        s->odd[j / 64] |= (uint64_t)any16(odd) << (j % 64);
        s->stop = i + 16 * k + first16(hard);
        s->hard = 1;
        s->words = j / 64 + 1;
        return;
      }
    }
    s->blank[j / 64] |= (uint64_t)any16(blank) << (j % 64);
    s->odd[j / 64] |= (uint64_t)any16(odd) << (j % 64);
  }
  /* What is left, less than a chunk, byte by byte. */
  for (; i < end; i++) {
    unsigned char c = d[i];
    if (c == '"' || c == '\r' || (c == '\n' && i > 0 && d[i - 1] == '\n')) {
      s->hard = 1;
      break;
    }
    j = (i - from) / 64;
    if (c == ' ' || c == '\t')
      s->blank[j / 64] |= (uint64_t)1 << (j % 64);
    if (c == 0 || c >= 0x80)
      s->odd[j / 64] |= (uint64_t)1 << (j % 64);
  }
  s->stop = i;
  s->words = (i - from) / 64 / 64 + 1;
  if (s->words > SCAN_WORDS)
    s->words = SCAN_WORDS;
}

/* Whether a chunk of d[a..b-1] (base <= a < b <= stop) has a bit in m. */
static int scan_has(const scan *s, const uint64_t *m, size_t a, size_t b) {
  size_t ja = (a - s->base) / 64, jb = (b - 1 - s->base) / 64;
  for (size_t w = ja / 64; w <= jb / 64; w++) {
    uint64_t bits = m[w];
    if (w == ja / 64)
      bits &= ~(uint64_t)0 << (ja % 64);
    if (w == jb / 64 && jb % 64 != 63)
      bits &= ((uint64_t)1 << (jb % 64 + 1)) - 1;
    if (bits)
      return 1;
  }
  return 0;
}

/* Feeds d[0..n-1] as one batch: whole lines (n > 0, ending in LF) without
 * quotes, CRs or empty lines, starting where no record is open. There each
 * LF ends exactly one record, so on_record can count the lines, and one
 * csv_parse call replaces one a line. `plain` is 1 when the bytes are
 * known to be ASCII without NUL, 0 when they may not be (the reader then
 * checks every field's bytes). Returns what csv_parse returned. */
static size_t feed_batch(bs__csvin *in, const unsigned char *d, size_t n,
                         int plain) {
  in->batch = 1;
  in->batch_dirty = !plain;
  in->dirty = in->batch_dirty;
  in->in_record = 1;
  in->rec_line = in->line;
  size_t got = csv_parse(&in->p, d, n, field_cb(in), on_record, in);
  in->batch = 0;
  in->batch_dirty = 0;
  /* The line of the byte that failed is in->line (records hold no line
   * endings here); its line starts after the last LF before it. */
  size_t ls = got;
  while (ls > 0 && d[ls - 1] != '\n')
    ls--;
  in->lstart = in->fed + ls;
  in->prev_cr = 0;
  return got;
}

/* Whether a cached position of the next byte of some kind (SIZE_MAX:
 * not looked for yet) must be looked for again from pos. */
static int stale(size_t next, size_t pos) {
  return next == SIZE_MAX || next < pos;
}

/* libcsv's blank test for the bytes [pos, end): no_space where a space or
 * tab is among them, else its built-in (cheaper) one. Within what the
 * pass ahead looked at, its chunks say; past it, the next blank at or
 * after pos is found once and reused across calls. */
static void set_space(bs__csvin *in, const unsigned char *d, size_t pos,
                      size_t end, size_t len, const scan *sc, size_t *next_sp,
                      size_t *next_tab) {
  int blanks;
  if (end <= sc->stop) {
    blanks = scan_has(sc, sc->blank, pos, end);
  } else {
    if (stale(*next_sp, pos))
      *next_sp = find(d, pos, len, ' ');
    if (stale(*next_tab, pos))
      *next_tab = find(d, pos, len, '\t');
    blanks = *next_sp < end || *next_tab < end;
  }
  csv_set_space_func(&in->p, blanks ? no_space : NULL);
}

/* Whether the bytes [pos, end) may hold a NUL or a byte >= 0x80: within
 * what the pass ahead looked at, its chunks say; past it, they are
 * looked at. */
static int maybe_odd(const unsigned char *d, size_t pos, size_t end,
                     const scan *sc) {
  return end <= sc->stop ? scan_has(sc, sc->odd, pos, end)
                         : !plain_ascii(d + pos, end - pos);
}

/* After libcsv took `got` of the n bytes at p: 1 when it took them all
 * (counted as fed), else 0 with the error recorded. */
static int took_all(bs__csvin *in, const unsigned char *p, size_t n,
                    size_t got) {
  if (in->status)
    return 0;
  if (got < n) {
    in->fed += got;
    parse_error(in, p + got);
    return 0;
  }
  in->fed += n;
  return 1;
}

/* How far a batch from pos may reach: `lim` (a piece), or less where the
 * field cap's room ends first. */
static size_t batch_room(const bs__csvin *in, size_t pos, size_t lim) {
  if (in->max_field < SIZE_MAX - 2 && lim - pos > in->max_field + 2)
    return pos + in->max_field + 2;
  return lim;
}

/* Where a batch from pos ends: after the last LF before `stop` and the
 * batch's room; pos when no whole line fits. */
static size_t batch_end(const bs__csvin *in, const unsigned char *d, size_t pos,
                        size_t lim, size_t stop) {
  size_t bl = batch_room(in, pos, lim);
  if (stop < bl)
    bl = stop;
  while (bl > pos && d[bl - 1] != '\n')
    bl--;
  return bl;
}

static void feed_raw(bs__csvin *in, const unsigned char *d, size_t len) {
  size_t pos = 0;
  /* The pass ahead (scan_from), made once per stretch without a quote, CR
   * or empty line (most logs are one such stretch) and reused. */
  scan sc;
  memset(&sc, 0, sizeof sc); /* no bit set: sc.words = 0 */
  int scanned = 0;
  /* The next CR, space and tab at or after pos, each found once and
   * reused (SIZE_MAX: not yet); only looked for past the pass's stop. */
  size_t next_cr = SIZE_MAX, next_sp = SIZE_MAX, next_tab = SIZE_MAX;
  while (pos < len && !in->status) {
    size_t lim = len - pos > PIECE_MAX ? pos + PIECE_MAX : len;
    int line_start = !in->in_record && d[pos] != '\n' && d[pos] != '\r';
    if (!scanned || pos > sc.stop) {
      scan_from(&sc, d, pos, len);
      scanned = 1;
    }
    /* Between records, the whole lines before the pass's stop go as one
     * batch, which the pass says has blanks or bytes to check, or not. */
    if (line_start) {
      size_t bl = batch_end(in, d, pos, lim, sc.stop);
      if (bl == pos && !sc.hard && sc.stop < len && sc.base < pos &&
          sc.stop < batch_room(in, pos, lim)) {
        /* A line across the end of what the pass looked at (not one
         * longer than a piece or the field cap's room): look on. */
        scan_from(&sc, d, pos, len);
        bl = batch_end(in, d, pos, lim, sc.stop);
      }
      if (bl > pos) {
        set_space(in, d, pos, bl, len, &sc, &next_sp, &next_tab);
        size_t n = bl - pos;
        int plain = !maybe_odd(d, pos, bl, &sc);
        if (!took_all(in, d + pos, n, feed_batch(in, d + pos, n, plain)))
          return;
        pos = bl;
        continue;
      }
    }
    /* Past the pass's stop, or inside a record: one line at a time.
     * [pos, sc.stop) holds no CR, so the next is found from there. */
    if (stale(next_cr, pos))
      next_cr = find(d, sc.stop, len, '\r');
    const unsigned char *nl = memchr(d + pos, '\n', lim - pos);
    size_t eol = nl ? (size_t)(nl - d) : lim;
    if (next_cr < eol)
      eol = next_cr;
    size_t end = lim;
    if (eol < lim) {
      end = eol + 1; /* the line ending goes with its line */
      if (d[eol] == '\r' && end < len && d[end] == '\n')
        end++; /* and both bytes of a CRLF */
    }
    /* A field can outgrow the cap only at a piece's end: libcsv's buffer
     * grows by at most one byte per input byte, so with at most `room`
     * bytes a piece the cap is checked at the very byte that breaks it
     * (libcsv never holds more than max_field + 2 bytes), wherever the
     * caller's blocks end, and errors come out in input order. */
    if (in->max_field < SIZE_MAX - 2) {
      size_t room = in->max_field + 2 - in->p.entry_pos;
      if (end - pos > room)
        end = pos + room;
    }
    if (!in->in_record && d[pos] != '\n' && d[pos] != '\r') {
      in->in_record = 1;
      in->rec_line = in->line;
    }
    /* A blank can only matter where there is one: without any in this
     * piece, libcsv's built-in test (space or tab) is the same as
     * no_space, and cheaper than a call per byte. */
    set_space(in, d, pos, end, len, &sc, &next_sp, &next_tab);
    size_t n = end - pos;
    if (!in->dirty && maybe_odd(d, pos, end, &sc))
      in->dirty = 1;
    if (!took_all(in, d + pos, n,
                  csv_parse(&in->p, d + pos, n, field_cb(in), on_record, in)))
      return;
    /* libcsv holds a quoted field's closing quote until the next byte
     * shows whether it was doubled: one byte of slack, so a field at the
     * cap is never refused here (the field callback sees it whole). */
    if (in->p.entry_pos > 0 && in->p.entry_pos - 1 > in->max_field) {
      bs__csvin_fail(in, BS_ELIMIT, in->rec_line, 0,
                     "field longer than %zu bytes", in->max_field);
      return;
    }
    unsigned char last = d[end - 1];
    if (last == '\r') {
      in->line++;
      in->lstart = in->fed;
    } else if (last == '\n') {
      /* A CRLF split between two calls was counted at its CR. */
      if (!(n == 1 && in->prev_cr))
        in->line++;
      in->lstart = in->fed;
    }
    in->prev_cr = last == '\r';
    pos = end;
  }
}

bs_status bs__csvin_feed(bs__csvin *in, const char *data, size_t len) {
  const unsigned char *d = (const unsigned char *)data;
  static const unsigned char bom[3] = {0xEF, 0xBB, 0xBF};
  if (in->status || len == 0)
    return in->status;
  if (in->max_bytes && len > in->max_bytes - in->total) {
    bs_error_set(in->err, BS_ELIMIT, in->name, 0,
                 "file is larger than the limit of %llu bytes",
                 (unsigned long long)in->max_bytes);
    return in->status = BS_ELIMIT;
  }
  in->total += len;
  if (!in->started) {
    /* Hold back what could still be a BOM. */
    while (len > 0 && in->nbom < 3 && *d == bom[in->nbom]) {
      in->bom[in->nbom++] = *d++;
      len--;
    }
    if (in->nbom == 3) {
      in->started = 1; /* a BOM: dropped */
    } else if (len > 0) {
      in->started = 1; /* not a BOM: the held bytes are data */
      feed_raw(in, in->bom, in->nbom);
    }
  }
  if (len > 0)
    feed_raw(in, d, len);
  return in->status;
}

bs_status bs__csvin_finish(bs__csvin *in) {
  if (!in->started && in->nbom < 3) {
    in->started = 1;
    feed_raw(in, in->bom, in->nbom);
  }
  if (!in->status && csv_fini(&in->p, field_cb(in), on_record, in) != 0)
    bs__csvin_fail(in, BS_EINPUT, in->rec_line, 0,
                   "malformed CSV: quoted field not closed at end of file");
  return in->status;
}

bs_status bs__csvin_feed_file(bs__csvin *in, const char *path) {
  if (in->status)
    return in->status;
  int fd;
  if (in->archived || in->regular) {
    bs_error e;
    bs_status st =
        bs__open_regular(path, in->archived ? BS__OPEN_NOFOLLOW : 0, &fd, &e);
    struct stat sb;
    if (!st && in->max_bytes && fstat(fd, &sb) == 0 &&
        (uint64_t)sb.st_size > in->max_bytes) {
      close(fd);
      bs_error_set(&e, BS_ELIMIT, NULL, 0,
                   "file is larger than the limit of %llu bytes",
                   (unsigned long long)in->max_bytes);
      st = BS_ELIMIT;
    }
    if (st) {
      bs_error_set(in->err, st, in->name, 0, "%s", e.message);
      return in->status = st;
    }
  } else {
    fd = open(path, O_RDONLY | O_CLOEXEC);
  }
  if (fd < 0) {
    int e = errno;
    bs_error_set(in->err, BS_EIO, in->name, 0, "cannot open: %s", strerror(e));
    return in->status = BS_EIO;
  }
  char *buf = malloc(READ_BLOCK);
  if (!buf) {
    close(fd);
    return bs__csvin_fail(in, BS_ENOMEM, 0, 0, BS__OOM_TEXT);
  }
  while (!in->status) {
    ssize_t got = read(fd, buf, READ_BLOCK);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      int e = errno;
      bs_error_set(in->err, BS_EIO, in->name, 0, "read error: %s", strerror(e));
      in->status = BS_EIO;
      break;
    }
    if (got == 0) {
      bs__csvin_finish(in);
      break;
    }
    if (in->max_bytes && (uint64_t)got > in->max_bytes - in->total) {
      bs_error_set(in->err, BS_ELIMIT, in->name, 0,
                   "file is larger than the limit of %llu bytes",
                   (unsigned long long)in->max_bytes);
      in->status = BS_ELIMIT;
      break;
    }
    if (in->tee) {
      bs_status st = in->tee(in->tee_ctx, buf, (size_t)got, in->err);
      if (st) {
        in->status = st;
        break;
      }
    }
    bs__csvin_feed(in, buf, (size_t)got);
  }
  free(buf);
  close(fd);
  return in->status;
}

size_t bs__utf8_invalid_at(const unsigned char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    unsigned c = s[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t more;
    uint32_t cp, min;
    if (c >= 0xC2 && c <= 0xDF) {
      more = 1, cp = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
      more = 2, cp = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
      more = 3, cp = c & 0x07, min = 0x10000;
    } else {
      return i;
    }
    if (n - i <= more)
      return i;
    for (size_t k = 1; k <= more; k++) {
      unsigned b = s[i + k];
      if ((b & 0xC0) != 0x80)
        return i;
      cp = cp << 6 | (b & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return i;
    i += more + 1;
  }
  return n;
}

/* The length of the valid UTF-8 sequence at u[0..n-1], or 0. */
static size_t seq_len(const unsigned char *u, size_t n) {
  size_t len = u[0] < 0x80 ? 1 : u[0] >= 0xF0 ? 4 : u[0] >= 0xE0 ? 3 : 2;
  if (len > n || bs__utf8_invalid_at(u, len) != len)
    return 0;
  return len;
}

const char *bs__csvin_path(char *out, const char *path) {
  const unsigned char *u = (const unsigned char *)path;
  size_t n = strlen(path), o = 0, i = 0;
  while (i < n) {
    char esc[8];
    const char *piece = esc;
    size_t plen, used = seq_len(u + i, n - i);
    if (u[i] == '\\') {
      piece = "\\\\";
      plen = 2;
    } else if (used == 0 || u[i] < 0x20 || u[i] == 0x7F) {
      snprintf(esc, sizeof esc, "\\x%02x", u[i]);
      plen = 4;
      used = 1;
    } else if (u[i] == 0xC2 && u[i + 1] <= 0x9F) { /* a C1 control */
      snprintf(esc, sizeof esc, "\\u%04x", u[i + 1]);
      plen = 6;
    } else {
      piece = path + i;
      plen = used;
    }
    if (o + plen > BS__PATH_BUF - 4) {
      memcpy(out + o, "...", 3);
      o += 3;
      break;
    }
    memcpy(out + o, piece, plen);
    o += plen;
    i += used;
  }
  out[o] = '\0';
  return out;
}

const char *bs__csvin_quote(char *out, const char *s, size_t n, int quoted) {
  size_t o = 0;
  size_t lim = n;
  if (lim > QUOTE_MAX) {
    lim = QUOTE_MAX;
    while (lim > 0 && ((unsigned char)s[lim] & 0xC0) == 0x80)
      lim--;
  }
  if (quoted)
    out[o++] = '"';
  /* At most 40 input bytes, each at most 6 output bytes: fits the buffer. */
  for (size_t i = 0; i < lim; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      out[o++] = '\\';
      out[o++] = (char)c;
    } else if (c == '\n' || c == '\r' || c == '\t') {
      out[o++] = '\\';
      out[o++] = (char)(c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
    } else if (c < 0x20 || c == 0x7F) {
      o += (size_t)snprintf(out + o, BS__QUOTE_BUF - o, "\\x%02x", c);
    } else if (c == 0xC2 && i + 1 < lim && (unsigned char)s[i + 1] >= 0x80 &&
               (unsigned char)s[i + 1] <= 0x9F) {
      o += (size_t)snprintf(out + o, BS__QUOTE_BUF - o, "\\u%04x",
                            (unsigned)(unsigned char)s[i + 1]);
      i++;
    } else {
      out[o++] = (char)c;
    }
  }
  if (lim < n) {
    memcpy(out + o, "...", 3);
    o += 3;
  }
  if (quoted)
    out[o++] = '"';
  out[o] = '\0';
  return out;
}
