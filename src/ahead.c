#include "ahead.h"

#include <pthread.h>
#include <stdlib.h>

struct bs__ahead {
  bs__ahead_fn fn;
  void *ctx;
  size_t n, window;
  pthread_mutex_t mu;
  pthread_cond_t work; /* the window moved, or stopping */
  pthread_cond_t done; /* a task finished */
  pthread_t *threads;
  size_t nthreads;
  /* Guarded by mu: */
  size_t next;    /* the first task nobody has started */
  size_t wanted;  /* the task the consumer waits for */
  char *finished; /* per task */
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

static void *worker(void *arg) {
  bs__ahead *a = arg;
  pthread_mutex_lock(&a->mu);
  while (!a->stopping && a->next < a->n) {
    size_t t = claim(a);
    if (t == a->n)
      pthread_cond_wait(&a->work, &a->mu);
    else
      run_task(a, t);
  }
  pthread_mutex_unlock(&a->mu);
  return NULL;
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
  a->threads = calloc(threads ? threads : 1, sizeof *a->threads);
  if (!a->finished || !a->threads || pthread_mutex_init(&a->mu, NULL) != 0) {
    free(a->finished);
    free(a->threads);
    free(a);
    return NULL;
  }
  pthread_cond_init(&a->work, NULL);
  pthread_cond_init(&a->done, NULL);
  /* A thread that cannot be created leaves its share to the others and
   * to the consumer: fewer CPUs, the same results. */
  while (a->nthreads < threads &&
         pthread_create(&a->threads[a->nthreads], NULL, worker, a) == 0)
    a->nthreads++;
  return a;
}

void bs__ahead_wait(bs__ahead *a, size_t t) {
  pthread_mutex_lock(&a->mu);
  if (t > a->wanted) {
    a->wanted = t;
    pthread_cond_broadcast(&a->work); /* the window moved on */
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
  pthread_cond_broadcast(&a->work);
  pthread_mutex_unlock(&a->mu);
  for (size_t i = 0; i < a->nthreads; i++)
    pthread_join(a->threads[i], NULL);
  pthread_cond_destroy(&a->work);
  pthread_cond_destroy(&a->done);
  pthread_mutex_destroy(&a->mu);
  free(a->finished);
  free(a->threads);
  free(a);
}
