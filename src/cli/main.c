/* benchsite: command-line entry point. */
#include "cli.h"
#include "measure.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
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
    "  site     --archive DIR --out DIR         static site of every run\n"
    "  run      --out LOG --lib A=a.so --lib B=b.so   measure builds,\n"
    "           commands or Google Benchmark programs, interleaved\n"
    "  manifest [--out M]          the environment manifest of this machine\n"
    "  bisect   --good G --bad B --build CMD --lib PATH   which commit made\n"
    "           the cases slower (exit 1 when found, 4 when undecided)\n"
    "\n"
    "Run 'benchsite COMMAND --help' for a command's options.\n"
    "Exit status: 0 success, 1 significant regression (compare) or findings\n"
    "(check) or a different result (run) or the culprit (bisect), 2 bad\n"
    "input or usage, 3 internal or I/O failure, 4 inconclusive cases\n"
    "(compare --fail-inconclusive) or an undecided range (bisect).\n";

typedef struct command {
  const char *name;
  int (*run)(int argc, char **argv);
} command;

static const command commands[] = {
    {"compare", cli_cmd_compare},   {"tune", cli_cmd_tune},
    {"noise", cli_cmd_noise},       {"check", cli_cmd_check},
    {"report", cli_cmd_report},     {"archive", cli_cmd_archive},
    {"site", cli_cmd_site},         {"run", cli_cmd_run},
    {"manifest", cli_cmd_manifest}, {"bisect", cli_cmd_bisect},
};

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage, stderr);
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
    fputs(usage, stdout);
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
  fprintf(stderr, "benchsite: unknown command \"%s\"\n\n%s", cmd, usage);
  return CLI_BAD_INPUT;
}
