/* benchsite: a logic-less, Mustache-style template engine (SPEC §4.4).
 *
 * Tags: {{name}} (HTML-escaped: & < > " '), {{{name}}} and {{&name}} (raw),
 * {{#name}}...{{/name}} (section), {{^name}}...{{/name}} (inverted section),
 * {{> name}} (partial, the file NAME.html of the template directory),
 * {{! comment }}. Names may be dotted (a.b.c); "." is the current item.
 * A tag alone on its line (sections, comments, partials) removes the line.
 * Unknown names render empty; unbalanced sections, unterminated tags and
 * set-delimiter tags are errors naming the template file and line. */
#ifndef BENCHSITE_TEMPLATE_H
#define BENCHSITE_TEMPLATE_H

#include "benchsite/error.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The data a template renders: a tree of values ---------------------
 *
 * A bs_tdata owns every value in its tree; values are strings, booleans,
 * lists and objects (string keys). Builder calls never fail loudly: when
 * memory runs out, or a call gets a NULL or wrong-kind parent, the call
 * returns NULL and the first failure is remembered, so a page context can
 * be built without checking every call and checked once with
 * bs_tdata_status(). */

typedef struct bs_tdata bs_tdata;
typedef struct bs_tval bs_tval;

/* Returns a tree whose root is an empty object, or NULL (out of memory). */
bs_tdata *bs_tdata_new(void);
/* Frees the tree and every value in it. NULL is a no-op. */
void bs_tdata_free(bs_tdata *d);
/* The root object; never NULL for a live tree. */
bs_tval *bs_tdata_root(bs_tdata *d);
/* BS_OK, or the first failure of a builder call (BS_ENOMEM when memory
 * ran out, BS_EINTERNAL for a NULL or wrong-kind parent). */
bs_status bs_tdata_status(const bs_tdata *d);

/* Object members. Each sets `key` of object `obj` (replacing an earlier
 * value of that key) and returns the new value, or NULL on failure. The
 * key and the string are copied. */
bs_tval *bs_tval_set_str(bs_tval *obj, const char *key, const char *value);
bs_tval *bs_tval_set_strf(bs_tval *obj, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
bs_tval *bs_tval_set_bool(bs_tval *obj, const char *key, int value);
/* An empty object or list. */
bs_tval *bs_tval_set_obj(bs_tval *obj, const char *key);
bs_tval *bs_tval_set_list(bs_tval *obj, const char *key);

/* List items, appended in order; same contract. */
bs_tval *bs_tval_push_str(bs_tval *list, const char *value);
bs_tval *bs_tval_push_obj(bs_tval *list);

/* The number of items of a list or members of an object (0 otherwise). */
size_t bs_tval_size(const bs_tval *v);

/* ---- Templates ---------------------------------------------------------- */

typedef struct bs_templates bs_templates;

/* A set of parsed templates. `dir` (may be NULL: only bs_templates_add)
 * is where bs_templates_load() and partials look for NAME.html; it is
 * copied. Returns NULL when out of memory. */
bs_templates *bs_templates_new(const char *dir);
/* NULL is a no-op. */
void bs_templates_free(bs_templates *t);

/* Parses `text` (len bytes) as template `name`, replacing any template of
 * that name; its partials are loaded from the directory. Names are 1 to 64
 * characters of [A-Za-z0-9_-]. Errors: BS_EUSAGE (bad name), BS_EINPUT
 * (syntax, with the template's path and 1-based line), BS_EIO (a partial
 * cannot be read), BS_ELIMIT, BS_ENOMEM. */
bs_status bs_templates_add(bs_templates *t, const char *name, const char *text,
                           size_t len, bs_error *err);

/* Reads and parses DIR/NAME.html and, recursively, its partials, unless
 * already loaded. Errors as bs_templates_add. */
bs_status bs_templates_load(bs_templates *t, const char *name, bs_error *err);

/* Renders template `name` (loaded on demand) with `ctx` (may be NULL: every
 * name is unknown). On success *out is a malloc'd NUL-terminated string of
 * *len bytes (len may be NULL) that the caller frees; on failure *out is
 * NULL. Errors as bs_templates_load, plus BS_ELIMIT when sections and
 * partials nest deeper than 64. */
bs_status bs_templates_render(bs_templates *t, const char *name,
                              const bs_tval *ctx, char **out, size_t *len,
                              bs_error *err);

#ifdef __cplusplus
}
#endif
#endif
