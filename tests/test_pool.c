/* The worker pool and the in-order "ahead" tasks built on it. */
#include "ahead.h"
#include "pool.h"

#include <criterion/criterion.h>
#include <stdatomic.h>
#include <time.h>

static atomic_int ran;

static void count(void *arg) {
  (void)arg;
  atomic_fetch_add(&ran, 1);
}

Test(pool, every_submitted_job_runs_before_wait_returns) {
  atomic_store(&ran, 0);
  bs__pool *p = bs__pool_new(3);
  cr_assert_not_null(p);
  for (int i = 0; i < 1000; i++)
    cr_assert_eq(bs__pool_submit(p, count, NULL), 0);
  bs__pool_wait(p);
  cr_expect_eq(atomic_load(&ran), 1000);
  for (int i = 0; i < 10; i++)
    cr_assert_eq(bs__pool_submit(p, count, NULL), 0);
  bs__pool_wait(p);
  cr_expect_eq(atomic_load(&ran), 1010);
  bs__pool_free(p);
  bs__pool_free(NULL);
}

static void slow(void *arg) {
  (void)arg;
  struct timespec t = {0, 20000000};
  nanosleep(&t, NULL);
  atomic_fetch_add(&ran, 1);
}

Test(pool, free_drops_what_has_not_started) {
  atomic_store(&ran, 0);
  bs__pool *p = bs__pool_new(1);
  for (int i = 0; i < 50; i++)
    cr_assert_eq(bs__pool_submit(p, slow, NULL), 0);
  bs__pool_free(p);
  cr_expect_lt(atomic_load(&ran), 50);
}

Test(pool, jobs_default_to_the_online_cpus) {
  cr_expect_eq(bs__jobs(7), 7);
  cr_expect_geq(bs__jobs(0), 1);
}

static void square(void *ctx, size_t t) { ((size_t *)ctx)[t] = t * t + 1; }

Test(pool, ahead_tasks_are_done_when_waited_for) {
  size_t v[500] = {0};
  size_t threads[] = {0, 1, 3};
  for (size_t k = 0; k < 3; k++) {
    for (size_t t = 0; t < 500; t++)
      v[t] = 0;
    bs__ahead *a = bs__ahead_start(500, threads[k], 4, square, v);
    cr_assert_not_null(a);
    for (size_t t = 0; t < 500; t++) {
      bs__ahead_wait(a, t);
      cr_expect_eq(v[t], t * t + 1, "task %zu", t);
      /* Never more than the window past the one waited for. */
      if (t + 5 < 500)
        cr_expect_eq(v[t + 5], 0, "task %zu ran early", t + 5);
    }
    bs__ahead_stop(a);
  }
}
