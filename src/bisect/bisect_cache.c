/* benchsite bisect: the cache of built trees, one per commit (the layout
 * is in bisect_int.h). Every change keeps it consistent at every moment:
 * a tree counts only once its mark is in place, the mark is written to a
 * temporary name and renamed, and it goes before its tree does. */
/* realpath(3), an XSI function glibc shows with _DEFAULT_SOURCE. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE
#endif
#include "bisect_int.h"

#include "buf.h"
#include "fsutil.h"
#include "oom.h"
#include "strlist.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The mark's content: what made the tree. */
static char *mark_text(const bs__cache *c, const char *id) {
  return bs__strdupf("benchsite bisect build 1\ncommit %s\nbuild %s\n", id,
                     c->build);
}

char *bs__cache_tree(const bs__cache *c, const char *id) {
  return bs__path_join(c->dir, id);
}

static char *mark_path(const bs__cache *c, const char *id) {
  return bs__strdupf("%s/%s.ok", c->dir, id);
}

static int is_dir(const char *path) {
  struct stat sb;
  return lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

int bs__cache_ready(const bs__cache *c, const char *id) {
  char *mark = mark_path(c, id), *tree = bs__cache_tree(c, id);
  char *want = mark_text(c, id), *have = NULL;
  size_t len = 0;
  int ok =
      mark && tree && want &&
      !bs__read_regular(mark, BS__OPEN_NOFOLLOW, 1 << 20, &have, &len, NULL) &&
      len == strlen(want) && !memcmp(have, want, len) && is_dir(tree);
  free(mark);
  free(tree);
  free(want);
  free(have);
  return ok;
}

/* Removes commit id's mark, then its tree. */
static void forget(const bs__cache *c, const char *id) {
  char *mark = mark_path(c, id), *tree = bs__cache_tree(c, id);
  if (mark)
    unlink(mark);
  if (tree)
    bs__remove_tree(tree);
  free(mark);
  free(tree);
}

/* Writes commit id's mark: a temporary file beside it, flushed, renamed
 * into place. */
static bs_status write_mark(const bs__cache *c, const char *id, bs_error *err) {
  char *mark = mark_path(c, id), *text = mark_text(c, id);
  char *tmp = mark ? bs__strdupf("%s.tmp", mark) : NULL;
  bs_status st = BS_OK;
  if (!mark || !text || !tmp) {
    st = bs__oom(err);
    goto done;
  }
  unlink(tmp);
  int fd =
      open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0 || bs__write_all(fd, text, strlen(text)) != 0 || fsync(fd) != 0) {
    st = bs_error_set(err, BS_EIO, tmp, 0, "cannot write: %s", strerror(errno));
    if (fd >= 0)
      close(fd);
    unlink(tmp);
    goto done;
  }
  if (close(fd) != 0 || rename(tmp, mark) != 0) {
    st =
        bs_error_set(err, BS_EIO, mark, 0, "cannot write: %s", strerror(errno));
    unlink(tmp);
  }
done:
  free(mark);
  free(text);
  free(tmp);
  return st;
}

/* The directory a worktree's .git file points to ("gitdir: PATH"), when
 * it lies in the repository's worktrees/ directory; malloc'd or NULL. */
static char *admin_of(const bs__cache *c, const char *tree) {
  char *dotgit = bs__path_join(tree, ".git"), *text = NULL;
  size_t len = 0;
  char *admin = NULL;
  if (dotgit &&
      !bs__read_regular(dotgit, BS__OPEN_NOFOLLOW, 65536, &text, &len, NULL) &&
      !strncmp(text, "gitdir: ", 8)) {
    char *p = text + 8;
    p[strcspn(p, "\r\n")] = '\0';
    char *base = bs__strdupf("%s/worktrees/", c->repo->common);
    if (base && !strncmp(p, base, strlen(base)) && !strstr(p, "/..") &&
        !strchr(p + strlen(base), '/'))
      admin = bs__strdup(p);
    free(base);
  }
  free(dotgit);
  free(text);
  return admin;
}

/* Takes the tree out of git's list of worktrees: its .git file and its
 * administrative directory go; the files stay. */
static void unregister(bs__build *b) {
  char *dotgit = b->tree ? bs__path_join(b->tree, ".git") : NULL;
  struct stat sb;
  if (dotgit && lstat(dotgit, &sb) == 0 && !S_ISDIR(sb.st_mode))
    unlink(dotgit);
  free(dotgit);
  if (b->admin)
    bs__remove_tree(b->admin);
}

/* A build that will not be completed: out of git's list, its tree gone. */
static void discard(const bs__cache *c, bs__build *b) {
  unregister(b);
  forget(c, b->id);
}

/* Removes git's entries for worktrees inside the cache whose tree has no
 * mark (left by a bisection that was killed before it could clean up). */
static void sweep_worktrees(const bs__cache *c) {
  char *wt = bs__path_join(c->repo->common, "worktrees");
  char **names = NULL;
  size_t n = 0;
  if (!wt || bs__list_dir(wt, NULL, &names, &n, NULL)) {
    free(wt);
    return;
  }
  char *prefix = bs__strdupf("%s/", c->dir);
  for (size_t i = 0; prefix && i < n; i++) {
    char *admin = bs__path_join(wt, names[i]);
    char *gitdir = admin ? bs__path_join(admin, "gitdir") : NULL;
    char *text = NULL;
    size_t len = 0;
    if (gitdir && !bs__read_regular(gitdir, BS__OPEN_NOFOLLOW, 65536, &text,
                                    &len, NULL)) {
      text[strcspn(text, "\r\n")] = '\0';
      if (!strncmp(text, prefix, strlen(prefix)) && !strstr(text, "/..")) {
        /* PREFIX ID/.git: the tree of ID. */
        char *id = bs__strdup(text + strlen(prefix));
        if (id) {
          id[strcspn(id, "/")] = '\0';
          if (bs__is_commit_id(id) && !bs__cache_ready(c, id)) {
            bs__remove_tree(admin);
            forget(c, id);
          }
        }
        free(id);
      }
    }
    free(text);
    free(gitdir);
    free(admin);
  }
  free(prefix);
  bs__strlist_free(names, n);
  free(wt);
}

/* Removes trees without their mark, marks without their tree and
 * temporary files. */
static void sweep(const bs__cache *c) {
  sweep_worktrees(c);
  char **names = NULL;
  size_t n = 0;
  if (bs__list_dir(c->dir, NULL, &names, &n, NULL))
    return;
  for (size_t i = 0; i < n; i++) {
    const char *name = names[i];
    size_t len = strlen(name);
    char *path = bs__path_join(c->dir, name);
    if (!path)
      break;
    if (bs__is_commit_id(name)) {
      if (!bs__cache_ready(c, name))
        forget(c, name);
    } else if (len > 3 && !strcmp(name + len - 3, ".ok")) {
      char *id = bs__strdup(name);
      if (id) {
        id[len - 3] = '\0';
        if (bs__is_commit_id(id) && !is_dir(path) && !bs__cache_ready(c, id))
          unlink(path);
      }
      free(id);
    } else if (len > 4 && !strcmp(name + len - 4, ".tmp")) {
      unlink(path);
    }
    free(path);
  }
  bs__strlist_free(names, n);
}

bs_status bs__cache_open(bs__cache *c, const char *dir, const bs__repo *repo,
                         const char *build, bs_error *err) {
  c->dir = NULL;
  c->repo = repo;
  c->build = build;
  c->lock_fd = -1;
  if (mkdir(dir, 0755) != 0 && errno != EEXIST)
    return bs_error_set(err, BS_EIO, dir, 0, "cannot make the cache: %s",
                        strerror(errno));
  c->dir = realpath(dir, NULL);
  if (!c->dir || !is_dir(c->dir))
    return bs_error_set(err, BS_EIO, dir, 0, "the cache is not a directory");
  char *logs = bs__path_join(c->dir, "logs");
  char *lock = bs__path_join(c->dir, "lock");
  bs_status st = BS_OK;
  if (!logs || !lock) {
    st = bs__oom(err);
    goto done;
  }
  if (mkdir(logs, 0755) != 0 && errno != EEXIST) {
    st = bs_error_set(err, BS_EIO, logs, 0, "cannot make: %s", strerror(errno));
    goto done;
  }
  c->lock_fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (c->lock_fd < 0) {
    st = bs_error_set(err, BS_EIO, lock, 0, "cannot open: %s", strerror(errno));
    goto done;
  }
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  if (fcntl(c->lock_fd, F_SETLK, &fl) != 0) {
    st = errno == EACCES || errno == EAGAIN
             ? bs_error_set(err, BS_EINPUT, c->dir, 0,
                            "another benchsite bisect is using this cache")
             : bs_error_set(err, BS_EIO, lock, 0, "cannot lock: %s",
                            strerror(errno));
    goto done;
  }
  sweep(c);
done:
  free(logs);
  free(lock);
  return st;
}

void bs__cache_close(bs__cache *c) {
  if (c->lock_fd >= 0)
    close(c->lock_fd); /* releases the lock */
  c->lock_fd = -1;
  free(c->dir);
  c->dir = NULL;
}

void bs__build_release(bs__build *b) {
  if (b->log_fd >= 0)
    close(b->log_fd);
  b->log_fd = -1;
  free(b->tree);
  free(b->admin);
  free(b->log);
  b->tree = b->admin = b->log = NULL;
}

/* The worktree of b: made clean from its commit. */
static bs_status add_worktree(bs__cache *c, bs__build *b, bs_error *err) {
  const char *args[] = {"worktree", "add",   "--detach", "--quiet",
                        "--",       b->tree, b->id,      NULL};
  bs_status st = bs__git(c->repo, args, NULL, NULL, NULL, err);
  if (st)
    return st;
  b->admin = admin_of(c, b->tree);
  if (!b->admin)
    return bs_error_set(err, BS_EIO, b->tree, 0,
                        "git made a worktree whose .git file is not its own");
  return BS_OK;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void nap_ms(long ms) {
  struct timespec t = {0, ms * 1000000L};
  while (nanosleep(&t, &t) != 0 && errno == EINTR)
    ;
}

/* Starts the build of b (its worktree made). */
static bs_status start_build(bs__cache *c, bs__build *b, bs_error *err) {
  char **argv = NULL;
  bs_status st = bs__split_with_tree(c->build, b->tree, &argv, err);
  if (st)
    return st;
  b->log_fd =
      open(b->log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (b->log_fd < 0) {
    st = bs_error_set(err, BS_EIO, b->log, 0, "cannot write: %s",
                      strerror(errno));
    free(argv);
    return st;
  }
  bs_error why;
  bs_error_clear(&why);
  st = bs__job_start(&b->job, (const char *const *)argv, b->tree,
                     (const char *const *)c->repo->env->vars, b->log_fd,
                     b->log_fd, &why);
  free(argv);
  if (st) {
    /* A program that cannot start is a build that fails, not an error of
     * the bisection. */
    snprintf(b->reason, sizeof b->reason, "does not build (%.700s)",
             why.message);
    b->job.running = 0;
    b->job.status = -1;
  }
  return BS_OK;
}

/* Ends b's build: its verdict, its tree kept (marked) or removed. */
static bs_status finish_build(bs__cache *c, bs__build *b, double t0,
                              bs__build_check check, void *check_ctx,
                              bs_error *err) {
  b->seconds = now_s() - t0;
  if (b->log_fd >= 0)
    close(b->log_fd);
  b->log_fd = -1;
  if (!b->reason[0] && b->job.status != 0)
    snprintf(b->reason, sizeof b->reason,
             "does not build (%s %d; its output: %s)",
             b->job.status > 128 ? "killed by signal" : "exit status",
             b->job.status > 128 ? b->job.status - 128 : b->job.status, b->log);
  if (!b->reason[0] && !is_dir(b->tree))
    snprintf(b->reason, sizeof b->reason,
             "does not build (the build removed its tree)");
  char why[512] = "";
  if (!b->reason[0] && check && !check(check_ctx, b->tree, why, sizeof why))
    snprintf(b->reason, sizeof b->reason, "does not build (%.700s)", why);
  if (b->reason[0]) {
    discard(c, b);
    return BS_OK;
  }
  unregister(b);
  bs_status st = write_mark(c, b->id, err);
  if (st) {
    forget(c, b->id);
    return st;
  }
  b->ok = 1;
  return BS_OK;
}

bs_status bs__cache_build(bs__cache *c, bs__build *b, size_t n,
                          bs__build_check check, void *check_ctx,
                          bs_error *err) {
  bs_status st = BS_OK;
  double t0 = now_s();
  for (size_t i = 0; i < n; i++) {
    b[i].ok = b[i].reused = 0;
    b[i].seconds = 0;
    b[i].reason[0] = '\0';
    b[i].tree = b[i].admin = b[i].log = NULL;
    b[i].log_fd = -1;
    b[i].job.running = 0;
    b[i].job.status = -1;
  }
  for (size_t i = 0; i < n; i++) {
    if (!bs__is_commit_id(b[i].id))
      return bs_error_set(err, BS_EINTERNAL, NULL, 0, "not a commit id");
    if (!(b[i].tree = bs__cache_tree(c, b[i].id)) ||
        !(b[i].log = bs__strdupf("%s/logs/%s.log", c->dir, b[i].id))) {
      st = bs__oom(err);
      goto fail;
    }
    if (bs__cache_ready(c, b[i].id)) {
      b[i].ok = b[i].reused = 1;
      continue;
    }
    forget(c, b[i].id);
    if ((st = add_worktree(c, &b[i], err)))
      goto fail;
    if ((st = start_build(c, &b[i], err)))
      goto fail;
  }
  for (;;) {
    size_t running = 0;
    for (size_t i = 0; i < n; i++)
      running += !bs__job_done(&b[i].job);
    if (!running)
      break;
    if (bs__poll_now(c->repo->poll, running)) {
      st = bs_error_set(err, BS_EIO, NULL, 0, "cancelled");
      goto fail;
    }
    nap_ms(50);
  }
  for (size_t i = 0; i < n; i++)
    if (!b[i].ok && (st = finish_build(c, &b[i], t0, check, check_ctx, err)))
      goto fail;
  return BS_OK;
fail:
  /* Every build not complete is stopped and removed; the complete ones
   * (marked) stay. */
  for (size_t i = 0; i < n; i++) {
    bs__job_stop(&b[i].job);
    if (b[i].log_fd >= 0)
      close(b[i].log_fd);
    b[i].log_fd = -1;
    if (!b[i].ok && b[i].tree)
      discard(c, &b[i]);
    b[i].ok = 0;
  }
  /* A `git worktree add` stopped half way left an entry whose tree is
   * gone: out of git's list too. */
  sweep_worktrees(c);
  return st;
}
