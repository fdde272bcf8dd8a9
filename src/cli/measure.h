/* What `benchsite run` and `benchsite manifest` share: the manifest
 * options and the writing of their outputs. */
#ifndef BENCHSITE_CLI_MEASURE_H
#define BENCHSITE_CLI_MEASURE_H

#include "cli.h"

#include "benchsite/run.h"

/* The manifest options both commands take (cli_opt entries). */
#define CLI_MANIFEST_OPTS                                                      \
  {"commit", 1, 0}, {"baseline-commit", 1, 0}, {"profile", 1, 0},              \
      {"dtype", 1, 0}, {"target", 1, 0}, {"baseline", 1, 0},                   \
      {"candidate", 1, 0}, {"aa", 1, 0}, {                                     \
    "set", 1, 1                                                                \
  }

/* What `run` knows for its manifest (NULL: not known). */
typedef struct cli_manifest_fill {
  const char *protocol;
  const char *baseline, *candidate;
  const char *aa_a, *aa_b;
  const char *harness;
  const char *batch_rule;  /* "least-of-three" */
  const char *fresh;       /* "run" or "block" */
  const char *duet;        /* "1" */
  const char *layout;      /* "random" or "fixed" */
  const char *layout_seed; /* the seed of the layout draws */
  const char *duet_swap;   /* "half-batch": the CPUs swap within a block */
  const char *gate_metric; /* the metric compare gates on without --metric */
  const char *max_runs;    /* adaptive runs: the most runs */
} cli_manifest_fill;

/* Builds the manifest of this machine, `fill` and the options in a into
 * *out (malloc'd CSV). The options win over `fill`. Returns 0 or an exit
 * code after printing the error. */
int cli_manifest_render(const cli_args *a, const cli_manifest_fill *fill,
                        char **out, size_t *len);

/* Refuses (status 2) an output path that exists and is not a regular
 * file; "-" is standard output. Returns 0 or an exit code. */
int cli_measure_check_path(const char *opt, const char *path);
/* Writes the outputs all or nothing (a path "-" goes to stdout after the
 * files are in place). Frees the data. Returns 0 or an exit code. */
int cli_measure_write(cli_output *outs, size_t n);

int cli_cmd_run(int argc, char **argv);
int cli_cmd_manifest(int argc, char **argv);
int cli_cmd_bisect(int argc, char **argv);
int cli_cmd_calibrate(int argc, char **argv);

#endif
