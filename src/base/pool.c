#include "pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct job {
  bs__pool_fn fn;
  void *arg;
} job;

struct bs__pool {
  pthread_mutex_t mu;
  pthread_cond_t work; /* a job queued, or closing */
  pthread_cond_t idle; /* a job finished */
  pthread_t *threads;
  size_t max, nthreads;
  /* Guarded by mu: */
  job *queue;
  size_t head, n, cap; /* queued jobs are queue[head..n) */
  size_t running;
  int closing;
};

size_t bs__jobs(size_t requested) {
  if (requested)
    return requested;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (size_t)n : 1;
}

static void *worker(void *arg) {
  bs__pool *p = arg;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (p->head == p->n && !p->closing)
      pthread_cond_wait(&p->work, &p->mu);
    if (p->head == p->n)
      break;
    job j = p->queue[p->head++];
    if (p->head == p->n)
      p->head = p->n = 0; /* empty: the queue starts over */
    p->running++;
    pthread_mutex_unlock(&p->mu);
    j.fn(j.arg);
    pthread_mutex_lock(&p->mu);
    p->running--;
    pthread_cond_broadcast(&p->idle);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

bs__pool *bs__pool_new(size_t threads) {
  bs__pool *p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  p->max = threads ? threads : 1;
  if (!(p->threads = calloc(p->max, sizeof *p->threads)) ||
      pthread_mutex_init(&p->mu, NULL) != 0) {
    free(p->threads);
    free(p);
    return NULL;
  }
  if (pthread_cond_init(&p->work, NULL) != 0) {
    pthread_mutex_destroy(&p->mu);
    free(p->threads);
    free(p);
    return NULL;
  }
  if (pthread_cond_init(&p->idle, NULL) != 0) {
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->mu);
    free(p->threads);
    free(p);
    return NULL;
  }
  return p;
}

int bs__pool_submit(bs__pool *p, bs__pool_fn fn, void *arg) {
  pthread_mutex_lock(&p->mu);
  if (p->n == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 64;
    job *q = realloc(p->queue, cap * sizeof *q);
    if (!q) {
      pthread_mutex_unlock(&p->mu);
      return ENOMEM;
    }
    p->queue = q;
    p->cap = cap;
  }
  /* One more worker while there are fewer than jobs waiting or running. */
  if (p->nthreads < p->max && p->nthreads < p->n - p->head + p->running + 1 &&
      pthread_create(&p->threads[p->nthreads], NULL, worker, p) == 0)
    p->nthreads++;
  if (p->nthreads == 0) {
    pthread_mutex_unlock(&p->mu);
    return EAGAIN;
  }
  p->queue[p->n].fn = fn;
  p->queue[p->n].arg = arg;
  p->n++;
  pthread_cond_signal(&p->work);
  pthread_mutex_unlock(&p->mu);
  return 0;
}

void bs__pool_wait(bs__pool *p) {
  pthread_mutex_lock(&p->mu);
  while (p->head < p->n || p->running)
    pthread_cond_wait(&p->idle, &p->mu);
  pthread_mutex_unlock(&p->mu);
}

void bs__pool_free(bs__pool *p) {
  if (!p)
    return;
  pthread_mutex_lock(&p->mu);
  p->closing = 1;
  p->head = p->n = 0; /* queued jobs are dropped */
  pthread_cond_broadcast(&p->work);
  pthread_mutex_unlock(&p->mu);
  for (size_t i = 0; i < p->nthreads; i++)
    pthread_join(p->threads[i], NULL);
  pthread_cond_destroy(&p->work);
  pthread_cond_destroy(&p->idle);
  pthread_mutex_destroy(&p->mu);
  free(p->queue);
  free(p->threads);
  free(p);
}
