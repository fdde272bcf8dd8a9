/* benchsite: splitting a command line into an argv, with no shell. */
#include "benchsite/run.h"

#include <stdlib.h>
#include <string.h>

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
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
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
