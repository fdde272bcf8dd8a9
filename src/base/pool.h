/* One pool of worker threads (analysis ahead, chart rendering). Private.
 *
 *   bs__pool *p = bs__pool_new(bs__jobs(requested));
 *   bs__pool_submit(p, fn, arg);    ... fn(arg) runs on a worker ...
 *   bs__pool_wait(p);               ... every submitted job has run ...
 *   bs__pool_free(p);
 *
 * Jobs start in the order they were submitted, each on one worker, never
 * more at once than the pool's threads. Threads start as jobs are
 * submitted, so a pool that is never used costs nothing. A job must not
 * wait for a job submitted after it (all threads could be waiting). */
#ifndef BENCHSITE_POOL_H
#define BENCHSITE_POOL_H

#include <stddef.h>

typedef struct bs__pool bs__pool;
typedef void (*bs__pool_fn)(void *arg);

/* CPUs to use: `requested` when not 0, else the online CPUs (at least
 * 1). The one place that default (--jobs) is decided. */
size_t bs__jobs(size_t requested);

/* A pool of at most `threads` workers (0 is taken as 1). NULL when out of
 * memory. */
bs__pool *bs__pool_new(size_t threads);

/* Queues fn(arg). Returns 0; ENOMEM (nothing queued); or EAGAIN when no
 * worker thread exists and none could be started (nothing queued). A
 * pool that has some workers and cannot start more runs the job on
 * those. */
int bs__pool_submit(bs__pool *p, bs__pool_fn fn, void *arg);

/* Returns once every job submitted so far has run (jobs submitted from
 * jobs included). */
void bs__pool_wait(bs__pool *p);

/* Drops the jobs not started (they are never run), waits for the running
 * ones, joins the workers and frees the pool. NULL is a no-op. */
void bs__pool_free(bs__pool *p);

#endif
