/* Writes its arguments argv[2..], one per line, to the file argv[1]: what
 * tests/test_run.c checks command mode's splitting against. */
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  FILE *f = fopen(argv[1], "w");
  if (!f)
    return 2;
  for (int i = 2; i < argc; i++)
    fprintf(f, "%s\n", argv[i]);
  return fclose(f) ? 2 : 0;
}
