/* Tasks computed ahead on the worker pool (pool.h) and consumed in order.
 * Private.
 *
 *   bs__ahead *a = bs__ahead_start(n, threads, window, fn, ctx);
 *   for (size_t t = 0; t < n; t++) {
 *     bs__ahead_wait(a, t);    ... task t is done: use what fn wrote ...
 *   }
 *   bs__ahead_stop(a);
 *
 * fn(ctx, t) computes task t; it must touch nothing another task or the
 * consumer touches meanwhile (each task writes its own slot, errors
 * included). Tasks start in index order, never more than `window` past
 * the one the consumer waits for (so what is computed and not yet used
 * stays bounded). The consumer's own thread computes tasks too: a task
 * nobody has started when it is wanted, and others while it waits, so
 * `threads` workers plus the consumer keep at most threads + 1 CPUs busy.
 * With no threads the consumer computes each task when it asks for it,
 * one after another, as a plain loop would.
 *
 * Everything fn wrote for task t is visible to the consumer once
 * bs__ahead_wait(a, t) returns (the pool's lock orders it). */
#ifndef BENCHSITE_AHEAD_H
#define BENCHSITE_AHEAD_H

#include <stddef.h>

typedef struct bs__ahead bs__ahead;
typedef void (*bs__ahead_fn)(void *ctx, size_t task);

/* Starts up to `threads` workers on tasks 0..n-1 (fewer when threads
 * cannot be created: the consumer then computes more itself). window 0
 * means 1. NULL when out of memory. */
bs__ahead *bs__ahead_start(size_t n, size_t threads, size_t window,
                           bs__ahead_fn fn, void *ctx);

/* Returns once task t (< n) is done, computing it, or later tasks while
 * a worker finishes it. Tasks are waited for in ascending order. */
void bs__ahead_wait(bs__ahead *a, size_t t);

/* Starts no more tasks, waits for the running ones, joins the workers
 * and frees the pool. NULL is a no-op. Tasks not done were never
 * started. */
void bs__ahead_stop(bs__ahead *a);

#endif
