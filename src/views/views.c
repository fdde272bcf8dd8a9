/* The table of views: each row joins a command and a format to the
 * renderer of that command's result, through a shim that takes the one
 * signature every row has (the analysis, its manifest, the comment's
 * options) and picks out the result the renderer needs. */
#include "benchsite/views.h"

#include "benchsite/json.h"

#include <string.h>

/* The result of a command, or BS_EUSAGE naming what is missing. */
static bs_status missing(const void *result, const char *what, bs_error *err) {
  if (result)
    return BS_OK;
  return bs_error_set(err, BS_EUSAGE, NULL, 0,
                      "cannot render: the analysis has no %s", what);
}

/* A row's renderer: checks that the analysis holds `result`, then makes
 * `call`. */
#define VIEW(name, result, what, call)                                         \
  static bs_status name(const bs_analysis *an, const bs_manifest *env,         \
                        const bs_markdown_options *o, char **out, size_t *len, \
                        bs_error *err) {                                       \
    (void)env;                                                                 \
    (void)o;                                                                   \
    bs_status st = missing(an->result, (what), err);                           \
    return st ? st : (call);                                                   \
  }

VIEW(compare_text, compare, "comparison",
     bs_text_compare(an->compare, env, o, out, len, err))
VIEW(compare_summary, compare, "comparison",
     bs_summary_compare(an->compare, env, o, out, len, err))
VIEW(compare_json, compare, "comparison",
     bs_json_compare(an->compare, env, out, len, err))
VIEW(compare_markdown, compare, "comparison",
     bs_markdown_compare(an->compare, env, o, out, len, err))
VIEW(noise_text, aa, "A/A validation", bs_text_noise(an->aa, out, len, err))
VIEW(noise_summary, aa, "A/A validation",
     bs_summary_noise(an->aa, out, len, err))
VIEW(noise_json, aa, "A/A validation",
     bs_json_noise(an->aa, env, out, len, err))
VIEW(noise_markdown, aa, "A/A validation",
     bs_markdown_noise(an->aa, out, len, err))
VIEW(tune_text, tune, "tuning", bs_text_tune(an->tune, out, len, err))
VIEW(tune_summary, tune, "tuning", bs_summary_tune(an->tune, out, len, err))
VIEW(tune_json, tune, "tuning", bs_json_tune(an->tune, out, len, err))
VIEW(tune_markdown, tune, "tuning", bs_markdown_tune(an->tune, out, len, err))

static const bs_view views[] = {
    {"compare", BS_VIEW_TEXT, compare_text},
    {"compare", BS_VIEW_SUMMARY, compare_summary},
    {"compare", BS_VIEW_JSON, compare_json},
    {"compare", BS_VIEW_MARKDOWN, compare_markdown},
    {"noise", BS_VIEW_TEXT, noise_text},
    {"noise", BS_VIEW_SUMMARY, noise_summary},
    {"noise", BS_VIEW_JSON, noise_json},
    {"noise", BS_VIEW_MARKDOWN, noise_markdown},
    {"tune", BS_VIEW_TEXT, tune_text},
    {"tune", BS_VIEW_SUMMARY, tune_summary},
    {"tune", BS_VIEW_JSON, tune_json},
    {"tune", BS_VIEW_MARKDOWN, tune_markdown},

};

static const struct {
  const char *name;
  int file;
} formats[BS_VIEW_FORMATS] = {
    [BS_VIEW_TEXT] = {"text", 0},
    [BS_VIEW_SUMMARY] = {"summary", 0},
    [BS_VIEW_JSON] = {"json", 1},
    [BS_VIEW_MARKDOWN] = {"markdown", 1},
};

const bs_view *bs_views(size_t *n) {
  *n = sizeof views / sizeof views[0];
  return views;
}

const bs_view *bs_view_find(const char *command, bs_view_format format) {
  if (!command)
    return NULL;
  for (size_t i = 0; i < sizeof views / sizeof views[0]; i++)
    if (views[i].format == format && !strcmp(views[i].command, command))
      return &views[i];
  return NULL;
}

const char *bs_view_format_name(bs_view_format format) {
  return (unsigned)format < BS_VIEW_FORMATS ? formats[format].name : NULL;
}

int bs_view_format_is_file(bs_view_format format) {
  return (unsigned)format < BS_VIEW_FORMATS && formats[format].file;
}
