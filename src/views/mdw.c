#include "mdw.h"

#include "utf8.h"

#include <stdio.h>
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
  bs_status st = bs__md_text(b, benchmark);
  if (!st && dataset[0]) {
    st = bs__buf_puts(b, " \\[");
    if (!st)
      st = bs__md_text(b, dataset);
    if (!st)
      st = bs__buf_puts(b, "\\]");
  }
  return st;
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
  bs_status st = BS_OK;
  for (size_t i = w; right && i < width && !st; i++)
    st = bs__buf_putc(b, ' ');
  if (!st)
    st = bs__buf_term(b, s, flags);
  for (size_t i = w; !right && i < width && !st; i++)
    st = bs__buf_putc(b, ' ');
  return st;
}
