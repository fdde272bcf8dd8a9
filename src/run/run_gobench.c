/* benchsite: the `go test -bench` adapter of `benchsite run` (a row of the
 * harness table, run_harness.h). Each block runs the command once -- `go
 * test ...` or a compiled test binary -- with -run=^$ (unless the user
 * gave -run), -bench=REGEX (unless the user gave -bench: theirs is kept
 * as written), -count=1 and -benchmem (as -test.run=^$ and so on for a
 * binary), placed after the user's words but before go test's -args or a
 * binary's "--"; every result line of its output is one row:
 *
 *   pkg: example.com/sum
 *   BenchmarkSum/n=1024-8   1000000   1052 ns/op   0 B/op   0 allocs/op
 *
 * benchmark = the package's import path, as go prints it on the pkg: line
 * before the results, a '.' and the name up to the first '/'
 * ("example.com/sum.BenchmarkSum", as go names the function; the name
 * alone when no pkg: line came), dataset = the rest ("n=1024"),
 * iterations = the count, per_call_us = ns/op / 1000; B/op and allocs/op
 * go to the extra columns bytes_per_op and allocs_per_op, and every other
 * "VALUE UNIT" pair (b.ReportMetric's, MB/s) is passed over unread. So
 * `go test ./...` with a BenchmarkSort in two packages has two cases. The
 * "-8" go adds for GOMAXPROCS 8 is taken off the names when every result
 * line of the report ends in the same "-N" (a report whose names do not
 * all end in one -N keeps them whole), and N goes to the column procs (1
 * when there is no suffix): a case is then the same case on machines with
 * other CPU counts. It reports no CPU time. A report must end with go's
 * PASS line after its last result: without it, it is truncated. */
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

/* The user's own flags (go's flag package takes -NAME and --NAME, with
 * =VALUE or the next word). */
static const char *const bench_flag[] = {"-bench", "--bench", "-test.bench",
                                         "--test.bench", NULL};
static const char *const run_flag[] = {"-run", "--run", "-test.run",
                                       "--test.run", NULL};
/* What ends the flags a block's own go after: go test's -args (what
 * follows goes to the test binary as it is), a binary's "--". */
static const char *const ends[] = {"-args", "--args", "--", NULL};

/* The benchmark function an anchored --filter names, or 0: the text up
 * to its first '/' when that is an identifier (a name with no package),
 * or, after a package's import path, the identifier that follows the
 * first ".Benchmark" (an import path with an element holding
 * ".Benchmark" would be misread). *at, *len: where it is in f->text. */
static int filter_func(const bs__filter *f, size_t *at, size_t *len) {
  if (!f || !f->start)
    return 0;
  const char *slash = memchr(f->text, '/', f->len);
  size_t top = slash ? (size_t)(slash - f->text) : f->len;
  if (ident(f->text, top)) {
    *at = 0;
    *len = top;
    return 1;
  }
  for (size_t i = 0; i + 10 <= f->len; i++) {
    if (memcmp(f->text + i, ".Benchmark", 10))
      continue;
    size_t j = i + 1;
    while (j < f->len && f->text[j] != '/')
      j++;
    *at = i + 1;
    *len = j - *at;
    return ident(f->text + *at, *len);
  }
  return 0;
}

/* -bench is a regular expression per level of the name, split at '/',
 * each unanchored: only a --filter anchored at the start names the
 * top-level benchmark (the function), so only then is a narrower
 * expression a superset of what --filter selects; otherwise every
 * benchmark runs and benchsite picks. go keeps the last -bench it is
 * given: one of the user's is never followed by the adapter's. */
static bs_status args(bs__argv *av, const bs__hblock *b) {
  const char *prog = b->words[0], *base = strrchr(prog, '/');
  const char *p = !strcmp(base ? base + 1 : prog, "go") ? "-" : "-test.";
  const bs__filter *f = b->filter;
  const char *mine;
  size_t at = bs__words_end(b->words, ends), n = at;
  while (b->words[n])
    n++;
  bs_status st = bs__argv_add_words(av, b->words, 0, at);
  if (!st && !bs__words_flag(b->words, n, run_flag, 1, 0, &mine))
    st = bs__argv_addf(av, "%srun=^$", p);
  if (!st && !bs__words_flag(b->words, n, bench_flag, 1, 0, &mine)) {
    size_t from, len;
    if (filter_func(f, &from, &len))
      st = bs__argv_addf(av, "%sbench=^%.*s%s", p, (int)len, f->text + from,
                         from + len < f->len || f->end ? "$" : "");
    else
      st = bs__argv_addf(av, "%sbench=.", p);
  }
  if (!st)
    st = bs__argv_addf(av, "%scount=1", p);
  if (!st)
    st = bs__argv_addf(av, "%sbenchmem", p);
  if (!st)
    st = bs__argv_add_words(av, b->words, at, n);
  return st;
}

/* A result line, its fields pointing into the report. */
typedef struct result {
  const char *pkg; /* the import path of the last pkg: line, or NULL */
  size_t plen;
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
 * -1 for a line that is not one (no ns/op among them). Only the units
 * benchsite keeps are read: any other pair (b.ReportMetric's, which may
 * be negative or NaN) is passed over. */
static int values(const char **f, const size_t *fl, size_t k, size_t from,
                  result *r) {
  r->ns = r->bytes = r->allocs = NAN;
  if (k < from + 2 || (k - from) % 2)
    return -1;
  for (size_t i = from; i + 1 < k; i += 2) {
    double *slot = is(f[i + 1], fl[i + 1], "ns/op")       ? &r->ns
                   : is(f[i + 1], fl[i + 1], "B/op")      ? &r->bytes
                   : is(f[i + 1], fl[i + 1], "allocs/op") ? &r->allocs
                                                          : NULL;
    double v;
    if (!slot)
      continue;
    if (bs__num_double(f[i], fl[i], &v) || !isfinite(v) || v < 0)
      return -1;
    *slot = v;
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
  size_t nr = 0, cap = 0, line = 0, plen = 0;
  const char *pkg = NULL;
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
    if (is(f[0], fl[0], "pkg:") && k == 2) {
      pkg = f[1];
      plen = fl[1];
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
    r.pkg = pkg;
    r.plen = plen;
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
  char *name = NULL; /* "PKG.BenchmarkX": the package's path kept */
  size_t namecap = 0;
  for (size_t i = 0; !st && i < nr; i++) {
    const result *r = &rs[i];
    size_t nl = r->nlen - (cut ? procs_suffix(r->name, r->nlen, &p) : 0);
    const char *slash = memchr(r->name, '/', nl);
    size_t top = slash ? (size_t)(slash - r->name) : nl;
    bs__hrow w;
    memset(&w, 0, sizeof w);
    w.benchmark = r->name;
    w.blen = top;
    if (r->pkg) {
      if (!name || r->plen + top + 1 > namecap) {
        char *nb = BS__GROW(name, namecap, r->plen + top + 1, 256);
        if (!nb) {
          st = bs__oom(err);
          break;
        }
        name = nb;
      }
      memcpy(name, r->pkg, r->plen);
      name[r->plen] = '.';
      memcpy(name + r->plen + 1, r->name, top);
      w.benchmark = name;
      w.blen = r->plen + 1 + top;
    }
    w.dataset = slash ? slash + 1 : "";
    w.dlen = slash ? nl - top - 1 : 0;
    w.iterations = r->n;
    w.per_call_us = r->ns / 1e3;
    w.cpu_per_call_us = -1;
    w.extra[0] = cut ? (double)procs : 1;
    w.extra[1] = r->bytes;
    w.extra[2] = r->allocs;
    st = sink->add(sink, i, &w, err);
  }
  free(name);
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
    "per block with -count 1 -benchmem; rows named PKG.BenchmarkX; ns/op is "
    "the time, B/op and allocs/op extra columns"};
