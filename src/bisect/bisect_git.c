/* benchsite bisect: programs run to their end without a shell (git and
 * the builds), and what the bisection asks git. */
#include "bisect_int.h"

#include "buf.h"
#include "oom.h"
#include "strlist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int bs__poll_now(const bs__poll *p, size_t running) {
  return p && p->fn && p->fn(p->ctx, running) != 0;
}

bs_status bs__job_start(bs__job *j, const char *const *argv, const char *dir,
                        const char *const *envp, int out_fd, int err_fd,
                        bs_error *err) {
  bs__spawn_opts o;
  bs__spawn_opts_init(&o, argv);
  o.dir = dir;
  o.envp = envp;
  if (out_fd >= 0) {
    o.io[1] = BS__IO_FD;
    o.fd[1] = out_fd;
  }
  if (err_fd >= 0) {
    o.io[2] = BS__IO_FD;
    o.fd[2] = err_fd;
  }
  j->running = 0;
  j->status = -1;
  bs_status st = bs__spawn(&j->ch, &o, err);
  if (!st)
    j->running = 1;
  return st;
}

static int decode(int wstatus) {
  if (wstatus < 0)
    return 255;
  if (WIFEXITED(wstatus))
    return WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus))
    return 128 + WTERMSIG(wstatus);
  return 255;
}

int bs__job_done(bs__job *j) {
  if (!j->running)
    return 1;
  if (!bs__child_exited(&j->ch))
    return 0;
  bs__child_end end;
  bs__child_wait(&j->ch, 0, &end);
  j->status = decode(end.status);
  j->running = 0;
  return 1;
}

void bs__job_stop(bs__job *j) {
  if (!j->running)
    return;
  bs__child_end end;
  bs__child_stop(&j->ch, 1000, &end);
  j->status = decode(end.status);
  j->running = 0;
}

/* ---- The environment ------------------------------------------------------
 */

/* Variables that would make git (in a build too) use another repository,
 * work tree, index or object store than the one named by --repo. */
static int points_git_elsewhere(const char *var) {
  static const char *const names[] = {"GIT_DIR=",
                                      "GIT_WORK_TREE=",
                                      "GIT_INDEX_FILE=",
                                      "GIT_COMMON_DIR=",
                                      "GIT_OBJECT_DIRECTORY=",
                                      "GIT_ALTERNATE_OBJECT_DIRECTORIES=",
                                      "GIT_NAMESPACE=",
                                      "GIT_PREFIX=",
                                      "GIT_QUARANTINE_PATH=",
                                      "GIT_SHALLOW_FILE=",
                                      "GIT_REPLACE_REF_BASE="};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strncmp(var, names[i], strlen(names[i])))
      return 1;
  return 0;
}

bs_status bs__env_init(bs__env *e, bs_error *err) {
  size_t n = 0;
  for (char **v = environ; v && *v; v++)
    n++;
  e->vars = malloc((n + 1) * sizeof *e->vars);
  if (!e->vars)
    return bs__oom(err);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (!points_git_elsewhere(environ[i]))
      e->vars[k++] = environ[i];
  e->vars[k] = NULL;
  return BS_OK;
}

void bs__env_release(bs__env *e) {
  free(e->vars);
  e->vars = NULL;
}

/* ---- git ------------------------------------------------------------------
 */

/* A temporary file, already unlinked: its descriptor, or -1. */
static int temp_fd(void) {
  FILE *f = tmpfile();
  if (!f)
    return -1;
  int fd = dup(fileno(f));
  fclose(f);
  return fd;
}

/* The whole of fd (from its start) into a malloc'd NUL-terminated
 * string. */
static bs_status slurp(int fd, char **out, size_t *len, bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, (size_t)256 << 20);
  char chunk[65536];
  if (lseek(fd, 0, SEEK_SET) != 0)
    return bs_error_set(err, BS_EIO, NULL, 0, "cannot read git's output: %s",
                        strerror(errno));
  for (;;) {
    ssize_t got = read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      bs__buf_release(&b);
      return bs_error_set(err, BS_EIO, NULL, 0, "cannot read git's output: %s",
                          strerror(errno));
    }
    if (got == 0)
      break;
    bs__buf_append(&b, chunk, (size_t)got);
  }
  bs__buf_puts(&b, "");
  return bs__buf_finish(&b, BS_OK, "git's output", out, len, err);
}

/* The last non-empty line of text, cut to fit buf. */
static void last_line(const char *text, char *buf, size_t cap) {
  size_t n = strlen(text);
  while (n && (text[n - 1] == '\n' || text[n - 1] == '\r'))
    n--;
  size_t s = n;
  while (s && text[s - 1] != '\n')
    s--;
  size_t k = n - s < cap - 1 ? n - s : cap - 1;
  memcpy(buf, text + s, k);
  buf[k] = '\0';
}

static void nap_ms(long ms) {
  struct timespec t = {0, ms * 1000000L};
  while (nanosleep(&t, &t) != 0 && errno == EINTR)
    ;
}

bs_status bs__git(const bs__repo *r, const char *const *args, char **out,
                  size_t *len, int *status, bs_error *err) {
  size_t n = 0;
  while (args[n])
    n++;
  const char **argv = malloc((n + 4) * sizeof *argv);
  if (!argv)
    return bs__oom(err);
  argv[0] = "git";
  argv[1] = "-C";
  argv[2] = r->dir;
  memcpy(argv + 3, args, (n + 1) * sizeof *argv);
  int ofd = out ? temp_fd() : -1, efd = temp_fd();
  bs_status st = BS_OK;
  char *errtext = NULL;
  bs__job j;
  if (efd < 0 || (out && ofd < 0)) {
    st = bs_error_set(err, BS_EIO, NULL, 0, "cannot make a temporary file: %s",
                      strerror(errno));
    goto done;
  }
  if ((st = bs__job_start(&j, argv, NULL, (const char *const *)r->env->vars,
                          ofd, efd, err)))
    goto done;
  while (!bs__job_done(&j)) {
    if (bs__poll_now(r->poll, 1)) {
      bs__job_stop(&j);
      st = bs_error_set(err, BS_EIO, NULL, 0, "cancelled");
      goto done;
    }
    nap_ms(5);
  }
  if (status)
    *status = j.status;
  if (!status && j.status != 0) {
    char line[400] = "";
    if (!slurp(efd, &errtext, NULL, NULL) && errtext)
      last_line(errtext, line, sizeof line);
    st = bs_error_set(err, BS_EINPUT, NULL, 0,
                      "git %s failed (exit status %d)%s%s", args[0], j.status,
                      line[0] ? ": " : "", line);
    goto done;
  }
  if (out)
    st = slurp(ofd, out, len, err);
done:
  free(errtext);
  if (ofd >= 0)
    close(ofd);
  if (efd >= 0)
    close(efd);
  free(argv);
  return st;
}

static void chomp(char *s) {
  size_t n = strlen(s);
  while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
    s[--n] = '\0';
}

bs_status bs__repo_open(bs__repo *r, bs_error *err) {
  r->common = NULL;
  static const char *const args[] = {"rev-parse", "--path-format=absolute",
                                     "--git-common-dir", NULL};
  int status = 0;
  char *out = NULL;
  bs_status st = bs__git(r, args, &out, NULL, &status, err);
  if (st)
    return st;
  if (!out)
    return bs_error_set(err, BS_EIO, NULL, 0, "no output from git");
  chomp(out);
  if (status != 0 || out[0] != '/') {
    free(out);
    return bs_error_set(err, BS_EINPUT, r->dir, 0, "not a git repository");
  }
  r->common = out;
  return BS_OK;
}

void bs__repo_release(bs__repo *r) {
  free(r->common);
  r->common = NULL;
}

int bs__is_commit_id(const char *s) {
  size_t n = 0;
  for (; s[n]; n++)
    if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
      return 0;
  return n == 40 || n == 64;
}

char *bs__git_subject(const bs__repo *r, const char *commit) {
  if (!bs__is_commit_id(commit))
    return NULL;
  const char *args[] = {"show", "-s", "--format=%s", commit, "--", NULL};
  char *out = NULL;
  if (bs__git(r, args, &out, NULL, NULL, NULL) || !out)
    return NULL;
  chomp(out);
  return out;
}

/* ---- Command lines with {tree} ------------------------------------------- */

bs_status bs__split_with_tree(const char *cmd, const char *tree, char ***argv,
                              bs_error *err) {
  char **words = NULL;
  size_t n = 0;
  bs_status st = bs_run_split_command(cmd, &words, &n, err);
  if (st)
    return st;
  static const char mark[] = "{tree}";
  size_t tl = tree ? strlen(tree) : 0, total = 0;
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(words[i]), marks = 0;
    for (const char *p = words[i]; tree && (p = strstr(p, mark)); p += 6)
      marks++;
    total += len + 1 + marks * tl;
  }
  char **v = malloc((n + 1) * sizeof *v + total);
  if (!v) {
    free(words);
    return bs__oom(err);
  }
  char *o = (char *)(v + n + 1);
  for (size_t i = 0; i < n; i++) {
    v[i] = o;
    for (const char *p = words[i]; *p;) {
      if (tree && !strncmp(p, mark, 6)) {
        memcpy(o, tree, tl);
        o += tl;
        p += 6;
      } else {
        *o++ = *p++;
      }
    }
    *o++ = '\0';
  }
  v[n] = NULL;
  free(words);
  *argv = v;
  return BS_OK;
}
