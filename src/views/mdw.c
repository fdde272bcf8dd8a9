#include "mdw.h"

#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bs_status bs__md_text(bs__buf *b, const char *s) {
  bs_status st = BS_OK;
  for (const unsigned char *p = (const unsigned char *)s; !st && *p; p++) {
    unsigned long cp;
    size_t n = *p >= 0x80 ? bs__utf8_decode(p, &cp) : 0;
    /* A C1 control (NEL among them) or U+2028/U+2029 would end a line of
     * the CI log that shows the Markdown: a reference shows it instead. */
    if (n > 1 && ((cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029)) {
      st = bs__buf_printf(b, "&#x%lx;", cp);
      p += n - 1;
    } else if (*p == '<')
      st = bs__buf_puts(b, "&lt;");
    else if (*p == '>')
      st = bs__buf_puts(b, "&gt;");
    else if (*p == '&')
      st = bs__buf_puts(b, "&amp;");
    else if (*p < 0x20 || *p == 0x7f)
      st = bs__buf_putc(b, ' ');
    else if (strchr("\\`*_{}[]()#+-.!|@~=:\"'$%^;,/?", *p))
      st = bs__buf_printf(b, "\\%c", *p);
    else
      st = bs__buf_putc(b, (char)*p);
  }
  return st;
}

bs_status bs__md_case(bs__buf *b, const char *benchmark, const char *dataset) {
  bs__md_text(b, benchmark);
  if (dataset[0]) {
    bs__buf_puts(b, " \\[");
    bs__md_text(b, dataset);
    bs__buf_puts(b, "\\]");
  }
  return bs__buf_status(b);
}

bs_status bs__md_fit(bs__buf *doc, bs__buf *row, size_t room, size_t *cut) {
  /* A row that failed fails the document. */
  bs_status st = bs__buf_fail(doc, bs__buf_status(row));
  if (!st && !*cut && row->len <= room && doc->len <= room - row->len)
    st = bs__buf_append(doc, row->data ? row->data : "", row->len);
  else if (!st)
    (*cut)++;
  bs__buf_reset(row);
  return st;
}

static int hexdigit(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
         (c >= 'A' && c <= 'F');
}

bs_status bs__md_url(bs__buf *b, const char *url) {
  bs_status st = BS_OK;
  for (const unsigned char *p = (const unsigned char *)url; !st && *p; p++) {
    int keep = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
               (*p >= '0' && *p <= '9') ||
               (*p && strchr("-._~:/?#@=&+,;", *p)) ||
               (*p == '%' && hexdigit(p[1]) && hexdigit(p[2]));
    st = keep ? bs__buf_putc(b, (char)*p) : bs__buf_printf(b, "%%%02X", *p);
  }
  return st;
}

/* Display width of UTF-8 text: code points, continuation bytes skipped. */
static size_t plain_width(const char *s) {
  size_t w = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    if ((*p & 0xC0) != 0x80)
      w++;
  return w;
}

size_t bs__text_width(const char *s, int flags) {
  char tmp[1024];
  if (bs_text_escape(tmp, sizeof tmp, s, flags) >= sizeof tmp)
    return plain_width(s) * 4; /* an upper bound; cells are short */
  return plain_width(tmp);
}

bs_status bs__text_cell(bs__buf *b, const char *s, size_t width, int right,
                        int flags) {
  size_t w = bs__text_width(s, flags);
  for (size_t i = w; right && i < width; i++)
    bs__buf_putc(b, ' ');
  bs__buf_term(b, s, flags);
  for (size_t i = w; !right && i < width; i++)
    bs__buf_putc(b, ' ');
  return bs__buf_status(b);
}

/* Display width of UTF-8 text in code points. */
static size_t width_of(const char *s, size_t n) {
  size_t w = 0;
  for (size_t i = 0; i < n; i++)
    w += ((unsigned char)s[i] & 0xC0) != 0x80;
  return w;
}

/* 1 when a line begun with `prefix` (blanks only, or nothing) is still
 * at its start for a CI log: what follows could be a workflow command. */
static int blank(const char *prefix) {
  return prefix[strspn(prefix, " ")] == '\0';
}

/* Appends the word p[0..n-1] that begins a line after a blank prefix,
 * escaped as a line start (bs_text_escape): the text may hold a name
 * (already escaped where it stood in the middle of a line), and any of its
 * words can come first on a wrapped line. Its width grows by *extra. A
 * copy that cannot be made fails the buffer. */
static void line_start_word(bs__buf *b, const char *p, size_t n,
                            size_t *extra) {
  *extra = 0;
  if (bs__buf_status(b))
    return;
  char *word = strndup(p, n);
  if (!word) {
    bs__buf_fail(b, BS_ENOMEM);
    return;
  }
  size_t need = bs_text_escape(NULL, 0, word, BS_TEXT_LINE_START);
  bs__buf_term(b, word, BS_TEXT_LINE_START);
  *extra = need > n ? need - n : 0;
  free(word);
}

bs_status bs__text_wrap(bs__buf *b, const char *text, const char *first,
                        const char *rest, size_t width) {
  bs__buf_puts(b, first);
  size_t col = width_of(first, strlen(first));
  size_t indent = width_of(rest, strlen(rest));
  const char *p = text;
  int line_empty = 1;
  int at_start = blank(first); /* the next word begins a CI log line */
  while (!bs__buf_status(b) && *p) {
    while (*p == ' ')
      p++;
    if (!*p)
      break;
    size_t n = strcspn(p, " ");
    /* Keep a unit with its number: "3 %" never breaks. */
    while (p[n] == ' ' && p[n + 1] == '%')
      n += 1 + strcspn(p + n + 1, " ");
    size_t w = width_of(p, n);
    if (!line_empty && col + 1 + w > width) {
      bs__buf_putc(b, '\n');
      bs__buf_puts(b, rest);
      col = indent;
      line_empty = 1;
      at_start = blank(rest);
    }
    if (!line_empty) {
      bs__buf_putc(b, ' ');
      col++;
    }
    size_t extra = 0;
    if (line_empty && at_start)
      line_start_word(b, p, n, &extra);
    else
      bs__buf_append(b, p, n);
    col += w + extra;
    line_empty = 0;
    p += n;
  }
  return bs__buf_putc(b, '\n');
}
