/* Publishing the site: files written into the build directory wait in a
 * queue, then move into the published site one rename each, in an order
 * that keeps every link resolving at every moment; what the new site
 * drops goes, only by names the site gives its files. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* renameat2(RENAME_EXCHANGE): an atomic swap */
#endif
#include "site_int.h"

#include "grow.h"
#include "oom.h"
#include "strlist.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

bs_status bs__site_queue(site *s, const char *rel, int rank, int dir,
                         bs_error *err) {
  pending *g = BS__GROW(s->queue, s->qcap, s->nqueue + 1, 64);
  if (!g)
    return bs__oom(err);
  s->queue = g;
  pending *q = &s->queue[s->nqueue];
  q->src = NULL;
  if (!(q->rel = bs__strdup(rel)))
    return bs__oom(err);
  q->rank = rank;
  q->dir = dir;
  q->fresh = 1;
  if (s->out_exists) {
    char *path = bs__path_join(s->out, rel);
    struct stat sb;
    q->fresh = !path || lstat(path, &sb) != 0;
    free(path);
  }
  s->nqueue++;
  return BS_OK;
}

bs_status bs__site_emit(site *s, const char *file, const char *data, size_t len,
                        int rank, const char *key, bs_error *err) {
  bs_status st = BS_OK;
  char hash[BS__SHA256_HEXLEN + 1];
  bs__sha256_hex(data, len, hash);
  if (bs__site_unchanged(s, file, hash)) {
    s->sum.pages_reused++;
  } else {
    char *to = bs__path_join(s->tmp, file);
    st = to ? bs__write_file(to, data, len, 0, err) : bs__oom(err);
    free(to);
    if (!st)
      st = bs__site_queue(s, file, rank, 0, err);
    s->sum.pages_written++;
  }
  return st ? st : bs__site_list_file(s, file, hash, key, err);
}

int bs__site_published(const site *s, const char *rel) {
  if (!s->out_exists)
    return 0;
  char *path = bs__path_join(s->out, rel);
  struct stat sb;
  int ok = path && lstat(path, &sb) == 0;
  free(path);
  return ok;
}

bs_status bs__site_ensure_dir(const char *parent, const char *name,
                              bs_error *err) {
  char *p = bs__path_join(parent, name);
  if (!p)
    return bs__oom(err);
  bs_status st = BS_OK;
  if (mkdir(p, 0755) != 0 && errno != EEXIST)
    st = bs_error_set(err, BS_EIO, p, 0, "cannot create directory: %s",
                      strerror(errno));
  free(p);
  return st;
}

/* A directory of the published site: a link in its place goes (the link,
 * not what it points to), so nothing moves out of the site through it. */
static bs_status ensure_own_dir(const char *out, const char *name,
                                bs_error *err) {
  char *p = bs__path_join(out, name);
  struct stat sb;
  if (p && lstat(p, &sb) == 0 && S_ISLNK(sb.st_mode) && unlink(p) != 0) {
    bs_status st = bs_error_set(err, BS_EIO, p, 0, "cannot remove a link: %s",
                                strerror(errno));
    free(p);
    return st;
  }
  free(p);
  return bs__site_ensure_dir(out, name, err);
}

/* Removes the file `rel` of the published site, never out of it: only a
 * name the site gives its files, and every directory on the way opened
 * from the site's own without following a link. */
static void unlink_in(const char *out, const char *rel) {
  if (!bs__site_file_name(rel))
    return;
  int fd = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const char *p = rel;
  for (const char *sl; fd >= 0 && (sl = strchr(p, '/')); p = sl + 1) {
    char comp[64];
    size_t n = (size_t)(sl - p);
    int next = -1;
    if (n > 0 && n < sizeof comp) {
      memcpy(comp, p, n);
      comp[n] = '\0';
      if (!bs__is_dot(comp))
        next =
            openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    close(fd);
    fd = next;
  }
  if (fd >= 0) {
    unlinkat(fd, p, 0);
    close(fd);
  }
}

/* Renames one queued entry of the build directory into the published
 * site. A report directory that exists is exchanged in one step where the
 * system can (the old one lands in the build directory). */
static bs_status publish_one(site *s, const pending *q, bs_error *err) {
  char *from = bs__path_join(s->tmp, q->src ? q->src : q->rel),
       *to = bs__path_join(s->out, q->rel);
  bs_status st = BS_OK;
  if (!from || !to) {
    st = bs__oom(err);
    goto done;
  }
  if (q->dir && !q->fresh) {
#if defined(__linux__) && defined(RENAME_EXCHANGE)
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE) == 0)
      goto done;
#endif
    size_t n = strlen(from) + 8;
    char *aside = malloc(n);
    if (!aside) {
      st = bs__oom(err);
      goto done;
    }
    snprintf(aside, n, "%s.old", from);
    if (rename(to, aside) != 0 && errno != ENOENT)
      st = bs_error_set(err, BS_EIO, to, 0, "cannot move the old report: %s",
                        strerror(errno));
    free(aside);
    if (st)
      goto done;
  }
  if (rename(from, to) != 0)
    st = bs_error_set(err, BS_EIO, to, 0, "cannot rename into place: %s",
                      strerror(errno));
done:
  free(from);
  free(to);
  return st;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The queued paths, sorted (for lookups). NULL when out of memory. */
static char **queued_names(const site *s) {
  char **v = malloc((s->nqueue ? s->nqueue : 1) * sizeof *v);
  if (!v)
    return NULL;
  for (size_t i = 0; i < s->nqueue; i++)
    v[i] = s->queue[i].rel;
  if (s->nqueue)
    qsort(v, s->nqueue, sizeof *v, cmp_str);
  return v;
}

static int is_queued(char **v, size_t n, const char *rel) {
  return n && bsearch(&rel, v, n, sizeof *v, cmp_str) != NULL;
}

/* One line of the new state as the transition state has it: a "file"
 * line of a queued file becomes "file NAME - -", a "run" line of a
 * queued report ends in "0" instead of "1" (its report unknown). */
static bs_status transition_line(bs__buf *b, const char *p, size_t len,
                                 char **names, size_t nnames) {
  char line[4096];
  if (len >= sizeof line)
    return bs__buf_append(b, p, len);
  memcpy(line, p, len);
  line[len] = '\0';
  char *last = strrchr(line, ' ');
  int dirty = 0;
  if (!strncmp(line, "file ", 5) && (last = strchr(line + 5, ' '))) {
    *last = '\0';
    char *name = bs__site_get_name(line + 5);
    if (!name) /* it was written by bs__site_put_name */
      return bs__buf_fail(b, BS_ENOMEM);
    dirty = is_queued(names, nnames, name);
    free(name);
    *last = ' ';
    if (dirty) {
      bs__buf_append(b, line, (size_t)(last - line));
      return bs__buf_puts(b, " - -");
    }
  } else if (!strncmp(line, "run ", 4) && last) {
    char rel[BS_ARCHIVE_ID_MAX + 8];
    size_t idlen = strcspn(line + 4, " ");
    snprintf(rel, sizeof rel, "runs/%.*s", (int)idlen, line + 4);
    dirty = is_queued(names, nnames, rel);
  }
  if (!dirty)
    return bs__buf_append(b, line, len);
  bs__buf_append(b, line, (size_t)(last - line));
  return bs__buf_puts(b, " 0");
}

/* Publishes the state of the site while files move: the new state, with
 * "-" for every file and report being replaced, plus the previous files
 * the new site drops (so a later build removes them). */
static bs_status write_transition(site *s, bs_error *err) {
  char **names = queued_names(s);
  bs__buf b;
  bs__buf_init(&b, BS__CAP_SITE_STATE);
  bs__buf_fail(&b, names ? BS_OK : BS_ENOMEM);
  const char *p = s->state.data ? s->state.data : "";
  const char *end = p + s->body_len; /* not its "sum" line */
  while (!bs__buf_status(&b) && p < end) {
    if (strncmp(p, "file ", 5) && strncmp(p, "run ", 4)) {
      /* The header and the like stay as they are: a stretch of such
       * lines is copied at once. */
      const char *q = p;
      while (q < end && strncmp(q, "file ", 5) && strncmp(q, "run ", 4)) {
        const char *nl = strchr(q, '\n');
        q = nl ? nl + 1 : q + strlen(q);
      }
      bs__buf_append(&b, p, (size_t)(q - p));
      if (q[-1] != '\n')
        bs__buf_putc(&b, '\n');
      p = q;
      continue;
    }
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    transition_line(&b, p, len, names, s->nqueue);
    bs__buf_putc(&b, '\n');
    p = nl ? nl + 1 : p + len;
  }
  for (size_t i = 0; i < s->npfiles; i++) {
    if (s->pfiles[i].kept)
      continue;
    bs__buf_puts(&b, "file ");
    bs__site_put_name(&b, s->pfiles[i].name);
    bs__buf_puts(&b, " - -\n");
  }
  bs_status st = bs__site_put_sum(&b, b.len);
  free(names);
  if (st) {
    bs__buf_release(&b);
    return bs__oom(err);
  }
  char *path = bs__path_join(s->tmp, BS__SITE_MARKER ".transition");
  st = path ? bs__write_file(path, b.data ? b.data : "", b.len, 0, err)
            : bs__oom(err);
  bs__buf_release(&b);
  if (!st) {
    char *to = bs__path_join(s->out, BS__SITE_MARKER);
    if (!to)
      st = bs__oom(err);
    else if (rename(path, to) != 0)
      st = bs_error_set(err, BS_EIO, to, 0, "cannot rename into place: %s",
                        strerror(errno));
    free(to);
  }
  free(path);
  return st;
}

static int not_hidden(const char *name) { return name[0] != '.'; }
static int not_dots(const char *name) { return !bs__is_dot(name); }

/* Removes the reports the new site no longer has: runs/ holds one per
 * detailed run, so this looks at a few dozen entries. */
static void sweep_reports(const site *s) {
  char *runs = bs__path_join(s->out, "runs");
  char **names = NULL;
  size_t n = 0;
  bs_error ignore;
  if (!runs || bs__list_dir(runs, not_dots, &names, &n, &ignore)) {
    free(runs);
    return;
  }
  char **keep = malloc((s->nruns ? s->nruns : 1) * sizeof *keep);
  size_t nk = 0;
  for (size_t i = 0; keep && i < s->nruns; i++)
    if (s->runs[i].report)
      keep[nk++] = (char *)s->runs[i].ar->id;
  if (keep && nk)
    qsort(keep, nk, sizeof *keep, cmp_str);
  for (size_t i = 0; keep && i < n; i++) {
    if (is_queued(keep, nk, names[i]))
      continue;
    /* Moved out of the site in one step first: a kill while its files
     * go must not leave a half-deleted report in the published site. */
    char *p = bs__path_join(runs, names[i]);
    char *aside = bs__strdupf("%s/.swept-%s", s->tmp, names[i]);
    if (p && aside && rename(p, aside) == 0)
      bs__remove_tree(aside);
    else if (p)
      bs__remove_tree(p);
    free(aside);
    free(p);
  }
  free(keep);
  bs__strlist_free(names, n);
  free(runs);
}

/* Publishes the new site. A first build renames the whole build directory
 * into place. Otherwise only what changed moves into the published site,
 * one rename each, in an order that keeps every link resolving at every
 * moment: new files before replaced ones, each set by rank (charts,
 * reports and history chunks, then run pages, then case pages and their
 * history, then the index); then the files the new site no longer has are
 * removed, and the state, written last, records the new site. */
bs_status bs__site_publish(site *s, bs_error *err) {
  bs_status st = BS_OK;
  if (!s->out_exists)
    return bs_output_dir_commit(s->od, err);
  static const char *const dirs[] = {"charts", "history", "runs"};
  for (size_t i = 0; i < 3 && !st; i++)
    st = ensure_own_dir(s->out, dirs[i], err);
  int quiet = s->quiet;
  /* While files move, the published state calls every one that moves or
   * goes "-" (unknown): a build killed half-way leaves a state the next
   * build can trust. */
  if (!st && !quiet)
    st = write_transition(s, err);
  for (int fresh = 1; fresh >= 0 && !st; fresh--)
    for (int rank = RANK_LEAF; rank <= RANK_INDEX && !st; rank++)
      for (size_t i = 0; i < s->nqueue && !st; i++)
        if (s->queue[i].fresh == fresh && s->queue[i].rank == rank)
          st = publish_one(s, &s->queue[i], err);
  if (st)
    return st;
  for (size_t i = 0; i < s->npfiles; i++) {
    if (s->pfiles[i].kept)
      continue;
    unlink_in(s->out, s->pfiles[i].name);
  }
  sweep_reports(s);
  pending marker = {(char *)BS__SITE_MARKER, NULL, RANK_INDEX, 0, 0};
  if ((!quiet && (st = publish_one(s, &marker, err))) || !s->write_stamps)
    return st;
  if (s->write_stamps < 0) {
    char *p = bs__path_join(s->out, BS__SITE_STAMPS);
    if (p)
      unlink(p);
    free(p);
    return BS_OK;
  }
  /* Last: stamps older than the state's files still tell the truth about
   * the files they name (a file with another stamp is read). */
  pending stamps = {(char *)BS__SITE_STAMPS, NULL, RANK_INDEX, 0, 0};
  return publish_one(s, &stamps, err);
}

/* Copies the regular files of `dir` into the site: the assets (visible
 * names) or the user's static files (dot files too, and never in place of
 * a file of the site). */
bs_status bs__site_copy_files(site *s, const char *dir, int user,
                              bs_error *err) {
  char **names;
  size_t n;
  bs_status st =
      bs__list_dir(dir, user ? not_dots : not_hidden, &names, &n, err);
  if (st)
    return st;
  for (size_t i = 0; i < n && !st; i++) {
    char *from = bs__path_join(dir, names[i]);
    if (!from) {
      st = bs__oom(err);
      break;
    }
    if (bs__is_regular(from)) {
      if (user &&
          (!strncmp(names[i], BS__SITE_MARKER, strlen(BS__SITE_MARKER)) ||
           !strcmp(names[i], "charts") || !strcmp(names[i], "history") ||
           !strcmp(names[i], "runs") || bs__site_listed(s, names[i]))) {
        st = bs_error_set(err, BS_EUSAGE, from, 0,
                          "a static file may not replace a file of the site");
      } else {
        char *data = NULL;
        size_t len = 0;
        static const char says[] = "benchsite.archive/";
        if (!(st = bs_read_file(from, 0, &data, &len, err)) && user &&
            !strcmp(names[i], "FORMAT") && len >= sizeof says - 1 &&
            !memcmp(data, says, sizeof says - 1))
          /* With the site's own runs/ it would make the site an archive
           * (bs__check_outside_archive): every later build refused. */
          st = bs_error_set(err, BS_EUSAGE, from, 0,
                            "a static file named FORMAT may not say "
                            "\"%s...\": the site would become a benchsite "
                            "archive and refuse every later build",
                            says);
        else if (!st)
          st = bs__site_emit(s, names[i], data ? data : "", len, RANK_LEAF,
                             NULL, err);
        free(data);
      }
    }
    free(from);
  }
  bs__strlist_free(names, n);
  return st;
}

/* ---- Build directories of builds that died ------------------------------- */

/* Whether `name` is the build directory a site build of `base` makes
 * (bs_output_dir_start: ".BASE.site-PID-XXXXXX") or moves an earlier site
 * aside to (".BASE.site-PID-old"). */
static int staging_name(const char *name, const char *base) {
  size_t bn = strlen(base);
  if (name[0] != '.' || strncmp(name + 1, base, bn) ||
      strncmp(name + 1 + bn, ".site-", 6))
    return 0;
  const char *p = name + 1 + bn + 6;
  size_t digits = strspn(p, "0123456789");
  if (digits == 0 || digits > 10 || p[digits] != '-')
    return 0;
  p += digits + 1;
  if (!strcmp(p, "old"))
    return 1;
  size_t tail = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                          "0123456789");
  return tail == 6 && p[6] == '\0';
}

/* Every build of a site holds the lock (an flock on the directory that
 * holds `out`, see bs_output_dir_open) from before it makes its build
 * directory until after it has removed it. So when that lock is free, a
 * build directory of `out` is one whose build died: a build killed at
 * its last moment, while it removed its build directory, or a build
 * directory that a killed build's gnuplot was still writing into when
 * the next build swept it. bs_output_dir_open judges by whether the
 * build's process still exists, which a reused process id defeats; the
 * lock does not. Only directories named as a site build of `out` names
 * them are removed, never through a link; an earlier site moved aside
 * ("-old") only while `out` is there. */
void bs__site_sweep_staging(const char *out) {
  /* Its directory and name as bs_output_dir_open takes them: without
   * trailing slashes, "." or "/" for a name alone or at the root. */
  char *dir = bs__strdup(out), *name = dir, *slash;
  for (size_t n = dir ? strlen(dir) : 0; n > 1 && dir[n - 1] == '/'; n--)
    dir[n - 1] = '\0';
  const char *parent = ".";
  if (dir && (slash = strrchr(dir, '/'))) {
    name = slash + 1;
    *slash = '\0';
    parent = slash == dir ? "/" : dir;
  }
  int fd = dir ? open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
  DIR *d = NULL;
  struct stat sb;
  int out_there = lstat(out, &sb) == 0;
  if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
    d = opendir(parent);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (!staging_name(e->d_name, name) ||
        fstatat(fd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISDIR(sb.st_mode))
      continue;
    size_t len = strlen(e->d_name);
    if (len > 4 && !strcmp(e->d_name + len - 4, "-old") && !out_there)
      continue; /* bs_output_dir_open puts it back */
    char *p = bs__path_join(parent, e->d_name);
    if (p)
      bs__remove_tree(p);
    free(p);
  }
  if (d)
    closedir(d);
  if (fd >= 0)
    close(fd); /* releases the lock */
  free(dir);
}
