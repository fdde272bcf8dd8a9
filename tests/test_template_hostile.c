/* Templates against hostile input: partials that fan out, and text the
 * HTML escaper must drop as gnuplot's labels do. Each test failed before
 * its fix (the note above it says how). */
#include "benchsite/template.h"

#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(template_hostile, .fini = ts_free_owned);

/* Before: partials that include others twice expanded 2^28 times. */
Test(template_hostile, template_partials_that_fan_out_are_refused,
     .timeout = 60) {
  bs_templates *t = bs_templates_new(NULL);
  cr_assert_not_null(t);
  bs_error err;
  char name[16], text[64];
  for (int i = 28; i >= 0; i--) {
    snprintf(name, sizeof name, "p%d", i);
    if (i == 28)
      snprintf(text, sizeof text, "{{x}}");
    else
      snprintf(text, sizeof text, "{{> p%d}}{{> p%d}}", i + 1, i + 1);
    cr_assert_eq(bs_templates_add(t, name, text, strlen(text), &err), BS_OK,
                 "%s", err.message);
  }
  char *out = NULL;
  cr_expect_eq(bs_templates_render(t, "p0", NULL, &out, NULL, &err), BS_ELIMIT);
  cr_expect(strstr(err.message, "expands too far"), "%s", err.message);
  cr_expect_null(out);
  /* A fan-out that stays small still renders. */
  char *small = NULL;
  cr_expect_eq(bs_templates_render(t, "p20", NULL, &small, NULL, &err), BS_OK,
               "%s", err.message);
  free(small);
  bs_templates_free(t);
}

/* Before: U+FFFE, U+FFFF and C1 controls reached HTML pages (the gnuplot
 * path dropped them, the HTML escaper did not). */
Test(template_hostile, html_escaper_drops_what_gnuplot_labels_drop) {
  bs_templates *t = bs_templates_new(NULL);
  bs_error err;
  cr_assert_eq(bs_templates_add(t, "p", "[{{v}}]", 7, &err), BS_OK);
  bs_tdata *data = bs_tdata_new();
  bs_tval *ctx = bs_tdata_root(data);
  bs_tval_set_str(ctx, "v",
                  "a\xef\xbf\xbe"
                  "b\xef\xbf\xbf"
                  "c\xc2\x85"
                  "d\x01"
                  "e\xc3\xa9\xe2\x81\xa0<");
  char *out = NULL;
  cr_assert_eq(bs_templates_render(t, "p", ctx, &out, NULL, &err), BS_OK);
  cr_expect_str_eq(out, "[a\xef\xbf\xbd"
                        "b\xef\xbf\xbd"
                        "c\xef\xbf\xbd"
                        "d\xef\xbf\xbd"
                        "e\xc3\xa9\xe2\x81\xa0&lt;]");
  free(out);
  bs_tdata_free(data);
  bs_templates_free(t);
}
