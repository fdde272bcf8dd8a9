#include "benchsite/output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bs_status bs_write_file_atomic(const char *path, const void *data, size_t len,
                               bs_error *err) {
  size_t n = strlen(path);
  char *tmp = malloc(n + 32);
  if (!tmp)
    return bs_error_set(err, BS_ENOMEM, path, 0, "out of memory");
  /* A fixed suffix plus the pid: unique among concurrent benchsite runs,
   * and O_EXCL refuses to follow or reuse anything already there. */
  snprintf(tmp, n + 32, "%s.%ld.tmp", path, (long)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    int e = errno;
    free(tmp);
    return bs_error_set(err, BS_EIO, path, 0, "cannot create file: %s",
                        strerror(e));
  }
  const char *p = data;
  size_t left = len;
  while (left > 0) {
    ssize_t w = write(fd, p, left);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      goto fail;
    }
    p += w;
    left -= (size_t)w;
  }
  if (fsync(fd) != 0)
    goto fail;
  if (close(fd) != 0) {
    fd = -1;
    goto fail;
  }
  fd = -1;
  if (rename(tmp, path) != 0)
    goto fail;
  free(tmp);
  return BS_OK;
fail : {
  int e = errno;
  if (fd >= 0)
    close(fd);
  unlink(tmp);
  free(tmp);
  return bs_error_set(err, BS_EIO, path, 0, "cannot write file: %s",
                      strerror(e));
}
}

bs_status bs_read_file(const char *path, size_t limit, char **data, size_t *len,
                       bs_error *err) {
  *data = NULL;
  if (len)
    *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f)
    return bs_error_set(err, BS_EIO, path, 0, "cannot open: %s",
                        strerror(errno));
  size_t cap = 65536, used = 0;
  char *buf = malloc(cap);
  if (!buf) {
    fclose(f);
    return bs_error_set(err, BS_ENOMEM, path, 0, "out of memory");
  }
  for (;;) {
    if (cap - used < 2) {
      if (cap > SIZE_MAX / 2)
        goto toolarge;
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        fclose(f);
        return bs_error_set(err, BS_ENOMEM, path, 0, "out of memory");
      }
      buf = nb;
      cap *= 2;
    }
    size_t r = fread(buf + used, 1, cap - used - 1, f);
    used += r;
    if (limit && used > limit)
      goto toolarge;
    if (r == 0)
      break;
  }
  if (ferror(f)) {
    free(buf);
    fclose(f);
    return bs_error_set(err, BS_EIO, path, 0, "read error");
  }
  fclose(f);
  buf[used] = '\0';
  *data = buf;
  if (len)
    *len = used;
  return BS_OK;
toolarge:
  free(buf);
  fclose(f);
  return bs_error_set(err, BS_ELIMIT, path, 0,
                      "file is larger than the limit of %zu bytes", limit);
}
