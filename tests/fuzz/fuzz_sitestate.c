/* libFuzzer target: the readers of the site's caches (src/site/site_state.c),
 * files in the published site that anyone with write access to it can
 * change: the state (.benchsite-site), read as given and again with a
 * valid "sum" line appended (so that the fuzzer reaches the records past
 * the checksum), the stamps (.benchsite-site.stamps), and the encoding of
 * names into one token of the state. Properties: no crash, leak or
 * undefined behaviour; a rejected text keeps nothing; an accepted state
 * has its runs and files sorted without duplicates, every file name one
 * the site writes, and every name one token that reads back to itself;
 * any name put as a token reads back to the same bytes, and a token that
 * reads as a name is the only spelling of that name. */
#include "fuzz_util.h"
#include "site_int.h"

static void check_token(const char *tok, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)tok[i];
    FUZZ_CHECK(c > ' ' && c != 0x7f, "byte %u at %zu of a token", c, i);
  }
  FUZZ_CHECK(n > 0, "an empty token");
}

/* name -> token -> name is the identity; the token is one token. */
static void round_trip(const char *name) {
  bs__buf b;
  bs__buf_init(&b, (size_t)1 << 24);
  FUZZ_CHECK(bs__site_put_name(&b, name) == BS_OK, "put_name failed");
  check_token(b.data, b.len);
  char *back = bs__site_get_name(b.data);
  FUZZ_CHECK(back && !strcmp(back, name), "\"%s\" came back as \"%s\"", name,
             back ? back : "(null)");
  free(back);
  bs__buf_release(&b);
}

/* A token that reads as a name is the spelling put_name gives it. */
static void one_spelling(const char *tok) {
  char *name = bs__site_get_name(tok);
  if (!name)
    return;
  bs__buf b;
  bs__buf_init(&b, (size_t)1 << 24);
  FUZZ_CHECK(bs__site_put_name(&b, name) == BS_OK, "put_name failed");
  FUZZ_CHECK(!strcmp(b.data, tok), "token \"%s\" is spelt \"%s\"", tok, b.data);
  bs__buf_release(&b);
  free(name);
}

static void check_state(site *s) {
  for (size_t i = 0; i < s->nprev; i++) {
    const prev_run *p = &s->prev[i];
    FUZZ_CHECK(p->id && p->impl, "run %zu lacks its id or impl", i);
    FUZZ_CHECK(i == 0 || strcmp(s->prev[i - 1].id, p->id) < 0,
               "runs not sorted or doubled at %zu", i);
    FUZZ_CHECK(bs__site_find_prev(s, p->id) == p, "run %s not found", p->id);
    round_trip(p->impl);
    if (p->no_report)
      round_trip(p->no_report);
  }
  for (size_t i = 0; i < s->npfiles; i++) {
    const prev_file *f = &s->pfiles[i];
    FUZZ_CHECK(i == 0 || strcmp(s->pfiles[i - 1].name, f->name) < 0,
               "files not sorted or doubled at %zu", i);
    FUZZ_CHECK(bs__site_file_name(f->name), "a file the site never writes");
    FUZZ_CHECK(bs__site_find_pfile(s, f->name) == f, "file not found");
    round_trip(f->name);
  }
}

static void parse_state(const uint8_t *data, size_t size, int seal) {
  size_t len = size + (seal ? 4 + BS__SHA256_HEXLEN + 1 : 0);
  char *text = malloc(len + 1);
  FUZZ_CHECK(text != NULL, "out of memory");
  if (size)
    memcpy(text, data, size);
  if (seal) {
    char sum[BS__SHA256_HEXLEN + 1];
    bs__sha256_hex(text, size, sum);
    snprintf(text + size, len + 1 - size, "sum %s\n", sum);
  }
  text[len] = '\0';
  site s;
  memset(&s, 0, sizeof s);
  int ok = bs__site_parse_state(&s, text, len);
  if (ok)
    check_state(&s);
  else
    FUZZ_CHECK(!s.nprev && !s.npfiles && !s.prev && !s.pfiles &&
                   !s.prev_analysis_key[0],
               "a rejected state kept something");
  bs__site_state_release(&s);
  free(text);
}

static void parse_stamps(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  FUZZ_CHECK(text != NULL, "out of memory");
  if (size)
    memcpy(text, data, size);
  text[size] = '\0';
  site s;
  memset(&s, 0, sizeof s);
  if (bs__site_parse_stamps(&s, text, size)) {
    for (size_t i = 1; i < s.npseen; i++)
      FUZZ_CHECK(strcmp(s.pseen[i - 1].id, s.pseen[i].id) < 0,
                 "stamps not sorted or doubled at %zu", i);
    for (size_t i = 0; i < s.npseen; i++)
      FUZZ_CHECK(s.pseen[i].n <= s.pseen[i].cap, "count past capacity");
  } else {
    FUZZ_CHECK(!s.npseen && !s.pseen, "rejected stamps kept something");
  }
  bs__site_state_release(&s);
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  parse_state(data, size, 0);
  parse_state(data, size, 1);
  parse_stamps(data, size);
  /* The input as a name (up to its first NUL), and each of its lines as a
   * token. */
  char *name = malloc(size + 1);
  FUZZ_CHECK(name != NULL, "out of memory");
  if (size)
    memcpy(name, data, size);
  name[size] = '\0';
  round_trip(name);
  for (char *line = name, *next; line; line = next) {
    next = strchr(line, '\n');
    if (next)
      *next++ = '\0';
    one_spelling(line);
  }
  free(name);
  return 0;
}
