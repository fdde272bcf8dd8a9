/* The CLI's error cases as one data-driven table: tests/data/cli_errors.txt
 * (its head says the format). Every case runs in a fresh directory; a
 * failure names the case and the table's line. */
#include <criterion/criterion.h>

#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 64
#define MAX_FILES 8
#define MAX_WANT 8

typedef struct tcase {
  char name[256];
  long line;
  char *args[MAX_ARGS];
  size_t nargs;
  char *fname[MAX_FILES];
  char *ftext[MAX_FILES];
  size_t nfiles;
  int status;
  char *want[MAX_WANT];
  size_t nwant;
} tcase;

TestSuite(cli_errors, .fini = ts_free_owned);

static char *dup_str(const char *s) {
  size_t n = strlen(s);
  char *p = ts_own(malloc(n + 1));
  memcpy(p, s, n + 1);
  return p;
}

/* {examples} and {data} in an argument. */
static char *expand(const char *arg) {
  if (!strncmp(arg, "{examples}", 10))
    return ts_pathf("%s/examples%s", BENCHSITE_SOURCE_DIR, arg + 10);
  if (!strncmp(arg, "{data}", 6))
    return ts_pathf("%s%s", BENCHSITE_TEST_DATA, arg + 6);
  return dup_str(arg);
}

static void append(char **text, const char *line) {
  size_t a = *text ? strlen(*text) : 0, b = strlen(line);
  char *p = realloc(*text, a + b + 2);
  cr_assert_not_null(p);
  memcpy(p + a, line, b);
  p[a + b] = '\n';
  p[a + b + 1] = '\0';
  *text = p;
}

static void run_case(const tcase *c) {
  char *dir = ts_own(ts_tmpdir("cli_errors"));
  for (size_t i = 0; i < c->nfiles; i++)
    cr_assert_eq(ts_write(ts_own(ts_path(dir, c->fname[i])), c->ftext[i]), 0,
                 "%s (line %ld): cannot write %s", c->name, c->line,
                 c->fname[i]);
  const char *args[MAX_ARGS + 1];
  for (size_t i = 0; i < c->nargs; i++)
    args[i] = c->args[i];
  args[c->nargs] = NULL;
  ts_run r = ts_cli(dir, args);
  cr_expect_eq(r.status, c->status,
               "%s (line %ld): exit %d, want %d; stderr: %s", c->name, c->line,
               r.status, c->status, r.err);
  for (size_t i = 0; i < c->nwant; i++)
    cr_expect(strstr(r.err, c->want[i]) != NULL,
              "%s (line %ld): stderr\n%s\nlacks: %s", c->name, c->line, r.err,
              c->want[i]);
  if (c->status == 2) {
    cr_expect(strncmp(r.err, "benchsite: ", 11) == 0, "%s (line %ld): %s",
              c->name, c->line, r.err);
    cr_expect_str_eq(r.out, "", "%s (line %ld): stdout", c->name, c->line);
    cr_expect_eq(ts_count_entries(dir), (int)c->nfiles,
                 "%s (line %ld): output left behind after an error", c->name,
                 c->line);
  }
  ts_run_free(&r);
}

Test(cli_errors, table) {
  char *path = ts_own(ts_data("cli_errors.txt"));
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f, "%s", path);
  char line[4096];
  long lineno = 0;
  size_t ran = 0;
  tcase c;
  int open = 0;
  for (;;) {
    char *got = fgets(line, sizeof line, f);
    if (got) {
      lineno++;
      size_t n = strlen(line);
      cr_assert(n > 0 && line[n - 1] == '\n', "line %ld: too long", lineno);
      line[n - 1] = '\0';
    }
    if (!got || !line[0]) {
      if (open) {
        cr_assert(c.nargs > 0, "%s (line %ld): no args", c.name, c.line);
        cr_assert(c.status >= 0, "%s (line %ld): no status", c.name, c.line);
        cr_assert(c.nwant > 0, "%s (line %ld): no stderr", c.name, c.line);
        run_case(&c);
        for (size_t i = 0; i < c.nfiles; i++)
          free(c.ftext[i]);
        ran++;
        open = 0;
      }
      if (!got)
        break;
      continue;
    }
    if (line[0] == '#')
      continue;
    if (!strncmp(line, "case ", 5)) {
      cr_assert(!open, "line %ld: case inside a case", lineno);
      memset(&c, 0, sizeof c);
      c.status = -1;
      c.line = lineno;
      snprintf(c.name, sizeof c.name, "%s", line + 5);
      open = 1;
      continue;
    }
    cr_assert(open, "line %ld: \"%s\" outside a case", lineno, line);
    if (!strncmp(line, "args ", 5)) {
      char *save = NULL;
      for (char *t = strtok_r(line + 5, " ", &save); t;
           t = strtok_r(NULL, " ", &save)) {
        cr_assert_lt(c.nargs, MAX_ARGS, "line %ld", lineno);
        c.args[c.nargs++] = expand(t);
      }
    } else if (!strncmp(line, "file ", 5)) {
      cr_assert_lt(c.nfiles, MAX_FILES, "line %ld", lineno);
      c.fname[c.nfiles] = dup_str(line + 5);
      c.ftext[c.nfiles] = calloc(1, 1); /* empty until its lines come */
      cr_assert_not_null(c.ftext[c.nfiles]);
      c.nfiles++;
    } else if (line[0] == '|' && (line[1] == '\0' || line[1] == ' ')) {
      cr_assert(c.nfiles > 0, "line %ld: file line before a file", lineno);
      append(&c.ftext[c.nfiles - 1], line[1] ? line + 2 : "");
    } else if (!strncmp(line, "status ", 7)) {
      c.status = (int)strtol(line + 7, NULL, 10);
    } else if (!strncmp(line, "stderr ", 7)) {
      cr_assert_lt(c.nwant, MAX_WANT, "line %ld", lineno);
      c.want[c.nwant++] = dup_str(line + 7);
    } else {
      cr_assert_fail("line %ld: unknown line \"%s\"", lineno, line);
    }
  }
  fclose(f);
  /* A table that lost its cases must not pass. */
  cr_assert_geq(ran, 40, "only %zu cases ran", ran);
}
