/* The SVG compaction (src/views/svgmin.c): what it removes draws nothing, and
 * what draws something stays byte for byte. The pixels were compared by
 * rendering every chart of the example site before and after in
 * chromium (identical screenshots); these tests pin each rule. */
#include "benchsite/plot.h"

#include "plotsafe.h"
#include "support.h"
#include "svgmin.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(svgmin, .fini = ts_free_owned);

static char *compact(const char *in) {
  char *out = NULL;
  size_t len = 0;
  bs_error err;
  bs_error_clear(&err);
  cr_assert_eq(bs__svg_compact("t.svg", in, strlen(in), &out, &len, &err),
               BS_OK, "%s", err.message);
  cr_assert_eq(strlen(out), len);
  return out;
}

#define HEAD                                                                   \
  "<?xml version=\"1.0\" encoding=\"utf-8\"  standalone=\"no\"?>\n"            \
  "<svg viewBox=\"0 0 10 10\" xmlns=\"http://www.w3.org/2000/svg\" "           \
  "xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"

Test(svgmin, drops_what_draws_nothing_and_keeps_what_draws) {
  const char *in =
      HEAD "<defs>\n"
           "\t<circle id='gpDot' r='0.5'/>\n"
           "\t<circle id='gpPt5' r='1'/>\n"
           "\t<use xlink:href='#gpPt5' id='gpPt6' fill='currentColor'/>\n"
           "\t<use xlink:href='#gpPt6' id='gpPt7'/>\n"
           "\t<filter id='textbox'><feFlood flood-color='white'/></filter>\n"
           "</defs>\n"
           "<!-- a comment -->\n"
           "<g fill=\"none\" color=\"black\" stroke=\"currentColor\" "
           "stroke-linecap=\"butt\" stroke-linejoin=\"miter\">\n</g>\n"
           "<g fill=\"none\" stroke=\"rgb( 85,  85,  85)\">\n"
           "\t<path d='M1.00,2.00 L3.00,4.00  '/></g>\n"
           "<g fill=\"none\" stroke=\"rgb( 85,  85,  85)\">\n"
           "\t<use xlink:href='#gpPt6' x='1' y='2'/></g>\n"
           "<g opacity=\"0.5\"><path d='M0,0 L1,1'/></g>\n"
           "<g opacity=\"0.5\"><path d='M0,0 L1,2'/></g>\n"
           "<g transform=\"translate(1,2)\">\n"
           "\t<text><tspan>a</tspan> <tspan>b</tspan>  c </text>\n"
           "</g>\n"
           "</svg>\n";
  char *out = compact(in);
  /* Unused definitions go, one that is used (and what it uses) stays. */
  cr_expect_null(strstr(out, "gpDot"), "%s", out);
  cr_expect_null(strstr(out, "gpPt7"), "%s", out);
  cr_expect_null(strstr(out, "textbox"), "%s", out);
  cr_expect_not_null(strstr(out, "id=\"gpPt5\""), "%s", out);
  cr_expect_not_null(strstr(out, "id=\"gpPt6\""), "%s", out);
  /* The empty group, the comment and the default line ends go. */
  cr_expect_null(strstr(out, "black"), "%s", out);
  cr_expect_null(strstr(out, "comment"), "%s", out);
  cr_expect_null(strstr(out, "linecap"), "%s", out);
  /* The two plain groups are one; the opacity groups stay two. */
  cr_expect_not_null(strstr(out,
                            "<g fill=\"none\" stroke=\"rgb(85,85,85)\"><path "
                            "d=\"M1,2L3,4\"/><use xlink:href=\"#gpPt6\""),
                     "%s", out);
  const char *op = strstr(out, "opacity");
  cr_assert_not_null(op);
  cr_expect_not_null(strstr(op + 1, "opacity"), "%s", out);
  /* Text keeps every space it had (and takes its group's transform). */
  cr_expect_not_null(strstr(out, "<text transform=\"translate(1,2)\"><tspan>a"
                                 "</tspan> <tspan>b</tspan>  c </text>"),
                     "%s", out);
  /* What it writes passes the check, and a second pass changes nothing. */
  bs_error err;
  cr_expect_eq(bs__svg_check_memory("t.svg", out, strlen(out), &err), BS_OK);
  char *again = compact(out);
  cr_expect_str_eq(again, out);
  free(again);
  free(out);
}

/* A plain group around one element gives it its attributes: the element's
 * own win, transforms compose (the group's first), and a group that is
 * more than presentation (an id, opacity) stays. */
Test(svgmin, a_group_of_one_hands_its_attributes_to_it) {
  const char *in =
      HEAD "<defs><circle id='gpPt5' r='1' fill='currentColor'/></defs>"
           "<g transform='translate(1,2)' fill='red'>"
           "<use xlink:href='#gpPt5' transform='scale(2)' fill='blue'/></g>"
           "<g id='keep' fill='red'><path d='M0,0 L1,1'/></g>"
           "<g opacity='0.5' fill='red'><path d='M0,0 L2,2'/></g>"
           "<g transform='scale(2)'><svg width='1' height='1'/></g>"
           "<g fill='green' stroke='black'><path d='M0,0 L3,3'/>"
           "<g font-size='11.00'><text>1.00</text></g></g>"
           "</svg>\n";
  char *out = compact(in);
  cr_expect_not_null(strstr(out, "<use xlink:href=\"#gpPt5\" "
                                 "transform=\"translate(1,2) scale(2)\" "
                                 "fill=\"blue\"/>"),
                     "%s", out);
  cr_expect_null(strstr(out, "red\"><use"), "%s", out);
  cr_expect_not_null(strstr(out, "<g id=\"keep\" fill=\"red\"><path"), "%s",
                     out);
  cr_expect_not_null(strstr(out, "<g opacity=\"0.5\" fill=\"red\"><path"), "%s",
                     out);
  /* A nested <svg> takes no transform in SVG 1.1: its group stays. */
  cr_expect_not_null(strstr(out, "<g transform=\"scale(2)\"><svg"), "%s", out);
  /* Two children: the group stays; its inner group of one goes, and the
   * text's characters are never numbers to trim. */
  cr_expect_not_null(strstr(out, "<g fill=\"green\" stroke=\"black\"><path "
                                 "d=\"M0,0L3,3\"/><text font-size=\"11\">"
                                 "1.00</text></g>"),
                     "%s", out);
  char *again = compact(out);
  cr_expect_str_eq(again, out);
  free(again);
  free(out);
}

/* The colour property goes where nothing takes it, and stays where a value
 * names currentColor or a <use> inherits it. */
Test(svgmin, a_colour_nothing_takes_is_dropped) {
  const char *in =
      HEAD "<defs><circle id='gpPt5' r='1' fill='currentColor'/></defs>"
           "<g color='gray' stroke='currentColor' stroke-width='0.60'>"
           "<path stroke='rgb(1,2,3)' d='M0,0 L1,1' class='gridline'/></g>"
           "<g color='olive' stroke='currentColor'><path d='M0,0 L2,2'/>"
           "<path d='M0,0 L3,3'/></g>"
           "<g color='teal'><use xlink:href='#gpPt5'/><path d='M0,0'/></g>"
           "</svg>\n";
  char *out = compact(in);
  cr_expect_null(strstr(out, "gray"), "%s", out);
  cr_expect_null(strstr(out, "gridline"), "%s", out);
  cr_expect_not_null(strstr(out, "<path stroke=\"rgb(1,2,3)\" d=\"M0,0L1,1\" "
                                 "stroke-width=\"0.6\"/>"),
                     "%s", out);
  cr_expect_not_null(strstr(out, "olive"), "%s", out);
  cr_expect_not_null(strstr(out, "teal"), "%s", out);
  free(out);
}

/* Numbers lose trailing zeros in number-only attributes and nowhere else. */
Test(svgmin, trailing_zeros_go_from_numbers_only) {
  const char *in =
      HEAD "<path d='M10.,0.500 L.0,-0.250 L1.50e3,100' fill-opacity='0.550000'"
           " stroke='rgb(10,20,30)' class='v1.0'/>"
           "<style>.v1 { fill: red; }</style>"
           "</svg>\n";
  char *out = compact(in);
  cr_expect_not_null(strstr(out, "d=\"M10,0.5 L0,-0.25 L1.50e3,100\""), "%s",
                     out); /* (an exponent: the path stays absolute) */
  cr_expect_not_null(strstr(out, "fill-opacity=\"0.55\""), "%s", out);
  /* A style sheet could select the class: it stays. */
  cr_expect_not_null(strstr(out, "class=\"v1.0\""), "%s", out);
  cr_expect_not_null(strstr(out, "rgb(10,20,30)"), "%s", out);
  free(out);
}

/* Path data of M, L and Z with two decimals at most loses its blanks and
 * writes horizontal and vertical lines as H and V, compared in hundredths,
 * absolute so that every point stays where it was; other path data stays
 * as it is. */
Test(svgmin, paths_take_the_shortest_exact_steps) {
  const char *in =
      HEAD "<path d='M82.42,262.45 L696.92,262.45'/>"
           "<path d='M304.8,327.62 L328.43,327.62 L328.43,319.38 L304.8,319.38"
           " L304.8,327.62 Z'/>"
           "<path d='M10,10 L11,11 12,15 Z L10,12'/>"
           "<path d='M0,0 C1,1 2,2 3,3'/>"
           "<path d='M0.125,0 L1,1'/>"
           "<path d='M.5,0 L.5,100'/>"
           "</svg>\n";
  char *out = compact(in);
  cr_expect_not_null(strstr(out, "d=\"M82.42,262.45H696.92\""), "%s", out);
  cr_expect_not_null(
      strstr(out, "d=\"M304.8,327.62H328.43V319.38H304.8V327.62Z\""), "%s",
      out);
  /* Repeated coordinates are lines; after Z the point is the start. */
  cr_expect_not_null(strstr(out, "d=\"M10,10L11,11L12,15ZV12\""), "%s", out);
  cr_expect_not_null(strstr(out, "d=\"M0,0 C1,1 2,2 3,3\""), "%s", out);
  cr_expect_not_null(strstr(out, "d=\"M0.125,0 L1,1\""), "%s", out);
  cr_expect_not_null(strstr(out, "d=\"M0.5,0V100\""), "%s", out);
  char *again = compact(out);
  cr_expect_str_eq(again, out);
  free(again);
  free(out);
}

/* A reference shorter than an id (asan: it read past the end of it). */
Test(svgmin, a_short_reference_is_not_a_use) {
  const char *in = HEAD "<defs><circle id='gpPt5' r='1'/></defs>"
                        "<use xlink:href='#gp'/><path d='M0,0' fill='#g'/>"
                        "</svg>\n";
  char *out = compact(in);
  cr_expect_null(strstr(out, "gpPt5"), "%s", out);
  cr_expect_not_null(strstr(out, "#gp\""), "%s", out);
  free(out);
}

/* Which definitions stay is decided by what the drawn part of the chart
 * refers to, directly or through other definitions: "#a" and url(#a)
 * refer to a, wherever the '#' stands in an attribute ("x#a" too), "#ab"
 * does not; a definition that only refers to itself, or a ring of them
 * that nothing drawn refers to, draws nothing. */
Test(svgmin, keeps_exactly_the_definitions_the_drawing_reaches) {
  const char *in =
      HEAD "<defs>"
           "<circle id='a' r='1'/>"
           "<circle id='b' r='1' fill='url(#a)'/>"
           "<use id='c' xlink:href='#b'/>"
           "<circle id='self' r='1' fill='url(#self)'/>"
           "<use id='ring1' xlink:href='#ring2'/>"
           "<use id='ring2' xlink:href='#ring1'/>"
           "<circle id='hashed' r='1'/>"
           "<circle id='ab' r='1'/>"
           "<circle id='q' r='1'/>"
           "</defs>"
           "<use xlink:href='#c' x='1'/>"
           "<path d='M0,0' stroke='x#hashed' fill=\"url(#ab) '#q'\"/>"
           "</svg>\n";
  char *out = compact(in);
  const char *kept[] = {"\"a\"",      "\"b\"",  "\"c\"",
                        "\"hashed\"", "\"ab\"", "\"q\""};
  for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
    cr_expect_not_null(strstr(out, kept[i]), "%s kept: %s", kept[i], out);
  cr_expect_null(strstr(out, "id=\"self\""), "%s", out);
  cr_expect_null(strstr(out, "id=\"ring1\""), "%s", out);
  cr_expect_null(strstr(out, "id=\"ring2\""), "%s", out);
  free(out);
}

/* The bytes of a hostile chart of `n` bytes: definitions that each use the
 * one before (the last used by nothing, so each one draws nothing but is
 * found unused only once the one after it is gone), then one drawn path
 * whose attribute is '#' after '#', and one definition the drawing uses. */
static char *chained(size_t n) {
  char *s = malloc(n + 4096);
  cr_assert_not_null(s);
  size_t len = 0;
  len += (size_t)snprintf(s, n, "%s<defs><circle id='used' r='1'/>", HEAD);
  for (size_t i = 0; len < n / 2; i++)
    len += (size_t)snprintf(s + len, n + 4096 - len,
                            i ? "<use id='d%zu' xlink:href='#d%zu'/>"
                              : "<circle id='d%zu' r='%zu'/>",
                            i, i ? i - 1 : 1);
  len += (size_t)snprintf(s + len, n + 4096 - len,
                          "</defs><use xlink:href='#used'/><path d='M0,0' "
                          "stroke='black' data-x='");
  while (len < n)
    s[len++] = '#';
  snprintf(s + len, 4096, "'/></svg>\n");
  return s;
}

/* Bounded work: a 512 KB chart of 9 000 chained definitions compacts at
 * once (the compaction was cubic in their number: hours for this one).
 * The time limit only catches a hang; bench/bench_svgmin.sh measures. */
Test(svgmin, a_long_chain_of_unused_definitions_is_removed, .timeout = 120) {
  char *in = chained(512 * 1024);
  char *out = compact(in);
  cr_expect_null(strstr(out, "id=\"d"), "every chained definition goes");
  cr_expect_not_null(strstr(out, "id=\"used\""));
  cr_expect_not_null(strstr(out, "stroke=\"black\""));
  free(out);
  free(in);
}

Test(svgmin, keeps_line_ends_when_one_differs) {
  const char *in = HEAD "<g stroke-linecap=\"butt\"><path d='M0,0 L1,1'/></g>"
                        "<g stroke-linecap=\"round\"><path d='M0,0 L1,2'/></g>"
                        "</svg>\n";
  char *out = compact(in);
  cr_expect_not_null(strstr(out, "\"butt\""), "%s", out);
  cr_expect_not_null(strstr(out, "\"round\""), "%s", out);
  free(out);
}

Test(svgmin, refuses_what_the_check_refuses) {
  const char *bad[] = {
      HEAD "<script>alert(1)</script></svg>",
      HEAD "<g onload=\"alert(1)\"><path d='M0,0'/></g></svg>",
      HEAD "<use xlink:href=\"http://example.com/x.svg#a\"/></svg>",
      "<!DOCTYPE svg [<!ENTITY e \"x\">]>"
      "<svg xmlns=\"http://www.w3.org/2000/svg\"><text>&e;</text></svg>",
      "not xml <"};
  const char *dir = ts_own(ts_tmpdir("svgmin"));
  char *path = ts_own(ts_path(dir, "c.svg"));
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ts_write(path, bad[i]);
    bs_error err;
    bs_error_clear(&err);
    cr_expect_eq(bs__svg_check_compact(path, &err), BS_EPLOT, "case %zu", i);
  }
}

/* A real chart: gnuplot's bytes that draw nothing are gone. */
Test(svgmin, shrinks_a_gnuplot_chart) {
  const char *dir = ts_own(ts_tmpdir("svgmin"));
  bs_plot *p = bs_plot_new();
  cr_assert_not_null(p);
  double x[20], y[20];
  for (int i = 0; i < 20; i++) {
    x[i] = i;
    y[i] = 1.0 + 0.01 * (i % 7);
  }
  const double *cols[2] = {x, y};
  bs_plot_style st;
  memset(&st, 0, sizeof st);
  st.color = 0x0072b2;
  st.marker = BS_MARK_CIRCLE;
  bs_plot_chart(p, "c.svg", 720, 340);
  bs_plot_title(p, "deltas");
  bs_plot_xlabel(p, "block");
  bs_plot_ylabel(p, "time (us)");
  bs_plot_series(p, BS_PLOT_LINESPOINTS, "x", &st, cols, 20);
  bs_plot_run run;
  memset(&run, 0, sizeof run);
  bs_error err;
  bs_error_clear(&err);
  cr_assert_eq(bs_plot_render(p, dir, &run, &err), BS_OK, "%s", err.message);
  bs_plot_free(p);
  size_t len = 0;
  char *svg = ts_own(ts_read(ts_own(ts_path(dir, "c.svg")), &len));
  cr_assert_not_null(svg);
  cr_expect_null(strstr(svg, "stroke-linejoin"));
  cr_expect_null(strstr(svg, "gpDot"));
  cr_expect_null(strstr(svg, "\"gpPt0\""), "an unused point definition");
  cr_expect_null(strstr(svg, "\"></g>"), "an empty group is left");
  cr_expect_not_null(strstr(svg, "deltas"));
  /* What is left of gnuplot 5.4's bytes for this chart: 11.4 kB. */
  cr_expect_lt(len, 12000, "%zu bytes", len);
}
