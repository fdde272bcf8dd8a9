/* What surrounds a gnuplot run (plot.c, site.c): the program resolved
 * before any change of directory, its version asked without any chance of
 * a deadlock or hang, and every SVG it writes checked before it is
 * published. Private. */
#ifndef BENCHSITE_PLOTSAFE_H
#define BENCHSITE_PLOTSAFE_H

#include "benchsite/error.h"

#include <stddef.h>
#include <sys/types.h>

/* gnuplot silent this long (no output, no script taken) is killed. */
#define BS__GNUPLOT_IDLE_MS 120000
/* `gnuplot --version` gets this long. */
#define BS__GNUPLOT_VERSION_MS 10000
/* gnuplot gets this long to exit once its output is closed or it was sent
 * SIGTERM (at most the idle limit). */
#define BS__GNUPLOT_EXIT_MS 10000

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

/* The largest SVG read back from gnuplot (gnuplot's own charts are tens of
 * KiB; the check and the compaction need about 27 bytes of memory per
 * byte, so this bounds them near 450 MB). */
#define BS__SVG_MAX_MIB 16

/* Checks an SVG file gnuplot wrote, with a real XML parser (libxml2, no
 * network, no entity substitution, no DTD loading): it must be at most
 * BS__SVG_MAX_MIB (refused unread above), well-formed XML whose root is
 * <svg>, with no processing instruction (an xml-stylesheet before the root
 * included), no <script>, <style>, <foreignObject> or animation element,
 * no event-handler attribute (on...), no entity declaration, no href
 * pointing outside the document, and no attribute (style="..." or a
 * presentation attribute such as fill, filter, clip-path or mask) with a
 * url() other than a same-document url(#id), a CSS escape or another CSS
 * function that loads an image. Returns BS_OK, or BS_EPLOT with the reason
 * for `path` in err (BS_ENOMEM when out of memory). libxml2 is loaded on
 * the first check (xmlload.h; BS_EPLOT when it cannot be); any thread may
 * check, and checks share nothing. */
bs_status bs__svg_check(const char *path, bs_error *err);

/* Reads the SVG file gnuplot wrote into *data (malloc'd, NUL-terminated;
 * *len its length): BS_EPLOT when it is larger than BS__SVG_MAX_MIB
 * (refused before it is read) or cannot be read, BS_ENOMEM. */
bs_status bs__svg_read(const char *path, char **data, size_t *len,
                       bs_error *err);

/* The same on a document in memory (`name` for messages). */
bs_status bs__svg_check_memory(const char *name, const char *data, size_t len,
                               bs_error *err);

#endif
