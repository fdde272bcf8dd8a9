/* A command for command mode's max_rss_kib: touches argv[1] MiB of memory
 * (every page written, so it is resident) and exits 0. */
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 1;
  volatile char *p = malloc(mib << 20);
  if (!p)
    return 1;
  for (size_t i = 0; i < mib << 20; i += 4096)
    p[i] = (char)i;
  return p[0] == 1;
}
