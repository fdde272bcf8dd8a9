/* Progress of long work on standard error, one module for every command
 * (run, report, site). On a terminal one line is rewritten in place (at
 * most ten times a second, cut to the terminal's width, cleared at the
 * end); otherwise, when the command asks for it, a plain line at most
 * every so many seconds, so a CI log shows that the work goes on without
 * filling up. Standard output is never touched. Every line goes through
 * bs_text_escape: names in it cannot move the cursor or start a line. */
#ifndef BENCHSITE_CLI_PROGRESS_H
#define BENCHSITE_CLI_PROGRESS_H

#include <stddef.h>

typedef struct cli_progress {
  int quiet;            /* print nothing */
  int tty;              /* standard error is a terminal */
  double plain_every_s; /* not a terminal: a plain line this often, 0: none */
  double start;         /* when the work began (CLOCK_MONOTONIC seconds) */
  double last;          /* when the last line was shown */
  int shown;            /* a terminal line is up, to be cleared */
  char line[512];       /* the last line shown */
  char stage[64];       /* cli_progress_count: the stage counted */
  double stage_start;   /* when it began */
} cli_progress;

/* Starts the clock. `quiet` (--quiet) silences everything;
 * `plain_every_s` as in the struct. */
void cli_progress_init(cli_progress *p, int quiet, double plain_every_s);
/* Shows the printf-formatted line (without "\n"). On a terminal it
 * replaces the line that is up, unless it is the same text or less than
 * 0.1 s has passed since the last one (`now` set: show it anyway, e.g.
 * the last step of a stage); elsewhere it is printed as a line of its own
 * when plain_every_s have passed since the last (or the start). */
void cli_progress_show(cli_progress *p, int now, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Shows the printf-formatted line at once, on a terminal (in place) or
 * not (a line of its own): a step worth its line in a CI log, such as a
 * bisection's next probe. Silent when quiet. */
void cli_progress_event(cli_progress *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* One stage of counted work, "benchsite CMD: WHAT DONE/TOTAL, 0:12
 * elapsed, about 0:18 left" (the time left from this stage's own pace,
 * once it has run a second): a new WHAT starts a new count, so each
 * stage counts once from 0 to its total. Shown as cli_progress_show,
 * its last step (done == total) on a terminal at once. */
void cli_progress_count(cli_progress *p, const char *cmd, const char *what,
                        size_t done, size_t total);
/* Clears the terminal line, if one is up. */
void cli_progress_end(cli_progress *p);
/* Seconds since cli_progress_init. */
double cli_progress_elapsed(const cli_progress *p);

#endif
