/* The site's "which commit?": for an open regression or change point, the
 * `benchsite bisect` command over its commit range (the good commit before
 * it, the bad one after), judged on its case alone. Commits and case names
 * are archive text a pull request may have written: each is one shell word
 * here, quoted when it holds anything a shell reads, and the page escapes
 * the command as it escapes every value. And a commit's fields as every
 * page shows them (bs__site_set_commit). */
#include "site_int.h"

#include "buf.h"

#include <string.h>

/* Bytes no POSIX shell reads specially anywhere in a word. */
static int plain(const char *w) {
  if (!*w)
    return 0;
  for (const char *p = w; *p; p++)
    if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                "0123456789._/@+-=,:",
                *p))
      return 0;
  return 1;
}

/* A commit as "commit" (in full, for titles and the run page) and
 * "commit_short": a hexadecimal id longer than 12 digits cut to 12, as
 * git abbreviates it, so that a 40-digit id does not push a table's
 * verdict off the screen; any other text stays whole. */
void bs__site_set_commit(bs_tval *t, const char *commit) {
  size_t n = strlen(commit), hex = strspn(commit, "0123456789abcdefABCDEF");
  bs_tval_set_str(t, "commit", commit);
  if (hex == n && n > 12)
    bs_tval_set_strf(t, "commit_short", "%.12s", commit);
  else
    bs_tval_set_str(t, "commit_short", commit);
}

/* w as one shell word: as it is when plain, else in single quotes (where
 * nothing is special but the quote itself, written '\''). */
static void shell_word(bs__buf *b, const char *w) {
  if (plain(w)) {
    bs__buf_puts(b, w);
    return;
  }
  bs__buf_put_quoted(b, w);
}

void bs__site_bisect_fields(bs_tval *t, const char *good, const char *bad,
                            const char *benchmark, const char *dataset) {
  bs__buf b, f;
  bs__buf_init(&b, BS__CAP_PAGE);
  bs__buf_init(&f, BS__CAP_PAGE);
  /* --filter: the case's exact name, anchored. */
  bs__buf_printf(&f, "^%s%s%s$", benchmark, dataset[0] ? "/" : "", dataset);
  bs__buf_puts(&b, "benchsite bisect --good ");
  shell_word(&b, good);
  bs__buf_puts(&b, " --bad ");
  shell_word(&b, bad);
  bs__buf_puts(&b, " --filter ");
  shell_word(&b, f.data ? f.data : "");
  bs__buf_puts(&b, " --build CMD --lib PATH");
  bs__site_set_commit(bs_tval_set_obj(t, "good"), good);
  bs__site_set_commit(bs_tval_set_obj(t, "bad"), bad);
  if (!bs__buf_status(&b) && !bs__buf_status(&f))
    bs_tval_set_str(t, "command", b.data);
  bs__buf_release(&b);
  bs__buf_release(&f);
}

const char *bs__site_open_good(const site *s, size_t c, size_t e, int step) {
  const bs_history_case *hc = &s->h->cases[c];
  if (e >= hc->nentries || (step && e == 0))
    return NULL;
  const char *good = step ? s->h->runs[hc->entries[e - 1].run].commit
                          : s->h->runs[hc->entries[e].run].baseline_commit;
  return good && good[0] ? good : NULL;
}
