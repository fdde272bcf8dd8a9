/* readdir's d_type (DT_REG, DT_DIR), which glibc shows with
 * _DEFAULT_SOURCE; the name is reserved for exactly this use. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE
#endif
#include "fsutil.h"

#include "oom.h"
#include "sha256.h"
#include "strlist.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
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

static const char *file_kind(mode_t m) {
  if (S_ISDIR(m))
    return "a directory";
  if (S_ISFIFO(m))
    return "a FIFO";
  if (S_ISCHR(m) || S_ISBLK(m))
    return "a device";
  if (S_ISSOCK(m))
    return "a socket";
  if (S_ISLNK(m))
    return "a symbolic link";
  return "of an unknown type";
}

bs_status bs__open_regular(const char *path, int flags, int *fd,
                           bs_error *err) {
  *fd = -1;
  /* O_NONBLOCK: opening a FIFO without a writer returns at once instead of
   * waiting for one; the type check below then refuses it. */
  int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC |
                         (flags & BS__OPEN_NOFOLLOW ? O_NOFOLLOW : 0));
  if (f < 0) {
    int e = errno;
    struct stat sb;
    if ((e == ELOOP || e == EMLINK) && (flags & BS__OPEN_NOFOLLOW) &&
        lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode))
      return bs_error_set(err, BS_EINPUT, path, 0,
                          "a symbolic link (not followed)");
    if (e == ENXIO)
      return bs_error_set(err, BS_EINPUT, path, 0,
                          "not a regular file (a socket or device)");
    bs_error_set(err, BS_EIO, path, 0, "cannot open: %s", strerror(e));
    errno = e;
    return BS_EIO;
  }
  struct stat sb;
  if (fstat(f, &sb) != 0) {
    int e = errno;
    close(f);
    bs_error_set(err, BS_EIO, path, 0, "cannot open: %s", strerror(e));
    errno = e;
    return BS_EIO;
  }
  if (!S_ISREG(sb.st_mode)) {
    close(f);
    return bs_error_set(err, BS_EINPUT, path, 0, "not a regular file (%s)",
                        file_kind(sb.st_mode));
  }
  int fl = fcntl(f, F_GETFL);
  if (fl >= 0)
    (void)fcntl(f, F_SETFL, fl & ~O_NONBLOCK);
  *fd = f;
  return BS_OK;
}

/* The one whole-file reader: everything fd holds (closed here) into a
 * malloc'd NUL-terminated buffer, at most `limit` bytes (0: none). */
static bs_status read_all(int fd, const char *path, size_t limit, char **data,
                          size_t *len, bs_error *err) {
  /* Sized from the file's length (plus a page, so a file that grew
   * meanwhile is still read to its end in one more step): a 100 MB log
   * then costs one allocation instead of eleven doublings. A file already
   * past the limit is refused unread. */
  size_t cap = 65536, used = 0;
  struct stat sb;
  int sized = fstat(fd, &sb) == 0;
  if (sized && S_ISREG(sb.st_mode) && limit && (uintmax_t)sb.st_size > limit) {
    close(fd);
    return bs_error_set(err, BS_ELIMIT, path, 0,
                        "file is larger than the limit of %zu bytes", limit);
  }
  if (sized && sb.st_size > 0 && (uintmax_t)sb.st_size < SIZE_MAX / 2 &&
      (!limit || (uintmax_t)sb.st_size <= limit))
    cap = (size_t)sb.st_size + 4096;
  char *buf = malloc(cap);
  if (!buf) {
    close(fd);
    return bs_error_set(err, BS_ENOMEM, path, 0, BS__OOM_TEXT);
  }
  for (;;) {
    if (cap - used < 2) {
      char *nb = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
      if (!nb) {
        free(buf);
        close(fd);
        return bs_error_set(err, BS_ENOMEM, path, 0, BS__OOM_TEXT);
      }
      buf = nb;
      cap *= 2;
    }
    ssize_t r = read(fd, buf + used, cap - used - 1);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0) {
      int e = errno;
      free(buf);
      close(fd);
      return bs_error_set(err, BS_EIO, path, 0, "read error: %s", strerror(e));
    }
    if (r == 0)
      break;
    used += (size_t)r;
    if (limit && used > limit) {
      free(buf);
      close(fd);
      return bs_error_set(err, BS_ELIMIT, path, 0,
                          "file is larger than the limit of %zu bytes", limit);
    }
  }
  close(fd);
  buf[used] = '\0';
  *data = buf;
  if (len)
    *len = used;
  return BS_OK;
}

bs_status bs__read_regular(const char *path, int flags, size_t limit,
                           char **data, size_t *len, bs_error *err) {
  *data = NULL;
  if (len)
    *len = 0;
  int fd;
  bs_status st = bs__open_regular(path, flags, &fd, err);
  if (st)
    return st;
  return read_all(fd, path, limit, data, len, err);
}

bs_status bs__read_path(const char *path, size_t limit, char **data,
                        size_t *len, bs_error *err) {
  *data = NULL;
  if (len)
    *len = 0;
  int fd;
  while ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 && errno == EINTR)
    ;
  if (fd < 0)
    return bs_error_set(err, BS_EIO, path, 0, "cannot open: %s",
                        strerror(errno));
  return read_all(fd, path, limit, data, len, err);
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
  bs_status st = bs__read_path(from, 0, &data, &len, err);
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
      return bs_error_set(err, BS_ENOMEM, dir, 0, BS__OOM_TEXT);
    return bs_error_set(err, BS_EIO, dir, 0, "cannot read directory: %s",
                        strerror(e2));
  }
  if (*n)
    qsort(*names, *n, sizeof **names, cmp_str);
  return BS_OK;
}

/* The real path of `path`, or of its parent joined with its last
 * component when it does not exist yet; malloc'd, or NULL. */
static char *real_or_parent(const char *path) {
  char *r = realpath(path, NULL);
  if (r || errno != ENOENT)
    return r;
  size_t n = strlen(path);
  while (n > 1 && path[n - 1] == '/')
    n--;
  size_t s = n;
  while (s > 0 && path[s - 1] != '/')
    s--;
  char *parent = s == 0 ? bs__strdup(".") : strndup(path, s > 1 ? s - 1 : 1);
  char *base = strndup(path + s, n - s);
  char *rp = parent ? realpath(parent, NULL) : NULL;
  char *out = rp && base ? bs__path_join(rp, base) : NULL;
  free(parent);
  free(base);
  free(rp);
  return out;
}

/* Whether `in` is `dir` or below it. */
static int is_within(const char *in, const char *dir) {
  size_t n = strlen(dir);
  if (n == 1 && dir[0] == '/')
    return 1;
  return !strncmp(in, dir, n) && (in[n] == '\0' || in[n] == '/');
}

int bs__archive_format_line(const char *text, size_t n) {
  static const char prefix[] = "benchsite.archive/";
  size_t k = sizeof prefix - 1, d = 0;
  if (n < k || memcmp(text, prefix, k) != 0)
    return 0;
  while (k + d < n && text[k + d] >= '0' && text[k + d] <= '9')
    d++;
  return d > 0 && d <= 9 && k + d + 1 == n && text[k + d] == '\n';
}

/* Whether `dir` is a benchsite archive: it holds a regular FORMAT file
 * (not followed through a link, opened without blocking) that says so.
 * Its content decides, not the shape of the directory: a site whose
 * user's files include one named FORMAT is no archive. */
static int is_archive_root(const char *dir) {
  char *f = bs__path_join(dir, "FORMAT");
  int fd = -1, yes = 0;
  if (f && bs__open_regular(f, BS__OPEN_NOFOLLOW, &fd, NULL) == BS_OK) {
    char buf[64];
    ssize_t r;
    while ((r = read(fd, buf, sizeof buf)) < 0 && errno == EINTR)
      ;
    yes = r > 0 && bs__archive_format_line(buf, (size_t)r);
    close(fd);
  }
  free(f);
  return yes;
}

bs_status bs__check_outside_archive(const char *out, bs_error *err) {
  char *p = real_or_parent(out);
  if (!p)
    return BS_OK; /* an unresolvable parent fails where it is written */
  bs_status st = BS_OK;
  for (;;) {
    if (is_archive_root(p)) {
      st = bs_error_set(err, BS_EUSAGE, out, 0,
                        "lies inside the benchsite archive %s; only "
                        "'benchsite archive add' writes there",
                        p);
      break;
    }
    char *slash = strrchr(p, '/');
    if (!slash || slash == p)
      break;
    *slash = '\0';
  }
  free(p);
  return st;
}

bs_status bs__check_apart(const char *out, const char *what, const char *dir,
                          const char *dir_what, bs_error *err) {
  char *ro = real_or_parent(out);
  char *rd = realpath(dir, NULL);
  bs_status st = BS_OK;
  if (ro && rd) {
    if (is_within(ro, rd))
      st = bs_error_set(err, BS_EUSAGE, out, 0,
                        "%s lies inside %s %s: writing it would change %s",
                        what, dir_what, dir, dir_what);
    else if (is_within(rd, ro))
      st = bs_error_set(err, BS_EUSAGE, out, 0,
                        "%s holds %s %s: replacing it would delete %s", what,
                        dir_what, dir, dir_what);
  }
  free(ro);
  free(rd);
  return st;
}

typedef struct tree_ent {
  char *path;
  long long size;                   /* -1: a directory, -2: anything else */
  char hash[BS__SHA256_HEXLEN + 1]; /* of a regular file's bytes */
  bs__file_stamp stamp;             /* of a regular file, when `stamped` */
  int stamped;
} tree_ent;

/* What a walk consults and records (see bs__tree_list_known). */
typedef struct tree_known {
  const bs__known_file *known; /* sorted by path */
  size_t nknown;
} tree_known;

static void stamp_of(const struct stat *sb, bs__file_stamp *s) {
  s->dev = (uint64_t)sb->st_dev;
  s->ino = (uint64_t)sb->st_ino;
  s->size = (uint64_t)sb->st_size;
  s->mtime_ns = (long long)sb->st_mtim.tv_sec * 1000000000LL +
                (long long)sb->st_mtim.tv_nsec;
  s->ctime_ns = (long long)sb->st_ctim.tv_sec * 1000000000LL +
                (long long)sb->st_ctim.tv_nsec;
}

static int same_stamp(const bs__file_stamp *a, const bs__file_stamp *b) {
  return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
         a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns;
}

static int cmp_known(const void *a, const void *b) {
  return strcmp(((const bs__known_file *)a)->path,
                ((const bs__known_file *)b)->path);
}

/* The SHA-256 of the regular file `name` in directory fd, or "-" when it
 * cannot be read (the listing then differs from any that could). */
static void hash_at(int dirfd, const char *name, char *hex,
                    bs__file_stamp *stamp, int *stamped) {
  hex[0] = '-';
  hex[1] = '\0';
  *stamped = 0;
  int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return;
  struct stat sb;
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    close(fd);
    return;
  }
  /* Taken before the bytes are read: a write while they are read changes
   * the ctime after this, so the stamp cannot vouch for those bytes. */
  stamp_of(&sb, stamp);
  bs__sha256 h;
  bs__sha256_init(&h);
  char buf[65536];
  ssize_t r;
  while ((r = read(fd, buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR))
    if (r > 0)
      bs__sha256_update(&h, buf, (size_t)r);
  close(fd);
  if (r < 0)
    return;
  unsigned char d[BS__SHA256_LEN];
  bs__sha256_final(&h, d);
  bs__sha256_tohex(d, hex);
  *stamped = 1;
}

/* A path on one line of a listing: a backslash, control bytes and DEL
 * as escapes, so no name can add or end a line. */
static bs_status put_path(bs__buf *b, const char *p) {
  bs_status st = BS_OK;
  for (; *p && !st; p++) {
    unsigned char c = (unsigned char)*p;
    if (c == '\\')
      st = bs__buf_puts(b, "\\\\");
    else if (c < 0x20 || c == 0x7f)
      st = bs__buf_printf(b, "\\x%02x", c);
    else
      st = bs__buf_putc(b, (char)c);
  }
  return st;
}

static int cmp_ent(const void *a, const void *b) {
  return strcmp(((const tree_ent *)a)->path, ((const tree_ent *)b)->path);
}

static bs_status tree_walk(int top, const char *rel, const char *skip,
                           const tree_known *tk, tree_ent **v, size_t *n,
                           size_t *cap) {
  int fd = openat(top, rel[0] ? rel : ".",
                  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return BS_EIO;
  DIR *d = fdopendir(fd);
  if (!d) {
    close(fd);
    return BS_EIO;
  }
  bs_status st = BS_OK;
  struct dirent *e;
  while (!st && (e = readdir(d))) {
    if (bs__is_dot(e->d_name) || (!rel[0] && skip && !strcmp(e->d_name, skip)))
      continue;
    if (*n == *cap) {
      size_t nc = *cap ? *cap * 2 : 64;
      tree_ent *g = realloc(*v, nc * sizeof *g);
      if (!g) {
        st = BS_ENOMEM;
        break;
      }
      *v = g;
      *cap = nc;
    }
    char *p =
        rel[0] ? bs__strdupf("%s/%s", rel, e->d_name) : bs__strdup(e->d_name);
    if (!p) {
      st = BS_ENOMEM;
      break;
    }
    struct stat sb;
    long long size = -2;
    if (fstatat(fd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
      if (S_ISREG(sb.st_mode))
        size = (long long)sb.st_size;
      else if (S_ISDIR(sb.st_mode))
        size = -1;
    }
    tree_ent *t = &(*v)[*n];
    t->path = p;
    t->stamped = 0;
    if (size >= 0) {
      const bs__known_file *k = NULL;
      if (tk && tk->nknown) {
        bs__known_file key;
        memset(&key, 0, sizeof key);
        key.path = p;
        k = bsearch(&key, tk->known, tk->nknown, sizeof key, cmp_known);
      }
      stamp_of(&sb, &t->stamp);
      if (k && same_stamp(&k->stamp, &t->stamp)) {
        memcpy(t->hash, k->hash, sizeof t->hash);
        t->stamped = 1;
      } else {
        hash_at(fd, e->d_name, t->hash, &t->stamp, &t->stamped);
      }
    }
    t->size = size;
    (*n)++;
    if (size == -1)
      st = tree_walk(top, p, skip, tk, v, n, cap);
  }
  closedir(d);
  return st;
}

bs_status bs__tree_list(const char *dir, const char *skip, bs__buf *b) {
  return bs__tree_list_known(dir, skip, NULL, 0, 0, b, NULL, NULL);
}

bs_status bs__tree_list_known(const char *dir, const char *skip,
                              const bs__known_file *known, size_t nknown,
                              long long before_ns, bs__buf *b,
                              bs__known_file **seen, size_t *nseen) {
  tree_ent *v = NULL;
  size_t n = 0, cap = 0;
  tree_known tk = {known, nknown};
  if (seen) {
    *seen = NULL;
    *nseen = 0;
  }
  int top = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  bs_status st = top < 0 ? BS_EIO : tree_walk(top, "", skip, &tk, &v, &n, &cap);
  if (top >= 0)
    close(top);
  if (!st && n)
    qsort(v, n, sizeof *v, cmp_ent);
  if (!st && seen) {
    /* A stamp younger than before_ns may not show a write that follows
     * within the file system's clock tick: such a file is read again. */
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
      m += v[i].size >= 0 && v[i].stamped && v[i].stamp.mtime_ns < before_ns &&
           v[i].stamp.ctime_ns < before_ns;
    if (m && !(*seen = calloc(m, sizeof **seen)))
      st = BS_ENOMEM;
    for (size_t i = 0; i < n && !st; i++) {
      const tree_ent *t = &v[i];
      if (t->size < 0 || !t->stamped || t->stamp.mtime_ns >= before_ns ||
          t->stamp.ctime_ns >= before_ns)
        continue;
      bs__known_file *k = &(*seen)[*nseen];
      if (!(k->path = bs__strdup(t->path))) {
        st = BS_ENOMEM;
        break;
      }
      k->stamp = t->stamp;
      memcpy(k->hash, t->hash, sizeof k->hash);
      (*nseen)++;
    }
    if (st) {
      bs__known_free(*seen, *nseen);
      *seen = NULL;
      *nseen = 0;
    }
  }
  for (size_t i = 0; i < n && !st; i++) {
    if (v[i].size >= 0)
      st = bs__buf_printf(b, "%lld %s ", v[i].size, v[i].hash);
    else
      st = bs__buf_printf(b, "%s ", v[i].size == -1 ? "dir" : "other");
    if (!st)
      st = put_path(b, v[i].path);
    if (!st)
      st = bs__buf_putc(b, '\n');
  }
  for (size_t i = 0; i < n; i++)
    free(v[i].path);
  free(v);
  return st;
}

int bs__tree_matches(const char *dir, const char *skip, const char *list,
                     size_t len) {
  return bs__tree_matches_known(dir, skip, list, len, NULL, 0, 0, NULL, NULL);
}

int bs__tree_matches_known(const char *dir, const char *skip, const char *list,
                           size_t len, const bs__known_file *known,
                           size_t nknown, long long before_ns,
                           bs__known_file **seen, size_t *nseen) {
  bs__buf b;
  bs__buf_init(&b, BS__CAP_SITE_FILES);
  bs__known_file *got = NULL;
  size_t ngot = 0;
  int ok = bs__tree_list_known(dir, skip, known, nknown, before_ns, &b,
                               seen ? &got : NULL, &ngot) == BS_OK &&
           b.len == len && (len == 0 || memcmp(b.data, list, len) == 0);
  bs__buf_release(&b);
  if (seen) {
    *seen = ok ? got : NULL;
    *nseen = ok ? ngot : 0;
    if (!ok)
      bs__known_free(got, ngot);
  }
  return ok;
}

void bs__known_free(bs__known_file *k, size_t n) {
  for (size_t i = 0; k && i < n; i++)
    free(k[i].path);
  free(k);
}
