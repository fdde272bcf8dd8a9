/* What the files of `benchsite bisect` share: programs run to their end
 * (git and builds, never through a shell), the repository, and the cache
 * of built trees. Private. */
#ifndef BENCHSITE_BISECT_INT_H
#define BENCHSITE_BISECT_INT_H

#include "benchsite/bisect.h"

#include "spawn_proc.h"

#include <stddef.h>

/* Polled while a program runs (about every 50 ms): a non-zero return
 * stops it (and everything it started) and the call returns BS_EIO
 * "cancelled". */
typedef struct bs__poll {
  int (*fn)(void *ctx, size_t running);
  void *ctx;
} bs__poll;

/* 1 when p says to cancel. NULL or a NULL fn never does. */
int bs__poll_now(const bs__poll *p, size_t running);

/* A program running without a shell: argv[0] found as bs__spawn finds
 * it (from `dir`), its standard output and error into files. */
typedef struct bs__job {
  bs__child ch;
  int running;
  int status; /* once ended: the exit status, or 128 + the signal */
} bs__job;

/* Starts argv in dir (NULL: here) with envp (NULL: this process's),
 * stdin /dev/null, stdout to out_fd and stderr to err_fd (-1: /dev/null).
 * BS_EIO ("cannot run PROG: REASON") when it cannot start. */
bs_status bs__job_start(bs__job *j, const char *const *argv, const char *dir,
                        const char *const *envp, int out_fd, int err_fd,
                        bs_error *err);
/* 1 when the job has ended (it is then reaped, j->status set), else 0. */
int bs__job_done(bs__job *j);
/* Stops a running job and what it started (SIGTERM, then SIGKILL after a
 * second) and reaps it. */
void bs__job_stop(bs__job *j);

/* The environment git and builds get: this process's, without the
 * variables that would point git at another repository or work tree
 * (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, GIT_COMMON_DIR, ...). */
typedef struct bs__env {
  char **vars; /* NULL-terminated, pointers into environ */
} bs__env;
bs_status bs__env_init(bs__env *e, bs_error *err);
void bs__env_release(bs__env *e);

/* The repository. */
typedef struct bs__repo {
  const char *dir; /* where git runs (-C) */
  const bs__env *env;
  const bs__poll *poll;
  char *common; /* the common git directory, absolute */
} bs__repo;

/* Runs `git -C DIR ARGS...` to its end. With out set, its standard output
 * is returned in *out (malloc'd, NUL-terminated; *len its length, len may
 * be NULL). *status (may be NULL) gets its exit status; when status is
 * NULL a non-zero exit is an error (BS_EINPUT, "git ARGS[0]: " and git's
 * last line on standard error). BS_EIO when git cannot run or is
 * cancelled. */
bs_status bs__git(const bs__repo *r, const char *const *args, char **out,
                  size_t *len, int *status, bs_error *err);

/* Fills r->common; BS_EINPUT when r->dir is no git repository. */
bs_status bs__repo_open(bs__repo *r, bs_error *err);
void bs__repo_release(bs__repo *r);

/* Whether s is a full commit id: 40 or 64 lower-case hex digits. */
int bs__is_commit_id(const char *s);

/* The subject line of a commit, malloc'd ("" when it has none); NULL
 * when out of memory or git fails. */
char *bs__git_subject(const bs__repo *r, const char *commit);

/* ---- The cache of built trees -------------------------------------------
 *
 * DIR/ID          the tree of commit ID, built (or being built)
 * DIR/ID.ok       the tree is complete, built by the command it names
 *                 (written to a temporary name and renamed: an ID without
 *                 it is an interrupted build, removed on the next open)
 * DIR/logs/ID.log the last build's output
 * DIR/lock        held (fcntl) by the one bisection using the cache
 *
 * A tree is built as a `git worktree` (so a build may ask git about
 * itself) and leaves git's list of worktrees once it is built or has
 * failed: its .git file and its administrative directory go. */
typedef struct bs__cache {
  char *dir;
  const bs__repo *repo;
  const char *build; /* the build command as given */
  int lock_fd;
} bs__cache;

/* Opens (creating it when missing: only its last component) and locks
 * the cache, removes what an interrupted bisection left (trees without
 * their mark, temporary files, worktree entries of git that point into the
 * cache). BS_EINPUT when another bisection holds it, BS_EIO. */
bs_status bs__cache_open(bs__cache *c, const char *dir, const bs__repo *repo,
                         const char *build, bs_error *err);
/* Unlocks; the cache stays. NULL fields are fine. */
void bs__cache_close(bs__cache *c);
/* The tree of commit id (malloc'd; NULL when out of memory). */
char *bs__cache_tree(const bs__cache *c, const char *id);
/* 1 when commit id's tree is complete and built by c->build. */
int bs__cache_ready(const bs__cache *c, const char *id);

/* One commit to build. */
typedef struct bs__build {
  const char *id;   /* in: the commit */
  int ok;           /* out: built (or ready in the cache) */
  int reused;       /* out: it was ready in the cache */
  double seconds;   /* out: the build's wall time */
  char reason[768]; /* out when !ok: why (plain text) */
  /* Private. */
  char *tree, *admin, *log;
  bs__job job;
  int log_fd;
} bs__build;

/* What a finished build must have left: 1 with nothing said when tree is
 * usable, else 0 with why in `why` ("the build made no build/x.so"). */
typedef int (*bs__build_check)(void *ctx, const char *tree, char *why,
                               size_t cap);

/* Builds the n commits of b at once (those ready in the cache are taken
 * as they are): a worktree each, then the build command (split as
 * bs_run_split_command, every "{tree}" in a word replaced by the tree) in
 * it. A build that fails (a non-zero exit, a signal, its tree gone, the
 * check refusing it) is no error: b[i].ok is 0 with the reason. Errors
 * (the others' builds are then stopped and their trees removed): BS_EIO
 * when git, a file of the cache or the poll (cancelled) fails,
 * BS_EUSAGE for a build command that cannot be split, BS_ENOMEM. */
bs_status bs__cache_build(bs__cache *c, bs__build *b, size_t n,
                          bs__build_check check, void *check_ctx,
                          bs_error *err);
/* Frees what a build holds. */
void bs__build_release(bs__build *b);

/* argv of the command line cmd (bs_run_split_command) with every "{tree}"
 * in a word replaced by tree (NULL: none replaced); one malloc'd block
 * (free(*argv)). */
bs_status bs__split_with_tree(const char *cmd, const char *tree, char ***argv,
                              bs_error *err);

#endif
