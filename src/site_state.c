/* The site's incremental cache: the state file (.benchsite-site: per run
 * its results, per file of the site its hash and the key of what made
 * it), the stamps beside it (.benchsite-site.stamps) and the cache keys.
 * Both files are caches: anything unexpected in them means "none", never
 * an error. */
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

#define STATE_MAGIC "benchsite-site 7"
/* The state's last line: "sum " and the hash of the bytes before it. */
#define SUM_LINE (4 + BS__SHA256_HEXLEN + 1)
#define STAMPS_MAGIC "benchsite-stamps 2"
/* The most tokens a line of the state or the stamps has, and then some:
 * a line with more is malformed. */
#define MAX_TOKENS 20

/* ---- Tokens -------------------------------------------------------------- */

/* "x" + hex: a token that holds any bytes (and "" as "x"). */
static bs_status put_hex(bs__buf *b, const char *s) {
  static const char digits[] = "0123456789abcdef";
  bs_status st = bs__buf_putc(b, 'x');
  for (const unsigned char *p = (const unsigned char *)s; *p && !st; p++) {
    char two[2] = {digits[*p >> 4], digits[*p & 15]};
    st = bs__buf_append(b, two, 2);
  }
  return st;
}

static int hexval(int c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

/* Decodes a put_hex token; NULL when malformed or out of memory. */
static char *get_hex(const char *tok) {
  size_t n = strlen(tok);
  if (n == 0 || tok[0] != 'x' || (n - 1) % 2)
    return NULL;
  char *s = malloc((n - 1) / 2 + 1);
  if (!s)
    return NULL;
  size_t k = 0;
  for (size_t i = 1; i < n; i += 2) {
    int h = hexval((unsigned char)tok[i]),
        l = hexval((unsigned char)tok[i + 1]);
    if (h < 0 || l < 0 || (h == 0 && l == 0)) {
      free(s);
      return NULL;
    }
    s[k++] = (char)(h << 4 | l);
  }
  s[k] = '\0';
  return s;
}

/* A double as 11 characters of the state: its 64 bits, 4 in the first
 * character and 6 in each of the others. Exact (every bit, -0 and all),
 * and a little over half the text of %.17g. */
static const char bits_digits[] =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";
#define BITS_CHARS ((size_t)11)

static void put_bits(char out[BITS_CHARS], double v) {
  uint64_t u;
  memcpy(&u, &v, sizeof u);
  for (size_t i = BITS_CHARS; i-- > 0;) {
    out[i] = bits_digits[u & 63];
    u >>= 6;
  }
}

static int bits_value(int c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'Z')
    return c - 'A' + 10;
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 36;
  return c == '-' ? 62 : c == '_' ? 63 : -1;
}

/* Reads put_bits' 11 characters at p; 0 when malformed or not finite. */
static int get_bits(const char *p, double *v) {
  uint64_t u = 0;
  for (size_t i = 0; i < BITS_CHARS; i++) {
    int d = bits_value((unsigned char)p[i]);
    if (d < 0 || (i == 0 && d > 15))
      return 0;
    u = u << 6 | (uint64_t)d;
  }
  memcpy(v, &u, sizeof u);
  return isfinite(*v);
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

/* The one reader of both files' line records: a first line `magic`, then
 * lines of space-separated tokens (split in place), each handed to
 * `record` with the offset just past its line. Returns 1 when every
 * record was accepted (record returned 1), 0 at the first refused. */
typedef int (*record_fn)(void *ctx, char **tok, size_t nt, size_t next);

static int read_records(char *data, size_t len, const char *magic,
                        record_fn record, void *ctx) {
  int lineno = 0;
  for (char *line = data, *nl; line && *line; line = nl ? nl + 1 : NULL) {
    nl = strchr(line, '\n');
    if (nl)
      *nl = '\0';
    if (++lineno == 1) {
      if (strcmp(line, magic))
        return 0;
      continue;
    }
    char *tok[MAX_TOKENS] = {0};
    size_t nt = 0;
    for (char *p = line; *p && nt < MAX_TOKENS;) {
      tok[nt++] = p;
      char *sp = strchr(p, ' ');
      if (!sp)
        break;
      *sp = '\0';
      p = sp + 1;
    }
    if (!record(ctx, tok, nt, nl ? (size_t)(nl + 1 - data) : len))
      return 0;
  }
  return 1;
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
  for (size_t i = 0; i < s->npcases; i++) {
    free(s->pcases[i].benchmark);
    free(s->pcases[i].dataset);
  }
  free(s->pcases);
  s->pcases = NULL;
  s->npcases = s->pccap = 0;
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

/* The text of a case in the state's case table. */
static bs_status case_text(bs__buf *b, const char *benchmark,
                           const char *dataset, double scale) {
  char bits[BITS_CHARS];
  put_bits(bits, scale);
  bs_status st = put_hex(b, benchmark);
  if (!st)
    st = bs__buf_putc(b, ' ');
  if (!st)
    st = put_hex(b, dataset);
  if (!st)
    st = bs__buf_putc(b, ' ');
  if (!st)
    st = bs__buf_append(b, bits, sizeof bits);
  return st;
}

/* Whether `name` is one this program gives a file of the site, and so
 * one a state may name: one name at the top (index.html, run-ID.html,
 * case-ID.html, an asset or a static file) of visible ASCII or UTF-8
 * bytes, charts/case-ID-KIND.svg (KIND: a case chart's, lowercase
 * letters), history/case-ID.json or history/case-ID-K.json. A state naming
 * anything else (a path out of the site) is not one this program wrote. */
int bs__site_file_name(const char *name) {
  static const char *const dirs[] = {"charts", "history", "runs"};
  const char *p = name;
  if (!strchr(name, '/')) {
    if (!name[0] || bs__is_dot(name) ||
        !strncmp(name, BS__SITE_MARKER, strlen(BS__SITE_MARKER)))
      return 0;
    for (size_t i = 0; i < 3; i++)
      if (!strcmp(name, dirs[i]))
        return 0;
    for (; *p; p++) {
      unsigned char c = (unsigned char)*p;
      if (c <= ' ' || c == 0x7f || c == '\\')
        return 0;
    }
    return 1;
  }
  int chart = !strncmp(p, "charts/case-", 12);
  if (chart)
    p += 12;
  else if (!strncmp(p, "history/case-", 13))
    p += 13;
  else
    return 0;
  for (size_t i = 0; i < BS__SITE_CASE_HASH; i++, p++)
    if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
      return 0;
  if (chart) {
    /* "-KIND.svg": a kind of site_charts.c's table, lowercase letters. */
    size_t kind = *p == '-' ? strspn(p + 1, "abcdefghijklmnopqrstuvwxyz") : 0;
    return kind > 0 && kind <= 32 && !strcmp(p + 1 + kind, ".svg");
  }
  if (*p == '-') {
    size_t digits = strspn(++p, "0123456789");
    if (digits == 0 || digits > 20)
      return 0;
    p += digits;
  }
  return !strcmp(p, ".json");
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
  int ok;           /* the "site" line was seen */
  prev_run *cur;    /* the run the "r" lines are of */
  bs__strset cases; /* the case table's entries, each once */
  bs__buf ct;       /* scratch: one entry's text */
} state_reader;

static int state_record(void *ctx, char **tok, size_t nt, size_t next) {
  state_reader *rd = ctx;
  site *s = rd->s;
  if (nt == 1 && !strcmp(tok[0], "site")) {
    rd->ok = 1;
  } else if (nt == 6 && !strcmp(tok[0], "run")) {
    if (s->nprev == rd->cap) {
      prev_run *g = BS__GROW(s->prev, rd->cap, s->nprev + 1, 64);
      if (!g)
        return 0;
      s->prev = g;
    }
    prev_run *cur = rd->cur = &s->prev[s->nprev];
    memset(cur, 0, sizeof *cur);
    cur->id = bs__strdup(tok[1]);
    cur->text_from = cur->text_to = next;
    s->nprev++;
    if (!cur->id || strlen(tok[2]) != BS__SHA256_HEXLEN)
      return 0;
    memcpy(cur->key, tok[2], sizeof cur->key);
    if (!(cur->impl = get_hex(tok[3])))
      return 0;
    if (strcmp(tok[4], "-") && !(cur->no_report = get_hex(tok[4])))
      return 0;
    if (strlen(tok[5]) != BS__SHA256_HEXLEN && strcmp(tok[5], "-"))
      return 0;
    snprintf(cur->rkey, sizeof cur->rkey, "%s", tok[5]);
  } else if (nt == 4 && !strcmp(tok[0], "case")) {
    /* "case BENCHMARK DATASET SCALE": the next number of the table. */
    if (s->npcases == s->pccap) {
      state_case *g = BS__GROW(s->pcases, s->pccap, s->npcases + 1, 64);
      if (!g)
        return 0;
      s->pcases = g;
    }
    state_case *c = &s->pcases[s->npcases];
    memset(c, 0, sizeof *c);
    s->npcases++;
    if (!(c->benchmark = get_hex(tok[1])) || !(c->dataset = get_hex(tok[2])) ||
        strlen(tok[3]) != BITS_CHARS || !get_bits(tok[3], &c->scale) ||
        !(c->scale >= 0))
      return 0;
    /* Listed once: the result lines name a case by its number. */
    rd->ct.len = 0;
    return !case_text(&rd->ct, c->benchmark, c->dataset, c->scale) &&
           bs__strset_put(&rd->cases, rd->ct.data, rd->ct.len, 0, NULL) == 1;
  } else if (nt == 6 && !strcmp(tok[0], "r") && rd->cur) {
    /* "r CASE N FLAGS BLOCKS BITS": the case's number in the table, the
     * sample size, verdict + 1 (0: not compared) times 4 plus 2 for a
     * significant regression plus 1 for a significant improvement, the
     * blocks compared, then median, interval, delta_pct and its
     * interval (delta_lo_pct, delta_hi_pct) as six put_bits. */
    prev_run *cur = rd->cur;
    if (cur->nres == cur->cap) {
      bs_history_result *g = BS__GROW(cur->res, cur->cap, cur->nres + 1, 8);
      if (!g)
        return 0;
      cur->res = g;
    }
    bs_history_result *r = &cur->res[cur->nres];
    memset(r, 0, sizeof *r);
    cur->nres++;
    cur->text_to = next;
    size_t flags;
    if (!parse_size(tok[1], &r->case_idx) || !parse_size(tok[2], &r->n) ||
        !parse_size(tok[3], &flags) || flags > 15 ||
        !parse_size(tok[4], &r->blocks) || strlen(tok[5]) != 6 * BITS_CHARS ||
        !get_bits(tok[5], &r->median) ||
        !get_bits(tok[5] + BITS_CHARS, &r->lo) ||
        !get_bits(tok[5] + 2 * BITS_CHARS, &r->hi) ||
        !get_bits(tok[5] + 3 * BITS_CHARS, &r->delta_pct) ||
        !get_bits(tok[5] + 4 * BITS_CHARS, &r->delta_lo_pct) ||
        !get_bits(tok[5] + 5 * BITS_CHARS, &r->delta_hi_pct))
      return 0;
    r->has_median = r->n > 0;
    r->has_cmp = flags >= 4;
    r->verdict = (int)(flags >> 2) - 1;
    r->significant_regression = (flags & 2) != 0;
    r->significant_improvement = (flags & 1) != 0;
  } else if (nt == 4 && !strcmp(tok[0], "file")) {
    /* "-": a file a killed build may have replaced or left over. */
    if ((strlen(tok[2]) != BS__SHA256_HEXLEN && strcmp(tok[2], "-")) ||
        (strlen(tok[3]) != BS__SHA256_HEXLEN && strcmp(tok[3], "-")))
      return 0;
    if (s->npfiles == rd->fcap) {
      prev_file *g = BS__GROW(s->pfiles, rd->fcap, s->npfiles + 1, 64);
      if (!g)
        return 0;
      s->pfiles = g;
    }
    prev_file *f = &s->pfiles[s->npfiles];
    if (!bs__site_file_name(tok[1]) || !(f->name = bs__strdup(tok[1])))
      return 0;
    snprintf(f->hash, sizeof f->hash, "%s", tok[2]);
    snprintf(f->key, sizeof f->key, "%s", tok[3]);
    f->kept = 0;
    s->npfiles++;
  } else {
    return 0;
  }
  return 1;
}

/* The cases of the result lines, by their numbers (the table follows the
 * runs), each case once a run. */
static int resolve_cases(site *s) {
  size_t *last = calloc(s->npcases ? s->npcases : 1, sizeof *last);
  int ok = last != NULL;
  for (size_t i = 0; i < s->nprev && ok; i++) {
    for (size_t k = 0; k < s->prev[i].nres && ok; k++) {
      bs_history_result *r = &s->prev[i].res[k];
      if (r->case_idx >= s->npcases || last[r->case_idx] == i + 1) {
        ok = 0;
        break;
      }
      last[r->case_idx] = i + 1;
      const state_case *c = &s->pcases[r->case_idx];
      ok = (r->benchmark = bs__strdup(c->benchmark)) &&
           (r->dataset = bs__strdup(c->dataset));
      r->scale = c->scale;
      r->has_scale = r->scale > 0;
      r->case_idx = 0;
    }
  }
  free(last);
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
      bs__read_regular(path, BS__OPEN_NOFOLLOW, 0, &data, &len, &ignore) !=
          BS_OK) {
    free(path);
    return;
  }
  free(path);
  /* Last, the hash of all before it: any change to the state is seen. */
  char sum[BS__SHA256_HEXLEN + 1];
  if (len < SUM_LINE || memcmp(data + len - SUM_LINE, "sum ", 4) ||
      data[len - 1] != '\n') {
    free(data);
    return;
  }
  bs__sha256_hex(data, len - SUM_LINE, sum);
  if (memcmp(data + len - SUM_LINE + 4, sum, BS__SHA256_HEXLEN) ||
      !(s->prev_text = malloc(len + 1))) {
    free(data);
    return;
  }
  memcpy(s->prev_text, data, len + 1);
  s->prev_len = len;
  len -= SUM_LINE;
  data[len] = '\0';
  state_reader rd;
  memset(&rd, 0, sizeof rd);
  rd.s = s;
  bs__strset_init(&rd.cases);
  bs__buf_init(&rd.ct, BS__CAP_SITE_STATE);
  int ok = read_records(data, len, STATE_MAGIC, state_record, &rd) && rd.ok &&
           resolve_cases(s);
  free(data);
  bs__strset_release(&rd.cases);
  bs__buf_release(&rd.ct);
  if (ok && s->nprev)
    qsort(s->prev, s->nprev, sizeof *s->prev, cmp_prev_run);
  if (ok && s->npfiles)
    qsort(s->pfiles, s->npfiles, sizeof *s->pfiles, cmp_prev_file);
  for (size_t i = 1; i < s->npfiles && ok; i++)
    ok = strcmp(s->pfiles[i - 1].name, s->pfiles[i].name) != 0;
  if (!ok) {
    prev_release(s);
    free(s->prev_text);
    s->prev_text = NULL;
  }
}

prev_run *bs__site_find_prev(const site *s, const char *id) {
  prev_run key;
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

static int stamps_record(void *ctx, char **tok, size_t nt, size_t next) {
  stamps_reader *rd = ctx;
  site *s = rd->s;
  (void)next;
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

/* Reads the stamps beside the state. Like the state, a cache: anything
 * unexpected means none (every file of a kept report is hashed). */
static void load_stamps(site *s) {
  char *path = bs__path_join(s->out, BS__SITE_STAMPS);
  char *data = NULL;
  size_t len = 0;
  bs_error ignore;
  if (!path || bs__read_regular(path, BS__OPEN_NOFOLLOW, 0, &data, &len,
                                &ignore) != BS_OK) {
    free(path);
    return;
  }
  free(path);
  bs__sha256_hex(data, len, s->stamps_hash);
  stamps_reader rd = {s, 0, NULL, 0};
  int ok = read_records(data, len, STAMPS_MAGIC, stamps_record, &rd);
  free(data);
  if (!ok) {
    stamps_release(s);
    s->stamps_hash[0] = '\0';
    return;
  }
  if (s->npseen)
    qsort(s->pseen, s->npseen, sizeof *s->pseen, cmp_prev_seen);
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
  bs_status st = bs__buf_puts(&b, STAMPS_MAGIC "\n");
  if (!st)
    st = bs__buf_append(&b, s->seen.data ? s->seen.data : "", s->seen.len);
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
  prev_seen key;
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
  prev_file key;
  key.name = (char *)name;
  return s->npfiles ? bsearch(&key, s->pfiles, s->npfiles, sizeof *s->pfiles,
                              cmp_prev_file)
                    : NULL;
}

bs_status bs__site_list_file(site *s, const char *rel, const char *hash,
                             const char *key, bs_error *err) {
  bs_status st =
      bs__buf_printf(&s->files, "file %s %s %s\n", rel, hash, key ? key : "-");
  return st ? bs__oom_as(err, st) : BS_OK;
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

/* Starts the new state: its header, and its case table (which follows
 * the runs) with the previous table's entries in their order. */
bs_status bs__site_state_begin(site *s) {
  bs_status st = bs__buf_printf(&s->state, "%s\nsite\n", STATE_MAGIC);
  bs__buf t;
  bs__buf_init(&t, BS__CAP_SITE_STATE);
  for (size_t i = 0; i < s->npcases && !st; i++) {
    const state_case *c = &s->pcases[i];
    t.len = 0;
    st = case_text(&t, c->benchmark, c->dataset, c->scale);
    /* Every entry is written again, so that the copied result lines
     * keep their numbers; a case listed twice (never written so, but the
     * state is only a cache) is found by its first number. */
    if (!st && bs__strset_put(&s->ctab, t.data, t.len, s->nctab, NULL) < 0)
      st = BS_ENOMEM;
    if (!st)
      st = bs__buf_printf(&s->cases_text, "case %.*s\n", (int)t.len, t.data);
    s->nctab++;
  }
  bs__buf_release(&t);
  return st;
}

/* A result line; a case new to the table gets its line in cases_text,
 * which follows the runs (the result lines a later build copies hold
 * none). */
static bs_status state_result(site *s, const bs_history_result *r) {
  bs__buf *b = &s->state;
  bs__buf t;
  bs__buf_init(&t, BS__CAP_SITE_STATE);
  bs_status st =
      case_text(&t, r->benchmark, r->dataset, r->has_scale ? r->scale : 0.0);
  int added = 0;
  size_t *num = st ? NULL : bs__strset_ref(&s->ctab, t.data, t.len, &added);
  if (!st && !num)
    st = BS_ENOMEM;
  size_t ci = 0;
  if (!st && added) {
    *num = s->nctab++;
    st = bs__buf_printf(&s->cases_text, "case %.*s\n", (int)t.len, t.data);
  }
  if (num)
    ci = *num;
  bs__buf_release(&t);
  char bits[6 * BITS_CHARS];
  put_bits(bits, r->has_median ? r->median : 0.0);
  put_bits(bits + BITS_CHARS, r->has_median ? r->lo : 0.0);
  put_bits(bits + 2 * BITS_CHARS, r->has_median ? r->hi : 0.0);
  put_bits(bits + 3 * BITS_CHARS, r->has_cmp ? r->delta_pct : 0.0);
  put_bits(bits + 4 * BITS_CHARS, r->has_cmp ? r->delta_lo_pct : 0.0);
  put_bits(bits + 5 * BITS_CHARS, r->has_cmp ? r->delta_hi_pct : 0.0);
  int flags = (r->has_cmp ? r->verdict + 1 : 0) * 4 +
              (r->significant_regression ? 2 : 0) +
              (r->significant_improvement ? 1 : 0);
  if (!st)
    st = bs__buf_printf(b, "r %zu %zu %d %zu %.*s\n", ci,
                        r->has_median ? r->n : 0, flags, r->blocks,
                        (int)sizeof bits, bits);
  return st;
}

/* Run i's lines of the new state. */
bs_status bs__site_state_run(site *s, size_t i) {
  const srun *r = &s->runs[i];
  const bs_history_run *hr = &s->h->runs[i];
  bs__buf *b = &s->state;
  bs_status st = bs__buf_printf(b, "run %s %s ", r->ar->id, r->key);
  if (!st)
    st = put_hex(b, hr->impl ? hr->impl : "");
  if (!st)
    st = bs__buf_putc(b, ' ');
  if (!st)
    st = r->no_report ? put_hex(b, r->no_report) : bs__buf_putc(b, '-');
  if (!st)
    st = bs__buf_printf(b, " %s\n", r->report || r->no_report ? r->rkey : "-");
  if (!st && r->res_text)
    return bs__buf_append(b, r->res_text, r->res_len);
  for (size_t k = 0; k < hr->nresults && !st; k++)
    st = state_result(s, &hr->results[k]);
  return st;
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
  snprintf(text, sizeof text, "analysis\n%s\nseed %llu\nR %d level %g\n", build,
           (unsigned long long)s->o->seed, BS_HISTORY_RESAMPLES,
           BS_HISTORY_LEVEL_PCT);
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
