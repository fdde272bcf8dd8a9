/* A main() for the fuzz targets without libFuzzer: runs the target once on
 * each file named (directories are walked one level), so the regression
 * inputs and seeds replay under any compiler, sanitizers or not, in CTest.
 * Exit 0 when every input ran; a failed property aborts. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return -1;
  }
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      cap *= 2;
      uint8_t *t = realloc(buf, cap);
      if (!t) {
        free(buf);
        buf = NULL;
      }
      buf = t;
    }
  }
  fclose(f);
  if (!buf)
    return -1;
  /* An exact-size copy, so ASan sees a read past the end. */
  uint8_t *exact = malloc(n ? n : 1);
  if (!exact) {
    free(buf);
    return -1;
  }
  memcpy(exact, buf, n);
  free(buf);
  LLVMFuzzerTestOneInput(exact, n);
  free(exact);
  return 0;
}

static int cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
  size_t files = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      /* An empty corpus directory is not kept in git. */
      printf("replay: %s does not exist, skipped\n", argv[i]);
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      if (run_file(argv[i]))
        return 2;
      files++;
      continue;
    }
    DIR *d = opendir(argv[i]);
    if (!d)
      return 2;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
      if (e->d_name[0] == '.')
        continue;
      if (n == cap) {
        cap = cap ? cap * 2 : 64;
        names = realloc(names, cap * sizeof *names);
        if (!names)
          return 2;
      }
      size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
      names[n] = malloc(len);
      if (!names[n])
        return 2;
      snprintf(names[n], len, "%s/%s", argv[i], e->d_name);
      n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp);
    for (size_t k = 0; k < n; k++) {
      struct stat fs;
      if (stat(names[k], &fs) == 0 && S_ISREG(fs.st_mode)) {
        if (run_file(names[k]))
          return 2;
        files++;
      }
      free(names[k]);
    }
    free(names);
  }
  printf("replayed %zu inputs\n", files);
  return 0;
}
