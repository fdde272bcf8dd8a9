/* The hostile-input corpus (tests/data/bad/, see its README.md): every file
 * goes through the real CLI, which must exit with the status and print the
 * stderr prefix EXPECTED.tsv gives, and must not leave an output file (or
 * a temporary one) behind when it refuses the input. */
#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BAD_DIR BENCHSITE_TEST_DATA "/bad"

typedef struct entry {
  char *file, *kind, *prefix;
  int status;
} entry;

static char *dupn(const char *s, size_t n) {
  char *p = malloc(n + 1);
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

/* Reads EXPECTED.tsv: file, kind, exit status, stderr prefix, note. */
static entry *load(size_t *n) {
  FILE *f = fopen(BAD_DIR "/EXPECTED.tsv", "r");
  cr_assert(f, "cannot open EXPECTED.tsv");
  entry *e = NULL;
  size_t cnt = 0, cap = 0;
  char line[4096];
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n')
      continue;
    line[strcspn(line, "\n")] = '\0';
    const char *col[5] = {0};
    size_t len[5] = {0};
    const char *p = line;
    for (int i = 0; i < 5 && p; i++) {
      const char *t = strchr(p, '\t');
      col[i] = p;
      len[i] = t ? (size_t)(t - p) : strlen(p);
      p = t ? t + 1 : NULL;
    }
    cr_assert(col[3], "EXPECTED.tsv: short line: %s", line);
    if (cnt == cap) {
      cap = cap ? cap * 2 : 64;
      e = realloc(e, cap * sizeof *e);
    }
    e[cnt].file = dupn(col[0], len[0]);
    e[cnt].kind = dupn(col[1], len[1]);
    e[cnt].status = atoi(col[2]);
    e[cnt].prefix = dupn(col[3], len[3]);
    cnt++;
  }
  fclose(f);
  *n = cnt;
  return e;
}

static void copy_file(const char *from, const char *to) {
  FILE *in = fopen(from, "rb");
  cr_assert(in, "cannot open %s", from);
  FILE *out = fopen(to, "wb");
  cr_assert(out, "cannot create %s", to);
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, in)) > 0)
    fwrite(buf, 1, n, out);
  fclose(in);
  cr_assert_eq(fclose(out), 0);
}

static void put(FILE *f, const char *s) { fputs(s, f); }

static void repeat(FILE *f, int c, size_t n) {
  for (size_t i = 0; i < n; i++)
    fputc(c, f);
}

/* The entries too big for git (names starting with '@'). */
static void generate(const char *name, const char *path) {
  FILE *f = fopen(path, "wb");
  cr_assert(f);
  if (!strcmp(name, "@field_1mb.csv")) {
    put(f, "benchmark,impl,block,per_call_us\n\"");
    repeat(f, 'a', 1 << 20);
    put(f, "\",main,0,1\n");
  } else if (!strcmp(name, "@columns_100k.csv")) {
    put(f, "benchmark,impl,block,per_call_us");
    for (int i = 0; i < 100000; i++)
      fprintf(f, ",c%d", i);
    put(f, "\n");
  } else if (!strcmp(name, "@case_rows_over.csv")) {
    put(f, "benchmark,dataset,impl,block,per_call_us\n");
    for (int j = 0; j <= 100000; j++)
      fprintf(f, "sort,n=8,main,%d,1\n", j);
  } else if (!strcmp(name, "@m_keys_100k.csv")) {
    put(f, "key,value\n");
    for (int i = 0; i < 100000; i++)
      fprintf(f, "k%d,v\n", i);
  } else if (!strcmp(name, "@m_value_1mb.csv")) {
    put(f, "key,value\nnote,");
    repeat(f, 'x', 1 << 20);
    put(f, "\n");
  } else if (!strcmp(name, "@m_17mb.csv")) {
    put(f, "key,value\n");
    repeat(f, '\n', (size_t)17 << 20);
  } else {
    cr_assert_fail("no generator for %s", name);
  }
  cr_assert_eq(fclose(f), 0);
}

/* Places the entry's file (and the good log for manifests) in `dir`. */
static void stage(const entry *e, const char *dir) {
  char *dst = ts_path(dir, e->file);
  if (e->file[0] == '@') {
    generate(e->file, dst);
  } else {
    char *src = ts_path(BAD_DIR, e->file);
    copy_file(src, dst);
    free(src);
  }
  free(dst);
  if (!strcmp(e->kind, "manifest")) {
    char *log = ts_path(dir, "ok_plain.csv");
    copy_file(BAD_DIR "/ok_plain.csv", log);
    free(log);
  }
}

static int starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

Test(bad_inputs, corpus_gives_the_expected_status_and_message) {
  size_t n;
  entry *e = load(&n);
  cr_assert_geq(n, 40, "the corpus has %zu entries", n);
  for (size_t i = 0; i < n; i++) {
    char tag[64];
    snprintf(tag, sizeof tag, "bad%zu", i);
    char *dir = ts_tmpdir(tag);
    stage(&e[i], dir);
    int inputs = ts_count_entries(dir);
    int is_log = strcmp(e[i].kind, "manifest") != 0;
    const char *log_args[] = {"compare", e[i].file,     "--baseline",
                              "main",    "--candidate", "pr",
                              "--json",  "out.json",    NULL};
    const char *mf_args[] = {
        "compare",    "ok_plain.csv", "--manifest",  e[i].file,
        "--baseline", "main",         "--candidate", "pr",
        "--json",     "out.json",     NULL};
    ts_run r = ts_cli(dir, is_log ? log_args : mf_args);
    cr_expect_eq(r.status, e[i].status, "%s: exit %d, expected %d; stderr: %s",
                 e[i].file, r.status, e[i].status, r.err);
    cr_expect(starts_with(r.err, e[i].prefix),
              "%s: stderr\n  %s\ndoes not start with\n  %s", e[i].file, r.err,
              e[i].prefix);
    char *out = ts_path(dir, "out.json");
    if (e[i].status == 2) {
      cr_expect(!ts_exists(out), "%s: out.json written on error", e[i].file);
      cr_expect_eq(ts_count_entries(dir), inputs, "%s: a file was left behind",
                   e[i].file);
    } else {
      cr_expect(ts_exists(out), "%s: out.json missing", e[i].file);
      cr_expect_str_empty(r.err, "%s: stderr not empty", e[i].file);
    }
    free(out);
    ts_run_free(&r);
    free(dir);
  }
  for (size_t i = 0; i < n; i++) {
    free(e[i].file);
    free(e[i].kind);
    free(e[i].prefix);
  }
  free(e);
}

/* The other commands read the same files through the same readers: they
 * may refuse them, but never crash (a signal is exit 128 + n). */
Test(bad_inputs, other_commands_never_crash_on_the_corpus) {
  size_t n;
  entry *e = load(&n);
  for (size_t i = 0; i < n; i++) {
    if (!strcmp(e[i].kind, "manifest") || e[i].file[0] == '@')
      continue;
    int read_error = e[i].status == 2 && !strcmp(e[i].kind, "log");
    char tag[64];
    snprintf(tag, sizeof tag, "badcmd%zu", i);
    char *dir = ts_tmpdir(tag);
    stage(&e[i], dir);
    const char *tune[] = {"tune", e[i].file, "--json", "t.json", NULL};
    const char *noise[] = {"noise", e[i].file,     "--a", "main", "--b",
                           "pr",    "--resamples", "50",  NULL};
    const char *check[] = {"check", e[i].file, NULL};
    const char *const *cmds[] = {tune, noise, check};
    for (size_t k = 0; k < 3; k++) {
      ts_run r = ts_cli(dir, cmds[k]);
      cr_expect(r.status >= 0 && r.status <= 3, "%s %s: exit %d; stderr: %s",
                cmds[k][0], e[i].file, r.status, r.err);
      if (read_error)
        cr_expect(starts_with(r.err, e[i].prefix),
                  "%s %s: stderr\n  %s\ndoes not start with\n  %s", cmds[k][0],
                  e[i].file, r.err, e[i].prefix);
      ts_run_free(&r);
    }
    free(dir);
  }
  for (size_t i = 0; i < n; i++) {
    free(e[i].file);
    free(e[i].kind);
    free(e[i].prefix);
  }
  free(e);
}

/* A file name can come from a pull request too (`benchsite compare *.csv`):
 * a newline or an escape sequence in it must not reach stderr raw, where a
 * CI log would take "::error::" or a terminal an escape sequence. */
Test(bad_inputs, hostile_file_names_are_escaped_in_messages) {
  char *dir = ts_tmpdir("badname");
  const char *name = "x\n::error::pwned\x1b[31m\xc2\x9b\xff.csv";
  char *path = ts_path(dir, name);
  cr_assert_eq(ts_write(path, "benchmark,impl,block,per_call_us\n"
                              "sort,main,0,-3\n"),
               0);
  const char *args[] = {"compare",     name, "--baseline", "main",
                        "--candidate", "pr", NULL};
  ts_run r = ts_cli(dir, args);
  cr_assert_eq(r.status, 2);
  cr_assert_str_eq(r.err, "benchsite: x\\x0a::error::pwned\\x1b[31m\\u009b"
                          "\\xff.csv:2: column per_call_us: \"-3\" is not a "
                          "positive number\n");
  ts_run_free(&r);
  free(path);
  free(dir);
}
