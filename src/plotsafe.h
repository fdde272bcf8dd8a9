/* What surrounds a gnuplot run (plot.c, site.c): the program resolved
 * before any change of directory, its version asked without any chance of
 * a deadlock or hang, and every SVG it writes checked before it is
 * published. Private. */
#ifndef BENCHSITE_PLOTSAFE_H
#define BENCHSITE_PLOTSAFE_H

#include "benchsite/error.h"

#include <stddef.h>

/* gnuplot silent this long (no output, no script taken) is killed. */
#define BS__GNUPLOT_IDLE_MS 120000
/* `gnuplot --version` gets this long. */
#define BS__GNUPLOT_VERSION_MS 10000

/* The program to start, malloc'd: a relative path with a '/' ("./gp",
 * "bin/gnuplot") made absolute against the current directory, since
 * gnuplot starts in the output directory; anything else (a name searched
 * in PATH, an absolute path) as given. NULL when out of memory. */
char *bs__gnuplot_program(const char *prog);

/* The first line of `prog --version` into buf (n bytes; "" when it does
 * not run or says nothing). Its output is read to the end (however much it
 * prints) and it is killed after BS__GNUPLOT_VERSION_MS. */
void bs__gnuplot_version(const char *prog, char *buf, size_t n);
/* The same with a limit of limit_ms (tests). */
void bs__gnuplot_version_within(const char *prog, char *buf, size_t n,
                                long long limit_ms);

/* Checks an SVG file gnuplot wrote, with a real XML parser (libxml2, no
 * network, no entity substitution, no DTD loading): it must be
 * well-formed XML whose root is <svg>, with no <script> or <foreignObject>
 * element, no event-handler attribute (on...), no entity declaration, and
 * no href pointing outside the document. Returns BS_OK, or BS_EPLOT with
 * the reason for `path` in err (BS_ENOMEM when out of memory). */
bs_status bs__svg_check(const char *path, bs_error *err);

/* Sets libxml2 up; call once before checking SVGs from several threads
 * (the checks themselves share nothing). */
void bs__svg_check_init(void);

/* The same on a document in memory (`name` for messages). */
bs_status bs__svg_check_memory(const char *name, const char *data, size_t len,
                               bs_error *err);

#endif
