/* benchsite: `benchsite run --google-benchmark`. Google Benchmark sizes its
 * own batches, so each block runs each program once (in the rotated order)
 * and every benchmark entry of its JSON report becomes one confirm row;
 * there are no calibration rows. The JSON is read with jansson. */
#include "csvin.h"
#include "grow.h"
#include "run_common.h"
#include "run_int.h"
#include "spawn_proc.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define GB_OUTPUT_LIMIT ((size_t)256 << 20)

typedef struct gcase {
  char *benchmark, *dataset;
} gcase;

typedef struct grow {
  size_t kase, impl;
  uint64_t run, block, iterations;
  double per_call_us, cpu_per_call_us;
} grow;

typedef struct gb {
  const bs_run_options *o;
  bs_run_result *r;
  gcase *cases;
  size_t ncases, capcases;
  grow *rows;
  size_t nrows, caprows;
  size_t *seen;  /* per case: the (run, block, impl) serial that last had it */
  size_t *count; /* per case and impl (case * K + impl): its rows */
  bs__run_cases byname; /* case names -> index in cases */
} gb;

/* Runs argv with stdout captured (stdin and, unless show, stderr from/to
 * /dev/null) within timeout_s. Returns 0 with *out, or fills why. */
static int capture(char *const *argv, const bs_run_options *o, char **out,
                   size_t *len, char *why, size_t nwhy) {
  *out = NULL;
  *len = 0;
  bs__spawn_opts so;
  bs__spawn_opts_init(&so, (const char *const *)argv);
  so.io[1] = BS__IO_PIPE;
  so.io[2] = o->show_output ? BS__IO_INHERIT : BS__IO_NULL;
  bs__child ch;
  if (bs__spawn(&ch, &so, NULL)) {
    snprintf(why, nwhy, "cannot be started: %s", strerror(ch.error));
    return -1;
  }
  /* The pipe is read to its end even after the child is reaped. */
  int fd = ch.fd[1];
  ch.fd[1] = -1;
  size_t cap = 65536, used = 0;
  char *buf = malloc(cap);
  int timed_out = 0, too_big = 0, no_memory = buf == NULL, ended = 0;
  double ms = ceil(o->timeout_s * 1000.0);
  long long end = bs__now_ms() + (ms > 9e15 ? (long long)9e15 : (long long)ms);
  bs__child_end how;
  memset(&how, 0, sizeof how);
  /* Read to the end of its output, looking every 50 ms whether it has
   * exited: then it is reaped, and whatever it left running -- in its
   * process group or escaped from it (setsid), holding the pipe open --
   * is killed, so the end of the output comes. */
  while (!no_memory) {
    long long left = end - bs__now_ms();
    if (left <= 0) {
      timed_out = 1;
      break;
    }
    if (!ended && bs__child_exited(&ch)) {
      ended = 1;
      bs__child_wait(&ch, 0, &how);
    }
    struct pollfd pfd = {fd, POLLIN, 0};
    int pr = poll(&pfd, 1, left > 50 ? 50 : (int)left);
    if (pr < 0 && errno == EINTR)
      continue;
    if (pr <= 0)
      continue;
    if (cap - used < 2) {
      if (cap >= GB_OUTPUT_LIMIT) {
        too_big = 1;
        break;
      }
      char *nb = BS__GROW(buf, cap, cap + 1, 4096);
      if (!nb) {
        no_memory = 1;
        break;
      }
      buf = nb;
    }
    ssize_t r = read(fd, buf + used, cap - used - 1);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    used += (size_t)r;
  }
  close(fd);
  /* Its output has ended (or is given up): it still has until the
   * timeout to exit (a program that closes its output and hangs is one
   * that hangs). */
  if (!ended) {
    long long left = end - bs__now_ms();
    bs__child_wait(
        &ch, timed_out || too_big || no_memory || left < 0 ? 0 : left, &how);
    timed_out = timed_out || how.timed_out;
  }
  int st = how.status;
  if (no_memory) {
    free(buf);
    snprintf(why, nwhy, "out of memory");
    return -1;
  }
  if (timed_out || too_big) {
    free(buf);
    if (timed_out)
      snprintf(why, nwhy, "did not finish within %g s (--timeout); killed",
               o->timeout_s);
    else
      snprintf(why, nwhy, "wrote more than %zu MiB", GB_OUTPUT_LIMIT >> 20);
    return -1;
  }
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    free(buf);
    char t[128];
    snprintf(why, nwhy, "%s", bs__run_wait_text(t, sizeof t, st));
    return -1;
  }
  buf[used] = '\0';
  *out = buf;
  *len = used;
  return 0;
}

static bs_status add_case(gb *g, const char *name, size_t *idx) {
  const char *slash = strchr(name, '/');
  size_t bl = slash ? (size_t)(slash - name) : strlen(name);
  char *b = strndup(name, bl), *d = strdup(slash ? slash + 1 : "");
  if (!b || !d) {
    free(b);
    free(d);
    return BS_ENOMEM;
  }
  size_t f = 0;
  int added = bs__run_cases_put(&g->byname, b, bl, d, strlen(d), g->ncases, &f);
  if (added <= 0) {
    free(b);
    free(d);
    *idx = f;
    return added < 0 ? BS_ENOMEM : BS_OK;
  }
  if (g->ncases == g->capcases) {
    size_t k = g->o->nimpls;
    /* cases, seen and count (k per case) grow together */
    size_t cap = bs__grow_cap(g->capcases, g->ncases + 1, 16,
                              sizeof(gcase) + (k + 1) * sizeof(size_t));
    gcase *nc = cap ? realloc(g->cases, cap * sizeof *nc) : NULL;
    if (nc)
      g->cases = nc;
    size_t *ns = nc ? realloc(g->seen, cap * sizeof *ns) : NULL;
    if (ns)
      g->seen = ns;
    size_t *cn = ns ? realloc(g->count, cap * k * sizeof *cn) : NULL;
    if (!cn) {
      free(b);
      free(d);
      return BS_ENOMEM;
    }
    g->count = cn;
    g->capcases = cap;
  }
  memset(g->count + g->ncases * g->o->nimpls, 0,
         g->o->nimpls * sizeof *g->count);
  g->cases[g->ncases] = (gcase){b, d};
  g->seen[g->ncases] = (size_t)-1;
  *idx = g->ncases++;
  return BS_OK;
}

static double unit_us(const char *u) {
  if (!strcmp(u, "ns"))
    return 1e-3;
  if (!strcmp(u, "us"))
    return 1.0;
  if (!strcmp(u, "ms"))
    return 1e3;
  if (!strcmp(u, "s"))
    return 1e6;
  return 0;
}

/* One program's report: its iteration entries as rows. */
static bs_status parse(gb *g, const char *text, size_t len, size_t impl,
                       uint64_t run, uint64_t block, const char *ctx,
                       bs_error *err) {
  size_t blank = 0;
  while (blank < len && (text[blank] == ' ' || text[blank] == '\t' ||
                         text[blank] == '\r' || text[blank] == '\n'))
    blank++;
  if (blank == len)
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: the program printed no Google Benchmark report%s",
                        ctx,
                        g->o->filter && g->o->filter[0]
                            ? " (does --filter match none of its benchmarks?)"
                            : "");
  json_error_t je;
  json_t *root = json_loadb(text, len, 0, &je);
  bs_status st = BS_OK;
  char esc[200];
  if (!root)
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: cannot read its Google Benchmark JSON: line %d: "
                        "%s",
                        ctx, je.line, bs__run_text(esc, sizeof esc, je.text));
  json_t *list = json_object_get(root, "benchmarks");
  if (!json_is_array(list)) {
    json_decref(root);
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: its JSON has no \"benchmarks\" list (is it a "
                        "Google Benchmark program?)",
                        ctx);
  }
  size_t serial =
      ((size_t)run * (size_t)g->o->blocks + (size_t)block) * g->o->nimpls +
      impl;
  size_t i;
  json_t *e;
  json_array_foreach(list, i, e) {
    const char *type = json_string_value(json_object_get(e, "run_type"));
    const char *name = json_string_value(json_object_get(e, "name"));
    if (!type || strcmp(type, "iteration") != 0)
      continue;
    if (!name || !name[0] || name[0] == '/') {
      st = bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: benchmark entry %zu has no name", ctx, i);
      break;
    }
    size_t nl = strlen(name);
    const char *slash = strchr(name, '/');
    size_t bl = slash ? (size_t)(slash - name) : nl;
    /* Each of benchmark and dataset is one field of the log, which its
     * reader (and library mode) holds to BS__NAME_MAX bytes. */
    if (bl > BS__NAME_MAX || nl - bl > BS__NAME_MAX + 1) {
      st = bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: benchmark entry %zu: its name is over %d bytes",
                        ctx, i, BS__NAME_MAX);
      break;
    }
    if (bs__utf8_invalid_at((const unsigned char *)name, nl) != nl) {
      st = bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: benchmark entry %zu: its name is not valid UTF-8",
                        ctx, i);
      break;
    }
    if (json_is_true(json_object_get(e, "error_occurred"))) {
      const char *m = json_string_value(json_object_get(e, "error_message"));
      char me[200];
      st = bs_error_set(err, BS_EINPUT, NULL, 0, "%s: benchmark %s failed: %s",
                        ctx, bs__run_text(esc, sizeof esc, name),
                        bs__run_text(me, sizeof me, m ? m : "(no message)"));
      break;
    }
    json_t *it = json_object_get(e, "iterations");
    json_t *rt = json_object_get(e, "real_time");
    json_t *ct = json_object_get(e, "cpu_time");
    const char *unit = json_string_value(json_object_get(e, "time_unit"));
    double f = unit ? unit_us(unit) : 0;
    double t = json_number_value(rt), c = json_number_value(ct);
    /* real_time and cpu_time are per iteration, in time_unit. */
    if (!json_is_integer(it) || json_integer_value(it) < 1 ||
        !json_is_number(rt) || !json_is_number(ct) || !(f > 0) ||
        !isfinite(t) || !(t > 0) || !(t * f > 0) || !isfinite(t * f) ||
        !isfinite(c) || c < 0 || !isfinite(c * f)) {
      st = bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: benchmark %s: iterations, real_time, cpu_time "
                        "or time_unit missing or out of range",
                        ctx, bs__run_text(esc, sizeof esc, name));
      break;
    }
    size_t kase;
    if ((st = add_case(g, name, &kase))) {
      st = bs_error_set(err, st, NULL, 0, "out of memory");
      break;
    }
    if (g->seen[kase] == serial) {
      st = bs_error_set(err, BS_EINPUT, NULL, 0,
                        "%s: benchmark %s is reported twice", ctx,
                        bs__run_text(esc, sizeof esc, name));
      break;
    }
    g->seen[kase] = serial;
    g->count[kase * g->o->nimpls + impl]++;
    if (g->nrows == g->caprows) {
      grow *nr = BS__GROW(g->rows, g->caprows, g->nrows + 1, 256);
      if (!nr) {
        st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
        break;
      }
      g->rows = nr;
    }
    g->rows[g->nrows++] = (grow){
        kase, impl, run, block, (uint64_t)json_integer_value(it), t * f, c * f};
  }
  json_decref(root);
  return st;
}

bs_status bs__run_gbench(const bs_run_options *o, bs_run_result *r,
                         bs_error *err) {
  size_t k = o->nimpls;
  gb g;
  memset(&g, 0, sizeof g);
  bs__run_cases_init(&g.byname);
  g.o = o;
  g.r = r;
  bs_status st = BS_OK;
  char ***argvs = calloc(k, sizeof *argvs);
  char ***blocks = calloc(k, sizeof *blocks);
  char *filter_arg = NULL;
  bs__buf log;
  bs__buf_init(&log, BS__BUF_DEFAULT_LIMIT);
  if (!argvs || !blocks) {
    free(argvs);
    free(blocks);
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  }
  if (o->filter && o->filter[0]) {
    /* --filter is a substring and Google Benchmark's a regular expression
     * (searched in the name): the characters special in one are escaped,
     * so that both select the same names ("n=1.5" no "n=105", "f(x" no
     * regular expression error). */
    static const char special[] = ".[\\()*+?{|^$";
    size_t fl = strlen(o->filter);
    if (!(filter_arg = malloc(2 * fl + 32))) {
      st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
      goto done;
    }
    char *w = filter_arg + snprintf(filter_arg, 32, "--benchmark_filter=");
    for (const char *p = o->filter; *p; p++) {
      if (strchr(special, *p))
        *w++ = '\\';
      *w++ = *p;
    }
    *w = '\0';
  }
  for (size_t i = 0; i < k; i++) {
    char **words;
    size_t nw;
    char esc[128];
    if (bs_run_split_command(o->impls[i].target, &words, &nw, err)) {
      char why[sizeof err->message];
      snprintf(why, sizeof why, "%s", err->message);
      st = bs_error_set(err, BS_EUSAGE, NULL, 0, "impl %s: %s",
                        bs__run_text(esc, sizeof esc, o->impls[i].name), why);
      goto done;
    }
    /* Its words, then the flags benchsite needs (a flag given twice: the
     * last one wins in Google Benchmark). */
    if (!(argvs[i] = calloc(nw + 4, sizeof *argvs[i]))) {
      free(words);
      st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
      goto done;
    }
    blocks[i] = words;
    memcpy(argvs[i], words, nw * sizeof *words);
    static char fmt[] = "--benchmark_format=json";
    static char reps[] = "--benchmark_repetitions=1";
    argvs[i][nw] = fmt;
    argvs[i][nw + 1] = reps;
    argvs[i][nw + 2] = filter_arg;
    argvs[i][nw + 3] = NULL;
  }
  size_t off = (size_t)(o->seed % k);
  double total = (double)o->runs * (double)o->blocks * (double)k, done = 0;
  for (uint64_t run = 0; !st && run < o->runs; run++) {
    for (uint64_t j = 0; !st && j < o->blocks; j++) {
      /* Progress knows no case here: every program runs all of its. */
      bs_run_progress pr = {"", "",        0, 0,    run,  o->runs,
                            j,  o->blocks, 0, done, total};
      if (o->progress && o->progress(o->progress_ctx, &pr)) {
        st = bs_error_set(err, BS_EIO, NULL, 0,
                          "cancelled; nothing was written");
        break;
      }
      done += (double)k;
      for (size_t p = 0; !st && p < k; p++) {
        size_t i = (size_t)((j + off + p) % k);
        char ctx[300], esc[128], why[256];
        snprintf(ctx, sizeof ctx, "%s: block %llu of run %llu",
                 bs__run_text(esc, sizeof esc, o->impls[i].name),
                 (unsigned long long)j, (unsigned long long)run);
        char *out;
        size_t len;
        if (capture(argvs[i], o, &out, &len, why, sizeof why)) {
          st =
              bs_error_set(err, BS_EINPUT, NULL, 0,
                           "%s: the program %s; nothing was written", ctx, why);
          break;
        }
        st = parse(&g, out, len, i, run, j, ctx, err);
        free(out);
      }
    }
  }
  if (st)
    goto done;
  /* A case is kept when every impl reported it in every block. */
  size_t want = (size_t)(o->runs * o->blocks);
  int *keep = calloc(g.ncases ? g.ncases : 1, sizeof *keep);
  if (!keep) {
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto done;
  }
  for (size_t c = 0; !st && c < g.ncases; c++) {
    char label[300];
    keep[c] = 1;
    for (size_t i = 0; i < k; i++)
      if (g.count[c * k + i] != want)
        keep[c] = 0;
    if (keep[c])
      r->ncases++;
    else if (bs__run_warn(r,
                          "case %s: not reported by every impl in every "
                          "block; skipped",
                          bs__run_case_label(label, sizeof label,
                                             g.cases[c].benchmark,
                                             g.cases[c].dataset)))
      st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  }
  if (!st && r->ncases == 0)
    st = bs_error_set(err, BS_EINPUT, NULL, 0,
                      "no benchmark that every program reports%s",
                      o->filter ? " (given --filter)" : "");
  if (!st)
    st = bs__run_log_header(&log, 0);
  for (size_t n = 0; !st && n < g.nrows; n++) {
    const grow *w = &g.rows[n];
    if (!keep[w->kase])
      continue;
    bs__run_row row = {g.cases[w->kase].benchmark,
                       g.cases[w->kase].dataset,
                       0,
                       o->impls[w->impl].name,
                       w->run,
                       (long long)w->block,
                       w->iterations,
                       w->per_call_us,
                       w->cpu_per_call_us,
                       0,
                       0};
    st = bs__run_log_row(&log, &row, 0);
    if (!st)
      r->nrows++;
  }
  free(keep);
  if (st == BS_ENOMEM || st == BS_ELIMIT)
    st = bs_error_set(err, st, NULL, 0, "cannot build the log");
  if (!st)
    r->log = bs__buf_detach(&log, &r->log_len);
done:
  bs__buf_release(&log);
  for (size_t i = 0; i < k; i++) {
    free(blocks[i]);
    free(argvs[i]);
  }
  free(argvs);
  free(blocks);
  free(filter_arg);
  for (size_t c = 0; c < g.ncases; c++) {
    free(g.cases[c].benchmark);
    free(g.cases[c].dataset);
  }
  free(g.cases);
  bs__run_cases_release(&g.byname);
  free(g.count);
  free(g.seen);
  free(g.rows);
  if (st)
    r->nrows = 0;
  return st;
}
