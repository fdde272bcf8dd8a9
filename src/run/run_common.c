/* benchsite: what every file of the runner uses; see run_common.h. */
#include "run_common.h"

#include "csvin.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

const char *bs__run_text(char *out, size_t n, const char *s) {
  /* The one escaper for a terminal or CI log, into all but the room for
   * "..." when the text does not fit. */
  size_t room = n > 8 ? n - 3 : n;
  if (bs_text_escape(out, room, s, 0) >= room && room < n)
    memcpy(out + strlen(out), "...", 4);
  return out;
}

const char *bs__run_case_label(char *out, size_t n, const char *benchmark,
                               const char *dataset) {
  char b[128], d[128];
  bs__run_text(b, sizeof b, benchmark);
  if (!dataset || !dataset[0])
    snprintf(out, n, "%s", b);
  else
    snprintf(out, n, "%s [%s]", b, bs__run_text(d, sizeof d, dataset));
  return out;
}

bs_status bs__run_warn(bs_run_result *r, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  char **w = realloc(r->warnings, (r->nwarnings + 1) * sizeof *w);
  if (!w)
    return BS_ENOMEM;
  r->warnings = w;
  if (!(w[r->nwarnings] = strdup(msg)))
    return BS_ENOMEM;
  r->nwarnings++;
  return BS_OK;
}

void bs__run_cases_init(bs__run_cases *c) {
  bs__strset_init(&c->set);
  c->key = NULL;
  c->cap = 0;
}

void bs__run_cases_release(bs__run_cases *c) {
  bs__strset_release(&c->set);
  free(c->key);
  c->key = NULL;
  c->cap = 0;
}

/* The key of a case in c->key: the two names with a NUL between (no name
 * holds one). Its length, or 0 when out of memory. */
static size_t case_key(bs__run_cases *c, const char *b, size_t bl,
                       const char *d, size_t dl) {
  size_t need = bl + dl + 1;
  if (need > c->cap) {
    char *k = realloc(c->key, need);
    if (!k)
      return 0;
    c->key = k;
    c->cap = need;
  }
  memcpy(c->key, b, bl);
  c->key[bl] = '\0';
  memcpy(c->key + bl + 1, d, dl);
  return need;
}

int bs__run_cases_put(bs__run_cases *c, const char *b, size_t bl, const char *d,
                      size_t dl, size_t v, size_t *old) {
  size_t n = case_key(c, b, bl, d, dl);
  return n ? bs__strset_put(&c->set, c->key, n, v, old) : -1;
}

int bs__run_cases_get(bs__run_cases *c, const char *b, const char *d,
                      size_t *v) {
  size_t n = case_key(c, b, strlen(b), d, strlen(d));
  return n ? bs__strset_get(&c->set, c->key, n, v) : -1;
}

int bs__run_valid_utf8(const char *s) {
  size_t n = strlen(s);
  return bs__utf8_invalid_at((const unsigned char *)s, n) == n;
}

static bs_status put_field(bs__buf *b, const char *s) {
  bs_status st = bs__buf_putc(b, '"');
  for (; !st && *s; s++)
    st = *s == '"' ? bs__buf_puts(b, "\"\"") : bs__buf_putc(b, *s);
  return st ? st : bs__buf_putc(b, '"');
}

bs_status bs__run_log_header(bs__buf *b, const bs__run_cols *c) {
  bs_status st = bs__buf_puts(b, "benchmark,dataset,scale,impl,run,block,"
                                 "phase,iterations,per_call_us");
  if (!st && c->cpu)
    st = bs__buf_puts(b, ",cpu_per_call_us");
  if (!st && c->rss)
    st = bs__buf_puts(b, ",max_rss_kib");
  if (!st && c->look)
    st = bs__buf_puts(b, ",look");
  if (!st && c->tries)
    st = bs__buf_puts(b, ",tries");
  for (size_t k = 0; !st && c->extra && c->extra[k]; k++)
    st = bs__buf_printf(b, ",%s", c->extra[k]);
  return st ? st : bs__buf_putc(b, '\n');
}

bs_status bs__run_log_row(bs__buf *b, const bs__run_row *w,
                          const bs__run_cols *c) {
  bs_status st = put_field(b, w->benchmark);
  if (!st)
    st = bs__buf_putc(b, ',');
  if (!st)
    st = put_field(b, w->dataset);
  if (!st)
    st = w->scale > 0 ? bs__buf_printf(b, ",%.17g,", w->scale)
                      : bs__buf_puts(b, ",,");
  if (!st)
    st = put_field(b, w->impl);
  if (!st && w->block < 0)
    st = bs__buf_printf(b, ",%llu,,calibration,%llu,%.17g",
                        (unsigned long long)w->run,
                        (unsigned long long)w->iterations, w->per_call_us);
  else if (!st)
    st = bs__buf_printf(b, ",%llu,%lld,confirm,%llu,%.17g",
                        (unsigned long long)w->run, w->block,
                        (unsigned long long)w->iterations, w->per_call_us);
  if (!st && c->cpu)
    st = w->cpu_per_call_us >= 0
             ? bs__buf_printf(b, ",%.17g", w->cpu_per_call_us)
             : bs__buf_putc(b, ',');
  if (!st && c->rss)
    st = w->has_rss
             ? bs__buf_printf(b, ",%llu", (unsigned long long)w->max_rss_kib)
             : bs__buf_putc(b, ',');
  if (!st && c->look)
    st = bs__buf_printf(b, ",%u", w->look);
  if (!st && c->tries)
    st = w->tries ? bs__buf_printf(b, ",%u", w->tries) : bs__buf_putc(b, ',');
  for (size_t k = 0; !st && c->extra && c->extra[k]; k++)
    st = w->extra && isfinite(w->extra[k])
             ? bs__buf_printf(b, ",%.17g", w->extra[k])
             : bs__buf_putc(b, ',');
  return st ? st : bs__buf_putc(b, '\n');
}

void bs__filter_parse(bs__filter *f, const char *s) {
  memset(f, 0, sizeof *f);
  f->text = s ? s : "";
  f->len = strlen(f->text);
  if (f->len && f->text[0] == '^') {
    f->start = 1;
    f->text++;
    f->len--;
  }
  if (f->len && f->text[f->len - 1] == '$') {
    f->end = 1;
    f->len--;
  }
}

int bs__filter_match(const bs__filter *f, const char *b, size_t bl,
                     const char *d, size_t dl) {
  if (!f || (!f->len && !f->start && !f->end))
    return 1;
  /* The name as one string: "benchmark/dataset" or "benchmark". */
  size_t n = bl + (dl ? dl + 1 : 0);
  char *name = malloc(n + 1);
  if (!name)
    return 0;
  memcpy(name, b, bl);
  if (dl) {
    name[bl] = '/';
    memcpy(name + bl + 1, d, dl);
  }
  name[n] = '\0';
  int m;
  if (f->len > n)
    m = 0;
  else if (f->start && f->end)
    m = n == f->len && !memcmp(name, f->text, n);
  else if (f->start)
    m = !memcmp(name, f->text, f->len);
  else if (f->end)
    m = !memcmp(name + n - f->len, f->text, f->len);
  else {
    /* a substring: the literal without its NUL */
    m = 0;
    for (size_t i = 0; !m && i + f->len <= n; i++)
      m = !memcmp(name + i, f->text, f->len);
  }
  free(name);
  return m;
}

const char *bs__run_wait_text(char *out, size_t n, int st) {
  if (WIFEXITED(st))
    snprintf(out, n, "exited with status %d", WEXITSTATUS(st));
  else if (WIFSIGNALED(st))
    snprintf(out, n, "was killed by signal %d (%s)", WTERMSIG(st),
             strsignal(WTERMSIG(st)));
  else
    snprintf(out, n, "stopped (wait status %d)", st);
  return out;
}

const char *bs__run_basename(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

double bs__run_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
