/* libFuzzer target: the markup escaper (src/base/markup.c), the one rule
 * for the HTML pages, the Atom feed and the chart labels.
 *
 * The input is a name, any bytes. It is escaped into an XML document as
 * the text of an element and as two attribute values (one in double, one
 * in single quotes), and the document is parsed by libxml2 (no network,
 * no entities: as the SVG check parses). Properties: the document is
 * well-formed whatever the name; the element's text and the attributes
 * read back as the name with every character that is not text replaced
 * by one U+FFFD, worked out here by a second reading of XML 1.0's Char
 * production, HTML's controls and noncharacters and RFC 3629 (so the
 * escaper neither loses text nor lets through what a parser refuses);
 * and the chart label gnuplot gets (bs_plot_quote, octal decoded) holds
 * the same text with what is not text dropped, line breaks as blanks. */
#include "benchsite/plot.h"

#include "buf.h"
#include "fuzz_util.h"
#include "markup.h"
#include "xmlload.h"

/* ---- The expected text, written from the standards ----------------------- */

/* The code point of the valid UTF-8 sequence at s (n bytes left) and its
 * length, or 0. RFC 3629, section 4: the byte ranges of each well-formed
 * sequence (which leave out overlong forms, surrogates and values past
 * U+10FFFF). */
static size_t seq(const unsigned char *s, size_t n, unsigned long *cp) {
  static const struct {
    unsigned char lo[4], hi[4];
    size_t len;
  } forms[] = {
      {{0x00}, {0x7F}, 1},
      {{0xC2, 0x80}, {0xDF, 0xBF}, 2},
      {{0xE0, 0xA0, 0x80}, {0xE0, 0xBF, 0xBF}, 3},
      {{0xE1, 0x80, 0x80}, {0xEC, 0xBF, 0xBF}, 3},
      {{0xED, 0x80, 0x80}, {0xED, 0x9F, 0xBF}, 3},
      {{0xEE, 0x80, 0x80}, {0xEF, 0xBF, 0xBF}, 3},
      {{0xF0, 0x90, 0x80, 0x80}, {0xF0, 0xBF, 0xBF, 0xBF}, 4},
      {{0xF1, 0x80, 0x80, 0x80}, {0xF3, 0xBF, 0xBF, 0xBF}, 4},
      {{0xF4, 0x80, 0x80, 0x80}, {0xF4, 0x8F, 0xBF, 0xBF}, 4},
  };
  for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
    size_t len = forms[f].len, k = 0;
    while (k < len && k < n && s[k] >= forms[f].lo[k] && s[k] <= forms[f].hi[k])
      k++;
    if (k != len)
      continue;
    static const unsigned char mask[5] = {0, 0x7F, 0x1F, 0x0F, 0x07};
    unsigned long v = s[0] & mask[len];
    for (size_t i = 1; i < len; i++)
      v = v << 6 | (s[i] & 0x3F);
    *cp = v;
    return len;
  }
  return 0;
}

/* Text in both HTML and XML: XML 1.0's Char (#x9 | #xA | #xD |
 * [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]) without what HTML
 * calls a parse error in its input: controls (DEL, C1) and noncharacters
 * ([#xFDD0-#xFDEF] and #xnFFFE, #xnFFFF of planes 1 to 16). */
static int text(unsigned long c) {
  int xml = c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
            (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
  int html_error =
      (c >= 0x7F && c <= 0x9F) || (c >= 0xFDD0 && c <= 0xFDEF) ||
      (c >= 0x10000 && (c % 0x10000 == 0xFFFE || c % 0x10000 == 0xFFFF));
  return xml && !html_error;
}

/* What a parser reads back from the escaped name: each character that is
 * not text (each byte that begins no sequence counting as one) is
 * U+FFFD; line ends are normalised to LF (XML 1.0, 2.11: CR LF and a lone
 * CR), and in an attribute every tab and LF then reads as a blank
 * (3.3.3). With `label`, what gnuplot is given instead: what is not text
 * is dropped but for a bad byte (U+FFFD), every tab and line break is a
 * blank (a label is one line), and a word joiner (U+2060) stands between
 * '&' and '#' and between "]]" and '>', which gnuplot's SVG terminal would
 * copy into its XML as a character reference or the end of a CDATA
 * section (bs_plot_quote's documented rule). */
static char *expected(const unsigned char *s, size_t n, int attr, int label,
                      size_t *out_len) {
  char *out = malloc(6 * n + 1);
  if (!out)
    abort();
  size_t o = 0;
  unsigned long last = 0, last2 = 0; /* what a label wrote last */
  for (size_t i = 0; i < n;) {
    unsigned long c;
    size_t len = seq(s + i, n - i, &c);
    const char *put = (const char *)s + i;
    size_t nput = len;
    if (!len) {
      put = "\xef\xbf\xbd";
      nput = 3;
      len = 1;
      c = 0xFFFD;
    } else if (!text(c)) {
      put = "\xef\xbf\xbd";
      nput = label ? 0 : 3;
      c = 0xFFFD;
    } else if (c == '\r' || c == '\n' || c == '\t') {
      if (c == '\r' && !label && i + 1 < n && s[i + 1] == '\n')
        len = 2; /* CR LF is one line end */
      put = label || attr ? " " : c == '\t' ? "\t" : "\n";
      nput = 1;
      c = (unsigned char)put[0];
    }
    if (label && nput) {
      if ((c == '#' && last == '&') ||
          (c == '>' && last == ']' && last2 == ']')) {
        memcpy(out + o, "\xe2\x81\xa0", 3);
        o += 3;
      }
      last2 = last;
      last = c;
    }
    memcpy(out + o, put, nput);
    o += nput;
    i += len;
  }
  out[o] = '\0';
  *out_len = o;
  return out;
}

/* ---- The target ------------------------------------------------------------
 */

static void expect_same(const char *got, const char *want, size_t want_len,
                        const char *what) {
  FUZZ_CHECK(got != NULL || want_len == 0, "%s: nothing read back", what);
  if (!got)
    return;
  FUZZ_CHECK(strlen(got) == want_len && !memcmp(got, want, want_len),
             "%s: read back \"%s\", want \"%s\"", what, got, want);
}

/* The label's literal, "\ooo..." between quotes, as bytes. */
static char *unoctal(const char *q, size_t *len) {
  size_t n = strlen(q);
  FUZZ_CHECK(n >= 2 && q[0] == '"' && q[n - 1] == '"', "label literal %s", q);
  char *out = malloc(n);
  if (!out)
    abort();
  size_t o = 0;
  for (size_t i = 1; i + 1 < n; i += 4) {
    FUZZ_CHECK(q[i] == '\\' && i + 4 < n, "label literal %s", q);
    out[o++] =
        (char)((q[i + 1] - '0') * 64 + (q[i + 2] - '0') * 8 + (q[i + 3] - '0'));
  }
  out[o] = '\0';
  *len = o;
  return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096)
    return 0;
  bs_error err;
  if (bs__xml_load(&err) != BS_OK)
    abort(); /* the replay and fuzz builds have libxml2 */
  const char *name = (const char *)data;

  bs__buf b;
  bs__buf_init(&b, 1 << 20);
  bs__buf_puts(&b, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<r a=\"");
  bs__markup_put(&b, name, size);
  bs__buf_puts(&b, "\" b='");
  bs__markup_put(&b, name, size);
  bs__buf_puts(&b, "'>");
  bs__markup_put(&b, name, size);
  FUZZ_CHECK(bs__buf_puts(&b, "</r>\n") == BS_OK, "buffer");
  size_t len = 0;
  char *doc_text = bs__buf_detach(&b, &len);
  FUZZ_CHECK(doc_text != NULL, "buffer");

  xmlDoc *doc =
      bs__xml.xmlReadMemory(doc_text, (int)len, NULL, NULL,
                            XML_PARSE_NONET | XML_PARSE_NOERROR |
                                XML_PARSE_NOWARNING | XML_PARSE_NOCDATA);
  FUZZ_CHECK(doc != NULL, "not well-formed XML: %s", doc_text);
  xmlNode *root = bs__xml.xmlDocGetRootElement(doc);
  FUZZ_CHECK(root && !strcmp((const char *)root->name, "r"), "root");

  size_t tl, al;
  char *want_text = expected(data, size, 0, 0, &tl);
  char *want_attr = expected(data, size, 1, 0, &al);
  const xmlNode *c = root->children;
  FUZZ_CHECK(!c || (c->type == XML_TEXT_NODE && !c->next), "one text node: %s",
             doc_text);
  expect_same(c ? (const char *)c->content : NULL, want_text, tl, "text");
  static const char *const attrs[] = {"a", "b"};
  for (size_t i = 0; i < 2; i++) {
    xmlChar *v = bs__xml.xmlGetNoNsProp(root, (const xmlChar *)attrs[i]);
    FUZZ_CHECK(v != NULL, "attribute %s", attrs[i]);
    expect_same((const char *)v, want_attr, al, attrs[i]);
    (*bs__xml.xmlFree)(v);
  }
  bs__xml.xmlFreeDoc(doc);

  /* The label: the same rule, with what a label cannot show dropped. */
  char *cut = malloc(size + 1);
  if (!cut)
    abort();
  memcpy(cut, data, size);
  cut[size] = '\0';
  size_t cl = strlen(cut); /* a label is a C string: up to a NUL */
  size_t need = bs_plot_quote(cut, 0, NULL, 0);
  char *q = malloc(need + 1);
  if (!q)
    abort();
  FUZZ_CHECK(bs_plot_quote(cut, 0, q, need + 1) == need, "quote length");
  size_t ll, wl;
  char *label = unoctal(q, &ll);
  char *want_label = expected((const unsigned char *)cut, cl, 0, 1, &wl);
  FUZZ_CHECK(ll == wl && !memcmp(label, want_label, wl),
             "label \"%s\", want \"%s\"", label, want_label);

  free(want_label);
  free(label);
  free(q);
  free(cut);
  free(want_text);
  free(want_attr);
  free(doc_text);
  return 0;
}
