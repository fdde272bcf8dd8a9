/* The site's views of what regressed (src/site/site_views.c): feed.xml is
 * an Atom feed that every XML parser reads (libxml2 here), whatever the
 * case names; its id stays when runs are added, earlier-dated ones too;
 * its dates are RFC 3339, also for runs archived with a date alone. */
#include "support.h"
#include "xmlload.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(site_views, .fini = ts_free_owned, .timeout = 300);

/* A CSV field, quoted per RFC 4180. */
static void field(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* A log of one case measured by base and head (head `slow` times base),
 * 12 rotated blocks, written to `path`. */
static void write_log(const char *path, const char *benchmark, double slow) {
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs("benchmark,dataset,impl,run,block,phase,iterations,per_call_us\n", f);
  for (int j = 0; j < 12; j++) {
    for (int k = 0; k < 2; k++) {
      int head = (j + k) % 2;
      field(f, benchmark);
      fprintf(f, ",n=1,%s,0,%d,confirm,100,%.6f\n", head ? "head" : "base", j,
              (head ? slow : 1.0) * (100.0 + (j * 7 % 5) * 0.01));
    }
  }
  cr_assert_eq(fclose(f), 0);
}

static const char *manifest_text(const char *commit, const char *date) {
  return ts_pathf("key,value\ntarget,native\nprofile,release\ndtype,f64\n"
                  "machine,test-box\nfrequency_policy,performance\n"
                  "commit,%s\ndate,%s\nprotocol,Development\n"
                  "baseline,base\ncandidate,head\n",
                  commit, date);
}

/* Adds a run of `benchmark` (head `slow` times base) with this commit and
 * date to the archive. */
static void add_run(const char *archive, const char *work,
                    const char *benchmark, double slow, const char *commit,
                    const char *date) {
  char *log = ts_pathf("%s/%s.csv", work, commit);
  char *env = ts_pathf("%s/%s-env.csv", work, commit);
  write_log(log, benchmark, slow);
  cr_assert_eq(ts_write(env, manifest_text(commit, date)), 0);
  const char *args[] = {"archive", "add",        "--archive", archive,
                        log,       "--manifest", env,         NULL};
  ts_run r = ts_cli(NULL, args);
  cr_assert_eq(r.status, 0, "archive add: %s", r.err);
  ts_run_free(&r);
}

/* Builds the site of `archive` into `out` and returns feed.xml. */
static char *feed_of(const char *archive, const char *out) {
  const char *args[] = {"site", "--archive", archive, "--out", out, NULL};
  ts_run r = ts_cli(NULL, args);
  cr_assert_eq(r.status, 0, "site: %s%s", r.out, r.err);
  ts_run_free(&r);
  char *feed = ts_read(ts_pathf("%s/feed.xml", out), NULL);
  cr_assert_not_null(feed);
  return ts_own(feed);
}

/* The text of the first <tag> after `from`. */
static char *element(const char *from, const char *tag) {
  const char *p = strstr(from, ts_pathf("<%s>", tag));
  cr_assert_not_null(p, "no <%s> in %s", tag, from);
  p += strlen(tag) + 2;
  const char *e = strstr(p, ts_pathf("</%s>", tag));
  cr_assert_not_null(e);
  return ts_own(strndup(p, (size_t)(e - p)));
}

/* Whether `text` is an RFC 3339 time in UTC: YYYY-MM-DDTHH:MM:SS, an
 * optional fraction, Z. */
static int rfc3339(const char *t) {
  const char *shape = "dddd-dd-ddTdd:dd:dd";
  for (size_t i = 0; shape[i]; i++, t++) {
    if (shape[i] == 'd' ? !(*t >= '0' && *t <= '9') : *t != shape[i])
      return 0;
  }
  if (*t == '.') {
    t++;
    if (!(*t >= '0' && *t <= '9'))
      return 0;
    while (*t >= '0' && *t <= '9')
      t++;
  }
  return !strcmp(t, "Z");
}

/* Every <updated> of the feed is RFC 3339; returns how many there are. */
static int check_updated(const char *feed) {
  int n = 0;
  for (const char *p = strstr(feed, "<updated>"); p;
       p = strstr(p + 1, "<updated>")) {
    char *t = element(p, "updated");
    cr_expect(rfc3339(t), "<updated>%s</updated> is not RFC 3339", t);
    n++;
  }
  return n;
}

/* ---- The feed's id ------------------------------------------------------- */

Test(site_views, the_feed_id_stays_when_an_earlier_run_is_added) {
  char *dir = ts_own(ts_tmpdir("site_views_id"));
  char *archive = ts_pathf("%s/archive", dir);
  char *out = ts_pathf("%s/site", dir);
  add_run(archive, dir, "sum", 1.0, "c2", "2026-11-20T10:00:00Z");
  add_run(archive, dir, "sum", 1.25, "c3", "2026-11-21T10:00:00Z");
  char *feed = feed_of(archive, out);
  char *id = element(feed, "id");
  cr_assert(strncmp(id, "urn:benchsite:", 14) == 0, "%s", id);
  cr_assert_not_null(strstr(feed, "<entry>"), "%s", feed);
  /* A run measured earlier, archived later. */
  add_run(archive, dir, "sum", 1.0, "c1", "2026-11-19T10:00:00Z");
  char *again = feed_of(archive, out);
  cr_assert_str_eq(element(again, "id"), id, "the feed's id changed");
  /* And a clean build of the same archive gives the same id. */
  char *clean = feed_of(archive, ts_pathf("%s/clean", dir));
  cr_assert_str_eq(element(clean, "id"), id);
}

/* ---- Dates --------------------------------------------------------------- */

/* A run archived with a date alone (an earlier benchsite accepted one) is
 * dated in the feed as the midnight UTC it stood for. */
Test(site_views, a_date_alone_is_an_rfc3339_time_in_the_feed) {
  char *dir = ts_own(ts_tmpdir("site_views_date"));
  char *archive = ts_pathf("%s/archive", dir);
  char *log = ts_pathf("%s/log.csv", dir);
  write_log(log, "sum", 1.25);
  cr_assert_not_null(ts_plant_run(archive, "20261130T000000Z-c1",
                                  manifest_text("c1", "2026-11-30"),
                                  ts_own(ts_read(log, NULL))));
  char *feed = feed_of(archive, ts_pathf("%s/site", dir));
  cr_assert_not_null(strstr(feed, "<entry>"), "%s", feed);
  cr_assert_eq(check_updated(feed), 2, "%s", feed);
  cr_assert_str_eq(element(feed, "updated"), "2026-11-30T00:00:00Z");
}

/* ---- Names in the feed ----------------------------------------------------
 */

/* Before: the feed wrote U+FFFE and U+FFFF (and C1 controls) from a case
 * name as they were, and the whole feed was invalid XML. Now it parses,
 * with U+FFFD where the name held what is not text, as the pages show. */
Test(site_views, the_feed_is_xml_whatever_the_names) {
  char *dir = ts_own(ts_tmpdir("site_views_names"));
  char *archive = ts_pathf("%s/archive", dir);
  const char *name = "s\xef\xbf\xbe"
                     "u\xef\xbf\xbf"
                     "m\x1b[31m\xc2\x85"
                     "x]]>&#x1;<b>'\"\xef\xb7\x90"
                     "y\xf0\x9f\xbf\xbf"
                     "z\xc3\xa9\t.";
  add_run(archive, dir, name, 1.0, "c1", "2026-11-20T10:00:00Z");
  add_run(archive, dir, name, 1.25, "c2", "2026-11-21T10:00:00Z");
  char *feed = feed_of(archive, ts_pathf("%s/site", dir));
  bs_error err;
  cr_assert_eq(bs__xml_load(&err), BS_OK, "%s", err.message);
  xmlDoc *doc = bs__xml.xmlReadMemory(feed, (int)strlen(feed), NULL, NULL,
                                      XML_PARSE_NONET | XML_PARSE_NOERROR |
                                          XML_PARSE_NOWARNING);
  cr_assert_not_null(doc, "feed.xml is not well-formed XML:\n%s", feed);
  xmlNode *root = bs__xml.xmlDocGetRootElement(doc);
  cr_expect_str_eq((const char *)root->name, "feed");
  bs__xml.xmlFreeDoc(doc);
  /* Each character that is not text is one U+FFFD; the markup is text. */
  cr_expect_not_null(strstr(feed, "<title>s\xef\xbf\xbd"
                                  "u\xef\xbf\xbd"
                                  "m\xef\xbf\xbd[31m\xef\xbf\xbd"
                                  "x]]&gt;&amp;#x1;&lt;b&gt;&#39;&quot;"
                                  "\xef\xbf\xbd"
                                  "y\xef\xbf\xbd"
                                  "z\xc3\xa9\t. [n=1]: +"),
                     "%s", feed);
}
