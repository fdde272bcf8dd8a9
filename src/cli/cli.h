/* Shared plumbing of the benchsite subcommands: option parsing, loading
 * inputs with file:line errors, atomic output. The CLI owns argv, stdout,
 * stderr and exit codes; it includes only public library headers. */
#ifndef BENCHSITE_CLI_H
#define BENCHSITE_CLI_H

#include "benchsite/benchsite.h"

#include <stddef.h>

/* Exit codes (SPEC §5). */
enum {
  CLI_OK = 0,
  CLI_REGRESSION = 1, /* also "findings" for check */
  CLI_BAD_INPUT = 2,
  CLI_FAILURE = 3
};

#define CLI_MAX_OPTS 24
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
  const char *values[CLI_MAX_OPTS][CLI_MAX_VALUES];
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
/* The (last) value of option `name`, or NULL when absent. */
const char *cli_get(const cli_args *args, const char *name);
/* Whether a value-less flag was given. */
int cli_flag(const cli_args *args, const char *name);
/* All values of a repeatable option. */
size_t cli_getall(const cli_args *args, const char *name,
                  const char *const **values);

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
/* Parses a finite number option value. */
int cli_parse_double(const char *opt, const char *s, double *out);

/* Reads every log (at least one required) into a new log. Returns 0 or an
 * exit code after printing the error. */
int cli_load_logs(const cli_args *args, bs_log **out);
/* Reads every --manifest into manifests[] (up to CLI_MAX_VALUES). */
int cli_load_manifests(const cli_args *args, bs_manifest **out, size_t *n);
void cli_free_manifests(bs_manifest **m, size_t n);

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

/* Subcommands. */
int cli_cmd_compare(int argc, char **argv);
int cli_cmd_tune(int argc, char **argv);
int cli_cmd_noise(int argc, char **argv);
int cli_cmd_check(int argc, char **argv);
int cli_cmd_report(int argc, char **argv);
int cli_cmd_archive(int argc, char **argv);
int cli_cmd_site(int argc, char **argv);

/* Implemented with `noise`: reads a `benchsite noise` JSON file and marks
 * the cases of r that lie within their paired noise floor. Returns 0 or an
 * exit code after printing the error. */
int cli_apply_noise_file(const char *path, bs_compare_result *r);

#endif
