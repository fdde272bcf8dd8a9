/* readdir's d_type (DT_REG, DT_DIR), which glibc shows with
 * _DEFAULT_SOURCE; the name is reserved for exactly this use. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE
#endif
#include "fsutil.h"

#include "benchsite/output.h"

#include "strlist.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *bs__path_join(const char *a, const char *b) {
  size_t n = strlen(a) + strlen(b) + 2;
  char *p = malloc(n);
  if (p)
    snprintf(p, n, "%s/%s", a, b);
  return p;
}

int bs__is_regular(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int bs__is_dot(const char *name) {
  return name[0] == '.' &&
         (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

int bs__entry_type(int dirfd, const struct dirent *e) {
#if defined(_DIRENT_HAVE_D_TYPE) && defined(DT_REG)
  if (e->d_type == DT_REG)
    return BS__ENT_FILE;
  if (e->d_type == DT_DIR)
    return BS__ENT_DIR;
  if (e->d_type != DT_UNKNOWN)
    return BS__ENT_OTHER;
#endif
  struct stat st;
  if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return BS__ENT_OTHER;
  return S_ISREG(st.st_mode)   ? BS__ENT_FILE
         : S_ISDIR(st.st_mode) ? BS__ENT_DIR
                               : BS__ENT_OTHER;
}

/* Empties the directory open as `fd` (and closes it). Best effort. By
 * descriptor, so that a directory swapped for a link while we work is
 * never followed. */
static void empty_dir_fd(int fd) {
  DIR *d = fdopendir(fd);
  if (!d) {
    close(fd);
    return;
  }
  struct dirent *e;
  while ((e = readdir(d))) {
    if (bs__is_dot(e->d_name))
      continue;
    if (bs__entry_type(fd, e) == BS__ENT_DIR) {
      int sub = openat(fd, e->d_name,
                       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub >= 0)
        empty_dir_fd(sub);
      unlinkat(fd, e->d_name, AT_REMOVEDIR);
    } else {
      unlinkat(fd, e->d_name, 0);
    }
  }
  closedir(d);
}

void bs__remove_tree(const char *path) {
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    unlink(path);
    return;
  }
  empty_dir_fd(fd);
  rmdir(path);
}

int bs__write_all(int fd, const char *p, size_t len) {
  while (len > 0) {
    ssize_t w = write(fd, p, len);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

bs_status bs__write_file(const char *path, const char *data, size_t len,
                         int replace, bs_error *err) {
  int fd = open(path,
                O_WRONLY | O_CREAT | (replace ? O_TRUNC : O_EXCL) | O_CLOEXEC |
                    O_NOFOLLOW,
                0644);
  if (fd < 0)
    return bs_error_set(err, BS_EIO, path, 0, "cannot create file: %s",
                        strerror(errno));
  if (bs__write_all(fd, data, len) != 0) {
    int e = errno;
    close(fd);
    return bs_error_set(err, BS_EIO, path, 0, "cannot write file: %s",
                        strerror(e));
  }
  if (close(fd) != 0)
    return bs_error_set(err, BS_EIO, path, 0, "cannot write file: %s",
                        strerror(errno));
  return BS_OK;
}

bs_status bs__copy_file(const char *from, const char *to, bs_error *err) {
  char *data = NULL;
  size_t len = 0;
  bs_status st = bs_read_file(from, 0, &data, &len, err);
  if (st == BS_OK)
    st = bs__write_file(to, data, len, 0, err);
  free(data);
  return st;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

bs_status bs__list_dir(const char *dir, int (*keep)(const char *name),
                       char ***names, size_t *n, bs_error *err) {
  *names = NULL;
  *n = 0;
  DIR *d = opendir(dir);
  if (!d)
    return bs_error_set(err, BS_EIO, dir, 0, "cannot open directory: %s",
                        strerror(errno));
  bs_status st = BS_OK;
  int e2 = 0;
  struct dirent *e;
  /* readdir returns NULL at the end and on an error: only errno tells. */
  for (;;) {
    errno = 0;
    if (!(e = readdir(d))) {
      e2 = errno;
      break;
    }
    if (keep ? !keep(e->d_name) : bs__is_dot(e->d_name))
      continue;
    if (bs__strlist_addf(names, n, "%s", e->d_name)) {
      st = BS_ENOMEM;
      break;
    }
  }
  closedir(d);
  if (st || e2) {
    bs__strlist_free(*names, *n);
    *names = NULL;
    *n = 0;
    if (st)
      return bs_error_set(err, BS_ENOMEM, dir, 0, "out of memory");
    return bs_error_set(err, BS_EIO, dir, 0, "cannot read directory: %s",
                        strerror(e2));
  }
  if (*n)
    qsort(*names, *n, sizeof **names, cmp_str);
  return BS_OK;
}
