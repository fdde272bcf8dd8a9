/* benchsite: the facts of the machine a run measures on, and writing a
 * manifest (`benchsite manifest`, `run --manifest-out`). */
#include "benchsite/run.h"

#include "buf.h"
#include "csvin.h"
#include "grow.h"
#include "oom.h"
#include "spawn_proc.h"
#include "utf8.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The value of "key : value" lines of a /proc file: the first one of key,
 * trimmed, into out; the number of lines with that key. */
static size_t proc_field(const char *path, const char *key, char *out,
                         size_t n) {
  FILE *f = fopen(path, "r");
  char line[1024];
  size_t count = 0, klen = strlen(key);
  if (n)
    out[0] = '\0';
  if (!f)
    return 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, key, klen) != 0)
      continue;
    const char *p = line + klen;
    while (*p == ' ' || *p == '\t')
      p++;
    if (*p != ':')
      continue;
    if (count++ == 0 && n) {
      p++;
      while (*p == ' ' || *p == '\t')
        p++;
      size_t l = strcspn(p, "\r\n");
      while (l > 0 && (p[l - 1] == ' ' || p[l - 1] == '\t'))
        l--;
      if (l >= n)
        l = n - 1;
      memcpy(out, p, l);
      out[l] = '\0';
    }
  }
  fclose(f);
  return count;
}

/* What keeps text from being one line of a manifest (and of a terminal or
 * CI log that shows it): the first byte of the first character that is not
 * valid UTF-8, a C0 control (tab and line ends included), DEL, a C1
 * control or U+2028/U+2029, and its length in *len; NULL when there is
 * none. */
static const char *off_line(const char *s, size_t *len) {
  const unsigned char *p = (const unsigned char *)s;
  for (size_t i = 0; p[i];) {
    unsigned long cp;
    size_t n = bs__utf8_decode(p + i, &cp);
    if (n == 0 || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) ||
        cp == 0x2028 || cp == 0x2029) {
      *len = n ? n : 1;
      return s + i;
    }
    i += n;
  }
  return NULL;
}

/* Such characters in probed text become '?' (one per byte): the facts go
 * into a manifest that must read back as one line per key. */
static void clean(char *s) {
  size_t n;
  for (char *bad; (bad = (char *)off_line(s, &n));)
    memset(bad, '?', n);
}

static void read_line_file(const char *path, char *out, size_t n) {
  out[0] = '\0';
  FILE *f = fopen(path, "r");
  if (!f)
    return;
  if (fgets(out, (int)n, f))
    out[strcspn(out, "\r\n")] = '\0';
  fclose(f);
}

/* How long `git rev-parse HEAD` may take (it answers in milliseconds; a
 * hung one, e.g. on a stale network mount, must not hang the run). */
#define GIT_MS 10000

/* `git rev-parse HEAD` without a shell: its stdout, when it exits 0 and
 * prints a hex id. */
static void git_head(char *out, size_t n) {
  out[0] = '\0';
  const char *argv[] = {"git", "rev-parse", "HEAD", NULL};
  bs__spawn_opts o;
  bs__spawn_opts_init(&o, argv);
  o.io[1] = BS__IO_PIPE;
  bs__child ch;
  if (bs__spawn(&ch, &o, NULL))
    return;
  char buf[256];
  size_t used = 0;
  int rc =
      bs__child_collect(&ch, 1, buf, sizeof buf, &used, bs__now_ms() + GIT_MS);
  bs__child_end end;
  if (bs__child_wait(&ch, rc == 2 ? 0 : GIT_MS, &end) || rc != 0 ||
      end.timed_out)
    return;
  size_t l = strspn(buf, "0123456789abcdef");
  if (!WIFEXITED(end.status) || WEXITSTATUS(end.status) != 0 || l < 7 ||
      l >= n || (buf[l] != '\n' && buf[l] != '\0'))
    return;
  memcpy(out, buf, l);
  out[l] = '\0';
}

bs_status bs_machine_probe(bs_machine_facts *f, const char *source_date_epoch,
                           int git, bs_error *err) {
  memset(f, 0, sizeof *f);
  time_t now;
  if (source_date_epoch) {
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(source_date_epoch, &end, 10);
    if (!*source_date_epoch || *source_date_epoch < '0' ||
        *source_date_epoch > '9' || *end || errno == ERANGE ||
        v > 253402300799ULL)
      return bs_error_set(err, BS_EUSAGE, NULL, 0,
                          "SOURCE_DATE_EPOCH \"%.40s\" is not a number of "
                          "seconds since 1970",
                          source_date_epoch);
    now = (time_t)v;
  } else {
    now = time(NULL);
  }
  struct tm tm;
  if (!gmtime_r(&now, &tm) ||
      !strftime(f->date, sizeof f->date, "%Y-%m-%dT%H:%M:%SZ", &tm))
    return bs_error_set(err, BS_EINTERNAL, NULL, 0, "cannot format the date");

  struct utsname u;
  const char *arch = "unknown", *release = "unknown";
  if (uname(&u) == 0) {
    arch = u.machine;
    release = u.release;
  }
  snprintf(f->kernel, sizeof f->kernel, "%s", release);

  char model[256];
  size_t nproc = proc_field("/proc/cpuinfo", "processor", NULL, 0);
  if (!proc_field("/proc/cpuinfo", "model name", model, sizeof model) &&
      !proc_field("/proc/cpuinfo", "Hardware", model, sizeof model) &&
      !proc_field("/proc/cpuinfo", "cpu model", model, sizeof model))
    snprintf(model, sizeof model, "unknown CPU");
  long conf = sysconf(_SC_NPROCESSORS_CONF);
  f->cpus = nproc ? nproc : (conf > 0 ? (uint64_t)conf : 0);
  snprintf(f->machine, sizeof f->machine, "%s %s \xc3\x97%llu", arch, model,
           (unsigned long long)f->cpus);

  char mem[128];
  if (proc_field("/proc/meminfo", "MemTotal", mem, sizeof mem))
    f->memory_mib = (uint64_t)strtoull(mem, NULL, 10) / 1024;

  read_line_file("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
                 f->frequency_policy, sizeof f->frequency_policy);
  if (!f->frequency_policy[0])
    snprintf(f->frequency_policy, sizeof f->frequency_policy, "unknown");
  if (git)
    git_head(f->commit, sizeof f->commit);
  clean(f->machine);
  clean(f->kernel);
  clean(f->frequency_policy);
  return BS_OK;
}

void bs_manifest_draft_init(bs_manifest_draft *d) { memset(d, 0, sizeof *d); }

void bs_manifest_draft_release(bs_manifest_draft *d) {
  if (!d)
    return;
  for (size_t i = 0; i < d->n; i++) {
    free(d->keys[i]);
    free(d->values[i]);
  }
  free(d->keys);
  free(d->values);
  memset(d, 0, sizeof *d);
}

/* BS_OK when `s` (the key, or the value of `key`) is one line of text;
 * else BS_EUSAGE with the reason in err, naming the key. */
static bs_status refuse_off_line(const char *key, const char *s, int is_key,
                                 bs_error *err) {
  size_t n;
  const char *bad = off_line(s, &n);
  if (!bad)
    return BS_OK;
  unsigned long cp;
  const char *what =
      !bs__utf8_decode((const unsigned char *)bad, &cp) ? "text that is not "
                                                          "valid UTF-8"
      : cp == 0x2028 || cp == 0x2029 ? "a line or paragraph separator"
                                     : "a control character";
  size_t klen = strlen(key);
  if (bs__utf8_invalid_at((const unsigned char *)key, klen) != klen)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "a manifest key holds text that is not valid UTF-8");
  char q[BS__QUOTE_BUF];
  bs__csvin_quote(q, key, klen, 1);
  return bs_error_set(err, BS_EUSAGE, NULL, 0,
                      "manifest %s %s holds %s (a manifest %s is one line of "
                      "text)",
                      is_key ? "key" : "value of", q, what,
                      is_key ? "key" : "value");
}

bs_status bs_manifest_draft_set(bs_manifest_draft *d, const char *key,
                                const char *value, bs_error *err) {
  if (!key[0])
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "empty manifest key");
  bs_status st = refuse_off_line(key, key, 1, err);
  if (!st)
    st = refuse_off_line(key, value, 0, err);
  if (st)
    return st;
  char *v = strdup(value);
  if (!v)
    return bs__oom(err);
  for (size_t i = 0; i < d->n; i++) {
    if (!strcmp(d->keys[i], key)) {
      free(d->values[i]);
      d->values[i] = v;
      return BS_OK;
    }
  }
  if (d->n == d->cap) {
    size_t cap = bs__grow_cap(d->cap, d->n + 1, 16, sizeof(char *));
    if (!cap) {
      free(v);
      return bs__oom(err);
    }
    char **k = realloc(d->keys, cap * sizeof *k);
    if (k)
      d->keys = k;
    char **vv = k ? realloc(d->values, cap * sizeof *vv) : NULL;
    if (!vv) {
      free(v);
      return bs__oom(err);
    }
    d->values = vv;
    d->cap = cap;
  }
  char *k = strdup(key);
  if (!k) {
    free(v);
    return bs__oom(err);
  }
  d->keys[d->n] = k;
  d->values[d->n++] = v;
  return BS_OK;
}

static bs_status put_quoted(bs__buf *b, const char *s) {
  bs_status st = bs__buf_putc(b, '"');
  for (; !st && *s; s++)
    st = *s == '"' ? bs__buf_puts(b, "\"\"") : bs__buf_putc(b, *s);
  return st ? st : bs__buf_putc(b, '"');
}

bs_status bs_manifest_draft_render(const bs_manifest_draft *d, char **out,
                                   size_t *len, bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, BS__BUF_DEFAULT_LIMIT);
  bs_status st = bs__buf_puts(&b, "key,value\n");
  for (size_t i = 0; !st && i < d->n; i++) {
    st = put_quoted(&b, d->keys[i]);
    if (!st)
      st = bs__buf_putc(&b, ',');
    if (!st)
      st = put_quoted(&b, d->values[i]);
    if (!st)
      st = bs__buf_putc(&b, '\n');
  }
  return bs__buf_finish(&b, st, "the manifest", out, len, err);
}
