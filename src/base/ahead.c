#include "ahead.h"

#include "pool.h"

#include <pthread.h>
#include <stdlib.h>

/* The tasks run on a bs__pool: one pool job is queued for each task as it
 * enters the window, and a job claims the next task nobody has started
 * (tasks are claimed in index order, by a worker or by the consumer), so
 * every task in the window is claimed by someone. */
struct bs__ahead {
  bs__ahead_fn fn;
  void *ctx;
  size_t n, window;
  bs__pool *pool; /* NULL: the consumer computes every task */
  pthread_mutex_t mu;
  pthread_cond_t done; /* a task finished */
  /* Guarded by mu: */
  size_t next;      /* the first task nobody has started */
  size_t wanted;    /* the task the consumer waits for */
  size_t submitted; /* tasks below this have a pool job queued */
  char *finished;   /* per task */
  int stopping;
};

/* The next task to start, or n when none may start now; mu is held. */
static size_t claim(bs__ahead *a) {
  if (a->stopping || a->next >= a->n || a->next >= a->wanted + a->window)
    return a->n;
  return a->next++;
}

/* Computes task t without the lock, then marks it done; mu is held. */
static void run_task(bs__ahead *a, size_t t) {
  pthread_mutex_unlock(&a->mu);
  a->fn(a->ctx, t);
  pthread_mutex_lock(&a->mu);
  a->finished[t] = 1;
  pthread_cond_broadcast(&a->done);
}

static void pool_job(void *arg) {
  bs__ahead *a = arg;
  pthread_mutex_lock(&a->mu);
  size_t t = claim(a);
  if (t < a->n)
    run_task(a, t);
  pthread_mutex_unlock(&a->mu);
}

/* Queues a pool job for every task that entered the window; mu is held.
 * A job that cannot be queued leaves its task to the consumer. */
static void fill_window(bs__ahead *a) {
  size_t end = a->wanted + a->window < a->n ? a->wanted + a->window : a->n;
  while (a->pool && !a->stopping && a->submitted < end &&
         bs__pool_submit(a->pool, pool_job, a) == 0)
    a->submitted++;
  if (a->submitted < end)
    a->submitted = end;
}

bs__ahead *bs__ahead_start(size_t n, size_t threads, size_t window,
                           bs__ahead_fn fn, void *ctx) {
  bs__ahead *a = calloc(1, sizeof *a);
  if (!a)
    return NULL;
  a->fn = fn;
  a->ctx = ctx;
  a->n = n;
  a->window = window ? window : 1;
  if (threads > n)
    threads = n;
  a->finished = calloc(n ? n : 1, 1);
  /* A pool that cannot be made leaves every task to the consumer: fewer
   * CPUs, the same results. */
  a->pool = threads ? bs__pool_new(threads) : NULL;
  if (!a->finished || pthread_mutex_init(&a->mu, NULL) != 0) {
    bs__pool_free(a->pool);
    free(a->finished);
    free(a);
    return NULL;
  }
  if (pthread_cond_init(&a->done, NULL) != 0) {
    pthread_mutex_destroy(&a->mu);
    bs__pool_free(a->pool);
    free(a->finished);
    free(a);
    return NULL;
  }
  pthread_mutex_lock(&a->mu);
  fill_window(a);
  pthread_mutex_unlock(&a->mu);
  return a;
}

void bs__ahead_wait(bs__ahead *a, size_t t) {
  pthread_mutex_lock(&a->mu);
  if (t > a->wanted) {
    a->wanted = t;
    fill_window(a); /* the window moved on */
  }
  while (!a->finished[t]) {
    /* t itself when nobody has started it, else a later one in the window
     * rather than sleeping; sleep when all of those are taken. */
    size_t u = claim(a);
    if (u == a->n)
      pthread_cond_wait(&a->done, &a->mu);
    else
      run_task(a, u);
  }
  pthread_mutex_unlock(&a->mu);
}

void bs__ahead_stop(bs__ahead *a) {
  if (!a)
    return;
  pthread_mutex_lock(&a->mu);
  a->stopping = 1;
  pthread_mutex_unlock(&a->mu);
  bs__pool_free(a->pool); /* queued jobs dropped, running ones finish */
  pthread_cond_destroy(&a->done);
  pthread_mutex_destroy(&a->mu);
  free(a->finished);
  free(a);
}
