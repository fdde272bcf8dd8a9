/* src/base/buf.c: the capped buffer and its sticky error (a writer appends
 * without checking and asks once). */
#include <criterion/criterion.h>

#include "buf.h"

#include <stdlib.h>
#include <string.h>

Test(buf, appends_within_the_limit_and_keeps_a_terminating_nul) {
  bs__buf b;
  bs__buf_init(&b, 8);
  cr_assert_eq(bs__buf_puts(&b, "abc"), BS_OK);
  cr_assert_eq(bs__buf_printf(&b, "%d", 42), BS_OK);
  cr_assert_eq(bs__buf_putc(&b, '!'), BS_OK);
  cr_assert_str_eq(b.data, "abc42!");
  cr_assert_eq(b.len, 6);
  cr_assert_eq(bs__buf_status(&b), BS_OK);
  bs__buf_release(&b);
}

Test(buf, the_first_error_sticks_and_later_appends_do_nothing) {
  bs__buf b;
  bs__buf_init(&b, 4);
  cr_assert_eq(bs__buf_puts(&b, "abc"), BS_OK);
  cr_assert_eq(bs__buf_puts(&b, "de"), BS_ELIMIT);
  /* An append that would fit is refused too: the text is already short. */
  cr_assert_eq(bs__buf_putc(&b, 'x'), BS_ELIMIT);
  cr_assert_eq(bs__buf_printf(&b, "%s", ""), BS_ELIMIT);
  cr_assert_eq(bs__buf_term(&b, "y", 0), BS_ELIMIT);
  cr_assert_str_eq(b.data, "abc");
  cr_assert_eq(bs__buf_status(&b), BS_ELIMIT);
  /* Emptying the text does not forget that writing failed. */
  bs__buf_reset(&b);
  cr_assert_eq(bs__buf_status(&b), BS_ELIMIT);
  cr_assert_eq(bs__buf_putc(&b, 'x'), BS_ELIMIT);
  /* Released, it is new again. */
  bs__buf_release(&b);
  cr_assert_eq(bs__buf_status(&b), BS_OK);
  cr_assert_eq(bs__buf_putc(&b, 'x'), BS_OK);
  bs__buf_release(&b);
}

Test(buf, fail_keeps_the_first_error) {
  bs__buf b;
  bs__buf_init(&b, 0);
  cr_assert_eq(bs__buf_fail(&b, BS_OK), BS_OK);
  cr_assert_eq(bs__buf_fail(&b, BS_EINPUT), BS_EINPUT);
  cr_assert_eq(bs__buf_fail(&b, BS_ENOMEM), BS_EINPUT);
  cr_assert_eq(bs__buf_puts(&b, "a"), BS_EINPUT);
  bs__buf_release(&b);
}

Test(buf, finish_reports_the_buffers_own_error) {
  bs__buf b;
  bs__buf_init(&b, 2);
  bs__buf_puts(&b, "abc");
  char *out = (char *)1;
  size_t len = 7;
  bs_error err;
  bs_error_clear(&err);
  cr_assert_eq(bs__buf_finish(&b, BS_OK, "the table", &out, &len, &err),
               BS_ELIMIT);
  cr_assert(strstr(err.message, "cannot render the table"), "%s", err.message);
  cr_assert_eq(out, (char *)1); /* untouched */
  bs__buf_init(&b, 0);
  bs__buf_puts(&b, "ok");
  cr_assert_eq(bs__buf_finish(&b, BS_OK, "x", &out, &len, &err), BS_OK);
  cr_assert_str_eq(out, "ok");
  cr_assert_eq(len, 2);
  free(out);
}

Test(buf, detach_hands_over_the_text_and_clears_the_error) {
  bs__buf b;
  bs__buf_init(&b, 0);
  size_t len = 9;
  char *p = bs__buf_detach(&b, &len);
  cr_assert_not_null(p);
  cr_assert_str_eq(p, "");
  cr_assert_eq(len, 0);
  free(p);
  bs__buf_fail(&b, BS_ENOMEM);
  p = bs__buf_detach(&b, NULL);
  cr_assert_not_null(p);
  free(p);
  cr_assert_eq(bs__buf_status(&b), BS_OK);
  bs__buf_release(&b);
}
