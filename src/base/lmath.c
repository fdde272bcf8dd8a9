/* libm opened on first use (see lmath.h): one table of its functions,
 * filled once under pthread_once and never changed after, as the dynamic
 * loader would have bound them at start-up. */
#include "lmath.h"

#if defined(__has_include)
#if __has_include(<gnu/lib-names.h>)
#include <gnu/lib-names.h> /* LIBM_SO, glibc's soname of libm */
#endif
#endif

#ifdef LIBM_SO
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#endif

double bs__sqrt(double x) {
  /* Built with -fno-math-errno (src/CMakeLists.txt): the instruction,
   * without the call to sqrt that only sets errno. */
  return __builtin_sqrt(x);
}

#ifdef LIBM_SO

#define LMATH_FUNCTIONS(X)                                                     \
  X(exp) X(expm1) X(log) X(log1p) X(pow) X(cbrt) X(erfc)

static struct {
  double (*exp)(double);
  double (*expm1)(double);
  double (*log)(double);
  double (*log1p)(double);
  double (*pow)(double, double);
  double (*cbrt)(double);
  double (*erfc)(double);
} fn;

static pthread_once_t once = PTHREAD_ONCE_INIT;

/* What the dynamic loader does when a library a program needs is missing:
 * say so and end with status 127 (there is no caller to hand an error to:
 * these are the C library's own functions). */
static void missing(const char *what) {
  const char *why = dlerror();
  fprintf(stderr, "benchsite: cannot %s " LIBM_SO ": %s\n", what,
          why ? why : "unknown error");
  _exit(127);
}

static void load(void) {
  void *h = dlopen(LIBM_SO, RTLD_NOW | RTLD_LOCAL);
  if (!h)
    missing("load");
  void *sym;
  /* A data pointer to a function pointer: copied, as POSIX's dlsym
   * allows and ISO C's casts do not. */
#define LMATH_LOOKUP(name)                                                     \
  dlerror();                                                                   \
  if (!(sym = dlsym(h, #name)))                                                \
    missing("use");                                                            \
  memcpy(&fn.name, &sym, sizeof sym);
  LMATH_FUNCTIONS(LMATH_LOOKUP)
#undef LMATH_LOOKUP
}

double bs__exp(double x) {
  pthread_once(&once, load);
  return fn.exp(x);
}
double bs__expm1(double x) {
  pthread_once(&once, load);
  return fn.expm1(x);
}
double bs__log(double x) {
  pthread_once(&once, load);
  return fn.log(x);
}
double bs__log1p(double x) {
  pthread_once(&once, load);
  return fn.log1p(x);
}
double bs__pow(double x, double y) {
  pthread_once(&once, load);
  return fn.pow(x, y);
}
double bs__cbrt(double x) {
  pthread_once(&once, load);
  return fn.cbrt(x);
}
double bs__erfc(double x) {
  pthread_once(&once, load);
  return fn.erfc(x);
}

#else /* the math is in the C library (or libm is linked): call it */

double bs__exp(double x) { return exp(x); }
double bs__expm1(double x) { return expm1(x); }
double bs__log(double x) { return log(x); }
double bs__log1p(double x) { return log1p(x); }
double bs__pow(double x, double y) { return pow(x, y); }
double bs__cbrt(double x) { return cbrt(x); }
double bs__erfc(double x) { return erfc(x); }

#endif
