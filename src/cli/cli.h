/* Shared plumbing of the benchsite subcommands: option parsing, loading
 * inputs with file:line errors, atomic output. The CLI owns argv, stdout,
 * stderr and exit codes; it includes only public library headers. */
#ifndef BENCHSITE_CLI_H
#define BENCHSITE_CLI_H

#include "benchsite/benchsite.h"

#include "progress.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes: 0 ok, 1 gate failed, 2 bad input or usage, 3 internal/I-O,
 * 4 inconclusive cases under compare --fail-inconclusive. */
enum {
  CLI_OK = 0,
  CLI_REGRESSION = 1, /* also "findings" for check */
  CLI_BAD_INPUT = 2,
  CLI_FAILURE = 3,
  CLI_INCONCLUSIVE = 4
};

#define CLI_MAX_OPTS 40
#define CLI_MAX_VALUES 64

typedef struct cli_opt {
  const char *name; /* without the leading "--" */
  int takes_value;
  int repeatable;
} cli_opt;

typedef struct cli_args {
  const cli_opt *opts;
  size_t nopts;
  const char **positional; /* points into argv */
  size_t npos;
  /* The values of option k, values[k][0..nvalues[k]-1] (room for
   * CLI_MAX_VALUES, malloc'd when its first value is seen; NULL before):
   * on the heap, so that a command's stack holds no 20 KiB table, each
   * page of which the process would fault in. */
  const char **values[CLI_MAX_OPTS];
  size_t nvalues[CLI_MAX_OPTS];
  int help;
} cli_args;

/* Parses argv[1..] of a subcommand (argv[0] is its name). Accepts
 * `--name value`, `--name=value`, `--` and -h/--help. Prints a usage error
 * to stderr and returns CLI_BAD_INPUT on unknown or repeated options or a
 * missing value; 0 otherwise (args->help set for -h/--help). Free with
 * cli_args_free. */
int cli_parse(int argc, char **argv, const cli_opt *opts, size_t nopts,
              cli_args *args);
void cli_args_free(cli_args *args);
/* The start of every subcommand: cli_parse, then for -h/--help prints
 * `usage` on stdout. Returns cli_parse's result; the command is done
 * when that is non-zero or args->help is set. */
int cli_start(int argc, char **argv, const cli_opt *opts, size_t nopts,
              const char *usage, cli_args *args);
/* The end of every subcommand: frees args and flushes stdout. Returns
 * rc, or CLI_FAILURE when rc is CLI_OK and stdout could not be written. */
int cli_finish(cli_args *args, int rc);
/* The (last) value of option `name`, or NULL when absent. */
const char *cli_get(const cli_args *args, const char *name);
/* Whether a value-less flag was given. */
int cli_flag(const cli_args *args, const char *name);
/* All values of a repeatable option. */
size_t cli_getall(const cli_args *args, const char *name,
                  const char *const **values);

/* Every line the CLI prints that quotes untrusted text (names, paths,
 * manifest values, archive contents) goes through these, which escape it
 * with bs_text_escape: it cannot add a line, an escape sequence or a CI
 * workflow command. */
/* Writes the formatted text and a newline to f, escaped; `flags` as
 * bs_text_escape (BS_TEXT_LINE_START when the text begins the line). */
void cli_linef(FILE *f, int flags, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* "benchsite: " + the formatted message, escaped, on stderr. */
void cli_errorf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Writes `text` (our own words: no escaping) to f word-wrapped, and a
 * newline: the caller has written `col` columns of the first line; the
 * others begin with `indent` spaces; a line holds at most `width` columns
 * unless one word is longer. For usage texts built from tables. */
void cli_fwrap(FILE *f, const char *text, size_t col, size_t indent,
               size_t width);

/* "benchsite: out of memory" on stderr; returns CLI_FAILURE (exit 3). */
int cli_out_of_memory(void);
/* "benchsite: " + message on stderr; returns CLI_BAD_INPUT. */
int cli_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Prints err on stderr as "benchsite: file:line: message" and returns the
 * exit code for its status (bad input, usage, mismatch, limits -> 2;
 * the rest -> 3). */
int cli_report(const bs_error *err);
/* The same, but I/O errors count as bad input (an unreadable input file). */
int cli_report_input(const bs_error *err);

/* Parses a non-negative integer option value (decimal, fits uint64). */
int cli_parse_u64(const char *opt, const char *s, unsigned long long *out);
/* When option `name` was given, parses its value as cli_parse_u64 into
 * *out; otherwise leaves *out alone. Returns 0 or an exit code after
 * printing the error. */
int cli_get_u64(const cli_args *args, const char *name, uint64_t *out);
/* Parses a finite number option value. */
int cli_parse_double(const char *opt, const char *s, double *out);
/* The --metric of `cmd` (wall, cpu or rss; wall when absent) into *out.
 * Returns 0 or an exit code after printing the error. */
int cli_get_metric(const cli_args *args, const char *cmd, bs_metric *out);
/* Without --metric, the metric run chose for the log's gate (the
 * manifest's gate_metric: cpu for command pairs) into *out; *out is left
 * alone when --metric is given or the manifest names none. 0, or 2 after
 * the message for a gate_metric that is not a metric. */
int cli_manifest_metric(const cli_args *args, const char *cmd,
                        const bs_manifest *env, bs_metric *out);

/* Reads every log (at least one required) into a new log. Returns 0 or an
 * exit code after printing the error. */
/* 0 when the loaded log has rows; else "FILE: no observation rows" on
 * stderr and CLI_BAD_INPUT (for commands that analyse rows). */
int cli_require_rows(const cli_args *a, const bs_log *log);
int cli_load_logs(const cli_args *args, bs_log **out);
/* Reads every --manifest into manifests[] (up to CLI_MAX_VALUES). */
int cli_load_manifests(const cli_args *args, bs_manifest **out, size_t *n);
void cli_free_manifests(bs_manifest **m, size_t n);
/* cli_load_manifests, then each manifest must describe a native run
 * (bs_manifest_require_native). Returns 0 or an exit code after printing
 * the error; the caller frees out[0..*n-1] in either case. */
int cli_load_native_manifests(const cli_args *args, bs_manifest **out,
                              size_t *n);

/* Output files, committed all or nothing: each is written to a temporary
 * name beside it, then all are renamed into place. */
typedef struct cli_output {
  const char *path;
  char *data; /* owned; freed by cli_outputs_commit */
  size_t len;
} cli_output;
/* Writes the outputs; on failure removes every temporary file, prints the
 * error and returns CLI_FAILURE. Frees the data in every case. */
int cli_outputs_commit(cli_output *outs, size_t n);
/* The same with one more step, for `--html`: once every temporary file is
 * written (the likely failures are behind us), `between(ctx)` runs; a
 * non-zero return (an exit code; it printed its error) removes the
 * temporary files and is returned, so none of the outputs appears. Only
 * then are the files renamed into place. n may be 0. */
int cli_outputs_commit_with(cli_output *outs, size_t n,
                            int (*between)(void *ctx), void *ctx);

/* ---- HTML reports: `report`, and `compare|noise|tune --html` ---------- */

#define CLI_PATH_MAX 4096

/* Whether `dir` holds the regular file `file`. */
int cli_is_dir_with(const char *dir, const char *file);

/* The data directory `sub` ("templates", "site") that holds the file
 * `probe`: the source tree's for a benchsite in its build tree, the
 * installed one otherwise (PREFIX/share/benchsite beside PREFIX/bin, then
 * the configured data directory). Returns buf (n bytes) or NULL. */
const char *cli_find_data_dir(const char *sub, const char *probe, char *buf,
                              size_t n);
/* Fills o->templates_dir (unless already set) and o->assets_dir with
 * cli_find_data_dir; tbuf and abuf (CLI_PATH_MAX bytes each) hold the
 * paths. Prints "benchsite: CMD: cannot find ..." and returns CLI_FAILURE
 * when one is missing. */
int cli_report_data_dirs(const char *cmd, bs_report_options *o, char *tbuf,
                         char *abuf);
/* bs_report_write of the analysis `an` into `dir`, with progress on
 * `prog` (the command's: counted charts and pages; NULL: a line on a
 * terminal only); SIGINT, SIGTERM and SIGHUP cancel the render, which
 * leaves an earlier report untouched. Sets o->progress. Prints any error
 * and returns 0 or an exit code (2 for bad input or a DIR that is not a
 * report, 3 for the rest: gnuplot, I/O, an interruption). `sum` may be
 * NULL. */
int cli_report_write(const char *cmd, cli_progress *prog, const bs_analysis *an,
                     const char *dir, bs_report_options *o,
                     bs_report_summary *sum);
/* The `--html DIR` of compare, noise and tune: the report of that
 * command's analysis (the one its other outputs render), written between the
 * temporary files of its other outputs and their renames
 * (cli_outputs_commit_with(outs, n, cli_html_step, &html)), so that a failed
 * report leaves none of them. */
typedef struct cli_html {
  const char *cmd;
  cli_progress *prog; /* the command's progress, or NULL */
  const char *dir;    /* NULL: no --html, cli_html_step does nothing */
  const bs_analysis *an;
  bs_report_options opts; /* templates, assets, progress */
  char *tbuf, *abuf;      /* CLI_PATH_MAX bytes each, with a dir */
} cli_html;
/* Zeroes h for `cmd` and --html `dir` (NULL: none) and, with a dir, finds
 * the templates and assets, so a broken installation fails before any
 * work. Returns 0 or an exit code after printing the error. */
int cli_html_init(cli_html *h, const char *cmd, const char *dir);
/* Frees what cli_html_init allocated; h is as zeroed. */
void cli_html_release(cli_html *h);
/* ctx is a cli_html: cli_report_write of its report; 0 without a dir. */
int cli_html_step(void *ctx);
/* Call last, after every cleanup: when a signal was caught (during
 * cli_report_write, or after cli_signals_catch), dies of it with the
 * default action (so the parent sees the signal); otherwise does
 * nothing. */
void cli_reraise_signal(void);

/* SIGINT, SIGTERM and SIGHUP caught for a long render, which checks
 * cli_interrupted() to cancel itself and leave earlier output untouched.
 * cli_signals_catch keeps the former actions in *old for
 * cli_signals_restore. */
typedef struct cli_signals {
  struct sigaction old_int, old_term, old_hup;
} cli_signals;
void cli_signals_catch(cli_signals *old);
void cli_signals_restore(const cli_signals *old);
/* Whether one of those signals arrived. */
int cli_interrupted(void);

/* The outputs of compare, noise and tune, rendered through the table of
 * views (benchsite/views.h) for `command`: each file format given (--json
 * F, --markdown F) and, with none, the stdout text; commits the files with
 * the --html report of `html` between their temporary copies and their
 * renames (cli_outputs_commit_with), so that they are all or nothing;
 * then prints the text, or with files the summary (unless a file is
 * standard output, "-", which must stay one document). `o`: the comment's
 * options (NULL: none). Returns 0 or an exit code after printing the
 * error. */
int cli_render_outputs(const cli_args *args, cli_html *html,
                       const char *command, const bs_markdown_options *o,
                       const bs_analysis *an);

/* What every command that reads logs holds, from start to exit. */
typedef struct cli_cmd {
  cli_args a;
  bs_log *log;                     /* cli_load_logs(&c->a, &c->log) */
  bs_manifest *mf[CLI_MAX_VALUES]; /* cli_load_*manifests(&c->a, c->mf, ..) */
  size_t nmf;
  bs_analysis *an; /* cli_cmd_analyse: what every output renders */
  cli_html html;   /* --html, for the commands that take it */
  /* Progress on stderr of the analysis and the report (--quiet, when the
   * command has it, silences it): counted cases, charts and pages. */
  cli_progress prog;
} cli_cmd;
/* Zeroes c, parses argv (printing `usage` for --help) and reads --html
 * with cli_html_init(.., name, ..). Returns 0 or an exit code; the caller
 * then stops when that is non-zero or c->a.help is set, and always ends
 * with cli_cmd_end. */
int cli_cmd_begin(cli_cmd *c, const char *name, int argc, char **argv,
                  const cli_opt *opts, size_t nopts, const char *usage);
/* bs_analyse of c's log and manifests with `o` into c->an, made once for
 * every output. Returns 0 or an exit code after printing the error. */
int cli_cmd_analyse(cli_cmd *c, const bs_analysis_options *o);
/* cli_render_outputs of c->an for the command c was begun as: the
 * --json/--markdown files or the text, and the --html report, all of the
 * one analysis. `o`: the comment's options (NULL: none). */
int cli_cmd_render(cli_cmd *c, const bs_markdown_options *o);
/* Frees what c holds, then cli_finish and cli_reraise_signal: the exit
 * status for `rc`. */
int cli_cmd_end(cli_cmd *c, int rc);

/* Subcommands. */
int cli_cmd_compare(int argc, char **argv);
int cli_cmd_tune(int argc, char **argv);
int cli_cmd_noise(int argc, char **argv);
int cli_cmd_check(int argc, char **argv);
int cli_cmd_report(int argc, char **argv);
int cli_cmd_archive(int argc, char **argv);
int cli_cmd_site(int argc, char **argv);

/* Implemented with `noise`: reads the noise floors of a `benchsite noise`
 * JSON file into *floors (free with bs_noise_floors_free), for
 * bs_analysis_options.noise_lookup, and refuses the file (exit 2, naming
 * the problem) when it is of another metric than `metric`, or when the
 * A/A run it records is not known to be comparable with `env`: either has
 * no manifest (env NULL or empty, or the file's environment empty) or
 * they differ on a comparability key. Returns 0 or an exit code after
 * printing the error. */
int cli_read_noise_file(const char *path, const bs_manifest *env,
                        bs_metric metric, bs_noise_floors **floors);
/* Reads a calibration (benchsite calibrate --json) into *out and refuses
 * one measured on a setup not comparable with `env` (the run's manifest).
 * A directory (an archive's calibrations/) gives the newest calibration
 * in it measured on env's setup; when none is, *out stays NULL and a
 * warning says why. Returns 0 or an exit code after printing the error
 * (2 for bad input). */
int cli_read_calibration(const char *path, const bs_manifest *env,
                         bs_calibration_summary **out);
/* Reads a calibration file into *out without checking its setup (the
 * site checks it against the archive's newest run). Returns 0 or an exit
 * code after printing the error (2 for bad input, with file and line). */
int cli_parse_calibration(const char *path, bs_calibration_summary **out);
/* Warns on stderr when cases of r got no floor from the file `path`. */
void cli_warn_missing_floors(const char *path, const bs_compare_result *r);

#endif
