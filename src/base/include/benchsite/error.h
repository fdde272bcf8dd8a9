/* benchsite: status codes and the error record every fallible call fills. */
#ifndef BENCHSITE_ERROR_H
#define BENCHSITE_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, message). BS_OK is 0; every other code is an error. */
#define BS_STATUS_MAP(X)                                                       \
  X(OK, "success")                                                             \
  X(EINPUT, "bad input")                                                       \
  X(EUSAGE, "bad usage")                                                       \
  X(EMISMATCH, "mismatched pairs")                                             \
  X(ELIMIT, "limit exceeded")                                                  \
  X(ENOMEM, "out of memory")                                                   \
  X(EIO, "input/output error")                                                 \
  X(EPLOT, "chart rendering failed")                                           \
  X(EINTERNAL, "internal error")

typedef enum bs_status {
#define BS_STATUS_ENUM(name, msg) BS_##name,
  BS_STATUS_MAP(BS_STATUS_ENUM)
#undef BS_STATUS_ENUM
      BS_STATUS_COUNT
} bs_status;

/* Where and why a call failed. Plain storage: filling it never allocates.
 * `line` and `column` are 1-based; 0 means "not known". */
typedef struct bs_error {
  bs_status status;
  char path[512];
  long line;
  long column;
  char message[768];
} bs_error;

/* Returns a static description of `status` ("bad input"); never NULL. */
const char *bs_strerror(bs_status status);

/* Resets `err` to BS_OK with empty fields. NULL is allowed (no-op). */
void bs_error_clear(bs_error *err);

/* Records an error and returns `status`, so callers can write
 * `return bs_error_set(err, BS_EINPUT, path, line, "...", ...)`.
 * `err` may be NULL (the status is still returned); `path` may be NULL.
 * The message is printf-formatted and truncated to fit. */
bs_status bs_error_set(bs_error *err, bs_status status, const char *path,
                       long line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Writes "path:line: message" (or "path: message", or "message") into
 * buf (always NUL-terminated when n > 0). Returns the full length. */
size_t bs_error_format(const bs_error *err, char *buf, size_t n);

/* ---- Text for a terminal or a CI log ------------------------------------
 *
 * Untrusted text (names, paths, manifest values) printed to a terminal or
 * a CI log must not change the terminal (escape sequences), start a new
 * line, or be taken as a command by the CI system: GitHub Actions runs a
 * line that starts with "::" (after blanks), such as "::add-mask::" or
 * "::stop-commands::", and one holding "##[". */

/* `s` starts a line of output: its leading blank, ':' or '#' is escaped
 * too, so that no line can begin with a workflow command. */
#define BS_TEXT_LINE_START 1

/* Writes `s` into out (n bytes; NUL-terminated when n > 0) as one safe
 * line: every byte that is not part of valid UTF-8, every C0 control (tab
 * and line ends included), DEL, every C1 control (U+0080..U+009F) and the
 * line and paragraph separators U+2028/U+2029 and the bidirectional
 * formatting characters (U+061C, U+200E, U+200F, U+202A..U+202E,
 * U+2066..U+2069) as "\xNN" per byte; the
 * first '#' of "##[" as "\x23"; with BS_TEXT_LINE_START a leading ' ',
 * ':' or '#' as "\xNN". Other text, backslashes included, is copied. An
 * escape or a character is never cut: when out is too small the text ends
 * early. Returns the length the whole text needs (without the NUL), as
 * snprintf does. */
size_t bs_text_escape(char *out, size_t n, const char *s, int flags);

#ifdef __cplusplus
}
#endif
#endif
