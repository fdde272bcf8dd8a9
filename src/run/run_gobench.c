/* benchsite: the `go test -bench` adapter of `benchsite run` (a row of the
 * harness table, run_harness.h). Each block runs the command once -- `go
 * test ...` or a compiled test binary -- with -run=^$ -bench=REGEX
 * -count=1 -benchmem (as -test.run=^$ and so on for a binary); every
 * result line of its output is one row:
 *
 *   BenchmarkSum/n=1024-8   1000000   1052 ns/op   0 B/op   0 allocs/op
 *
 * benchmark = the name up to the first '/' ("BenchmarkSum"), dataset =
 * the rest ("n=1024"), iterations = the count, per_call_us = ns/op / 1000;
 * B/op and allocs/op go to the extra columns bytes_per_op and
 * allocs_per_op. The "-8" go adds for GOMAXPROCS 8 is taken off the names
 * when every result line of the report ends in the same "-N" (a report
 * whose names do not all end in one -N keeps them whole), and N goes to
 * the column procs (1 when there is no suffix): a case is then the same
 * case on machines with other CPU counts. It reports no CPU time. A
 * report must end with go's PASS line: without it, it is truncated. */
#include "run_harness.h"

#include "grow.h"
#include "num.h"
#include "oom.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const extra[] = {"procs", "bytes_per_op", "allocs_per_op",
                                    NULL};

static int ident(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_'))
      return 0;
  }
  return n > 0;
}

/* -bench is a regular expression per level of the name, split at '/',
 * each unanchored: only a --filter anchored at the start names the
 * top-level benchmark (the function), so only then is a narrower
 * expression a superset of what --filter selects; otherwise every
 * benchmark runs and benchsite picks. */
static bs_status args(bs__argv *av, const bs__hblock *b) {
  const char *prog = b->words[0], *base = strrchr(prog, '/');
  const char *p = !strcmp(base ? base + 1 : prog, "go") ? "-" : "-test.";
  const bs__filter *f = b->filter;
  bs_status st = bs__argv_addf(av, "%srun=^$", p);
  if (st)
    return st;
  const char *slash = f ? memchr(f->text, '/', f->len) : NULL;
  size_t top = !f ? 0 : slash ? (size_t)(slash - f->text) : f->len;
  if (f && f->start && ident(f->text, top))
    st = bs__argv_addf(av, "%sbench=^%.*s%s", p, (int)top, f->text,
                       slash || f->end ? "$" : "");
  else
    st = bs__argv_addf(av, "%sbench=.", p);
  if (!st)
    st = bs__argv_addf(av, "%scount=1", p);
  if (!st)
    st = bs__argv_addf(av, "%sbenchmem", p);
  return st;
}

/* A result line, its fields pointing into the report. */
typedef struct result {
  const char *name;
  size_t nlen;
  uint64_t n;
  double ns, bytes, allocs;
  size_t line;
} result;

/* The blank-separated fields of s[0..n-1] into f (at most max): their
 * count. */
static size_t fields(const char *s, size_t n, const char **f, size_t *fl,
                     size_t max) {
  size_t k = 0, i = 0;
  while (i < n && k < max) {
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
      i++;
    if (i == n)
      break;
    size_t j = i;
    while (j < n && s[j] != ' ' && s[j] != '\t')
      j++;
    f[k] = s + i;
    fl[k++] = j - i;
    i = j;
  }
  return k;
}

static int is_digits(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] < '0' || s[i] > '9')
      return 0;
  return n > 0;
}

static int is(const char *s, size_t n, const char *word) {
  return strlen(word) == n && !memcmp(s, word, n);
}

/* The "VALUE UNIT" pairs of a result line, from field `from` on: 0, or
 * -1 for a line that is not one (no ns/op among them). */
static int values(const char **f, const size_t *fl, size_t k, size_t from,
                  result *r) {
  r->ns = r->bytes = r->allocs = NAN;
  if (k < from + 2 || (k - from) % 2)
    return -1;
  for (size_t i = from; i + 1 < k; i += 2) {
    double v;
    if (bs__num_double(f[i], fl[i], &v) || !isfinite(v) || v < 0)
      return -1;
    if (is(f[i + 1], fl[i + 1], "ns/op"))
      r->ns = v;
    else if (is(f[i + 1], fl[i + 1], "B/op"))
      r->bytes = v;
    else if (is(f[i + 1], fl[i + 1], "allocs/op"))
      r->allocs = v;
  }
  return isfinite(r->ns) && r->ns > 0 && isfinite(r->ns / 1e3) &&
                 r->ns / 1e3 > 0
             ? 0
             : -1;
}

/* The "-N" at the end of a name: its length with the '-' (0: none), N. */
static size_t procs_suffix(const char *s, size_t n, uint64_t *procs) {
  size_t i = n;
  while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
    i--;
  if (i == n || i < 2 || s[i - 1] != '-' || n - i > 9)
    return 0;
  if (bs__num_u64(s + i, n - i, procs) || *procs < 1)
    return 0;
  return n - i + 1;
}

static bs_status parse(const char *text, size_t len, bs__hsink *sink,
                       bs_error *err) {
  const char *ctx = sink->ctx;
  result *rs = NULL;
  size_t nr = 0, cap = 0, line = 0;
  int pass = 0;
  bs_status st = BS_OK;
  for (size_t at = 0; at < len && !st; line++) {
    const char *eol = memchr(text + at, '\n', len - at);
    size_t n = eol ? (size_t)(eol - (text + at)) : len - at;
    const char *s = text + at;
    at += n + 1;
    if (n && s[n - 1] == '\r')
      n--;
    const char *f[32];
    size_t fl[32];
    size_t k = fields(s, n, f, fl, 32);
    if (!k)
      continue;
    if (is(f[0], fl[0], "PASS")) {
      pass = 1;
      continue;
    }
    result r;
    memset(&r, 0, sizeof r);
    if (is_digits(f[0], fl[0]) && !values(f, fl, k, 1, &r))
      st = bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: line %zu is a result without its benchmark's "
                        "name (does a benchmark print to standard output?)",
                        ctx, line + 1);
    if (st || fl[0] < 9 || memcmp(f[0], "Benchmark", 9) || k < 2 ||
        !is_digits(f[1], fl[1]))
      continue; /* not a result line */
    pass = 0;   /* PASS comes after the results */
    if (values(f, fl, k, 2, &r) || bs__num_u64(f[1], fl[1], &r.n) || r.n < 1) {
      char esc[200], *ln = strndup(s, n);
      st = bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: line %zu is not a benchmark result line "
                        "(NAME ITERATIONS VALUE ns/op ...): \"%s\"",
                        ctx, line + 1,
                        bs__run_text(esc, sizeof esc, ln ? ln : ""));
      free(ln);
      break;
    }
    r.name = f[0];
    r.nlen = fl[0];
    r.line = line;
    if (nr == cap) {
      result *nb = BS__GROW(rs, cap, nr + 1, 64);
      if (!nb) {
        st = bs__oom(err);
        break;
      }
      rs = nb;
    }
    rs[nr++] = r;
  }
  if (!st && !pass)
    st = bs_error_set(err, BS_EINPUT, NULL, 0,
                      "%s: its output does not end with go's PASS line after "
                      "the results (truncated, or not a go test -bench "
                      "report?)",
                      ctx);
  /* One -N on every name, or none taken off. */
  uint64_t procs = 0, p;
  size_t cut = nr ? procs_suffix(rs[0].name, rs[0].nlen, &procs) : 0;
  for (size_t i = 1; !st && cut && i < nr; i++)
    if (procs_suffix(rs[i].name, rs[i].nlen, &p) == 0 || p != procs)
      cut = 0;
  for (size_t i = 0; !st && i < nr; i++) {
    const result *r = &rs[i];
    size_t nl = r->nlen - (cut ? procs_suffix(r->name, r->nlen, &p) : 0);
    const char *slash = memchr(r->name, '/', nl);
    bs__hrow w;
    memset(&w, 0, sizeof w);
    w.benchmark = r->name;
    w.blen = slash ? (size_t)(slash - r->name) : nl;
    w.dataset = slash ? slash + 1 : "";
    w.dlen = slash ? nl - w.blen - 1 : 0;
    w.iterations = r->n;
    w.per_call_us = r->ns / 1e3;
    w.cpu_per_call_us = -1;
    w.extra[0] = cut ? (double)procs : 1;
    w.extra[1] = r->bytes;
    w.extra[2] = r->allocs;
    st = sink->add(sink, i, &w, err);
  }
  free(rs);
  return st;
}

const bs__adapter bs__adapter_gobench = {
    BS_RUN_GO_BENCH,
    "go-bench",
    "go test -bench",
    0,
    0,
    extra,
    args,
    parse,
    "`go test -bench` or a compiled test binary (split as --cmd), run once "
    "per block with -count 1 -benchmem; ns/op is the time, B/op and "
    "allocs/op are kept as extra columns"};
