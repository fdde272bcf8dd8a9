#include "mdw.h"

#include "benchsite/markdown.h"
#include "utf8.h"

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

bs_status bs__md_fit(bs__buf *doc, bs__buf *row, size_t reserve, size_t *cut) {
  bs_status st = BS_OK;
  if (!*cut && doc->len + row->len + reserve <= BS_MARKDOWN_LIMIT)
    st = bs__buf_append(doc, row->data ? row->data : "", row->len);
  else
    (*cut)++;
  bs__buf_reset(row);
  return st;
}
