/* benchsite: command-line entry point. */
#include "cli.h"
#include "measure.h"

#include <stdio.h>
#include <string.h>

/* The usage, around the entry of `run`, which names the harnesses of the
 * runner's table (bs_run_harness_get). */
static const char usage_head[] =
    "usage: benchsite COMMAND [ARGS]\n"
    "\n"
    "Paired benchmark statistics, a regression gate, A/A noise validation\n"
    "and static reports from CSV observation logs.\n"
    "\n"
    "commands:\n"
    "  compare  LOG... --baseline B --candidate C   paired verdicts and the\n"
    "           regression gate (exit 1 on a significant regression)\n"
    "  tune     LOG...             fastest implementation per case, "
    "crossovers\n"
    "  noise    LOG... --a A --b B A/A noise floor, drift, autocorrelation\n"
    "  check    LOG... [--manifest M]   lint logs: format, calibration, "
    "rotation\n"
    "  report   LOG... --manifest M --out DIR   static HTML report of one run\n"
    "  archive  add|verify|list --archive DIR ...  immutable run archive\n"
    "  site     --archive DIR --out DIR         static site of every run\n";
static const char usage_run[] =
    "  run      --out LOG --lib A=a.so --lib B=b.so   ";
static const char usage_tail[] =
    "  manifest [--out M]          the environment manifest of this machine\n"
    "  bisect   --good G --bad B --build CMD --lib PATH   which commit made\n"
    "           the cases slower (exit 1 when found, 4 when undecided)\n"
    "  calibrate --lib BASE=PATH   what the gate can see on this machine:\n"
    "           identical code flagged, planted slowdowns found\n"
    "\n"
    "Run 'benchsite COMMAND --help' for a command's options.\n"
    "Exit status: 0 success, 1 significant regression (compare) or findings\n"
    "(check) or a different result (run) or the culprit (bisect), 2 bad\n"
    "input or usage, 3 internal or I/O failure, 4 inconclusive cases\n"
    "(compare --fail-inconclusive) or an undecided range (bisect).\n";

static void usage(FILE *f) {
  fputs(usage_head, f);
  fputs(usage_run, f);
  char what[512];
  size_t at = (size_t)snprintf(what, sizeof what,
                               "measure builds, commands or harness programs");
  bs_run_harness h;
  for (size_t i = 0; bs_run_harness_get(i, &h) && at < sizeof what; i++)
    at += (size_t)snprintf(what + at, sizeof what - at, "%s%s", i ? ", " : " (",
                           h.title);
  if (at < sizeof what)
    snprintf(what + at, sizeof what - at, "%s, interleaved",
             bs_run_harness_get(0, &h) ? ")" : "");
  cli_fwrap(f, what, sizeof usage_run - 1, 11, 72);
  fputs(usage_tail, f);
}

typedef struct command {
  const char *name;
  int (*run)(int argc, char **argv);
} command;

static const command commands[] = {
    {"compare", cli_cmd_compare},     {"tune", cli_cmd_tune},
    {"noise", cli_cmd_noise},         {"check", cli_cmd_check},
    {"report", cli_cmd_report},       {"archive", cli_cmd_archive},
    {"site", cli_cmd_site},           {"run", cli_cmd_run},
    {"manifest", cli_cmd_manifest},   {"bisect", cli_cmd_bisect},
    {"calibrate", cli_cmd_calibrate},
};

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return CLI_BAD_INPUT;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
    if (argc > 2 && strcmp(cmd, "help") == 0) {
      for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (!strcmp(argv[2], commands[i].name)) {
          char help[] = "--help";
          char *args[] = {argv[2], help, NULL};
          return commands[i].run(2, args);
        }
      }
    }
    usage(stdout);
    return CLI_OK;
  }
  if (!strcmp(cmd, "--version")) {
    printf("benchsite %s\n", BENCHSITE_VERSION);
    return CLI_OK;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    if (!strcmp(cmd, commands[i].name))
      return commands[i].run(argc - 1, argv + 1);
  }
  fprintf(stderr, "benchsite: unknown command \"%s\"\n\n", cmd);
  usage(stderr);
  return CLI_BAD_INPUT;
}
