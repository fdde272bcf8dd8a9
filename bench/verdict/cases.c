/* The verdict lab's benchmark library (bench/verdict_lab.sh): nine cases
 * from about 30 ns to about 50 us a call, compute-, memory- and
 * branch-bound, built from this one source as an A/A pair (PLANT_PCT 0,
 * compiled twice) and as candidates whose `lookup` case does PLANT_PCT
 * percent more of its own work.
 *
 * The plant is real work, not a sleep: `lookup` walks a dependent chain of
 * LOOKUP_STEPS table loads and multiplies; a candidate with PLANT_PCT = p
 * walks round(LOOKUP_STEPS * p / 100) more steps of the same chain after
 * the result is taken (its end goes through an opaque sink, so the
 * compiler keeps it and the digest stays the base's). Per-call overhead
 * (the call, the loop) makes the true slowdown a little under p; the lab
 * measures it on its own and prints it beside p.
 *
 * Needs only benchsite/harness.h: cc -O2 -fPIC -shared. */
#include "benchsite/harness.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef PLANT_PCT
#define PLANT_PCT 0
#endif

#define LOOKUP_STEPS 2000
#define PLANT_STEPS ((LOOKUP_STEPS * PLANT_PCT + 50) / 100)

/* Keeps the compiler from seeing through a value (or hoisting work out of
 * the batch loop). */
#define OPAQUE(x) __asm__ volatile("" : "+r"(x))

static uint64_t xorshift(uint64_t *s) {
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1Du;
}

static void *xmalloc(size_t n) {
  void *p = malloc(n);
  if (!p)
    abort();
  return p;
}

typedef struct buf {
  uint8_t *in;   /* the input, the same in every build and run */
  uint8_t *work; /* scratch the call may overwrite */
  size_t n;      /* bytes of in (and work) */
  uint64_t last; /* the last call's result: the digest */
  size_t pos;    /* chase: where the walk stands */
} buf;

static buf *make_buf(size_t n, uint64_t seed) {
  buf *b = xmalloc(sizeof *b);
  b->in = xmalloc(n);
  b->work = xmalloc(n);
  b->n = n;
  b->last = 0;
  b->pos = 0;
  uint64_t s = seed;
  for (size_t i = 0; i < n; i += 8) {
    uint64_t v = xorshift(&s);
    memcpy(b->in + i, &v, n - i < 8 ? n - i : 8);
  }
  memcpy(b->work, b->in, n);
  return b;
}

static void teardown(void *p) {
  buf *b = p;
  free(b->in);
  free(b->work);
  free(b);
}

static uint64_t digest(void *p) { return ((buf *)p)->last; }

static uint64_t fnv(const uint8_t *a, size_t n) {
  uint64_t h = 0xcbf29ce484222325u;
  for (size_t i = 0; i < n; i++)
    h = (h ^ a[i]) * 0x100000001b3u;
  return h;
}

/* tiny: FNV-1a of 48 bytes (compute, ~30 ns with the call). */
static void *setup_tiny(void) { return make_buf(48, 1); }
static void run_tiny(void *p, uint64_t it) {
  buf *b = p;
  uint64_t r = 0;
  for (uint64_t i = 0; i < it; i++) {
    uint8_t *d = b->in;
    OPAQUE(d);
    r = fnv(d, 48);
    OPAQUE(r);
  }
  b->last = r;
}

/* memcpy: 16 KiB copied (memory bandwidth, L1/L2). */
static void *setup_memcpy(void) { return make_buf(16384, 2); }
static void run_memcpy(void *p, uint64_t it) {
  buf *b = p;
  for (uint64_t i = 0; i < it; i++) {
    uint8_t *s = b->in, *d = b->work;
    OPAQUE(s);
    OPAQUE(d);
    memcpy(d, s, b->n);
    __asm__ volatile("" ::: "memory");
  }
  b->last = fnv(b->work, 64);
}

/* fnv: FNV-1a of 512 bytes (a dependent multiply chain). */
static void *setup_fnv(void) { return make_buf(512, 3); }
static void run_fnv(void *p, uint64_t it) {
  buf *b = p;
  uint64_t r = 0;
  for (uint64_t i = 0; i < it; i++) {
    uint8_t *d = b->in;
    OPAQUE(d);
    r = fnv(d, b->n);
    OPAQUE(r);
  }
  b->last = r;
}

/* isort: insertion sort of 64 32-bit keys, copied in each call
 * (branches that depend on the data). */
static void *setup_isort(void) { return make_buf(64 * 4, 4); }
static void run_isort(void *p, uint64_t it) {
  buf *b = p;
  uint32_t *w = (uint32_t *)(void *)b->work;
  for (uint64_t i = 0; i < it; i++) {
    memcpy(w, b->in, b->n);
    OPAQUE(w);
    for (size_t j = 1; j < 64; j++) {
      uint32_t v = w[j];
      size_t k = j;
      while (k > 0 && w[k - 1] > v) {
        w[k] = w[k - 1];
        k--;
      }
      w[k] = v;
    }
    __asm__ volatile("" ::: "memory");
  }
  b->last = fnv(b->work, b->n);
}

/* branch: 4096 random bytes a call, an unpredictable branch on each (the
 * asm statements keep the compiler from making it branch-free). Each call
 * takes the next 4 KiB of a 1 MiB buffer, so the predictor cannot learn
 * the pattern; the result depends on where the batch began: no digest. */
static void *setup_branch(void) { return make_buf(1u << 20, 6); }
static void run_branch(void *p, uint64_t it) {
  buf *b = p;
  uint64_t t = 0;
  size_t pos = b->pos;
  for (uint64_t i = 0; i < it; i++) {
    const uint8_t *d = b->in + pos;
    OPAQUE(d);
    t = 0;
    for (size_t j = 0; j < 4096; j++) {
      if (d[j] < 128) {
        t += d[j];
        __asm__ volatile("" : "+r"(t));
      } else {
        t ^= (uint64_t)d[j] << 3;
        __asm__ volatile("" : "+r"(t));
      }
    }
    OPAQUE(t);
    pos = (pos + 4096) & (b->n - 1);
  }
  b->pos = pos;
}

/* sum: 512 KiB of 64-bit words streamed (beyond L2). */
static void *setup_sum(void) { return make_buf(512 * 1024, 7); }
static void run_sum(void *p, uint64_t it) {
  buf *b = p;
  uint64_t t = 0;
  for (uint64_t i = 0; i < it; i++) {
    const uint64_t *d = (const uint64_t *)(void *)b->in;
    OPAQUE(d);
    t = 0;
    for (size_t j = 0; j < b->n / 8; j++)
      t += d[j];
    OPAQUE(t);
  }
  b->last = t;
}

/* chase: 128 dependent loads along one random cycle over 32 MiB (memory
 * latency). The walk goes on from call to call, so its result depends on
 * the batch sizes: no digest. */
typedef struct chase {
  uint32_t *next;
  size_t n;
  uint32_t pos;
} chase;
static void *setup_chase(void) {
  chase *c = xmalloc(sizeof *c);
  c->n = (32u << 20) / sizeof(uint32_t);
  c->next = xmalloc(c->n * sizeof(uint32_t));
  for (size_t i = 0; i < c->n; i++)
    c->next[i] = (uint32_t)i;
  uint64_t s = 8; /* Sattolo: one cycle through every slot */
  for (size_t i = c->n - 1; i > 0; i--) {
    size_t j = (size_t)(xorshift(&s) % i);
    uint32_t v = c->next[i];
    c->next[i] = c->next[j];
    c->next[j] = v;
  }
  c->pos = 0;
  return c;
}
static void chase_teardown(void *p) {
  chase *c = p;
  free(c->next);
  free(c);
}
static void run_chase(void *p, uint64_t it) {
  chase *c = p;
  uint32_t x = c->pos;
  for (uint64_t i = 0; i < it; i++) {
    const uint32_t *nx = c->next;
    OPAQUE(nx);
    for (int k = 0; k < 128; k++)
      x = nx[x];
    OPAQUE(x);
  }
  c->pos = x;
}

/* qsort: libc qsort of 768 32-bit keys, copied in each call. */
static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}
static void *setup_qsort(void) { return make_buf(768 * 4, 9); }
static void run_qsort(void *p, uint64_t it) {
  buf *b = p;
  for (uint64_t i = 0; i < it; i++) {
    uint8_t *w = b->work;
    memcpy(w, b->in, b->n);
    OPAQUE(w);
    qsort(w, b->n / 4, 4, cmp_u32);
    __asm__ volatile("" ::: "memory");
  }
  b->last = fnv(b->work, b->n);
}

/* lookup comes last of the cases' code so that a plant, which makes it
 * longer, moves no other case's code: the other eight cases of a
 * candidate are then the A/A pair's instructions at the same addresses
 * (the lab builds with -fno-toplevel-reorder, which keeps this order, and
 * functions aligned to 64 bytes). */
/* lookup: the planted case. A dependent chain of table loads (a 16 KiB
 * table, L1) and multiplies; the candidate's extra steps continue the
 * same chain after the result is taken. */
typedef struct lookup {
  uint32_t table[4096];
  uint64_t last;
} lookup;
static void *setup_lookup(void) {
  lookup *l = xmalloc(sizeof *l);
  uint64_t s = 5;
  for (size_t i = 0; i < 4096; i++)
    l->table[i] = (uint32_t)xorshift(&s);
  l->last = 0;
  return l;
}
static void lookup_teardown(void *p) { free(p); }
static uint64_t lookup_digest(void *p) { return ((lookup *)p)->last; }
static inline uint64_t lookup_step(const uint32_t *t, uint64_t x, uint64_t i) {
  return (x ^ t[x & 4095]) * 0x9E3779B97F4A7C15u + i;
}
static void run_lookup(void *p, uint64_t it) {
  lookup *l = p;
  uint64_t r = 0;
  for (uint64_t i = 0; i < it; i++) {
    const uint32_t *t = l->table;
    OPAQUE(t);
    uint64_t x = 1;
    for (uint64_t k = 0; k < LOOKUP_STEPS; k++)
      x = lookup_step(t, x, k);
    r = x;
    OPAQUE(r);
#if PLANT_PCT > 0
    uint64_t y = x;
    for (uint64_t k = 0; k < PLANT_STEPS; k++) {
      y = lookup_step(t, y, k);
      OPAQUE(y);
    }
#endif
  }
  l->last = r;
}

static const bs_bench_case cases[] = {
    {"tiny", "48B", 0, setup_tiny, run_tiny, digest, teardown},
    {"memcpy", "16KiB", 0, setup_memcpy, run_memcpy, digest, teardown},
    {"fnv", "512B", 0, setup_fnv, run_fnv, digest, teardown},
    {"isort", "64", 0, setup_isort, run_isort, digest, teardown},
    {"lookup", "2000", 0, setup_lookup, run_lookup, lookup_digest,
     lookup_teardown},
    {"branch", "4KiB", 0, setup_branch, run_branch, 0, teardown},
    {"sum", "512KiB", 0, setup_sum, run_sum, digest, teardown},
    {"chase", "32MiB", 0, setup_chase, run_chase, 0, chase_teardown},
    {"qsort", "768", 0, setup_qsort, run_qsort, digest, teardown},
};

BS_HARNESS_DEFINE_CASES(cases)
