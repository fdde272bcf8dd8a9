/* One way to start another program (spawn_proc: <spawn.h> is the
 * system's) and make sure it is gone: gnuplot, its version probe, git,
 * the runner's measuring processes, the commands they run and the
 * harnesses it drives. Private.
 *
 *   bs__spawn_opts o;
 *   bs__spawn_opts_init(&o, argv);
 *   o.io[1] = BS__IO_PIPE;            ... stdout to a pipe we read ...
 *   bs__child ch;
 *   if (bs__spawn(&ch, &o, err)) return ...;
 *   ... read ch.fd[1] (bs__fd_read_within, bs__child_collect) ...
 *   bs__child_end end;
 *   bs__child_wait(&ch, limit_ms, &end);   ... nothing of it is left ...
 *
 * Every child is the leader of its own process group, and benchsite is a
 * child subreaper (PR_SET_CHILD_SUBREAPER, set on the first spawn), so a
 * descendant that leaves the group (setsid) is re-parented to benchsite
 * when its parent dies instead of to init. Stopping a child
 * (bs__child_wait, bs__child_stop) kills its group with SIGKILL, reaps it,
 * then kills and reaps every process re-parented to benchsite that started
 * after the child did and that this module did not start itself, again
 * and again until none is left: nothing a child started outlives it.
 * A process started by other code of the same program after the child
 * (concurrently, without this module) would be taken for one of its
 * orphans: every child process goes through this module.
 *
 * Every call of posix_spawn and its attributes is checked; waits retry on
 * EINTR. The functions may be called from several threads at once (each
 * with its own bs__child). */
#ifndef BENCHSITE_SPAWN_PROC_H
#define BENCHSITE_SPAWN_PROC_H

#include "benchsite/error.h"

#include <stddef.h>
#include <sys/types.h>

/* The child's descriptors 0..BS__SPAWN_FDS-1 that opts can set. */
#define BS__SPAWN_FDS 5

typedef enum bs__spawn_io {
  /* fds 0..2: /dev/null (read for 0, write for 1 and 2); fds 3 and 4:
   * not open */
  BS__IO_NULL = 0,
  BS__IO_INHERIT,  /* benchsite's descriptor of that number, as it is */
  BS__IO_FD,       /* a duplicate of opts.fd[k] (the same fd may serve two) */
  BS__IO_PIPE,     /* a new pipe: the child reads it on fd 0 and writes it
                    * on the others; benchsite's end in child.fd[k] */
  BS__IO_SOCKET,   /* a new AF_UNIX stream socketpair: one end is the
                    * child's fd k, the other child.fd[k] */
  BS__IO_SEQPACKET /* the same with SOCK_SEQPACKET: messages keep their
                    * bounds (bs__msg_send, bs__msg_recv_within) */
} bs__spawn_io;

typedef struct bs__spawn_opts {
  /* argv[0] is the program: found by bs__spawn_resolve (in dir). NULL-
   * terminated. For bs__spawn_fork only a name for messages (may be
   * NULL). */
  const char *const *argv;
  /* NULL, or the program to start, as it is (no PATH search), argv[0]
   * then being only its name (/proc/self/exe, a path resolved before). */
  const char *path;
  /* The environment: NULL = benchsite's own. */
  const char *const *envp;
  /* 1: the minimal environment LC_ALL=C.UTF-8 and PATH=/usr/bin:/bin
   * (no HOME, no *_PATH, no PAGER or SHELL a stray command could pick
   * up); overrides envp. */
  int minimal_env;
  /* The child's working directory: NULL = benchsite's. Changed by the
   * child only (posix_spawn_file_actions_addchdir_np); a relative program
   * or PATH entry is found from it, as posix_spawnp would. */
  const char *dir;
  bs__spawn_io io[BS__SPAWN_FDS];
  int fd[BS__SPAWN_FDS]; /* for BS__IO_FD */
  /* 1: benchsite's ends of pipes and sockets are O_NONBLOCK. */
  int nonblock;
  /* >= 0: the child runs on this CPU only (it inherits the mask of the
   * spawning thread, set for the spawn and restored after). -1: no
   * pinning. */
  int cpu;
  /* What a failure to start returns (the message is "cannot run PROG:
   * REASON"): 0 = BS_EIO. */
  bs_status fail_status;
} bs__spawn_opts;

/* Zeroes o (every fd /dev/null, fd 3 closed, benchsite's environment and
 * directory) with cpu -1 and argv. */
void bs__spawn_opts_init(bs__spawn_opts *o, const char *const *argv);

/* A started child. */
typedef struct bs__child {
  pid_t pid; /* > 0 until reaped; also its process group's id */
  /* benchsite's ends for BS__IO_PIPE and BS__IO_SOCKET, else -1; the
   * caller may close one early (and must then set it to -1). */
  int fd[BS__SPAWN_FDS];
  /* When it started (clock ticks since boot, /proc/PID/stat): a process
   * re-parented to benchsite that started before it is not its orphan. */
  unsigned long long start;
  /* After a failed bs__spawn: the errno of the failure, else 0. */
  int error;
} bs__child;

/* How a child ended. */
typedef struct bs__child_end {
  int status;    /* its wait status (waitpid's) */
  int timed_out; /* 1: it had not exited within the limit and was killed */
  double user_s; /* CPU time it used (wait4's rusage), user */
  double sys_s;  /* and system */
  unsigned long long cpu_ns; /* user + system, exact */
  long maxrss_kib;           /* its peak resident memory */
  long nivcsw;    /* times it lost its CPU to other work (involuntary context
                     switches, wait4's rusage, its waited-for descendants
                     included) */
  size_t orphans; /* descendants killed and reaped after it */
} bs__child_end;

/* The program a child named `prog` runs, found as posix_spawnp (and
 * execvp) find it: a name holding a '/' is that path, any other is
 * searched in each directory of benchsite's PATH in turn (the C library's
 * default "/bin:/usr/bin" when PATH is unset; an empty entry is the
 * current directory), the first executable regular file winning. Relative
 * paths are taken from `dir` (NULL: the current directory), where the
 * child starts. *path is malloc'd: absolute when `dir` is set, so that it
 * names the same file before and after the child's chdir. Returns 0, or
 * an errno (ENOENT: nowhere; EACCES: found but not executable; ENOMEM). */
int bs__spawn_resolve(const char *prog, const char *dir, char **path);

/* Starts o->argv as described above with its file actions (descriptors,
 * directory), its own process group and environment. Returns BS_OK with
 * *ch filled; on failure (the program not found or not executable, a file
 * action failing, no pipe or memory) o->fail_status (BS_EIO by default,
 * BS_ENOMEM when out of memory) with "cannot run PROG: REASON" in err,
 * nothing left open, ch->pid -1 and ch->error the errno. A program that is
 * found but cannot start (a missing interpreter) may also start and exit 127.
 */
bs_status bs__spawn(bs__child *ch, const bs__spawn_opts *o, bs_error *err);

/* The same for code of this program: forks a child that sets up its
 * descriptors, directory, process group and CPU as bs__spawn does (dies
 * with benchsite: PR_SET_PDEATHSIG) and exits with fn(ctx). The child of
 * a program with several threads may call only async-signal-safe
 * functions, so fn is for single-threaded callers (the runner). envp and
 * minimal_env are ignored. */
bs_status bs__spawn_fork(bs__child *ch, const bs__spawn_opts *o,
                         int (*fn)(void *ctx), void *ctx, bs_error *err);

/* Sends sig to the child's whole process group (while it is not reaped:
 * until then its id cannot be reused). */
void bs__child_signal(const bs__child *ch, int sig);

/* 1 when the child has exited (it stays unreaped until bs__child_wait),
 * else 0. Its descendants may still hold its pipes open. */
int bs__child_exited(const bs__child *ch);

/* Waits up to limit_ms (< 0: no limit) for the child to exit, then kills
 * what is left of its group with SIGKILL (all of it when the limit
 * passed), reaps it with wait4, and kills and reaps its re-parented
 * descendants; closes benchsite's ends still open in ch->fd. end (may be
 * NULL) tells how it ended. Returns BS_OK, or BS_EIO when it cannot be
 * waited for (end->status is then -1). ch->pid is -1 afterwards; a child
 * with pid <= 0 returns BS_OK at once. */
bs_status bs__child_wait(bs__child *ch, long long limit_ms, bs__child_end *end);

/* Asks the group to stop (SIGTERM), gives it grace_ms, then does what
 * bs__child_wait does (a child that ignores SIGTERM is killed). */
bs_status bs__child_stop(bs__child *ch, long long grace_ms, bs__child_end *end);

/* Reads child fd k (a pipe or socket) to its end, keeping its first
 * cap - 1 bytes in buf (NUL-terminated; *len their number) and dropping
 * the rest, so a child that prints more than a pipe holds never blocks.
 * Stops at deadline_ms (bs__now_ms()): returns 0 at the end of output, 2
 * when the deadline passed, 1 on a read error. */
int bs__child_collect(bs__child *ch, int k, char *buf, size_t cap, size_t *len,
                      long long deadline_ms);

/* Reads exactly n bytes from fd within timeout_ms (< 0: no limit),
 * retrying on EINTR and short reads: 0, 1 when the other end closed or a
 * read failed, 2 when the time passed. */
int bs__fd_read_within(int fd, void *buf, size_t n, long long timeout_ms);

/* Writes all n bytes to fd (retrying on EINTR, short writes and, for a
 * non-blocking fd, EAGAIN until timeout_ms; < 0: no limit): 0, 1 on a
 * write error (EPIPE included), 2 when the time passed. */
int bs__fd_write_within(int fd, const void *buf, size_t n,
                        long long timeout_ms);

/* Sends the n bytes at buf on socket fd (MSG_NOSIGNAL: a peer that is
 * gone is an error, not a SIGPIPE), retrying on EINTR and, for a stream,
 * short sends; a SOCK_SEQPACKET socket sends them as one message. 0, or
 * 1 when the other end closed or the send failed. */
int bs__msg_send(int fd, const void *buf, size_t n);

/* Receives one message from a SOCK_SEQPACKET socket within timeout_ms
 * (< 0: no limit), retrying on EINTR: 0 with its length in *len (at most
 * cap), 1 when the other end closed or the receive failed, 2 when the
 * time passed, 3 when the message was longer than cap (its end is lost).
 * A zero-length message cannot be told from the end: never send one. */
int bs__msg_recv_within(int fd, void *buf, size_t cap, size_t *len,
                        long long timeout_ms);

/* A monotonic clock in milliseconds. */
long long bs__now_ms(void);

#endif
