/* benchsite archive: placeholder until the command lands (exit 3). */
#include "cli.h"

#include <stdio.h>

int cli_cmd_archive(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fputs("benchsite: archive: not implemented in this build\n", stderr);
  return CLI_FAILURE;
}
