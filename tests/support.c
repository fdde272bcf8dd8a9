#include "support.h"

#include "sha256.h"

#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char *slurp_fd(int fd) {
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (cap - len < 2) {
      cap *= 2;
      buf = realloc(buf, cap);
    }
    ssize_t r = read(fd, buf + len, cap - len - 1);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    len += (size_t)r;
  }
  buf[len] = '\0';
  return buf;
}

ts_run ts_cli(const char *cwd, const char *const *args) {
  ts_run res = {-1, NULL, NULL};
  size_t n = 0;
  while (args[n])
    n++;
  char **argv = calloc(n + 2, sizeof *argv);
  argv[0] = (char *)BENCHSITE_BIN;
  for (size_t i = 0; i < n; i++)
    argv[i + 1] = (char *)args[i];
  char outp[] = "/tmp/bs_test_out_XXXXXX";
  char errp[] = "/tmp/bs_test_err_XXXXXX";
  int ofd = mkstemp(outp), efd = mkstemp(errp);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, ofd, 1);
  posix_spawn_file_actions_adddup2(&fa, efd, 2);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  char *oldcwd = NULL;
  if (cwd) {
    oldcwd = getcwd(NULL, 0);
    if (chdir(cwd) != 0)
      abort();
  }
  pid_t pid;
  int rc = posix_spawn(&pid, BENCHSITE_BIN, &fa, NULL, argv, environ);
  if (oldcwd) {
    if (chdir(oldcwd) != 0)
      abort();
    free(oldcwd);
  }
  posix_spawn_file_actions_destroy(&fa);
  if (rc == 0) {
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
      ;
    res.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }
  lseek(ofd, 0, SEEK_SET);
  lseek(efd, 0, SEEK_SET);
  res.out = slurp_fd(ofd);
  res.err = slurp_fd(efd);
  close(ofd);
  close(efd);
  unlink(outp);
  unlink(errp);
  free(argv);
  return res;
}

void ts_run_free(ts_run *r) {
  free(r->out);
  free(r->err);
  r->out = r->err = NULL;
}

static void rm_rf(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0)
    return;
  if (S_ISDIR(st.st_mode)) {
    DIR *d = opendir(path);
    if (d) {
      struct dirent *e;
      while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
          continue;
        char *p = ts_path(path, e->d_name);
        rm_rf(p);
        free(p);
      }
      closedir(d);
    }
    rmdir(path);
  } else {
    unlink(path);
  }
}

char *ts_tmpdir(const char *tag) {
  mkdir(BENCHSITE_TEST_TMP, 0755);
  size_t n = strlen(BENCHSITE_TEST_TMP) + strlen(tag) + 64;
  char *p = malloc(n);
  snprintf(p, n, "%s/%s.%ld", BENCHSITE_TEST_TMP, tag, (long)getpid());
  rm_rf(p);
  if (mkdir(p, 0755) != 0)
    abort();
  return p;
}

char *ts_path(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = malloc(n);
  snprintf(p, n, "%s/%s", dir, name);
  return p;
}

int ts_write(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return -1;
  size_t n = strlen(text);
  int ok = fwrite(text, 1, n, f) == n;
  return (fclose(f) == 0 && ok) ? 0 : -1;
}

char *ts_read(const char *path, size_t *len) {
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return NULL;
  char *s = slurp_fd(fd);
  close(fd);
  if (len)
    *len = strlen(s);
  return s;
}

int ts_exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

int ts_count_entries(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      n++;
  }
  closedir(d);
  return n;
}

char *ts_data(const char *name) { return ts_path(BENCHSITE_TEST_DATA, name); }

static void **owned;
static size_t nowned, capowned;

void *ts_own(void *p) {
  cr_assert_not_null(p);
  /* Owning a pointer twice would free it twice at the suite's end, a
   * crash Criterion reports only as one in "setup or teardown". */
  for (size_t i = 0; i < nowned; i++)
    cr_assert(owned[i] != p, "ts_own: %p is owned already", p);
  if (nowned == capowned) {
    size_t cap = capowned ? 2 * capowned : 256;
    void **n = realloc(owned, cap * sizeof *n);
    cr_assert_not_null(n);
    owned = n;
    capowned = cap;
  }
  owned[nowned++] = p;
  return p;
}

void ts_free_owned(void) {
  while (nowned)
    free(owned[--nowned]);
  free(owned);
  owned = NULL;
  capowned = 0;
}

char *ts_pathf(const char *fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return ts_own(strdup(buf));
}

int ts_run_quiet(char *const argv[]) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc)
    return -1;
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

char *ts_plant_run(const char *archive, const char *prefix,
                   const char *manifest, const char *log) {
  char hm[BS__SHA256_HEXLEN + 1], hl[BS__SHA256_HEXLEN + 1],
      hs[BS__SHA256_HEXLEN + 1];
  bs__sha256_hex(manifest, strlen(manifest), hm);
  bs__sha256_hex(log, strlen(log), hl);
  char sums[256];
  snprintf(sums, sizeof sums, "%s  manifest.csv\n%s  log-1.csv\n", hm, hl);
  bs__sha256_hex(sums, strlen(sums), hs);
  char *id = ts_pathf("%s-%.12s", prefix, hs);
  mkdir(archive, 0755);
  char *format = ts_pathf("%s/FORMAT", archive);
  if (!ts_exists(format) && ts_write(format, "benchsite.archive/1\n"))
    return NULL;
  mkdir(ts_pathf("%s/runs", archive), 0755);
  char *dir = ts_pathf("%s/runs/%s", archive, id);
  if (mkdir(dir, 0755) ||
      ts_write(ts_pathf("%s/manifest.csv", dir), manifest) ||
      ts_write(ts_pathf("%s/log-1.csv", dir), log) ||
      ts_write(ts_pathf("%s/SHA256SUMS", dir), sums))
    return NULL;
  return id;
}
