/* The site's incremental cache: the state file (.benchsite-site: the keys
 * the published site was made with, per run what its history data does
 * not hold, per file of the site its hash and the key of what made it),
 * the stamps beside it (.benchsite-site.stamps) and the cache keys; and
 * the names the site gives its files. Both files are caches: anything
 * unexpected in them (or a file past BS__SITE_CACHE_MAX) means "none",
 * never an error. Each run's results are not in the state: they are read
 * back from the published history data (site_histjson.c), whose hashes
 * the state lists. */
#include "site_int.h"

#include "grow.h"
#include "num.h"
#include "oom.h"
#include "plotsafe.h"
#include "strlist.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define STATE_MAGIC "benchsite-site 8"
/* The state's last line: "sum " and the hash of the bytes before it. */
#define SUM_LINE (4 + BS__SHA256_HEXLEN + 1)
#define STAMPS_MAGIC "benchsite-stamps 2"
/* The most tokens a line of the state or the stamps has, and then some:
 * a line with more is malformed. */
#define MAX_TOKENS 20

/* ---- Names and tokens ---------------------------------------------------- */

/* Whether byte c is written as %XX in a token: blanks and control bytes
 * (the state is lines of blank-separated tokens), DEL and '%' itself. */
static int escaped_byte(unsigned char c) {
  return c <= ' ' || c == 0x7f || c == '%';
}

bs_status bs__site_put_name(bs__buf *b, const char *name) {
  static const char digits[] = "0123456789ABCDEF";
  if (!name || !name[0])
    return bs__buf_putc(b, '-');
  if (!strcmp(name, "-"))
    return bs__buf_puts(b, "%2D");
  bs_status st = BS_OK;
  const char *p = name;
  while (*p && !st) {
    size_t run = 0;
    while (p[run] && !escaped_byte((unsigned char)p[run]))
      run++;
    st = bs__buf_append(b, p, run);
    p += run;
    if (*p && !st) {
      unsigned char c = (unsigned char)*p++;
      char three[3] = {'%', digits[c >> 4], digits[c & 15]};
      st = bs__buf_append(b, three, 3);
    }
  }
  return st;
}

static int hexval(int c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

char *bs__site_get_name(const char *tok) {
  if (!tok[0])
    return NULL;
  size_t n = strlen(tok);
  char *s = malloc(n + 1);
  if (!s)
    return NULL;
  if (!strcmp(tok, "-")) {
    s[0] = '\0';
    return s;
  }
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)tok[i];
    if (c == '%') {
      if (i + 2 >= n)
        goto bad;
      int h = hexval((unsigned char)tok[i + 1]),
          l = hexval((unsigned char)tok[i + 2]);
      if (h < 0 || l < 0)
        goto bad;
      c = (unsigned char)(h << 4 | l);
      /* Only what bs__site_put_name escapes, so that a name has one
       * spelling (and never a NUL). */
      if (!(escaped_byte(c) || (c == '-' && n == 3)) || c == 0)
        goto bad;
      i += 2;
    } else if (escaped_byte(c)) {
      goto bad;
    }
    s[k++] = (char)c;
  }
  s[k] = '\0';
  return s;
bad:
  free(s);
  return NULL;
}

static int parse_u64(const char *s, uint64_t *v) {
  return bs__parse_u64(s, v) == 0;
}

static int parse_ll(const char *s, long long *v) {
  uint64_t x;
  if (!parse_u64(s, &x) || x > (uint64_t)LLONG_MAX)
    return 0;
  *v = (long long)x;
  return 1;
}

static int parse_size(const char *s, size_t *v) {
  uint64_t x;
  if (bs__parse_u64(s, &x) != 0 || x > SIZE_MAX)
    return 0;
  *v = (size_t)x;
  return 1;
}

static int is_key(const char *tok) {
  return strlen(tok) == BS__SHA256_HEXLEN &&
         strspn(tok, "0123456789abcdef") == BS__SHA256_HEXLEN;
}

/* The one reader of both files' line records: a first line `magic`, then
 * lines of space-separated tokens (split in place), each handed to
 * `record`. A NUL byte or an empty token is malformed. Returns 1 when
 * every record was accepted (record returned 1), 0 at the first refused. */
typedef int (*record_fn)(void *ctx, char **tok, size_t nt);

static int read_records(char *data, size_t len, const char *magic,
                        record_fn record, void *ctx) {
  if (memchr(data, '\0', len))
    return 0;
  int lineno = 0;
  char *end = data + len;
  for (char *line = data, *nl; line < end; line = nl + 1) {
    nl = memchr(line, '\n', (size_t)(end - line));
    if (!nl)
      return 0; /* every line ends in a newline */
    *nl = '\0';
    if (++lineno == 1) {
      if (strcmp(line, magic))
        return 0;
      continue;
    }
    char *tok[MAX_TOKENS] = {0};
    size_t nt = 0;
    for (char *p = line;; p++) {
      if (nt == MAX_TOKENS)
        return 0;
      tok[nt++] = p;
      char *sp = strchr(p, ' ');
      if (!sp)
        break;
      *sp = '\0';
      p = sp;
    }
    for (size_t k = 0; k < nt; k++)
      if (!tok[k][0])
        return 0;
    if (!record(ctx, tok, nt))
      return 0;
  }
  return 1;
}

/* ---- Names the site gives its files -------------------------------------- */

/* The readable part of a case's file id: the case's name ("benchmark
 * dataset") with ASCII letters lowercased and digits kept, every other
 * run of bytes one '-', none at either end, cut at BS__SITE_CASE_SLUG
 * bytes; "case" when nothing is left. */
static size_t case_slug(const char *benchmark, const char *dataset,
                        char out[BS__SITE_CASE_SLUG + 1]) {
  size_t k = 0;
  int dash = 0;
  for (int part = 0; part < 2; part++) {
    const char *p = part ? dataset : benchmark;
    dash = dash || (part && *p);
    for (; *p; p++) {
      char c = *p;
      if (c >= 'A' && c <= 'Z')
        c = (char)(c - 'A' + 'a');
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
        dash = 1;
        continue;
      }
      if (k + (dash && k) >= BS__SITE_CASE_SLUG)
        goto done;
      if (dash && k)
        out[k++] = '-';
      dash = 0;
      out[k++] = c;
    }
  }
done:
  if (k == 0) {
    memcpy(out, "case", 4);
    k = 4;
  }
  out[k] = '\0';
  return k;
}

void bs__site_case_id(const char *benchmark, const char *dataset,
                      char out[BS__SITE_CASE_ID]) {
  char hex[BS__SHA256_HEXLEN + 1];
  bs__sha256 h;
  bs__sha256_init(&h);
  bs__sha256_update(&h, benchmark, strlen(benchmark) + 1);
  bs__sha256_update(&h, dataset, strlen(dataset));
  bs__site_fp_end(&h, hex);
  size_t k = case_slug(benchmark, dataset, out);
  out[k++] = '-';
  memcpy(out + k, hex, BS__SITE_CASE_HASH);
  out[k + BS__SITE_CASE_HASH] = '\0';
}

/* Whether p[0..k-1] is a case's file id as bs__site_case_id writes one:
 * a slug of 1 to BS__SITE_CASE_SLUG bytes of [a-z0-9] in dash-separated
 * runs, '-', 16 lowercase hex digits. */
static int is_case_id(const char *p, size_t k) {
  if (k < BS__SITE_CASE_HASH + 2)
    return 0;
  size_t s = k - BS__SITE_CASE_HASH - 1;
  // NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult): s < k
  if (s > BS__SITE_CASE_SLUG || p[s] != '-' || p[0] == '-' || p[s - 1] == '-')
    return 0;
  for (size_t i = 0; i < s; i++) {
    char c = p[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
          (c == '-' && p[i + 1] != '-')))
      return 0;
  }
  for (size_t i = s + 1; i < k; i++)
    if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
      return 0;
  return 1;
}

/* Whether `name` is one this program gives a file of the site, and so
 * one a state may name: one name at the top (index.html, run-ID.html,
 * case-ID.html, an asset, or a static file of any name), charts/ID-KIND.svg
 * (KIND: a case chart's, lowercase letters), history/runs.json,
 * history/ID.json or history/ID-K.json. A state naming anything else (a
 * path out of the site) is not one this program wrote. */
int bs__site_file_name(const char *name) {
  static const char *const dirs[] = {"charts", "history", "runs"};
  if (!strchr(name, '/')) {
    if (!name[0] || bs__is_dot(name) ||
        !strncmp(name, BS__SITE_MARKER, strlen(BS__SITE_MARKER)))
      return 0;
    for (size_t i = 0; i < 3; i++)
      if (!strcmp(name, dirs[i]))
        return 0;
    return 1;
  }
  const char *p = name;
  int chart = !strncmp(p, "charts/", 7);
  if (chart)
    p += 7;
  else if (!strncmp(p, "history/", 8))
    p += 8;
  else
    return 0;
  const char *ext = chart ? ".svg" : ".json";
  size_t n = strlen(p), el = strlen(ext);
  if (n <= el || strcmp(p + n - el, ext))
    return 0;
  n -= el;
  if (!chart && (is_case_id(p, n) || (n == 4 && !memcmp(p, "runs", 4))))
    return 1;
  /* ID-KIND (charts) or ID-K (history chunks). */
  size_t tail = 0;
  /* p has n bytes; the analyzer does not follow that. */
  // NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult)
  while (tail < n && p[n - 1 - tail] != '-')
    tail++;
  if (tail == 0 || tail == n || tail > 16)
    return 0;
  const char *t = p + n - tail;
  const char *set = chart ? "abcdefghijklmnopqrstuvwxyz" : "0123456789";
  if (strspn(t, set) < tail || (!chart && tail > 9))
    return 0;
  return is_case_id(p, n - tail - 1);
}

/* ---- The previous build's state ------------------------------------------ */

static void prev_release(site *s) {
  for (size_t i = 0; i < s->nprev; i++) {
    prev_run *p = &s->prev[i];
    free(p->id);
    free(p->impl);
    free(p->no_report);
    bs_history_results_free(p->res, p->nres);
  }
  free(s->prev);
  s->prev = NULL;
  s->nprev = 0;
  for (size_t i = 0; i < s->npfiles; i++)
    free(s->pfiles[i].name);
  free(s->pfiles);
  s->pfiles = NULL;
  s->npfiles = 0;
  s->prev_analysis_key[0] = s->prev_report_key[0] = '\0';
}

static void stamps_release(site *s) {
  for (size_t i = 0; i < s->npseen; i++) {
    free(s->pseen[i].id);
    free(s->pseen[i].files);
  }
  free(s->pseen);
  s->pseen = NULL;
  s->npseen = 0;
}

void bs__site_state_release(site *s) {
  prev_release(s);
  stamps_release(s);
  free(s->prev_text);
  s->prev_text = NULL;
  s->prev_len = 0;
}

static int cmp_prev_run(const void *a, const void *b) {
  return strcmp(((const prev_run *)a)->id, ((const prev_run *)b)->id);
}

static int cmp_prev_file(const void *a, const void *b) {
  return strcmp(((const prev_file *)a)->name, ((const prev_file *)b)->name);
}

static int cmp_prev_seen(const void *a, const void *b) {
  return strcmp(((const prev_seen *)a)->id, ((const prev_seen *)b)->id);
}

/* Whether the site's directories are directories of its own (none a link
 * out of it, whose files a state cannot vouch for). */
static int own_dirs(const char *out) {
  static const char *const dirs[] = {"charts", "history", "runs"};
  for (size_t i = 0; i < 3; i++) {
    char *p = bs__path_join(out, dirs[i]);
    struct stat sb;
    int ok = p && (lstat(p, &sb) != 0 ? errno == ENOENT : S_ISDIR(sb.st_mode));
    free(p);
    if (!ok)
      return 0;
  }
  return 1;
}

/* Reading a state: where its records go. */
typedef struct state_reader {
  site *s;
  size_t cap, fcap;
  int header; /* the "site" line was seen (it comes first) */
} state_reader;

static int state_record(void *ctx, char **tok, size_t nt) {
  state_reader *rd = ctx;
  site *s = rd->s;
  if (!rd->header) {
    /* "site ANALYSIS_KEY REPORT_KEY": what the results and the reports
     * of the published site were made with. */
    if (nt != 3 || strcmp(tok[0], "site") || !is_key(tok[1]) || !is_key(tok[2]))
      return 0;
    memcpy(s->prev_analysis_key, tok[1], BS__SHA256_HEXLEN + 1);
    memcpy(s->prev_report_key, tok[2], BS__SHA256_HEXLEN + 1);
    rd->header = 1;
  } else if (nt == 6 && !strcmp(tok[0], "run")) {
    /* "run ID RESULTS IMPL NO_REPORT REPORT": its results as the history
     * data holds them, how many; the impl the history follows; why it
     * has no report ("-": it has one, or none was tried); whether its
     * report (or NO_REPORT) was made with the report key. */
    if (s->nprev == rd->cap) {
      prev_run *g = BS__GROW(s->prev, rd->cap, s->nprev + 1, 64);
      if (!g)
        return 0;
      s->prev = g;
    }
    prev_run *cur = &s->prev[s->nprev];
    memset(cur, 0, sizeof *cur);
    s->nprev++;
    if (strlen(tok[1]) > BS_ARCHIVE_ID_MAX || strchr(tok[1], '%') ||
        !(cur->id = bs__strdup(tok[1])) || !parse_size(tok[2], &cur->listed) ||
        !(cur->impl = bs__site_get_name(tok[3])))
      return 0;
    if (strcmp(tok[4], "-") && !(cur->no_report = bs__site_get_name(tok[4])))
      return 0;
    if (strcmp(tok[5], "0") && strcmp(tok[5], "1"))
      return 0;
    cur->report = tok[5][0] == '1';
  } else if (nt == 4 && !strcmp(tok[0], "file")) {
    /* "file NAME HASH KEY"; HASH "-": a file a killed build may have
     * replaced or left over; KEY "-": none. */
    if ((!is_key(tok[2]) && strcmp(tok[2], "-")) ||
        (!is_key(tok[3]) && strcmp(tok[3], "-")))
      return 0;
    if (s->npfiles == rd->fcap) {
      prev_file *g = BS__GROW(s->pfiles, rd->fcap, s->npfiles + 1, 64);
      if (!g)
        return 0;
      s->pfiles = g;
    }
    prev_file *f = &s->pfiles[s->npfiles];
    f->name = bs__site_get_name(tok[1]);
    if (!f->name)
      return 0;
    s->npfiles++;
    if (!bs__site_file_name(f->name))
      return 0;
    snprintf(f->hash, sizeof f->hash, "%s", tok[2]);
    snprintf(f->key, sizeof f->key, "%s", tok[3]);
    f->kept = 0;
  } else {
    return 0;
  }
  return 1;
}

int bs__site_parse_state(site *s, char *data, size_t len) {
  /* Last, the hash of all before it: any change to the state is seen. */
  char sum[BS__SHA256_HEXLEN + 1];
  if (len < SUM_LINE || memcmp(data + len - SUM_LINE, "sum ", 4) ||
      data[len - 1] != '\n')
    return 0;
  bs__sha256_hex(data, len - SUM_LINE, sum);
  if (memcmp(data + len - SUM_LINE + 4, sum, BS__SHA256_HEXLEN))
    return 0;
  state_reader rd;
  memset(&rd, 0, sizeof rd);
  rd.s = s;
  int ok = read_records(data, len - SUM_LINE, STATE_MAGIC, state_record, &rd) &&
           rd.header;
  if (ok && s->nprev)
    qsort(s->prev, s->nprev, sizeof *s->prev, cmp_prev_run);
  for (size_t i = 1; i < s->nprev && ok; i++)
    ok = strcmp(s->prev[i - 1].id, s->prev[i].id) != 0;
  if (ok && s->npfiles)
    qsort(s->pfiles, s->npfiles, sizeof *s->pfiles, cmp_prev_file);
  for (size_t i = 1; i < s->npfiles && ok; i++)
    ok = strcmp(s->pfiles[i - 1].name, s->pfiles[i].name) != 0;
  if (!ok)
    prev_release(s);
  return ok;
}

/* Reads the previous state; anything unexpected means "no usable state"
 * (a full build), never an error: the state is a cache. */
static void load_state(site *s) {
  char *path = bs__path_join(s->out, BS__SITE_MARKER);
  char *data = NULL;
  size_t len = 0;
  bs_error ignore;
  if (!path || !own_dirs(s->out) ||
      bs__read_regular(path, BS__OPEN_NOFOLLOW, BS__SITE_CACHE_MAX, &data, &len,
                       &ignore) != BS_OK) {
    free(path);
    return;
  }
  free(path);
  if (!(s->prev_text = malloc(len + 1))) {
    free(data);
    return;
  }
  memcpy(s->prev_text, data, len + 1);
  s->prev_len = len;
  if (!bs__site_parse_state(s, data, len)) {
    free(s->prev_text);
    s->prev_text = NULL;
    s->prev_len = 0;
  }
  free(data);
}

prev_run *bs__site_find_prev(const site *s, const char *id) {
  prev_run key = {0};
  key.id = (char *)id;
  return s->nprev
             ? bsearch(&key, s->prev, s->nprev, sizeof *s->prev, cmp_prev_run)
             : NULL;
}

/* ---- The stamps ---------------------------------------------------------- */

typedef struct stamps_reader {
  site *s;
  size_t cap;
  prev_seen *seen; /* the report the stamp lines are of */
  uint64_t dev;
} stamps_reader;

static int stamps_record(void *ctx, char **tok, size_t nt) {
  stamps_reader *rd = ctx;
  site *s = rd->s;
  if (nt == 4 && !strcmp(tok[0], "seen")) {
    /* "seen ID DEV MARKER": the stamps of the regular files of runs/ID
     * follow, in the order of its list of files, whose hash is MARKER. */
    if (s->npseen == rd->cap) {
      prev_seen *g = BS__GROW(s->pseen, rd->cap, s->npseen + 1, 16);
      if (!g)
        return 0;
      s->pseen = g;
    }
    prev_seen *seen = rd->seen = &s->pseen[s->npseen];
    memset(seen, 0, sizeof *seen);
    s->npseen++;
    if (!(seen->id = bs__strdup(tok[1])) || !parse_u64(tok[2], &rd->dev) ||
        strlen(tok[3]) != BS__SHA256_HEXLEN)
      return 0;
    memcpy(seen->marker, tok[3], sizeof seen->marker);
    return 1;
  }
  prev_seen *seen = rd->seen;
  if (!(nt == 4 || (nt == 1 && !strcmp(tok[0], "-"))) || !seen)
    return 0;
  /* "INO SIZE MTIME_NS CTIME_NS", or "-" for a file read next time. */
  if (seen->n == seen->cap) {
    seen_stamp *g = BS__GROW(seen->files, seen->cap, seen->n + 1, 32);
    if (!g)
      return 0;
    seen->files = g;
  }
  seen_stamp *k = &seen->files[seen->n++];
  memset(k, 0, sizeof *k);
  k->st.dev = rd->dev;
  if (nt == 4 &&
      (!parse_u64(tok[0], &k->st.ino) || !parse_u64(tok[1], &k->st.size) ||
       !parse_ll(tok[2], &k->st.mtime_ns) ||
       !parse_ll(tok[3], &k->st.ctime_ns)))
    return 0;
  k->ok = nt == 4;
  return 1;
}

int bs__site_parse_stamps(site *s, char *data, size_t len) {
  stamps_reader rd = {s, 0, NULL, 0};
  int ok = read_records(data, len, STAMPS_MAGIC, stamps_record, &rd);
  if (ok && s->npseen)
    qsort(s->pseen, s->npseen, sizeof *s->pseen, cmp_prev_seen);
  for (size_t i = 1; i < s->npseen && ok; i++)
    ok = strcmp(s->pseen[i - 1].id, s->pseen[i].id) != 0;
  if (!ok)
    stamps_release(s);
  return ok;
}

/* Reads the stamps beside the state. Like the state, a cache: anything
 * unexpected means none (every file of a kept report is hashed). */
static void load_stamps(site *s) {
  char *path = bs__path_join(s->out, BS__SITE_STAMPS);
  char *data = NULL;
  size_t len = 0;
  bs_error ignore;
  if (!path || bs__read_regular(path, BS__OPEN_NOFOLLOW, BS__SITE_CACHE_MAX,
                                &data, &len, &ignore) != BS_OK) {
    free(path);
    return;
  }
  free(path);
  bs__sha256_hex(data, len, s->stamps_hash);
  if (!bs__site_parse_stamps(s, data, len))
    s->stamps_hash[0] = '\0';
  free(data);
}

void bs__site_load_state(site *s) {
  load_state(s);
  if (s->prev_text)
    load_stamps(s);
}

/* Writes the stamps of this build's kept reports beside the new state
 * in the build directory, unless the published ones are the same: *write
 * is 1 when it did, 0 when they are the same, -1 when there are none
 * (the published ones go). */
bs_status bs__site_write_stamps(site *s, int *write, bs_error *err) {
  *write = 0;
  if (!s->seen.len) {
    *write = -1;
    return BS_OK;
  }
  bs__buf b;
  bs__buf_init(&b, BS__CAP_SITE_FILES);
  bs__buf_puts(&b, STAMPS_MAGIC "\n");
  bs_status st =
      bs__buf_append(&b, s->seen.data ? s->seen.data : "", s->seen.len);
  if (st) {
    bs__buf_release(&b);
    return bs__oom_as(err, st);
  }
  char hash[BS__SHA256_HEXLEN + 1];
  bs__sha256_hex(b.data, b.len, hash);
  *write = strcmp(hash, s->stamps_hash) != 0;
  if (*write) {
    char *path = bs__path_join(s->tmp, BS__SITE_STAMPS);
    st = path ? bs__write_file(path, b.data, b.len, 0, err) : bs__oom(err);
    free(path);
  }
  bs__buf_release(&b);
  return st;
}

static const prev_seen *find_pseen(const site *s, const char *id) {
  prev_seen key = {0};
  key.id = (char *)id;
  return s->npseen ? bsearch(&key, s->pseen, s->npseen, sizeof *s->pseen,
                             cmp_prev_seen)
                   : NULL;
}

/* The next regular file of a report's list of files ("SIZE HASH PATH",
 * PATH escaped; "dir PATH" and "other PATH" are not): its hash and path
 * (NUL-free, not terminated) with *p moved past its line. 0 at the end. */
static int next_listed(const char **p, const char *end, const char **hash,
                       const char **path, size_t *plen) {
  while (*p < end) {
    const char *line = *p;
    const char *nl = memchr(line, '\n', (size_t)(end - line));
    const char *stop = nl ? nl : end;
    *p = nl ? nl + 1 : end;
    if (line[0] < '0' || line[0] > '9')
      continue;
    const char *sp = memchr(line, ' ', (size_t)(stop - line));
    if (!sp || stop - sp < BS__SHA256_HEXLEN + 3 ||
        sp[BS__SHA256_HEXLEN + 1] != ' ')
      continue;
    *hash = sp + 1;
    *path = sp + BS__SHA256_HEXLEN + 2;
    *plen = (size_t)(stop - *path);
    return 1;
  }
  return 0;
}

/* The files the previous build's stamps vouch for, from the report's
 * list (whose hash they were recorded with): sorted by path, as the list
 * is. A path the list escapes (a backslash or a control byte) is left to
 * be read. */
static bs_status known_files(const prev_seen *ps, const char *list, size_t len,
                             bs__known_file **out, size_t *n) {
  *out = NULL;
  *n = 0;
  bs__known_file *k = calloc(ps->n ? ps->n : 1, sizeof *k);
  if (!k)
    return BS_ENOMEM;
  const char *p = list, *end = list + len, *hash, *path;
  size_t plen;
  for (size_t i = 0; next_listed(&p, end, &hash, &path, &plen); i++) {
    if (i >= ps->n) {
      bs__known_free(k, *n); /* not the list they were recorded with */
      *n = 0;
      return BS_OK;
    }
    if (!ps->files[i].ok || memchr(path, '\\', plen))
      continue;
    if (!(k[*n].path = malloc(plen + 1))) {
      bs__known_free(k, *n);
      *n = 0;
      return BS_ENOMEM;
    }
    memcpy(k[*n].path, path, plen);
    k[*n].path[plen] = '\0';
    k[*n].stamp = ps->files[i].st;
    memcpy(k[*n].hash, hash, BS__SHA256_HEXLEN);
    k[*n].hash[BS__SHA256_HEXLEN] = '\0';
    (*n)++;
  }
  *out = k;
  return BS_OK;
}

/* Appends to the new stamps those of run id's report files: one line per
 * regular file of its list (hash `mhash`), in the list's order. */
static bs_status state_seen(site *s, const char *id, const char *mhash,
                            const char *list, size_t len,
                            const bs__known_file *k, size_t n) {
  if (!n)
    return BS_OK;
  uint64_t dev = k[0].stamp.dev;
  bs_status st = bs__buf_printf(&s->seen, "seen %s %llu %s\n", id,
                                (unsigned long long)dev, mhash);
  const char *p = list, *end = list + len, *hash, *path;
  size_t plen, j = 0;
  while (!st && next_listed(&p, end, &hash, &path, &plen)) {
    int c = 1;
    while (j < n && (c = strncmp(k[j].path, path, plen)) < 0)
      j++;
    if (j < n && c == 0 && k[j].path[plen] == '\0' && k[j].stamp.dev == dev &&
        !memcmp(k[j].hash, hash, BS__SHA256_HEXLEN))
      st = bs__buf_printf(&s->seen, "%llu %llu %lld %lld\n",
                          (unsigned long long)k[j].stamp.ino,
                          (unsigned long long)k[j].stamp.size,
                          k[j].stamp.mtime_ns, k[j].stamp.ctime_ns);
    else
      st = bs__buf_puts(&s->seen, "-\n");
  }
  return st;
}

/* Whether the published report of run id at `dir` is still what its
 * marker lists: the site never trusts its own output (a file deleted from
 * it, changed, or replaced by a link, means the report is built again).
 * A file is hashed unless its stamp is the one it had when the previous
 * build hashed it; the stamps go into the new state. */
int bs__site_report_intact(site *s, const char *id, const char *dir,
                           const char *marker, bs_status *st) {
  char *text = NULL;
  size_t len = 0;
  bs_error ign;
  int ok = 0;
  *st = BS_OK;
  if (bs__read_regular(marker, BS__OPEN_NOFOLLOW, (size_t)64 << 20, &text, &len,
                       &ign) == BS_OK) {
    const char *list = strstr(text, "\nfiles\n");
    if (list) {
      list += 7;
      size_t llen = len - (size_t)(list - text);
      char mhash[BS__SHA256_HEXLEN + 1];
      bs__sha256_hex(text, len, mhash);
      const prev_seen *ps = find_pseen(s, id);
      bs__known_file *known = NULL, *seen = NULL;
      size_t nknown = 0, nseen = 0;
      if (ps && !strcmp(ps->marker, mhash))
        *st = known_files(ps, list, llen, &known, &nknown);
      if (!*st)
        ok = bs__tree_matches_known(dir, ".benchsite-report", list, llen, known,
                                    nknown, s->stamp_before_ns, &seen, &nseen);
      if (ok && !*st)
        *st = state_seen(s, id, mhash, list, llen, seen, nseen);
      bs__known_free(known, nknown);
      bs__known_free(seen, nseen);
    }
  }
  free(text);
  return ok;
}

/* ---- Files of the site the state lists ----------------------------------- */

prev_file *bs__site_find_pfile(const site *s, const char *name) {
  prev_file key = {0};
  key.name = (char *)name;
  return s->npfiles ? bsearch(&key, s->pfiles, s->npfiles, sizeof *s->pfiles,
                              cmp_prev_file)
                    : NULL;
}

bs_status bs__site_list_file(site *s, const char *rel, const char *hash,
                             const char *key, bs_error *err) {
  bs__buf_puts(&s->files, "file ");
  bs__site_put_name(&s->files, rel);
  bs_status st = bs__buf_printf(&s->files, " %s %s\n", hash, key ? key : "-");
  if (!st && bs__strset_put(&s->listed, rel, strlen(rel), 0, NULL) < 0)
    st = BS_ENOMEM;
  return st ? bs__oom_as(err, st) : BS_OK;
}

int bs__site_listed(const site *s, const char *rel) {
  return bs__strset_get(&s->listed, rel, strlen(rel), NULL);
}

int bs__site_unchanged(site *s, const char *rel, const char *hash) {
  prev_file *pf = bs__site_find_pfile(s, rel);
  if (!pf)
    return 0;
  pf->kept = 1;
  if (strcmp(pf->hash, hash))
    return 0;
  char *path = bs__path_join(s->out, rel);
  int ok = path && bs__is_regular(path);
  free(path);
  return ok;
}

bs_status bs__site_keep_keyed(site *s, const char *rel, const char *key,
                              int *kept, bs_error *err) {
  *kept = 0;
  prev_file *pf = bs__site_find_pfile(s, rel);
  if (!pf || strcmp(pf->key, key) || !strcmp(pf->hash, "-"))
    return BS_OK;
  char *path = bs__path_join(s->out, rel);
  int ok = path && bs__is_regular(path);
  free(path);
  if (!ok)
    return BS_OK;
  pf->kept = 1;
  *kept = 1;
  s->sum.pages_reused++;
  return bs__site_list_file(s, rel, pf->hash, key, err);
}

/* ---- The new state ------------------------------------------------------- */

/* Ends a state of `len` bytes with the line of their hash. */
bs_status bs__site_put_sum(bs__buf *b, size_t len) {
  char sum[BS__SHA256_HEXLEN + 1];
  bs__sha256_hex(b->data ? b->data : "", len, sum);
  return bs__buf_printf(b, "sum %s\n", sum);
}

/* Starts the new state: its header, the keys of this build. */
bs_status bs__site_state_begin(site *s) {
  return bs__buf_printf(&s->state, "%s\nsite %s %s\n", STATE_MAGIC,
                        s->analysis_key, s->report_key);
}

/* Run i's line of the new state. */
bs_status bs__site_state_run(site *s, size_t i) {
  const srun *r = &s->runs[i];
  const bs_history_run *hr = &s->h->runs[i];
  bs__buf *b = &s->state;
  bs__buf_printf(b, "run %s %zu ", r->ar->id, hr->nresults);
  bs__site_put_name(b, hr->impl);
  bs__buf_putc(b, ' ');
  if (r->no_report)
    bs__site_put_name(b, r->no_report);
  else
    bs__buf_putc(b, '-');
  return bs__buf_puts(b, r->report || r->no_report ? " 1\n" : " 0\n");
}

/* ---- Cache keys ---------------------------------------------------------- */

static int not_hidden(const char *name) { return name[0] != '.'; }

/* Hashes the names and bytes of every regular file of a directory. */
static bs_status hash_dir(bs__sha256 *h, const char *dir, bs_error *err) {
  char **names;
  size_t n;
  bs_status st = bs__list_dir(dir, not_hidden, &names, &n, err);
  for (size_t i = 0; i < n && !st; i++) {
    char *p = bs__path_join(dir, names[i]);
    if (!p) {
      st = BS_ENOMEM;
      break;
    }
    if (bs__is_regular(p)) {
      char *data = NULL;
      size_t len = 0;
      if ((st = bs_read_file(p, 0, &data, &len, err)) == BS_OK) {
        bs__sha256_update(h, names[i], strlen(names[i]) + 1);
        char lenbuf[32];
        snprintf(lenbuf, sizeof lenbuf, "%zu:", len);
        bs__sha256_update(h, lenbuf, strlen(lenbuf));
        bs__sha256_update(h, data, len);
      }
      free(data);
    }
    free(p);
  }
  bs__strlist_free(names, n);
  return st == BS_ENOMEM ? bs__oom(err) : st;
}

/* The identity of this build of benchsite: its version and, where the
 * system tells, the bytes of the running program (the library is linked
 * into it), so a changed build invalidates what it computed. */
static void build_identity(bs__sha256 *h) {
  static const char v[] = "benchsite " BENCHSITE_VERSION "\n";
  bs__sha256_update(h, v, sizeof v - 1);
  int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  char buf[65536];
  ssize_t r;
  while ((r = read(fd, buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR))
    if (r > 0)
      bs__sha256_update(h, buf, (size_t)r);
  close(fd);
}

bs_status bs__site_make_keys(site *s, bs_error *err) {
  bs__sha256 id;
  bs__sha256_init(&id);
  build_identity(&id);
  char build[BS__SHA256_HEXLEN + 1], text[512], gv[256];
  bs__site_fp_end(&id, build);
  /* `gnuplot --version` (charts are gnuplot's bytes); "" when it does not
   * run: rendering reports that properly later. */
  bs__gnuplot_version(s->o->gnuplot ? s->o->gnuplot : "gnuplot", gv, sizeof gv);
  const bs_metric_info *mi = bs_metric_get(s->o->metric);
  snprintf(text, sizeof text,
           "analysis\n%s\nseed %llu\nR %d level %g\nmetric %s\n", build,
           (unsigned long long)s->o->seed, BS_HISTORY_RESAMPLES,
           BS_HISTORY_LEVEL_PCT, mi ? mi->name : "?");
  bs__sha256_hex(text, strlen(text), s->analysis_key);
  snprintf(text, sizeof text, "render\n%s\ngnuplot %s\n", build, gv);
  bs__sha256_hex(text, strlen(text), s->render_key);
  bs__sha256 h;
  bs__sha256_init(&h);
  bs__sha256_update(&h, s->analysis_key, strlen(s->analysis_key));
  bs__sha256_update(&h, s->render_key, strlen(s->render_key));
  bs_status st;
  if ((st = hash_dir(&h, s->o->templates_dir, err)) ||
      (st = hash_dir(&h, s->o->assets_dir, err)))
    return st;
  bs__site_fp_end(&h, s->report_key);
  return BS_OK;
}

void bs__site_run_key(const char *kind, const char *id,
                      char out[BS__SHA256_HEXLEN + 1]) {
  bs__sha256 h;
  bs__sha256_init(&h);
  bs__sha256_update(&h, kind, strlen(kind));
  bs__sha256_update(&h, id, strlen(id));
  bs__site_fp_end(&h, out);
}
