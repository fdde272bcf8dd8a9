/* The markup escaper (src/base/markup.c), the one rule for HTML pages, the
 * Atom feed and chart labels: every class of code point, each expected
 * output written out by hand from XML 1.0's Char production (#x9 | #xA |
 * #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]), HTML's
 * list of parse errors in its input (controls, noncharacters) and RFC
 * 3629. */
#include "markup.h"
#include "support.h"

#include <criterion/criterion.h>
#include <string.h>

TestSuite(markup, .fini = ts_free_owned);

static const char *escaped(const char *s, size_t len) {
  bs__buf b;
  bs__buf_init(&b, 1 << 20);
  cr_assert_eq(bs__markup_put(&b, s, len), BS_OK);
  char *out = bs__buf_detach(&b, NULL);
  cr_assert_not_null(out);
  return ts_own(out);
}

#define FFFD "\xef\xbf\xbd"

Test(markup, markup_characters_become_references) {
  const char *s = "a&b<c>d\"e'f";
  cr_expect_str_eq(escaped(s, strlen(s)), "a&amp;b&lt;c&gt;d&quot;e&#39;f");
  cr_expect_str_eq(escaped("]]>", 3), "]]&gt;");
  cr_expect_str_eq(escaped("&#x1;", 5), "&amp;#x1;");
}

Test(markup, each_class_of_code_point) {
  struct {
    const char *in;
    size_t len;
    const char *out;
    bs__markup_kind kind;
  } cases[] = {
      /* C0: tab, line feed and carriage return are text, the rest not. */
      {"\x00", 1, FFFD, BS__MARKUP_CONTROL},
      {"\x01", 1, FFFD, BS__MARKUP_CONTROL},
      {"\t", 1, "\t", BS__MARKUP_BREAK},
      {"\n", 1, "\n", BS__MARKUP_BREAK},
      {"\r", 1, "\r", BS__MARKUP_BREAK},
      {"\x0b", 1, FFFD, BS__MARKUP_CONTROL},
      {"\x0c", 1, FFFD, BS__MARKUP_CONTROL},
      {"\x1b", 1, FFFD, BS__MARKUP_CONTROL},
      {"\x1f", 1, FFFD, BS__MARKUP_CONTROL},
      {" ", 1, " ", BS__MARKUP_TEXT},
      {"~", 1, "~", BS__MARKUP_TEXT},
      /* DEL and C1 (U+0085 NEL among them). */
      {"\x7f", 1, FFFD, BS__MARKUP_CONTROL},
      {"\xc2\x80", 2, FFFD, BS__MARKUP_CONTROL},
      {"\xc2\x85", 2, FFFD, BS__MARKUP_CONTROL},
      {"\xc2\x9f", 2, FFFD, BS__MARKUP_CONTROL},
      {"\xc2\xa0", 2, "\xc2\xa0", BS__MARKUP_TEXT}, /* U+00A0 */
      /* The last character before the surrogates, the first after. */
      {"\xed\x9f\xbf", 3, "\xed\x9f\xbf", BS__MARKUP_TEXT}, /* U+D7FF */
      {"\xee\x80\x80", 3, "\xee\x80\x80", BS__MARKUP_TEXT}, /* U+E000 */
      /* Noncharacters: U+FDD0..U+FDEF, U+FFFE, U+FFFF, U+1FFFE,
       * U+10FFFF; their neighbours are text. */
      {"\xef\xb7\x8f", 3, "\xef\xb7\x8f", BS__MARKUP_TEXT}, /* U+FDCF */
      {"\xef\xb7\x90", 3, FFFD, BS__MARKUP_CONTROL},        /* U+FDD0 */
      {"\xef\xb7\xaf", 3, FFFD, BS__MARKUP_CONTROL},        /* U+FDEF */
      {"\xef\xb7\xb0", 3, "\xef\xb7\xb0", BS__MARKUP_TEXT}, /* U+FDF0 */
      {"\xef\xbf\xbd", 3, FFFD, BS__MARKUP_TEXT},           /* U+FFFD */
      {"\xef\xbf\xbe", 3, FFFD, BS__MARKUP_CONTROL},        /* U+FFFE */
      {"\xef\xbf\xbf", 3, FFFD, BS__MARKUP_CONTROL},        /* U+FFFF */
      {"\xf0\x90\x80\x80", 4, "\xf0\x90\x80\x80", BS__MARKUP_TEXT},
      {"\xf0\x9f\xbf\xbe", 4, FFFD, BS__MARKUP_CONTROL}, /* U+1FFFE */
      {"\xf0\x9f\xbf\xbd", 4, "\xf0\x9f\xbf\xbd", BS__MARKUP_TEXT},
      {"\xf4\x8f\xbf\xbf", 4, FFFD, BS__MARKUP_CONTROL},    /* U+10FFFF */
      {"\xef\xbb\xbf", 3, "\xef\xbb\xbf", BS__MARKUP_TEXT}, /* U+FEFF */
      {"\xe2\x80\xa8", 3, "\xe2\x80\xa8", BS__MARKUP_TEXT}, /* U+2028 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t n = 0;
    cr_expect_eq(bs__markup_char(cases[i].in, cases[i].len, &n), cases[i].kind,
                 "case %zu", i);
    cr_expect_eq(n, cases[i].len, "case %zu", i);
    cr_expect_str_eq(escaped(cases[i].in, cases[i].len), cases[i].out,
                     "case %zu", i);
  }
}

/* A byte that begins no valid sequence is one character, replaced; the
 * bytes after it are read anew. Nothing past the length is read. */
Test(markup, bytes_that_are_not_utf8_are_replaced_one_by_one) {
  struct {
    const char *in;
    size_t len;
    const char *out;
  } cases[] = {
      {"\xff", 1, FFFD},
      {"\x80z", 2, FFFD "z"},
      {"\xc0\xaf", 2, FFFD FFFD},                   /* overlong '/' */
      {"\xe0\x80\xaf", 3, FFFD FFFD FFFD},          /* overlong */
      {"\xed\xa0\x80", 3, FFFD FFFD FFFD},          /* a surrogate */
      {"\xf4\x90\x80\x80", 4, FFFD FFFD FFFD FFFD}, /* past U+10FFFF */
      {"\xc3", 1, FFFD},                            /* cut short */
      {"\xe2\x82", 2, FFFD FFFD},
      {"\xc3\xa9", 1, FFFD}, /* the length ends the sequence */
      {"a\xc3(", 3, "a" FFFD "("},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t n = 0;
    cr_expect_eq(bs__markup_char(cases[i].in, cases[i].len, &n),
                 cases[i].in[0] == 'a' ? BS__MARKUP_TEXT : BS__MARKUP_INVALID,
                 "case %zu", i);
    cr_expect_eq(n, 1, "case %zu", i);
    cr_expect_str_eq(escaped(cases[i].in, cases[i].len), cases[i].out,
                     "case %zu", i);
  }
}

Test(markup, a_failed_buffer_stays_failed) {
  bs__buf b;
  bs__buf_init(&b, 4);
  cr_expect_eq(bs__markup_puts(&b, "a<b"), BS_ELIMIT);
  cr_expect_eq(bs__markup_puts(&b, "c"), BS_ELIMIT);
  cr_expect_eq(bs__markup_puts(&b, NULL), BS_ELIMIT);
  bs__buf_release(&b);
}
