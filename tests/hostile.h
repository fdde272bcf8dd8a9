/* Helpers shared by the tests of hostile input (tests/test_*_hostile.c):
 * logs and manifests with any case name, one-run archives, fake gnuplots,
 * and the check that text is safe in a CI log. Header-only (static
 * inline), so each test file compiles only what it uses. */
#ifndef BENCHSITE_TEST_HOSTILE_H
#define BENCHSITE_TEST_HOSTILE_H

#include "support.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

/* A case name that would start lines, workflow commands and colours. */
#define HOSTILE "x\n::error::pwned\r##[add-mask]\x1b[31m"

/* Writes s as one quoted CSV field. */
static inline void field(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* A log of one case (impls base and head, 12 blocks). */
static inline char *write_log(const char *dir, const char *name,
                              const char *bench, double base, double head) {
  char *log = ts_pathf("%s/%s", dir, name);
  FILE *f = fopen(log, "w");
  cr_assert_not_null(f);
  fputs("benchmark,dataset,impl,run,block,phase,iterations,per_call_us\n", f);
  for (int j = 0; j < 12; j++) {
    for (int k = 0; k < 2; k++) {
      int h = (j + k) % 2;
      field(f, bench);
      fprintf(f, ",n=8,%s,0,%d,confirm,100,%.17g\n", h ? "head" : "base", j,
              (h ? head : base) * (1 + 0.001 * ((j * 7 + k * 3) % 5)));
    }
  }
  cr_assert_eq(fclose(f), 0);
  return log;
}

static inline char *write_env(const char *dir, const char *name,
                              const char *commit, const char *date) {
  char *env = ts_pathf("%s/%s", dir, name);
  FILE *f = fopen(env, "w");
  cr_assert_not_null(f);
  fprintf(f,
          "key,value\ntarget,native\nprofile,release\ndtype,f64\n"
          "machine,test-box\nfrequency_policy,performance\ncommit,%s\n"
          "date,%s\nprotocol,Development\nbaseline,base\ncandidate,head\n",
          commit, date);
  cr_assert_eq(fclose(f), 0);
  return env;
}

/* Adds a run of one case `bench`; returns its id (owned). */
static inline char *add_run_of(const char *archive, const char *work,
                               const char *commit, const char *date,
                               const char *bench) {
  char *log = write_log(work, ts_pathf("%s.csv", commit), bench, 100, 100);
  char *env = write_env(work, ts_pathf("%s-env.csv", commit), commit, date);
  const char *args[] = {"archive", "add",        "--archive", archive,
                        log,       "--manifest", env,         NULL};
  ts_run r = ts_cli(NULL, args);
  cr_assert_eq(r.status, 0, "archive add: %s", r.err);
  const char *p = strstr(r.out, "added run ");
  cr_assert_not_null(p, "%s", r.out);
  p += 10;
  char *id = ts_own(strndup(p, strcspn(p, "\n")));
  ts_run_free(&r);
  return id;
}

static inline char *add_run(const char *archive, const char *work,
                            const char *commit, const char *date) {
  return add_run_of(archive, work, commit, date, "sort");
}

/* One archive with one run, in a fresh directory: *work for scratch. */
static inline char *one_run_archive(const char *tag, char **work, char **id) {
  char *dir = ts_own(ts_tmpdir(tag));
  char *archive = ts_pathf("%s/archive", dir);
  *work = dir;
  *id = add_run(archive, dir, "3f9a2c1d0b7e", "2026-11-30T10:56:21Z");
  return archive;
}

/* Every line of text: no C0 control but the line ends, no DEL, no line
 * starting with "::" (after blanks), no "##[" anywhere. */
static inline void ci_safe(const char *what, const char *text) {
  const char *line = text;
  for (const char *p = text;; p++) {
    if (*p == '\n' || *p == '\0') {
      const char *q = line;
      while (q < p && (*q == ' ' || *q == '\t'))
        q++;
      cr_expect(!(p - q >= 2 && q[0] == ':' && q[1] == ':'),
                "%s: a line starts a workflow command: %.*s", what,
                (int)(p - line), line);
      if (!*p)
        break;
      line = p + 1;
      continue;
    }
    unsigned char c = (unsigned char)*p;
    cr_expect(c >= 0x20 && c != 0x7f, "%s: control byte 0x%02x in: %s", what, c,
              text);
  }
  cr_expect(!strstr(text, "##["), "%s: \"##[\" in: %s", what, text);
}

/* A log of case sort [n=8]: impl base at `b` + j*db, head at `h` + j*dh
 * (block j). */
static inline char *edge_log(const char *dir, const char *name, double b,
                             double db, double h, double dh) {
  char *log = ts_pathf("%s/%s", dir, name);
  FILE *f = fopen(log, "w");
  cr_assert_not_null(f);
  fputs("benchmark,dataset,impl,run,block,phase,iterations,per_call_us\n", f);
  for (int j = 0; j < 12; j++)
    for (int k = 0; k < 2; k++) {
      int head = (j + k) % 2;
      fprintf(f, "sort,n=8,%s,0,%d,confirm,100,%.17g\n", head ? "head" : "base",
              j, head ? h - dh * ((j * 7) % 11) : b + db * j);
    }
  cr_assert_eq(fclose(f), 0);
  return log;
}

/* A fake gnuplot: a shell script (tests only; src/ never runs a shell). */
static inline char *fake_gnuplot(const char *dir, const char *name,
                                 const char *body) {
  char *p = ts_pathf("%s/%s", dir, name);
  char *text = ts_pathf("#!/bin/sh\n%s\n", body);
  cr_assert_eq(ts_write(p, text), 0);
  cr_assert_eq(chmod(p, 0755), 0);
  return p;
}

/* The exit status of child `pid`, or -1 when it did not exit. */
static inline int wait_exit(pid_t pid) {
  int ws;
  cr_assert_eq(waitpid(pid, &ws, 0), pid);
  return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

/* Calls check(path) for every file under `dir` (hidden ones skipped,
 * symbolic links not followed) whose name ends in one of the suffixes in
 * `ends` (NULL-terminated); returns how many it checked. */
static inline size_t walk_files(const char *dir, const char *const *ends,
                                void (*check)(const char *path)) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d, "%s", dir);
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.')
      continue;
    char *p = ts_pathf("%s/%s", dir, e->d_name);
    struct stat st;
    cr_assert_eq(lstat(p, &st), 0);
    if (S_ISDIR(st.st_mode)) {
      n += walk_files(p, ends, check);
      continue;
    }
    size_t l = strlen(e->d_name);
    for (const char *const *x = ends; *x; x++) {
      size_t xl = strlen(*x);
      if (l > xl && !strcmp(e->d_name + l - xl, *x)) {
        check(p);
        n++;
        break;
      }
    }
  }
  closedir(d);
  return n;
}

#endif
