/* Property test (issue 6, "No command, no escape"): random valid UTF-8
 * strings -- control characters, quotes, backquotes, "$(", ";", "<", ">",
 * "&", "../", "%", "\\", newlines, multi-byte code points, and shell /
 * gnuplot command injections that would touch a canary file -- used as
 * benchmark names, dataset names, impl ids and manifest values, through
 * "benchsite report" and "benchsite archive add" + "benchsite site".
 *
 * Every round checks: exit status 0 (or 2 with a one-line message when the
 * reader refuses the input), the canary never appears, every file under an
 * output directory is a regular file or a directory inside it (no
 * symlinks, no escapes), nothing else appears in the parent directory, every
 * .html parses with "xmllint --html --noout" and every .svg with
 * "xmllint --noout". Seeded, so every run draws the same inputs. */
#define _XOPEN_SOURCE 700 /* realpath */

#include "support.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define ROUNDS 10
#define SEED UINT64_C(0x6b656e6f7761726b)

/* ---- Helpers ------------------------------------------------------------- */

TestSuite(property_hostile, .fini = ts_free_owned, .timeout = 300);

static uint64_t rng_state;

static uint64_t rnd(void) { /* splitmix64 */
  uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static uint32_t below(uint32_t n) { return (uint32_t)(rnd() % n); }

static char canary[128];

/* Appends the UTF-8 encoding of code point cp if it fits in cap - 1. */
static size_t put_cp(char *s, size_t n, size_t cap, uint32_t cp) {
  unsigned char b[4];
  size_t k;
  if (cp < 0x80) {
    b[0] = (unsigned char)cp;
    k = 1;
  } else if (cp < 0x800) {
    b[0] = (unsigned char)(0xC0 | (cp >> 6));
    b[1] = (unsigned char)(0x80 | (cp & 0x3F));
    k = 2;
  } else if (cp < 0x10000) {
    b[0] = (unsigned char)(0xE0 | (cp >> 12));
    b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    b[2] = (unsigned char)(0x80 | (cp & 0x3F));
    k = 3;
  } else {
    b[0] = (unsigned char)(0xF0 | (cp >> 18));
    b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    b[3] = (unsigned char)(0x80 | (cp & 0x3F));
    k = 4;
  }
  if (n + k >= cap)
    return n;
  memcpy(s + n, b, k);
  s[n + k] = '\0';
  return n + k;
}

static size_t put_str(char *s, size_t n, size_t cap, const char *t) {
  size_t k = strlen(t);
  if (n + k >= cap)
    return n;
  memcpy(s + n, t, k + 1);
  return n + k;
}

/* A random valid UTF-8 string of 1..40 bytes (no NUL), plus, when
 * `inject` is set, one whole command injection aimed at the canary. */
static char *gen_string(int inject) {
  static const char *const pieces[] = {
      "\"",  "'",        "`",     "$(",   ")",    ";",  "<",   ">",   "&",
      "../", "%",        "\\",    "\n",   "\r\n", "\t", ",",   " ",   "|",
      "#",   "<script>", "&amp;", "%s%n", "{{",   "}}", "]]>", "-->", "/",
      "..",  "\x1b[31m", "\x7f",  "*",    "?",    "~",  "!"};
  char s[640];
  size_t n = 0;
  s[0] = '\0';
  size_t len = 1 + below(40);
  for (int guard = 0; n < len && guard < 200; guard++) {
    uint32_t k = below(100);
    uint32_t cp;
    if (k < 35) {
      const char *p = pieces[below(sizeof pieces / sizeof pieces[0])];
      if (n + strlen(p) <= len)
        n = put_str(s, n, sizeof s, p);
      continue;
    } else if (k < 65) {
      cp = 1 + below(0x7F); /* 0x01..0x7F, control characters included */
    } else if (k < 82) {
      cp = 0x80 + below(0x800 - 0x80);
    } else if (k < 95) {
      do
        cp = 0x800 + below(0x10000 - 0x800);
      while (cp >= 0xD800 && cp <= 0xDFFF);
    } else {
      cp = 0x10000 + below(0x110000 - 0x10000);
    }
    size_t before = n;
    n = put_cp(s, n, len + 1, cp);
    if (n == before && len - n < 4)
      break;
  }
  if (n == 0)
    n = put_str(s, n, sizeof s, "x");
  if (inject) {
    char inj[512];
    switch (below(6)) {
    case 0:
      snprintf(inj, sizeof inj, "$(touch %s)", canary);
      break;
    case 1:
      snprintf(inj, sizeof inj, ";touch %s;", canary);
      break;
    case 2:
      snprintf(inj, sizeof inj, "`touch %s`", canary);
      break;
    case 3:
      snprintf(inj, sizeof inj, "\".system(\"touch %s\").\"", canary);
      break;
    case 4:
      snprintf(inj, sizeof inj, "'.system('touch %s').'", canary);
      break;
    default:
      snprintf(inj, sizeof inj, "\n!touch %s\nsystem(\"touch %s\")\n", canary,
               canary);
      break;
    }
    n = put_str(s, n, sizeof s, inj);
  }
  return ts_own(strdup(s));
}

/* Appends `s` as one CSV field, quoted, with '"' doubled. */
static void csv_field(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* Prints a string with every byte escaped, for failure messages. */
static char *show(const char *s) {
  char *out = ts_own(malloc(strlen(s) * 4 + 3));
  char *o = out;
  *o++ = '"';
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p >= 0x20 && *p < 0x7F && *p != '"' && *p != '\\')
      *o++ = (char)*p;
    else
      o += sprintf(o, "\\x%02x", *p);
  }
  *o++ = '"';
  *o = '\0';
  return out;
}

typedef struct inputs {
  const char *bench, *dataset, *base, *cand, *machine, *commit;
} inputs;

static char *describe(const inputs *in) {
  char buf[8192];
  snprintf(buf, sizeof buf,
           "benchmark=%s dataset=%s baseline=%s candidate=%s machine=%s "
           "commit=%s",
           show(in->bench), show(in->dataset), show(in->base), show(in->cand),
           show(in->machine), show(in->commit));
  return ts_own(strdup(buf));
}

/* A log that passes "benchsite check": blocks 0..5, both impls in each,
 * rotated order, phase confirm. */
static void write_log(const char *path, const inputs *in) {
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs("benchmark,dataset,scale,impl,run,block,phase,iterations,"
        "per_call_us\n",
        f);
  for (int b = 0; b < 6; b++) {
    for (int j = 0; j < 2; j++) {
      int cand = (j + b) % 2;
      csv_field(f, in->bench);
      fputc(',', f);
      csv_field(f, in->dataset);
      fputs(",100,", f);
      csv_field(f, cand ? in->cand : in->base);
      fprintf(f, ",0,%d,confirm,10,%.3f\n", b,
              cand ? 2.5 + 0.05 * b : 1.5 + 0.01 * (b % 3));
    }
  }
  cr_assert_eq(fclose(f), 0);
}

static void write_manifest(const char *path, const inputs *in) {
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs("key,value\ntarget,native\nprofile,release\ndtype,f64\nmachine,", f);
  csv_field(f, in->machine);
  fputs("\nfrequency_policy,performance\ncommit,", f);
  csv_field(f, in->commit);
  fputs("\ndate,2026-11-30T10:00:00Z\nprotocol,Development\nbaseline,", f);
  csv_field(f, in->base);
  fputs("\ncandidate,", f);
  csv_field(f, in->cand);
  fputc('\n', f);
  cr_assert_eq(fclose(f), 0);
}

/* Sorted entry names of a directory, joined by '\n'. */
static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *entries(const char *dir) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d, "opendir %s", dir);
  char *names[256];
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    cr_assert_lt(n, sizeof names / sizeof names[0]);
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof names[0], cmp_str);
  char *out = ts_own(calloc(1, 256 * 300));
  for (size_t i = 0; i < n; i++) {
    strncat(out, names[i], 255);
    strcat(out, "\n");
    free(names[i]);
  }
  return out;
}

/* The sorted entry list `before` plus the names in `added`. */
static void expected(char *want, size_t cap, const char *before,
                     const char *added) {
  char all[2048];
  snprintf(all, sizeof all, "%s%s", before, added);
  char *names[64];
  size_t n = 0;
  for (char *t = strtok(all, "\n"); t && n < 64; t = strtok(NULL, "\n"))
    names[n++] = t;
  qsort(names, n, sizeof names[0], cmp_str);
  want[0] = '\0';
  for (size_t i = 0; i < n; i++) {
    strncat(want, names[i], cap - strlen(want) - 2);
    strcat(want, "\n");
  }
}

/* Runs argv (no shell) and returns its exit status; stdout and stderr go
 * to `errfile`. */
static int spawn(char *const argv[], const char *errfile) {
  posix_spawn_file_actions_t fa;
  cr_assert_eq(posix_spawn_file_actions_init(&fa), 0);
  posix_spawn_file_actions_addopen(&fa, 2, errfile,
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 2, 1);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  cr_assert_eq(rc, 0, "spawn %s", argv[0]);
  int st;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* libxml2 2.9's HTML parser predates HTML5 and reports its sectioning
 * elements as "Tag X invalid"; those (and only those) are tolerated. */
static int html5_tag_noise(const char *line) {
  static const char *const tags[] = {
      "header",  "nav",    "main",    "figure", "figcaption", "section",
      "article", "footer", "aside",   "time",   "details",    "summary",
      "mark",    "svg",    "picture", "source", "template",   "dialog"};
  const char *p = strstr(line, "HTML parser error : Tag ");
  if (!p)
    return 0;
  p += strlen("HTML parser error : Tag ");
  for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
    size_t k = strlen(tags[i]);
    if (!strncmp(p, tags[i], k) && !strncmp(p + k, " invalid", 8))
      return 1;
  }
  return 0;
}

/* xmllint output is "file:line: ... error : msg", the source line, and a
 * caret line. Returns NULL if every error is HTML5 tag noise. */
static const char *xml_errors(const char *text, int html) {
  if (!html)
    return *text ? text : NULL;
  const char *line = text;
  while (*line) {
    const char *nl = strchr(line, '\n');
    size_t k = nl ? (size_t)(nl - line) : strlen(line);
    char buf[1024];
    snprintf(buf, sizeof buf, "%.*s", (int)(k < 1000 ? k : 1000), line);
    if (strstr(buf, " error : ") || strstr(buf, " warning : ")) {
      if (!html5_tag_noise(buf))
        return text;
      /* Skip its source and caret lines. */
      for (int skip = 0; skip < 2 && nl; skip++) {
        line = nl + 1;
        nl = strchr(line, '\n');
      }
    }
    if (!nl)
      break;
    line = nl + 1;
  }
  return NULL;
}

typedef struct walk_stats {
  int files, html, svg;
} walk_stats;

/* Every entry under `dir` must be a directory or a regular file whose real
 * path lies under `root`; html and svg must parse. */
static void walk(const char *dir, const char *root, const char *errfile,
                 walk_stats *ws, const char *what) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d, "opendir %s", dir);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    char *p = ts_path(dir, e->d_name);
    struct stat st;
    cr_assert_eq(lstat(p, &st), 0, "lstat %s", p);
    cr_expect(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode),
              "%s: %s is neither a file nor a directory (mode %o)", what, p,
              (unsigned)st.st_mode);
    char real[PATH_MAX];
    cr_assert_not_null(realpath(p, real), "realpath %s", p);
    size_t rl = strlen(root);
    cr_expect(!strncmp(real, root, rl) && real[rl] == '/', "%s: %s escapes %s",
              what, real, root);
    if (S_ISDIR(st.st_mode)) {
      walk(p, root, errfile, ws, what);
    } else if (S_ISREG(st.st_mode)) {
      ws->files++;
      size_t n = strlen(p);
      int html = n > 5 && !strcmp(p + n - 5, ".html");
      int svg = n > 4 && !strcmp(p + n - 4, ".svg");
      if (html || svg) {
        char *argv[] = {(char *)"xmllint", (char *)"--noout",
                        html ? (char *)"--html" : p, html ? p : NULL, NULL};
        int rc = spawn(argv, errfile);
        char *msg = ts_read(errfile, NULL);
        cr_assert_not_null(msg);
        /* Found by this test and fixed: C0 control characters in names
         * and manifest values reached the HTML raw ("Invalid char in
         * CDATA"); the escaper now writes U+FFFD for them. */
        const char *bad = xml_errors(msg, html);
        cr_expect(rc == 0 && !bad, "%s: xmllint%s %s: exit %d\n%s", what,
                  html ? " --html" : "", p, rc, msg);
        free(msg);
        if (html)
          ws->html++;
        else
          ws->svg++;
      }
    }
    free(p);
  }
  closedir(d);
}

/* Exit 0, or 2 with one clean line on stderr (the reader refused). Returns
 * 1 when accepted. */
static int judge(const ts_run *r, const char *what, const char *desc) {
  if (r->status == 2) {
    size_t n = strlen(r->err);
    cr_expect(n > 0 && r->err[n - 1] == '\n' && !strchr(r->err, '\n')[1],
              "%s refused without a clean one-line message: %s\ninput: %s",
              what, show(r->err), desc);
    return 0;
  }
  /* Found by this test and fixed: a name holding a '%' that is not a
   * valid gnuplot format ("a%n") made the chart fail, because explicit tic
   * labels are printf formats to gnuplot; plot.c now doubles '%'. */
  cr_expect_eq(r->status, 0, "%s: exit %d\nstderr: %s\ninput: %s", what,
               r->status, r->err, desc);
  return r->status == 0;
}

/* ---- The property -------------------------------------------------------- */

Test(property_hostile, hostile_names_run_nothing_and_stay_inside) {
  snprintf(canary, sizeof canary, "/tmp/bs_canary_%ld", (long)getpid());
  unlink(canary);
  rng_state = SEED;
  int reports = 0, sites = 0, refused = 0;
  for (int round = 0; round < ROUNDS; round++) {
    inputs in;
    in.bench = gen_string(round % 2 == 0);
    in.dataset = gen_string(round % 3 == 0);
    do {
      in.base = gen_string(round % 4 == 1);
      in.cand = gen_string(round % 4 == 3);
    } while (!strcmp(in.base, in.cand));
    in.machine = gen_string(round % 3 == 1);
    in.commit = gen_string(round % 3 == 2);
    const char *desc = describe(&in);

    char tag[32];
    snprintf(tag, sizeof tag, "prop_hostile_%d", round);
    char *dir = ts_own(ts_tmpdir(tag));
    char *log = ts_own(ts_path(dir, "log.csv"));
    char *man = ts_own(ts_path(dir, "manifest.csv"));
    char *errfile = ts_own(ts_path(dir, "xmllint.txt"));
    write_log(log, &in);
    write_manifest(man, &in);
    cr_assert_eq(ts_write(errfile, ""), 0);
    char *before = entries(dir);

    /* The log must be one "benchsite check" accepts. */
    const char *check[] = {"check", log, NULL};
    ts_run r = ts_cli(dir, check);
    int ok = judge(&r, "check", desc);
    ts_run_free(&r);
    cr_expect_not(ts_exists(canary), "check ran a command; input: %s", desc);
    if (!ok) {
      refused++;
      continue;
    }

    /* benchsite report LOG --manifest M --out OUT */
    char *out = ts_own(ts_path(dir, "out"));
    const char *report[] = {"report", log, "--manifest", man,
                            "--out",  out, NULL};
    r = ts_cli(dir, report);
    ok = judge(&r, "report", desc);
    ts_run_free(&r);
    cr_expect_not(ts_exists(canary), "report ran a command; input: %s", desc);
    char want[1024];
    /* A failed report may leave nothing at all; never anything else. */
    expected(want, sizeof want, before, ok ? "out\n" : "");
    cr_expect_str_eq(entries(dir), want,
                     "report created something beside OUT; input: %s", desc);
    if (ok) {
      char real_out[PATH_MAX];
      cr_assert_not_null(realpath(out, real_out));
      walk_stats ws = {0, 0, 0};
      walk(out, real_out, errfile, &ws, "report");
      cr_expect_gt(ws.html, 0, "report wrote no html; input: %s", desc);
      cr_expect_gt(ws.svg, 0, "report wrote no svg; input: %s", desc);
      reports++;
    } else {
      refused++;
      continue;
    }

    /* archive add + site */
    char *archive = ts_own(ts_path(dir, "A"));
    const char *add[] = {"archive", "add",        "--archive", archive,
                         log,       "--manifest", man,         NULL};
    r = ts_cli(dir, add);
    ok = judge(&r, "archive add", desc);
    ts_run_free(&r);
    cr_expect_not(ts_exists(canary), "archive add ran a command; input: %s",
                  desc);
    if (!ok)
      continue;
    char *site = ts_own(ts_path(dir, "site"));
    const char *mk[] = {"site", "--archive", archive, "--out", site, NULL};
    r = ts_cli(dir, mk);
    ok = judge(&r, "site", desc);
    ts_run_free(&r);
    cr_expect_not(ts_exists(canary), "site ran a command; input: %s", desc);
    expected(want, sizeof want, before, "out\nA\nsite\n");
    cr_expect_str_eq(entries(dir), want,
                     "archive/site created something beside A and SITE; "
                     "input: %s",
                     desc);
    char real_a[PATH_MAX];
    cr_assert_not_null(realpath(archive, real_a));
    walk_stats wa = {0, 0, 0};
    walk(archive, real_a, errfile, &wa, "archive");
    if (ok) {
      char real_site[PATH_MAX];
      cr_assert_not_null(realpath(site, real_site));
      walk_stats ws = {0, 0, 0};
      walk(site, real_site, errfile, &ws, "site");
      cr_expect_gt(ws.html, 0, "site wrote no html; input: %s", desc);
      sites++;
    }
  }
  cr_expect_not(ts_exists(canary), "a command ran: %s exists", canary);
  unlink(canary);
  /* Refusals are allowed, but the property must mostly exercise output. */
  cr_expect_geq(reports, ROUNDS / 2, "only %d of %d rounds reached report",
                reports, ROUNDS);
  cr_expect_geq(sites, ROUNDS / 2,
                "only %d of %d rounds reached site (%d "
                "refused)",
                sites, ROUNDS, refused);
}
