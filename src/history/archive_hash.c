/* Hashing an archive's files: one regular file's SHA-256, read once, its
 * bytes kept when asked (bs__archive_hash_file in archive_int.h), for
 * adding, verifying and reading runs and for calibrations/. */
#include "benchsite/archive.h"

#include "archive_int.h"
#include "fsutil.h"
#include "grow.h"
#include "sha256.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

bs_status bs__archive_hash_file(const char *path,
                                char hex[BS__SHA256_HEXLEN + 1], int *missing,
                                char **keep, size_t *keep_len) {
  *missing = 0;
  int fd;
  bs_error e;
  if (bs__open_regular(path, BS__OPEN_NOFOLLOW, &fd, &e)) {
    *missing = e.status == BS_EIO && errno == ENOENT;
    return BS_EIO;
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    close(fd);
    return BS_EIO;
  }
  bs__sha256 s;
  bs__sha256_init(&s);
  char buf[65536];
  char *data = NULL;
  size_t len = 0, cap = 0;
  if (keep && sb.st_size > 0 && (uint64_t)sb.st_size < BS_ARCHIVE_MAX_FILE) {
    cap = (size_t)sb.st_size + 1; /* one more: the end shows at once */
    if (!(data = malloc(cap)))
      goto fail;
  }
  for (;;) {
    char *to = buf;
    size_t room = sizeof buf;
    if (keep) {
      if (len == cap) {
        if (len >= BS_ARCHIVE_MAX_FILE)
          goto fail;
        char *g = BS__GROW(data, cap, len + sizeof buf, sizeof buf);
        if (!g)
          goto fail;
        data = g;
      }
      to = data + len;
      room = cap - len;
    }
    ssize_t r = read(fd, to, room);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      goto fail;
    if (r == 0)
      break;
    bs__sha256_update(&s, to, (size_t)r);
    len += (size_t)r;
  }
  close(fd);
  unsigned char d[BS__SHA256_LEN];
  bs__sha256_final(&s, d);
  bs__sha256_tohex(d, hex);
  if (keep)
    *keep = data;
  if (keep_len)
    *keep_len = len;
  return BS_OK;
fail:
  close(fd);
  free(data);
  return BS_EIO;
}
