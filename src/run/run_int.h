/* benchsite: the measuring processes of library and command mode, and
 * the wire between them and benchsite (run.c, run_exec.c, run_child.c).
 * Harness modes are run_harness.h's. Private. */
#ifndef BENCHSITE_RUN_INT_H
#define BENCHSITE_RUN_INT_H

#include "benchsite/run.h"

#include "spawn_proc.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- the wire ------------------------------------------------------------
 * A measuring process is this program's own executable started again
 * (/proc/self/exe) with BS__CHILD_ENV = "PPID" in its environment: a
 * constructor in run_exec.c sees it before main and serves requests on
 * the socket BS__CHILD_FD until benchsite closes it. The socket is a
 * SOCK_SEQPACKET one: every message below is one record whose bounds the
 * socket keeps, so a message is read whole or not at all.
 *
 * benchsite sends one bs__hello, one bs__target per impl (its name, its
 * target and its directory follow in the same message), then one bs__req
 * per request. The process answers with messages that each start with a
 * bs__head: its pid (getpid() at the send, so a copy that a benchmark
 * forked names itself), the kind, and for a reply the id of the request.
 * First a START (ok; or 0 and a message), then in library mode per impl a
 * TABLE (its count of cases; 0 for an impl it did not load) and a CASE
 * per case, then one REPLY per request, which also repeats what it
 * answers (op, impl, case).
 *
 * benchsite takes a message only from the process it started, of the kind
 * and request id it waits for, and of the size that kind has; once the
 * process is ended it reads what is left on the socket, which must be
 * nothing. A benchmark that forks and goes on in both processes, or that
 * writes on the socket, is an error naming it, never a reply on the wrong
 * row. */
#define BS__CHILD_ENV "BENCHSITE_MEASURING_CHILD"
#define BS__CHILD_FD 3   /* the socket, in the measuring process */
#define BS__BARRIER_FD 4 /* duet: the shared barrier page */
#define BS__HELLO_MAGIC 0x62736d32u
/* The largest impl name, directory and case name, and target. */
#define BS__NAME_MAX 4096
#define BS__TARGET_MAX 65536
/* The most cases one library may define. */
#define BS__CASES_MAX 10000000
/* The largest message either side sends. */
#define BS__MSG_MAX (64 + 3 * BS__NAME_MAX + BS__TARGET_MAX)

typedef struct bs__hello {
  uint32_t magic, mode, nimpls, show_output, barrier;
  uint32_t stack_pad; /* bytes the process moves its stack down by before it
                         serves (layout randomisation; 0: none) */
} bs__hello;

typedef struct bs__target {
  uint32_t load;             /* 1: this process loads (or runs) the impl */
  uint32_t nlen, tlen, dlen; /* name, target, directory: bytes that follow */
  /* Layout randomisation (library mode): bytes allocated before each setup
   * of the impl, kept until its teardown, and pages of address space
   * reserved before its library is loaded. */
  uint32_t heap_pad, map_gap;
} bs__target;

typedef struct bs__req {
  uint64_t id; /* 1, 2, ... per process: what the reply names */
  uint32_t op, impl, kase;
  int32_t cpu;    /* RUN: the CPU to run on (sched_setaffinity), -1: any */
  uint64_t n;     /* RUN: the batch size */
  uint64_t round; /* RUN in a duet: the barrier's round (1, 2, ...), 0: none */
  uint64_t extra; /* RUN, library mode: calls made besides the n timed as
                     the batch (a planted slowdown, bs_run_options.plant) */
} bs__req;

typedef struct bs__head {
  int32_t pid;   /* the sender */
  uint32_t kind; /* BS__MSG_* */
  uint64_t id;   /* REPLY: the request's id, else 0 */
} bs__head;

enum { BS__MSG_START = 1, BS__MSG_TABLE, BS__MSG_CASE, BS__MSG_REPLY };

typedef struct bs__start {
  bs__head head;
  uint32_t ok, len; /* ok 0: a message of len bytes follows */
} bs__start;

typedef struct bs__table {
  bs__head head;
  uint64_t count;
} bs__table;

typedef struct bs__case_msg {
  bs__head head;
  double scale;
  uint32_t blen, dlen; /* the benchmark's and the dataset's bytes follow */
  uint32_t has_digest, unused;
} bs__case_msg;

typedef struct bs__rep {
  bs__head head;
  uint32_t op, impl, kase; /* the request it answers */
  uint32_t status, code;   /* BS__REP_*; an errno or a wait status */
  uint64_t value;          /* RUN: wall ns (or, failed, the execution);
                              DIGEST: the digest */
  uint64_t cpu_ns;         /* RUN: CPU time of the batch */
  uint64_t maxrss_kib;     /* RUN, command mode: the largest ru_maxrss */
  uint64_t nivcsw;         /* RUN: times the batch lost its CPU to other work
                              (involuntary context switches: the measuring thread's,
                              or the commands') */
} bs__rep;

enum {
  BS__OP_SETUP = 1,
  BS__OP_RUN,
  BS__OP_DIGEST,
  BS__OP_TEARDOWN,
  BS__OP_END /* the last request: answered, then nothing more */
};
enum {
  BS__REP_OK = 0,
  BS__REP_FAILED,  /* a command failed: code its wait status */
  BS__REP_NOSTART, /* a command could not start: code errno */
  BS__REP_NOCLOCK, /* the CPU clock could not be read: code errno */
  BS__REP_NOPIN    /* sched_setaffinity failed: code errno */
};

/* The measuring process's side (run_child.c): serves the socket fd until
 * it closes, then exits. Never returns. */
void bs__run_child_main(int fd)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;

/* Library and command mode (run_blocks.c): runs o's impls, already
 * checked by bs_run_measure, and fills r as bs_run_measure describes. */
bs_status bs__run_blocks(const bs_run_options *o, bs_run_result *r,
                         bs_error *err);
/* The first two CPUs this process may run on, into cpu: how many there
 * are (0 to 2), or -1 when that cannot be told (run_blocks.c). */
int bs__run_first_two_cpus(int cpu[2]);

/* ---- benchsite's side (run_exec.c) -------------------------------------- */

typedef struct bs__exec_case {
  char *benchmark;
  char *dataset;
  double scale;
  int has_digest;
} bs__exec_case;

/* The measuring processes of one generation (a run, or a block) and the
 * case tables, which the first generation reads and later ones must
 * repeat. */
typedef struct bs__exec {
  const bs_run_options *o;
  char **const *argvs;
  bs__child ch[2]; /* one, or two in a duet (impl i in ch[i ^ flip]);
                      the socket is ch[c].fd[BS__CHILD_FD] */
  size_t nch;
  int barrier_fd;        /* duet: the barrier page (a memory file), else -1 */
  uint64_t round;        /* duet: barrier rounds so far in this generation */
  uint64_t id[2];        /* the last request id sent to each process */
  bs__exec_case **cases; /* library mode: per impl, the case table */
  size_t *ncases;
  /* The generation bs__exec_start starts next: its run and its block (-1:
   * a process for the whole run, or for calibration), from which each
   * process draws its layout (bs__layout_draw). */
  uint64_t layout_run;
  int64_t layout_block;
  /* Duet: 1 when this generation's processes and CPUs are swapped (impl i
   * in process i ^ flip, on the CPUs the other impl had), every other
   * generation from a start drawn from the seed: the process started
   * first, the CPU each impl sets up and calibrates on, are a draw per
   * run, not always impl 0's. 0 otherwise and with --layout fixed. */
  unsigned flip;
} bs__exec;

/* Layout randomisation: what one measuring process changes of its memory
 * layout, so that a layout that favours one build is a fresh draw per
 * process (noise that more runs average away) rather than one offset that
 * biases every pair of the run alike. */
typedef struct bs__layout {
  uint32_t stack_pad; /* 0-4080 bytes, in 16-byte steps */
  uint32_t env_pad;   /* 0-4095 bytes of environment */
  uint32_t heap_pad;  /* per impl: 0-4080 bytes, in 16-byte steps */
  uint32_t map_gap;   /* per impl: 0-63 pages */
} bs__layout;

/* The layout of process `proc` (0, or 1 in a duet) of the generation
 * (run, block) for impl `impl`: a pure function of the run's seed and
 * these numbers, so a run can be measured again alike. All zero when
 * `fixed`. */
bs__layout bs__layout_draw(uint64_t seed, uint64_t run, int64_t block,
                           size_t proc, size_t impl, int fixed);

/* An order of the impls of case `kase` in the generation (run, block) of
 * the exec, for what `what` names (BS__ORDER_SETUP, BS__ORDER_CALIBRATION):
 * order[0..k) a permutation of 0..k-1, drawn like the layout (identity
 * when it is fixed). What a setup allocates first lands elsewhere than
 * what it allocates next (a 32 MiB pointer chase set up first ran 5-10 %
 * slower, every run), and the impl calibrated last starts the blocks
 * warmer (the same chase, 15 % faster in block 0): a fixed order would
 * favour one impl of every pair alike. */
enum { BS__ORDER_SETUP = 1, BS__ORDER_CALIBRATION = 2 };
void bs__draw_order(const bs__exec *e, size_t kase, unsigned what,
                    size_t *order, size_t k);

/* Before anything: e is empty, nothing runs. */
void bs__exec_init(bs__exec *e, const bs_run_options *o, char **const *argvs);
/* Starts a generation: one measuring process (two in a duet), loading
 * every impl (in a duet, each its own). The first time it reads the case
 * tables; later a table that differs is an error. Errors name the impl. */
bs_status bs__exec_start(bs__exec *e, bs_error *err);
/* Whether a generation is running. */
int bs__exec_running(const bs__exec *e);

/* One request for impl `impl` to the process that holds it (q->id is
 * set here). `what` describes it for an error ("head: sum [n=8]: a
 * calibration batch of 10 calls, run 0"). */
bs_status bs__exec_call(bs__exec *e, const bs__req *q, const char *what,
                        bs__rep *a, bs_error *err);
/* A duet batch: q[0] to impl 0's process and q[1] to impl 1's, released
 * together by the barrier; answers in a[0], a[1]. used_ms: what the
 * batch took already (its first half), counted against --timeout. */
bs_status bs__exec_duet(bs__exec *e, bs__req q[2], const char *const what[2],
                        long long used_ms, bs__rep a[2], bs_error *err);
/* In a duet: q[0] to impl 0's process and q[1] to impl 1's at once,
 * without the barrier (a setup, which both processes then do at the same
 * time), and both answers into a. */
bs_status bs__exec_both(bs__exec *e, bs__req q[2], const char *const what[2],
                        bs__rep a[2], bs_error *err);
/* Ends the generation as it should end: the last request to each
 * process, then bs__exec_stop, then what is left on each socket, which
 * must be nothing (else an error: a copy of the process answered too). */
bs_status bs__exec_end(bs__exec *e, bs_error *err);
/* Ends the generation: kills whatever still runs and reaps it. */
void bs__exec_stop(bs__exec *e);
/* bs__exec_stop and frees the tables. */
void bs__exec_release(bs__exec *e);

#endif
