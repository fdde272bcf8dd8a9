/* The logic-less template engine: Mustache semantics, escaping, errors. */
#include "benchsite/template.h"

#include "support.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* Renders `text` as template "t" in a set without a directory. */
static char *render(const char *text, const bs_tval *ctx) {
  bs_templates *t = bs_templates_new(NULL);
  bs_error err;
  bs_error_clear(&err);
  cr_assert_eq(bs_templates_add(t, "t", text, strlen(text), &err), BS_OK, "%s",
               err.message);
  char *out = NULL;
  size_t len = 0;
  cr_assert_eq(bs_templates_render(t, "t", ctx, &out, &len, &err), BS_OK, "%s",
               err.message);
  cr_assert_eq(strlen(out), len);
  bs_templates_free(t);
  return out;
}

static void expect(const char *text, const bs_tval *ctx, const char *want) {
  char *got = render(text, ctx);
  cr_expect_str_eq(got, want, "template %s", text);
  free(got);
}

static bs_status parse_error(const char *text, bs_error *err) {
  bs_templates *t = bs_templates_new(NULL);
  bs_error_clear(err);
  bs_status st = bs_templates_add(t, "page", text, strlen(text), err);
  bs_templates_free(t);
  return st;
}

Test(template, escapes_the_five_html_characters) {
  bs_tdata *d = bs_tdata_new();
  bs_tval_set_str(bs_tdata_root(d), "x", "<a href=\"x\">Tom & 'Jerry'</a>");
  expect("{{x}}", bs_tdata_root(d),
         "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;");
  expect("{{{x}}}|{{&x}}", bs_tdata_root(d),
         "<a href=\"x\">Tom & 'Jerry'</a>|<a href=\"x\">Tom & 'Jerry'</a>");
  bs_tdata_free(d);
}

Test(template, unknown_names_render_empty) {
  bs_tdata *d = bs_tdata_new();
  expect("[{{nope}}][{{{nope}}}][{{a.b.c}}]", bs_tdata_root(d), "[][][]");
  expect("[{{nope}}]", NULL, "[]");
  bs_tdata_free(d);
}

Test(template, sections_iterate_lists_and_enter_objects) {
  bs_tdata *d = bs_tdata_new();
  bs_tval *root = bs_tdata_root(d);
  bs_tval_set_str(root, "title", "T");
  bs_tval *l = bs_tval_set_list(root, "items");
  bs_tval_set_str(bs_tval_push_obj(l), "n", "1");
  bs_tval_set_str(bs_tval_push_obj(l), "n", "2");
  bs_tval *o = bs_tval_set_obj(root, "o");
  bs_tval_set_str(o, "k", "v");
  bs_tval *s = bs_tval_set_list(root, "strs");
  bs_tval_push_str(s, "a");
  bs_tval_push_str(s, "<b>");
  cr_assert_eq(bs_tval_size(l), 2);
  /* Names resolve up the stack: "title" from inside the list items. */
  expect("{{#items}}{{n}}{{title}},{{/items}}", root, "1T,2T,");
  expect("{{#o}}{{k}}{{/o}}|{{o.k}}", root, "v|v");
  expect("{{#strs}}({{.}}){{/strs}}", root, "(a)(&lt;b&gt;)");
  bs_tdata_free(d);
}

Test(template, falsy_values_and_inverted_sections) {
  bs_tdata *d = bs_tdata_new();
  bs_tval *root = bs_tdata_root(d);
  bs_tval_set_bool(root, "yes", 1);
  bs_tval_set_bool(root, "no", 0);
  bs_tval_set_str(root, "empty", "");
  bs_tval_set_list(root, "none");
  expect("{{#yes}}Y{{/yes}}{{^yes}}N{{/yes}}", root, "Y");
  expect("{{#no}}Y{{/no}}{{^no}}N{{/no}}", root, "N");
  expect("{{#empty}}Y{{/empty}}{{^empty}}N{{/empty}}", root, "N");
  expect("{{#none}}Y{{/none}}{{^none}}N{{/none}}", root, "N");
  expect("{{#missing}}Y{{/missing}}{{^missing}}N{{/missing}}", root, "N");
  bs_tdata_free(d);
}

Test(template, dotted_names_do_not_fall_back_below_their_first_part) {
  bs_tdata *d = bs_tdata_new();
  bs_tval *root = bs_tdata_root(d);
  bs_tval_set_str(root, "k", "outer");
  bs_tval *a = bs_tval_set_obj(root, "a");
  bs_tval_set_obj(a, "b");
  expect("[{{a.b.k}}]", root, "[]");
  bs_tval_set_str(bs_tval_set_obj(a, "b"), "k", "inner");
  expect("[{{a.b.k}}]", root, "[inner]");
  bs_tdata_free(d);
}

Test(template, setting_a_key_again_replaces_it) {
  bs_tdata *d = bs_tdata_new();
  bs_tval *root = bs_tdata_root(d);
  bs_tval_set_str(root, "k", "one");
  bs_tval_set_strf(root, "k", "%s-%d", "two", 2);
  cr_assert_eq(bs_tval_size(root), 1);
  expect("{{k}}", root, "two-2");
  bs_tdata_free(d);
}

Test(template, comments_vanish_and_standalone_lines_are_removed) {
  bs_tdata *d = bs_tdata_new();
  bs_tval *root = bs_tdata_root(d);
  bs_tval *l = bs_tval_set_list(root, "l");
  bs_tval_push_str(l, "x");
  bs_tval_push_str(l, "y");
  expect("a{{! a comment\nover lines }}b", root, "ab");
  expect("<ul>\n  {{#l}}\n  <li>{{.}}</li>\n  {{/l}}\n</ul>\n", root,
         "<ul>\n  <li>x</li>\n  <li>y</li>\n</ul>\n");
  expect("  {{! alone }}\nkept\n", root, "kept\n");
  /* Not alone on its line: the blanks stay. */
  expect("a {{#l}}{{.}}{{/l}} b\n", root, "a xy b\n");
  /* Variables never take their line. */
  expect("  {{nothing}}\nz", root, "  \nz");
  bs_tdata_free(d);
}

Test(template, unbalanced_sections_name_file_and_line) {
  bs_error err;
  cr_assert_eq(parse_error("line one\n{{#a}}\nthree\n", &err), BS_EINPUT);
  cr_expect_str_eq(err.path, "page");
  cr_expect_eq(err.line, 2);
  cr_expect(strstr(err.message, "never closed"), "%s", err.message);

  cr_assert_eq(parse_error("x\ny\n{{/a}}", &err), BS_EINPUT);
  cr_expect_eq(err.line, 3);
  cr_expect(strstr(err.message, "closes no open section"), "%s", err.message);

  cr_assert_eq(parse_error("{{#a}}\n{{#b}}\n{{/a}}\n{{/b}}", &err), BS_EINPUT);
  cr_expect_eq(err.line, 3);
  cr_expect(strstr(err.message, "opened on line 2"), "%s", err.message);

  cr_assert_eq(parse_error("ok\n{{ unterminated", &err), BS_EINPUT);
  cr_expect_eq(err.line, 2);
  cr_assert_eq(parse_error("{{=<% %>=}}", &err), BS_EINPUT);
  cr_assert_eq(parse_error("{{#}}{{/}}", &err), BS_EINPUT);
  cr_assert_eq(parse_error("{{a b}}", &err), BS_EINPUT);
}

Test(template, partials_load_from_the_directory) {
  char *dir = ts_tmpdir("tmpl_partials");
  char *p = ts_path(dir, "page.html");
  cr_assert_eq(ts_write(p, "<h1>{{title}}</h1>\n{{> _part}}\nend\n"), 0);
  free(p);
  p = ts_path(dir, "_part.html");
  cr_assert_eq(ts_write(p, "{{#items}}[{{.}}]{{/items}}\n"), 0);
  free(p);
  bs_templates *t = bs_templates_new(dir);
  bs_tdata *d = bs_tdata_new();
  bs_tval *root = bs_tdata_root(d);
  bs_tval_set_str(root, "title", "T&T");
  bs_tval *l = bs_tval_set_list(root, "items");
  bs_tval_push_str(l, "1");
  bs_tval_push_str(l, "2");
  bs_error err;
  bs_error_clear(&err);
  char *out;
  cr_assert_eq(bs_templates_render(t, "page", root, &out, NULL, &err), BS_OK,
               "%s", err.message);
  cr_expect_str_eq(out, "<h1>T&amp;T</h1>\n[1][2]\nend\n");
  free(out);
  bs_tdata_free(d);
  bs_templates_free(t);
  free(dir);
}

Test(template, errors_in_files_name_the_file_and_line) {
  char *dir = ts_tmpdir("tmpl_errors");
  char *p = ts_path(dir, "page.html");
  cr_assert_eq(ts_write(p, "a\n{{> _bad}}\n"), 0);
  free(p);
  p = ts_path(dir, "_bad.html");
  cr_assert_eq(ts_write(p, "one\ntwo\n{{#open}}\n"), 0);
  free(p);
  bs_templates *t = bs_templates_new(dir);
  bs_error err;
  bs_error_clear(&err);
  cr_assert_eq(bs_templates_load(t, "page", &err), BS_EINPUT);
  cr_expect(strstr(err.path, "_bad.html"), "%s", err.path);
  cr_expect_eq(err.line, 3);
  bs_templates_free(t);

  /* A missing partial names the including template and its line. */
  p = ts_path(dir, "other.html");
  cr_assert_eq(ts_write(p, "x\ny\n{{> _nowhere}}\n"), 0);
  free(p);
  t = bs_templates_new(dir);
  bs_error_clear(&err);
  cr_assert_eq(bs_templates_load(t, "other", &err), BS_EIO);
  cr_expect(strstr(err.path, "other.html"), "%s", err.path);
  cr_expect_eq(err.line, 3);
  cr_expect(strstr(err.message, "_nowhere"), "%s", err.message);
  /* Partial names cannot climb out of the directory. */
  cr_assert_eq(bs_templates_add(t, "x", "{{> ../etc}}", 12, &err), BS_EINPUT);
  cr_assert_eq(bs_templates_load(t, "../page", &err), BS_EUSAGE);
  bs_templates_free(t);
  free(dir);
}

Test(template, recursion_is_bounded) {
  bs_templates *t = bs_templates_new(NULL);
  bs_error err;
  bs_error_clear(&err);
  cr_assert_eq(bs_templates_add(t, "loop", "x{{> loop}}", 11, &err), BS_OK);
  char *out = NULL;
  cr_assert_eq(bs_templates_render(t, "loop", NULL, &out, NULL, &err),
               BS_ELIMIT);
  cr_expect_null(out);
  bs_templates_free(t);
}

Test(template, builder_failures_are_sticky) {
  bs_tdata *d = bs_tdata_new();
  bs_tval *s = bs_tval_set_str(bs_tdata_root(d), "s", "x");
  cr_assert_eq(bs_tdata_status(d), BS_OK);
  /* A string is not a container: the call fails and is remembered. */
  cr_expect_null(bs_tval_set_str(s, "k", "v"));
  cr_expect_null(bs_tval_push_obj(s));
  cr_expect_null(bs_tval_set_str(NULL, "k", "v"));
  cr_expect_eq(bs_tdata_status(d), BS_EINTERNAL);
  bs_tdata_free(d);
  bs_tdata_free(NULL);
  bs_templates_free(NULL);
}
