/* Preloaded (LD_PRELOAD) into benchsite by tests/test_run.c: a machine
 * whose thread CPU clock cannot be read. clock_gettime fails with EINVAL
 * for CLOCK_THREAD_CPUTIME_ID and works for every other clock. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <time.h>

int clock_gettime(clockid_t id, struct timespec *t) {
  if (id == CLOCK_THREAD_CPUTIME_ID) {
    errno = EINVAL;
    return -1;
  }
  typedef int (*real_fn)(clockid_t, struct timespec *);
  real_fn real;
  void *sym = dlsym(RTLD_NEXT, "clock_gettime");
  memcpy(&real, &sym, sizeof real);
  return real ? real(id, t) : -1;
}
