/* libFuzzer target: the archive reader (src/history/archive.c) on a damaged or
 * hostile archive directory built from the input: run directories with
 * any name, SHA256SUMS, manifests and logs with any content, and any of
 * them (acks.csv and FORMAT too) replaced by a FIFO, a directory or a
 * symbolic link to a file outside the archive. Each input is written to a
 * fresh directory, then verified (bs_archive_verify), opened
 * (bs_archive_open) with every listed manifest and log read as the site
 * reads them, and its acks.csv read. Properties: no crash, leak,
 * undefined behaviour or hang (a FIFO must never be opened for blocking
 * reads: libFuzzer's timeout catches it); every error message and every
 * damage finding is one clean line (no control bytes, valid UTF-8) that
 * never quotes the content of a file reached through a link. */
#include "archived.h"
#include "benchsite/archive.h"
#include "buf.h"
#include "fsutil.h"
#include "fuzz_util.h"
#include "sha256.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define SECRET "SECRET-4d1f"

static char base[512];
/* The input holds the secret itself (say, in a run's name): then it may
 * be quoted, as the name is. */
static int secret_in_input;

static char *strdup_fz(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (!d)
    abort();
  return memcpy(d, s, n);
}

static void setup_base(void) {
  if (base[0])
    return;
  const char *t = getenv("TMPDIR");
  snprintf(base, sizeof base, "%s/bsfuzz-archive-XXXXXX", t && *t ? t : ".");
  if (!mkdtemp(base))
    abort();
  char p[600];
  snprintf(p, sizeof p, "%s/secret.csv", base);
  FILE *f = fopen(p, "w");
  if (!f)
    abort();
  fputs("commit," SECRET "\n" SECRET ",x\n", f);
  fclose(f);
}

static void clean_line(const char *s) {
  fz_check_clean_line(s, strlen(s));
  FUZZ_CHECK(secret_in_input || !strstr(s, SECRET),
             "a linked file's content quoted: %s", s);
}

static void check_err(const bs_error *e) {
  fz_check_message(e);
  char msg[2048];
  bs_error_format(e, msg, sizeof msg);
  clean_line(msg);
}

static const char *const names[] = {"SHA256SUMS", "manifest.csv", "log-1.csv",
                                    "log-2.csv",  "../acks.csv",  "extra.csv",
                                    "../FORMAT",  "log-1.csv/x"};

static void put(const char *dir, const char *name, unsigned kind,
                const char *data, size_t len) {
  char p[1200];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  switch (kind % 4) {
  case 0: {
    int fd =
        open(p, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK, 0644);
    if (fd >= 0) {
      if (len && write(fd, data, len) < 0) {
      }
      close(fd);
    }
    break;
  }
  case 1:
    mkfifo(p, 0644);
    break;
  case 2: {
    char t[600];
    snprintf(t, sizeof t, "%s/secret.csv", base);
    if (symlink(t, p) != 0) {
    }
    break;
  }
  default:
    mkdir(p, 0755);
    break;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  setup_base();
  secret_in_input = 0;
  for (size_t i = 0; i + strlen(SECRET) <= size && !secret_in_input; i++)
    secret_in_input = !memcmp(data + i, SECRET, strlen(SECRET));
  char dir[600], runs[700], run[1000];
  snprintf(dir, sizeof dir, "%s/a", base);
  bs__remove_tree(dir);
  mkdir(dir, 0755);
  snprintf(runs, sizeof runs, "%s/runs", dir);
  mkdir(runs, 0755);
  fz_in in = {data, size};
  unsigned flags = fz_byte(&in);
  size_t idlen;
  char *id = fz_str(&in, 60, &idlen);
  for (size_t i = 0; i < idlen; i++)
    if (id[i] == '/')
      id[i] = '_';
  if (flags & 1 || !id[0] || bs__is_dot(id)) {
    free(id);
    id = strdup_fz("20261130T105621Z-3f9a2c1d0b7e-000000000000");
  }
  snprintf(run, sizeof run, "%s/%s", runs, id);
  mkdir(run, 0755);
  put(dir, "FORMAT", 0, "benchsite.archive/1\n", 20);
  unsigned nfiles = fz_byte(&in) % 7;
  char *sums = NULL;
  for (unsigned k = 0; k < nfiles; k++) {
    unsigned sel = fz_byte(&in), kind = fz_byte(&in);
    size_t len;
    char *body = fz_str(&in, 8192, &len);
    put(run, names[sel % 8], kind & 3 ? kind : 0, body, len);
    free(body);
  }
  if (flags & 2) {
    /* A consistent SHA256SUMS over whatever regular files are there, so
     * the checks past it run too. */
    bs__buf b;
    bs__buf_init(&b, 0);
    const char *listed[] = {"manifest.csv", "log-1.csv", "log-2.csv"};
    for (int k = 0; k < 3; k++) {
      char p[1200], *d = NULL;
      size_t len = 0;
      snprintf(p, sizeof p, "%s/%s", run, listed[k]);
      bs_error ign;
      if (bs__read_regular(p, BS__OPEN_NOFOLLOW, 1 << 20, &d, &len, &ign) ==
          BS_OK) {
        char hex[BS__SHA256_HEXLEN + 1];
        bs__sha256_hex(d, len, hex);
        bs__buf_printf(&b, "%s  %s\n", hex, listed[k]);
      }
      free(d);
    }
    if (b.len)
      put(run, "SHA256SUMS", 0, b.data, b.len);
    sums = b.data;
  }
  free(sums);

  bs_error err;
  bs_archive_verify_result vr;
  bs_archive_verify_result_init(&vr);
  if (bs_archive_verify(dir, &vr, &err) == BS_OK) {
    for (size_t i = 0; i < vr.nproblems; i++)
      clean_line(vr.problems[i]);
    FUZZ_CHECK(vr.damaged <= vr.runs, "%zu damaged of %zu", vr.damaged,
               vr.runs);
  } else {
    check_err(&err);
  }
  bs_archive_verify_result_release(&vr);

  bs_archive *a = NULL;
  if (bs_archive_open(dir, &a, &err) == BS_OK) {
    for (size_t i = 0; i < bs_archive_count(a); i++) {
      const bs_archive_run *r = bs_archive_run_at(a, i);
      bs_manifest *m = bs_manifest_new();
      if (m && bs__manifest_read_archived(m, r->manifest, &err))
        check_err(&err);
      bs_manifest_free(m);
      bs_log *log = bs_log_new();
      for (size_t k = 0; log && k < r->nlogs; k++)
        if (bs__log_read_archived(log, r->logs[k], &err))
          check_err(&err);
      bs_log_free(log);
    }
    bs_archive_free(a);
  } else {
    check_err(&err);
  }
  bs_acks *acks = NULL;
  if (bs_acks_read(dir, &acks, &err) == BS_OK)
    bs_acks_free(acks);
  else
    check_err(&err);
  free(id);
  return 0;
}
