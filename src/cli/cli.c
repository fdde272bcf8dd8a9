/* realpath(3), an XSI function glibc shows with _DEFAULT_SOURCE. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE
#endif
#include "cli.h"
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int cli_out_of_memory(void) {
  fputs("benchsite: out of memory\n", stderr);
  return CLI_FAILURE;
}

/* Formats, escapes and prints one line: the prefix as it is, the text
 * escaped. Messages are short: past 8 KiB a line is cut (never inside an
 * escape or a character). */
static void put_escaped(FILE *f, const char *prefix, int flags, const char *fmt,
                        va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 0)))
#endif
    ;

static void put_escaped(FILE *f, const char *prefix, int flags, const char *fmt,
                        va_list ap) {
  char text[8192], safe[4 * sizeof text];
  vsnprintf(text, sizeof text, fmt, ap);
  bs_text_escape(safe, sizeof safe, text, flags);
  fprintf(f, "%s%s\n", prefix, safe);
}

void cli_fwrap(FILE *f, const char *text, size_t col, size_t indent,
               size_t width) {
  int empty = 1; /* nothing on this line yet */
  for (const char *p = text; *p;) {
    while (*p == ' ')
      p++;
    size_t n = strcspn(p, " ");
    if (!n)
      break;
    if (!empty && col + 1 + n > width) {
      fprintf(f, "\n%*s", (int)indent, "");
      col = indent;
      empty = 1;
    }
    if (!empty) {
      fputc(' ', f);
      col++;
    }
    fwrite(p, 1, n, f);
    col += n;
    empty = 0;
    p += n;
  }
  fputc('\n', f);
}

void cli_linef(FILE *f, int flags, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  put_escaped(f, "", flags, fmt, ap);
  va_end(ap);
}

void cli_errorf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  put_escaped(stderr, "benchsite: ", 0, fmt, ap);
  va_end(ap);
}

int cli_usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  put_escaped(stderr, "benchsite: ", 0, fmt, ap);
  va_end(ap);
  return CLI_BAD_INPUT;
}

static int find_opt(const cli_args *a, const char *name, size_t len) {
  for (size_t i = 0; i < a->nopts; i++) {
    if (strlen(a->opts[i].name) == len && !strncmp(a->opts[i].name, name, len))
      return (int)i;
  }
  return -1;
}

/* The options that name files or directories a command writes. */
static int is_output_opt(const char *name) {
  static const char *const outputs[] = {"out", "json", "markdown", "html",
                                        "manifest-out"};
  for (size_t i = 0; i < sizeof outputs / sizeof *outputs; i++)
    if (!strcmp(name, outputs[i]))
      return 1;
  return 0;
}

/* The options whose values are IMPL=COMMAND or IMPL=PATH: `run` checks
 * them itself (bs_run_overwrites_input), with the runner's own command
 * splitter and PATH search. */
static int is_command_opt(const char *name) {
  if (!strcmp(name, "cmd") || !strcmp(name, "lib"))
    return 1;
  bs_run_harness h;
  for (size_t i = 0; bs_run_harness_get(i, &h); i++)
    if (!strcmp(name, h.name))
      return 1;
  return 0;
}

/* The real path of `p`, or of its parent with the last component joined
 * when `p` does not exist; malloc'd, or NULL. */
static char *canon(const char *p) {
  char *r = realpath(p, NULL);
  if (r || errno != ENOENT)
    return r;
  const char *slash = strrchr(p, '/');
  char *parent =
      slash ? strndup(p, slash == p ? 1 : (size_t)(slash - p)) : strdup(".");
  const char *base = slash ? slash + 1 : p;
  char *rp = parent ? realpath(parent, NULL) : NULL;
  char *out = NULL;
  if (rp && *base) {
    size_t n = strlen(rp) + strlen(base) + 2;
    if ((out = malloc(n)))
      snprintf(out, n, "%s/%s", strcmp(rp, "/") ? rp : "", base);
  }
  free(parent);
  free(rp);
  return out;
}

/* Whether real path `in` is `dir` or lies below it. */
static int within(const char *in, const char *dir) {
  size_t n = strlen(dir);
  return !strncmp(in, dir, n) && (in[n] == '\0' || in[n] == '/');
}

/* One check of output `out` (real path `co`, an existing directory when
 * `isdir`) against the input word `in`: 1 when `in` is a regular file
 * that writing `out` would replace or delete. (Directories given as
 * inputs, such as an archive, have their own checks.) */
static int clashes(const char *co, int isdir, const char *in) {
  struct stat si;
  if (stat(in, &si) != 0 || !S_ISREG(si.st_mode))
    return 0;
  char *ci = realpath(in, NULL);
  int bad = ci && (!strcmp(ci, co) || (isdir && within(ci, co)));
  free(ci);
  return bad;
}

/* Refuses, before anything is read or measured, outputs that would
 * destroy an input: an output that is one of the command's input files
 * (links resolved), a replaced output directory that holds an input, and
 * two outputs naming the same path. */
static int outputs_apart(const char *cmd, const cli_args *a) {
  int rc = 0;
  for (size_t k = 0; k < a->nopts && !rc; k++) {
    if (!is_output_opt(a->opts[k].name))
      continue;
    for (size_t v = 0; v < a->nvalues[k] && !rc; v++) {
      const char *out = a->values[k][v];
      if (!strcmp(out, "-"))
        continue;
      char *co = canon(out);
      if (!co)
        continue; /* an unusable path fails where it is written */
      struct stat so;
      int isdir = stat(co, &so) == 0 && S_ISDIR(so.st_mode);
      /* Another output of the same path. */
      for (size_t k2 = k; k2 < a->nopts && !rc; k2++) {
        if (!is_output_opt(a->opts[k2].name))
          continue;
        for (size_t v2 = k2 == k ? v + 1 : 0; v2 < a->nvalues[k2] && !rc;
             v2++) {
          char *c2 = canon(a->values[k2][v2]);
          if (c2 && !strcmp(c2, co))
            rc = cli_usage_error("%s: --%s %s and --%s %s name the same "
                                 "path",
                                 cmd, a->opts[k].name, out, a->opts[k2].name,
                                 a->values[k2][v2]);
          free(c2);
        }
      }
      /* Every input word: positionals and other options' values. */
      for (size_t j = 0; j < a->nopts + 1 && !rc; j++) {
        if (j < a->nopts &&
            (is_output_opt(a->opts[j].name) || is_command_opt(a->opts[j].name)))
          continue;
        size_t nv = j < a->nopts ? a->nvalues[j] : a->npos;
        for (size_t w = 0; w < nv && !rc; w++) {
          const char *in = j < a->nopts ? a->values[j][w] : a->positional[w];
          if (in && clashes(co, isdir, in))
            rc = cli_usage_error("%s: --%s %s would destroy the input %s", cmd,
                                 a->opts[k].name, out, in);
        }
      }
      free(co);
    }
  }
  return rc;
}

int cli_parse(int argc, char **argv, const cli_opt *opts, size_t nopts,
              cli_args *a) {
  memset(a, 0, sizeof *a);
  a->opts = opts;
  if (nopts > CLI_MAX_OPTS) {
    /* A command's table outgrew the parser: its last options would be
     * "unknown" (as run's --set and --aa were). */
    cli_errorf("internal error: %s has %zu options, the parser holds %d",
               argv[0], nopts, CLI_MAX_OPTS);
    return CLI_FAILURE;
  }
  a->nopts = nopts;
  a->positional = calloc((size_t)(argc > 0 ? argc : 1), sizeof(char *));
  if (!a->positional)
    return cli_out_of_memory();
  int only_positional = 0;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (only_positional || arg[0] != '-' || !strcmp(arg, "-")) {
      a->positional[a->npos++] = arg;
      continue;
    }
    if (!strcmp(arg, "--")) {
      only_positional = 1;
      continue;
    }
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
      a->help = 1;
      continue;
    }
    if (arg[1] != '-')
      return cli_usage_error("%s: unknown option \"%s\" (see %s --help)",
                             argv[0], arg, argv[0]);
    const char *name = arg + 2;
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    int k = find_opt(a, name, len);
    if (k < 0)
      return cli_usage_error("%s: unknown option \"--%.*s\" (see %s --help)",
                             argv[0], (int)len, name, argv[0]);
    const cli_opt *o = &opts[k];
    const char *value = NULL;
    if (o->takes_value) {
      if (eq)
        value = eq + 1;
      else if (i + 1 < argc)
        value = argv[++i];
      else
        return cli_usage_error("%s: option --%s needs a value", argv[0],
                               o->name);
    } else if (eq) {
      return cli_usage_error("%s: option --%s takes no value", argv[0],
                             o->name);
    }
    if (a->nvalues[k] && !o->repeatable)
      return cli_usage_error("%s: option --%s given twice", argv[0], o->name);
    if (a->nvalues[k] >= CLI_MAX_VALUES)
      return cli_usage_error("%s: option --%s given too often", argv[0],
                             o->name);
    if (!a->values[k] &&
        !(a->values[k] = malloc(CLI_MAX_VALUES * sizeof *a->values[k])))
      return cli_out_of_memory();
    a->values[k][a->nvalues[k]++] = value ? value : "";
  }
  return outputs_apart(argv[0], a);
}

void cli_args_free(cli_args *a) {
  free(a->positional);
  a->positional = NULL;
  for (size_t k = 0; k < CLI_MAX_OPTS; k++) {
    free(a->values[k]);
    a->values[k] = NULL;
    a->nvalues[k] = 0;
  }
}

int cli_start(int argc, char **argv, const cli_opt *opts, size_t nopts,
              const char *usage, cli_args *a) {
  int rc = cli_parse(argc, argv, opts, nopts, a);
  if (!rc && a->help)
    fputs(usage, stdout);
  return rc;
}

int cli_finish(cli_args *a, int rc) {
  cli_args_free(a);
  if (fflush(stdout) != 0 && rc == CLI_OK)
    rc = CLI_FAILURE;
  return rc;
}

const char *cli_get(const cli_args *a, const char *name) {
  int k = find_opt(a, name, strlen(name));
  if (k < 0 || a->nvalues[k] == 0)
    return NULL;
  return a->values[k][a->nvalues[k] - 1];
}

int cli_flag(const cli_args *a, const char *name) {
  return cli_get(a, name) != NULL;
}

size_t cli_getall(const cli_args *a, const char *name,
                  const char *const **values) {
  int k = find_opt(a, name, strlen(name));
  if (k < 0) {
    *values = NULL;
    return 0;
  }
  *values = a->nvalues[k] ? a->values[k] : NULL;
  return a->nvalues[k];
}

static int exit_for(bs_status st, int io_is_input) {
  switch (st) {
  case BS_OK:
    return CLI_OK;
  case BS_EINPUT:
  case BS_EUSAGE:
  case BS_EMISMATCH:
  case BS_ELIMIT:
    return CLI_BAD_INPUT;
  case BS_EIO:
    return io_is_input ? CLI_BAD_INPUT : CLI_FAILURE;
  default:
    return CLI_FAILURE;
  }
}

int cli_report(const bs_error *err) {
  char msg[2048];
  bs_error_format(err, msg, sizeof msg);
  cli_errorf("%s", msg);
  return exit_for(err->status, 0);
}

int cli_report_input(const bs_error *err) {
  char msg[2048];
  bs_error_format(err, msg, sizeof msg);
  cli_errorf("%s", msg);
  return exit_for(err->status, 1);
}

int cli_parse_u64(const char *opt, const char *s, unsigned long long *out) {
  char *end = NULL;
  if (!*s || *s < '0' || *s > '9')
    return cli_usage_error("--%s: \"%s\" is not a non-negative integer", opt,
                           s);
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end || errno == ERANGE)
    return cli_usage_error("--%s: \"%s\" is not a non-negative integer", opt,
                           s);
  *out = v;
  return 0;
}

int cli_get_u64(const cli_args *a, const char *name, uint64_t *out) {
  const char *s = cli_get(a, name);
  unsigned long long v = 0;
  int rc;
  if (!s)
    return 0;
  if ((rc = cli_parse_u64(name, s, &v)))
    return rc;
  *out = (uint64_t)v;
  return 0;
}

int cli_parse_double(const char *opt, const char *s, double *out) {
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (!*s || *end || errno == ERANGE || !isfinite(v))
    return cli_usage_error("--%s: \"%s\" is not a number", opt, s);
  *out = v;
  return 0;
}

int cli_get_metric(const cli_args *a, const char *cmd, bs_metric *out) {
  const char *s = cli_get(a, "metric");
  bs_error err;
  bs_error_clear(&err);
  *out = BS_METRIC_WALL;
  if (s && bs_metric_parse(s, out, &err))
    return cli_usage_error("%s: --metric: %s", cmd, err.message);
  return 0;
}

int cli_manifest_metric(const cli_args *a, const char *cmd,
                        const bs_manifest *env, bs_metric *out) {
  const char *gm = bs_manifest_get(env, "gate_metric");
  bs_error err;
  bs_error_clear(&err);
  if (cli_get(a, "metric") || !gm)
    return 0;
  if (bs_metric_parse(gm, out, &err))
    return cli_usage_error("%s: the manifest's gate_metric: %s", cmd,
                           err.message);
  return 0;
}

int cli_load_logs(const cli_args *a, bs_log **out) {
  *out = NULL;
  if (a->npos == 0)
    return cli_usage_error("no observation log given");
  bs_log *log = bs_log_new();
  if (!log)
    return cli_out_of_memory();
  for (size_t i = 0; i < a->npos; i++) {
    bs_error err;
    bs_error_clear(&err);
    if (bs_log_read_file(log, a->positional[i], &err)) {
      bs_log_free(log);
      return cli_report_input(&err);
    }
  }
  *out = log;
  return 0;
}

int cli_require_rows(const cli_args *a, const bs_log *log) {
  if (bs_log_count(log) > 0)
    return 0;
  /* Say which file holds no rows instead of failing later on cases
   * nobody can locate. */
  if (a->npos == 1)
    return cli_usage_error("%s: no observation rows (only a header)",
                           a->positional[0]);
  return cli_usage_error("%s ... %s: no observation rows in any of the %zu "
                         "logs (only headers)",
                         a->positional[0], a->positional[a->npos - 1], a->npos);
}

int cli_load_manifests(const cli_args *a, bs_manifest **out, size_t *n) {
  const char *const *paths;
  size_t np = cli_getall(a, "manifest", &paths);
  *n = 0;
  for (size_t i = 0; i < np; i++) {
    bs_error err;
    bs_error_clear(&err);
    bs_manifest *m = bs_manifest_new();
    if (!m) {
      cli_free_manifests(out, *n);
      *n = 0;
      return cli_out_of_memory();
    }
    if (bs_manifest_read_file(m, paths[i], &err)) {
      bs_manifest_free(m);
      cli_free_manifests(out, *n);
      *n = 0;
      return cli_report_input(&err);
    }
    out[(*n)++] = m;
  }
  return 0;
}

void cli_free_manifests(bs_manifest **m, size_t n) {
  for (size_t i = 0; i < n; i++)
    bs_manifest_free(m[i]);
}

int cli_load_native_manifests(const cli_args *a, bs_manifest **out, size_t *n) {
  int rc = cli_load_manifests(a, out, n);
  for (size_t i = 0; !rc && i < *n; i++) {
    bs_error err;
    bs_error_clear(&err);
    if (bs_manifest_require_native(out[i], &err))
      rc = cli_report_input(&err);
  }
  return rc;
}

int cli_outputs_commit(cli_output *outs, size_t n) {
  return cli_outputs_commit_with(outs, n, NULL, NULL);
}

int cli_outputs_commit_with(cli_output *outs, size_t n,
                            int (*between)(void *ctx), void *ctx) {
  bs_error err;
  bs_error_clear(&err);
  int rc = CLI_OK;
  bs_output_files *f = bs_output_files_new();
  if (!f) {
    rc = cli_out_of_memory();
    goto done;
  }
  /* "-" is standard output, written directly once everything else is in
   * place; every other path goes through the atomic output. */
  for (size_t i = 0; i < n; i++) {
    if (strcmp(outs[i].path, "-") &&
        bs_output_files_add(f, outs[i].path, outs[i].data, outs[i].len, &err)) {
      rc = cli_report(&err);
      goto done;
    }
  }
  if (between && (rc = between(ctx)) != 0)
    goto done;
  if (bs_output_files_commit(f, &err)) {
    rc = cli_report(&err);
    goto done;
  }
  for (size_t i = 0; i < n; i++) {
    if (!strcmp(outs[i].path, "-") &&
        (fwrite(outs[i].data, 1, outs[i].len, stdout) != outs[i].len ||
         fflush(stdout) != 0)) {
      cli_errorf("standard output: cannot write: %s", strerror(errno));
      rc = CLI_FAILURE;
      goto done;
    }
  }
done:
  bs_output_files_free(f);
  for (size_t i = 0; i < n; i++) {
    free(outs[i].data);
    outs[i].data = NULL;
  }
  return rc;
}

/* ---- HTML reports -------------------------------------------------------- */

int cli_is_dir_with(const char *dir, const char *file) {
  char path[CLI_PATH_MAX];
  struct stat st;
  int n = snprintf(path, sizeof path, "%s/%s", dir, file);
  if (n < 0 || (size_t)n >= sizeof path)
    return 0;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The directory of the running executable into buf ("" when unknown). */
static void exe_dir(char *buf, size_t n) {
  buf[0] = '\0';
  if (n < 2)
    return;
  ssize_t k = readlink("/proc/self/exe", buf, n - 1);
  if (k <= 0 || (size_t)k >= n - 1) {
    buf[0] = '\0';
    return;
  }
  buf[k] = '\0';
  char *slash = strrchr(buf, '/');
  if (slash)
    *slash = '\0';
  else
    buf[0] = '\0';
}

static int try_dir(char *buf, size_t n, const char *a, const char *b,
                   const char *sub, const char *probe) {
  int k = snprintf(buf, n, "%s%s/%s", a, b, sub);
  return k > 0 && (size_t)k < n && cli_is_dir_with(buf, probe);
}

/* Where the data files (templates, site assets) are: the source tree's for
 * a binary still in its build tree (CMake leaves benchsite-build-tree
 * beside it there, never in an install); for an installed one,
 * PREFIX/share/benchsite beside its PREFIX/bin (so an install moved or
 * installed with --prefix finds its own files), then the configured
 * install directory. */
const char *cli_find_data_dir(const char *sub, const char *probe, char *buf,
                              size_t n) {
  char exe[CLI_PATH_MAX];
  exe_dir(exe, sizeof exe);
#ifdef BENCHSITE_SOURCE_DIR
  if (exe[0] && cli_is_dir_with(exe, "benchsite-build-tree") &&
      try_dir(buf, n, BENCHSITE_SOURCE_DIR, "", sub, probe))
    return buf;
#endif
  if (exe[0] && try_dir(buf, n, exe, "/../share/benchsite", sub, probe))
    return buf;
#ifdef BENCHSITE_DATADIR
  if (try_dir(buf, n, BENCHSITE_DATADIR, "", sub, probe))
    return buf;
#endif
  return NULL;
}

int cli_report_data_dirs(const char *cmd, bs_report_options *o, char *tbuf,
                         char *abuf) {
  if (!o->templates_dir &&
      !(o->templates_dir =
            cli_find_data_dir("templates", "index.html", tbuf, CLI_PATH_MAX))) {
    fprintf(stderr,
            "benchsite: %s: cannot find the page templates (index.html)%s\n",
            cmd, strcmp(cmd, "report") ? "" : "; give --templates DIR");
    return CLI_FAILURE;
  }
  if (!(o->assets_dir =
            cli_find_data_dir("site", "style.css", abuf, CLI_PATH_MAX))) {
    fprintf(stderr, "benchsite: %s: cannot find the site assets (style.css)\n",
            cmd);
    return CLI_FAILURE;
  }
  return 0;
}

static volatile sig_atomic_t got_signal;

static void on_signal(int sig) { got_signal = sig; }

void cli_signals_catch(cli_signals *old) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old->old_int);
  sigaction(SIGTERM, &sa, &old->old_term);
  sigaction(SIGHUP, &sa, &old->old_hup);
}

void cli_signals_restore(const cli_signals *old) {
  sigaction(SIGINT, &old->old_int, NULL);
  sigaction(SIGTERM, &old->old_term, NULL);
  sigaction(SIGHUP, &old->old_hup, NULL);
}

int cli_interrupted(void) { return got_signal != 0; }

/* The report's stages: charts and pages counted (a stage reported as 0
 * or 1 of 1 has no count of its own). */
typedef struct report_prog {
  cli_progress *p;
  const char *cmd;
} report_prog;

static int on_progress(void *ctx, const char *stage, size_t done,
                       size_t total) {
  const report_prog *rp = ctx;
  if (got_signal)
    return 1;
  if (!strcmp(stage, "charts"))
    cli_progress_count(rp->p, rp->cmd, "rendering charts", done, total);
  else if (!strcmp(stage, "pages") && total > 1)
    cli_progress_count(rp->p, rp->cmd, "writing pages", done, total);
  else
    cli_progress_show(rp->p, 1, "benchsite %s: %s", rp->cmd,
                      done ? "finishing" : "writing pages");
  return 0;
}

int cli_report_write(const char *cmd, cli_progress *prog, const bs_analysis *an,
                     const char *dir, bs_report_options *o,
                     bs_report_summary *sum) {
  cli_signals old;
  cli_progress own;
  bs_error err;
  bs_error_clear(&err);
  if (!prog) {
    cli_progress_init(&own, 0, 0); /* on a terminal only */
    prog = &own;
  }
  report_prog rp = {prog, cmd};
  /* An interrupt cancels the report through the progress hook, so the
   * temporary directory is removed and an earlier report stays. */
  cli_signals_catch(&old);
  o->progress = on_progress;
  o->progress_ctx = &rp;
  bs_status st = bs_report_write(an, dir, o, sum, &err);
  cli_signals_restore(&old);
  o->progress = NULL;
  o->progress_ctx = NULL;
  cli_progress_end(prog);
  /* A signal after the report was complete does not undo it: the caller
   * finishes (so its outputs stay all or nothing) and then dies of it in
   * cli_reraise_signal. */
  if (st && got_signal) {
    fprintf(stderr,
            "benchsite: %s: interrupted; nothing was written (an earlier "
            "report is unchanged)\n",
            cmd);
    return CLI_FAILURE;
  }
  if (st)
    return cli_report(&err);
  return 0;
}

int cli_html_init(cli_html *h, const char *cmd, const char *dir) {
  memset(h, 0, sizeof *h);
  h->cmd = cmd;
  bs_report_options_init(&h->opts);
  if (!dir)
    return 0;
  if (!dir[0])
    return cli_usage_error("%s: --html needs a directory", cmd);
  h->dir = dir;
  h->tbuf = malloc(CLI_PATH_MAX);
  h->abuf = malloc(CLI_PATH_MAX);
  if (!h->tbuf || !h->abuf)
    return cli_out_of_memory();
  return cli_report_data_dirs(cmd, &h->opts, h->tbuf, h->abuf);
}

void cli_html_release(cli_html *h) {
  free(h->tbuf);
  free(h->abuf);
  h->tbuf = h->abuf = NULL;
}

int cli_html_step(void *ctx) {
  cli_html *h = ctx;
  if (!h->dir)
    return 0;
  return cli_report_write(h->cmd, h->prog, h->an, h->dir, &h->opts, NULL);
}

int cli_cmd_begin(cli_cmd *c, const char *name, int argc, char **argv,
                  const cli_opt *opts, size_t nopts, const char *usage) {
  memset(c, 0, sizeof *c);
  int rc = cli_start(argc, argv, opts, nopts, usage, &c->a);
  if (rc || c->a.help)
    return rc;
  /* Long work says so (SPEC: progress): on a terminal one line in place,
   * in a CI log a line at most every 10 s. */
  cli_progress_init(&c->prog, cli_flag(&c->a, "quiet"), 10.0);
  rc = cli_html_init(&c->html, name, cli_get(&c->a, "html"));
  c->html.prog = &c->prog;
  return rc;
}

/* The analysis's stages, counted: cases compared, A/A cases validated. */
static int on_analysis(void *ctx, const char *stage, size_t done,
                       size_t total) {
  cli_cmd *c = ctx;
  if (got_signal)
    return 1;
  cli_progress_count(&c->prog, c->html.cmd,
                     !strcmp(stage, "aa") ? "A/A validation, cases"
                                          : "comparing cases",
                     done, total);
  return 0;
}

int cli_cmd_analyse(cli_cmd *c, const bs_analysis_options *o) {
  bs_error err;
  bs_error_clear(&err);
  bs_analysis_options ao = *o;
  ao.progress = on_analysis;
  ao.progress_ctx = c;
  /* An interrupt stops the analysis through the hook; the command then
   * dies of the signal (cli_cmd_end). */
  cli_signals old;
  cli_signals_catch(&old);
  bs_status st = bs_analyse(c->log, (const bs_manifest *const *)c->mf, c->nmf,
                            &ao, &c->an, &err);
  cli_signals_restore(&old);
  cli_progress_end(&c->prog);
  if (got_signal) {
    fprintf(stderr, "benchsite: %s: interrupted; nothing was written\n",
            c->html.cmd);
    return CLI_FAILURE;
  }
  return st ? cli_report(&err) : 0;
}

int cli_cmd_render(cli_cmd *c, const bs_markdown_options *o) {
  c->html.an = c->an;
  return cli_render_outputs(&c->a, &c->html, c->html.cmd, o, c->an);
}

int cli_cmd_end(cli_cmd *c, int rc) {
  bs_analysis_free(c->an);
  c->an = NULL;
  bs_log_free(c->log);
  c->log = NULL;
  cli_free_manifests(c->mf, c->nmf);
  c->nmf = 0;
  cli_html_release(&c->html);
  rc = cli_finish(&c->a, rc);
  cli_reraise_signal();
  return rc;
}

void cli_reraise_signal(void) {
  if (got_signal) {
    int sig = (int)got_signal;
    fflush(stdout);
    signal(sig, SIG_DFL);
    raise(sig);
  }
}

/* The view of `command` in format f, rendered (the table has every
 * command of cli_render_outputs in every format). */
static bs_status render(const char *command, bs_view_format f,
                        const bs_markdown_options *o, const bs_analysis *an,
                        char **out, size_t *len, bs_error *err) {
  *out = NULL;
  *len = 0;
  const bs_view *v = bs_view_find(command, f);
  if (!v)
    return bs_error_set(err, BS_EINTERNAL, NULL, 0, "%s: no %s view", command,
                        bs_view_format_name(f));
  const bs_manifest *env = an->nmanifests ? an->manifests[0] : NULL;
  return v->render(an, env, o, out, len, err);
}

int cli_render_outputs(const cli_args *a, cli_html *html, const char *command,
                       const bs_markdown_options *o, const bs_analysis *an) {
  cli_output outs[BS_VIEW_FORMATS];
  size_t nouts = 0;
  char *text = NULL;
  size_t text_len = 0;
  bs_error err;
  bs_error_clear(&err);
  int rc = 0;
  for (int i = 0; i < BS_VIEW_FORMATS; i++) {
    bs_view_format f = (bs_view_format)i;
    const char *path =
        bs_view_format_is_file(f) ? cli_get(a, bs_view_format_name(f)) : NULL;
    if (!path)
      continue;
    outs[nouts].path = path;
    if (render(command, f, o, an, &outs[nouts].data, &outs[nouts].len, &err)) {
      rc = cli_report(&err);
      goto done;
    }
    nouts++;
  }
  int to_stdout = 0;
  for (size_t i = 0; i < nouts; i++)
    to_stdout |= !strcmp(outs[i].path, "-");
  /* With files, stdout still gets the one-line summary, so that a CI log
   * is never empty; not when a file is stdout itself. */
  if ((!nouts || !to_stdout) &&
      render(command, nouts ? BS_VIEW_SUMMARY : BS_VIEW_TEXT, o, an, &text,
             &text_len, &err)) {
    rc = cli_report(&err);
    goto done;
  }
  rc = cli_outputs_commit_with(outs, nouts, cli_html_step, html);
  nouts = 0;
  if (!rc && text)
    fwrite(text, 1, text_len, stdout);
  /* The runner's calibration (compare --calibration), after the text. */
  if (!rc && text && o && o->footer_note)
    printf("%s\n", o->footer_note);
done:
  for (size_t i = 0; i < nouts; i++)
    free(outs[i].data);
  free(text);
  return rc;
}
