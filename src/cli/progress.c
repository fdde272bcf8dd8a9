/* benchsite: progress lines on standard error (see progress.h). */
#include "progress.h"

#include "benchsite/date.h"

#include "cli.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void cli_progress_init(cli_progress *p, int quiet, double plain_every_s) {
  memset(p, 0, sizeof *p);
  p->quiet = quiet;
  p->tty = isatty(2);
  p->plain_every_s = plain_every_s;
  p->start = p->last = now_s();
}

double cli_progress_elapsed(const cli_progress *p) {
  return now_s() - p->start;
}

/* The terminal's width in columns (80 when it cannot be told). */
static size_t columns(void) {
  struct winsize w;
  if (ioctl(2, TIOCGWINSZ, &w) == 0 && w.ws_col >= 20)
    return w.ws_col;
  return 80;
}

/* Cuts s (valid UTF-8 after escaping) to fewer than `cols` characters, at
 * a character boundary: a line that wraps cannot be rewritten in place. */
static void fit(char *s, size_t cols) {
  size_t chars = 0;
  for (char *c = s; *c; c++) {
    if (((unsigned char)*c & 0xc0) == 0x80)
      continue;
    if (++chars >= cols) {
      *c = '\0';
      return;
    }
  }
}

void cli_progress_show(cli_progress *p, int now, const char *fmt, ...) {
  if (p->quiet || (!p->tty && !(p->plain_every_s > 0)))
    return;
  double t = now_s();
  if (p->tty ? !now && t - p->last < 0.1 : t - p->last < p->plain_every_s)
    return;
  char raw[1024], line[sizeof p->line];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(raw, sizeof raw, fmt, ap);
  va_end(ap);
  bs_text_escape(line, sizeof line, raw, BS_TEXT_LINE_START);
  if (p->tty) {
    fit(line, columns());
    if (p->shown && !strcmp(line, p->line))
      return;
    fprintf(stderr, "\r%s\033[K", line);
    p->shown = 1;
  } else {
    fprintf(stderr, "%s\n", line);
  }
  fflush(stderr);
  memcpy(p->line, line, sizeof line);
  p->last = t;
}

void cli_progress_event(cli_progress *p, const char *fmt, ...) {
  if (p->quiet)
    return;
  char raw[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(raw, sizeof raw, fmt, ap);
  va_end(ap);
  /* Not on a terminal, a line however soon after the last one. */
  double every = p->plain_every_s;
  p->plain_every_s = 1e-9;
  p->last = -1e300;
  cli_progress_show(p, 1, "%s", raw);
  p->plain_every_s = every;
}

void cli_progress_count(cli_progress *p, const char *cmd, const char *what,
                        size_t done, size_t total) {
  if (p->quiet || (!p->tty && !(p->plain_every_s > 0)))
    return;
  double t = now_s();
  if (strcmp(p->stage, what)) {
    snprintf(p->stage, sizeof p->stage, "%s", what);
    p->stage_start = t;
  }
  char spent[32], left[64] = "", d[32];
  double in = t - p->stage_start;
  if (done > 0 && done < total && in >= 1.0)
    snprintf(left, sizeof left, ", about %s left",
             bs_date_duration(d, sizeof d,
                              in * (double)(total - done) / (double)done));
  cli_progress_show(p, done >= total, "benchsite %s: %s %zu/%zu, %s elapsed%s",
                    cmd, what, done, total,
                    bs_date_duration(spent, sizeof spent, t - p->start), left);
}

void cli_progress_end(cli_progress *p) {
  if (!p->shown)
    return;
  fputs("\r\033[K", stderr);
  fflush(stderr);
  p->shown = 0;
}
