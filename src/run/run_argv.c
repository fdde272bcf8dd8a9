/* benchsite: command lines -- splitting one into an argv, with no shell,
 * and the files it reads, found as starting it finds them. */
#include "benchsite/run.h"

#include "oom.h"
#include "spawn_proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\n'; }

bs_status bs_run_split_command(const char *cmd, char ***argv, size_t *argc,
                               bs_error *err) {
  *argv = NULL;
  if (argc)
    *argc = 0;
  size_t len = strlen(cmd);
  /* At most len/2 + 1 words; every word's bytes fit in len + its NUL. One
   * block: the pointer array, then the text. */
  size_t maxw = len / 2 + 2;
  char **v = malloc(maxw * sizeof *v + len + maxw);
  if (!v)
    return bs__oom(err);
  char *out = (char *)(v + maxw);
  size_t nw = 0;
  const char *p = cmd;
  for (;;) {
    while (is_blank(*p))
      p++;
    if (!*p)
      break;
    v[nw++] = out;
    while (*p && !is_blank(*p)) {
      if (*p == '\'') {
        const char *q = strchr(p + 1, '\'');
        if (!q)
          goto unterminated;
        memcpy(out, p + 1, (size_t)(q - p - 1));
        out += q - p - 1;
        p = q + 1;
      } else if (*p == '"') {
        p++;
        while (*p && *p != '"') {
          if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
            p++;
          *out++ = *p++;
        }
        if (!*p)
          goto unterminated;
        p++;
      } else if (*p == '\\') {
        if (!p[1]) {
          free(v);
          return bs_error_set(err, BS_EUSAGE, NULL, 0,
                              "command ends with a backslash");
        }
        *out++ = p[1];
        p += 2;
      } else {
        *out++ = *p++;
      }
    }
    *out++ = '\0';
  }
  if (nw == 0) {
    free(v);
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "empty command");
  }
  if (!v[0][0]) {
    free(v);
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "the command's program name is empty");
  }
  v[nw] = NULL;
  *argv = v;
  if (argc)
    *argc = nw;
  return BS_OK;
unterminated:
  free(v);
  return bs_error_set(err, BS_EUSAGE, NULL, 0, "unterminated quote in command");
}

/* Whether `file` (from `dir` when relative) is the file with id *id. */
static int same_file(const char *dir, const char *file, const struct stat *id) {
  struct stat sb;
  int same = 0;
  if (dir && file[0] != '/') {
    size_t n = strlen(dir) + strlen(file) + 2;
    char *p = malloc(n);
    if (!p)
      return 0;
    snprintf(p, n, "%s/%s", dir, file);
    same = stat(p, &sb) == 0;
    free(p);
  } else {
    same = stat(file, &sb) == 0;
  }
  return same && sb.st_dev == id->st_dev && sb.st_ino == id->st_ino;
}

/* Whether the command line `cmd`, run in `dir`, reads the file *id. */
static int command_reads(const char *cmd, const char *dir,
                         const struct stat *id) {
  char **argv = NULL;
  if (bs_run_split_command(cmd, &argv, NULL, NULL) || !argv || !argv[0]) {
    free(argv);
    return 0; /* the run refuses it anyway */
  }
  char *prog = NULL;
  int hit =
      bs__spawn_resolve(argv[0], dir, &prog) == 0 && same_file(NULL, prog, id);
  free(prog);
  for (size_t w = 1; !hit && argv[w]; w++) {
    const char *eq = argv[w][0] == '-' ? strchr(argv[w], '=') : NULL;
    hit = same_file(dir, argv[w], id) || (eq && same_file(dir, eq + 1, id));
  }
  free(argv);
  return hit;
}

int bs_run_overwrites_input(const bs_run_options *o, const char *path,
                            size_t *i) {
  struct stat id;
  if (stat(path, &id) != 0)
    return 0;
  for (size_t k = 0; k < o->nimpls; k++) {
    const bs_run_impl *m = &o->impls[k];
    int hit = o->mode == BS_RUN_LIBRARY ? same_file(NULL, m->target, &id)
                                        : command_reads(m->target, m->dir, &id);
    if (hit) {
      *i = k;
      return 1;
    }
  }
  return 0;
}
