/* The line syntax every config file shares (allowed-hosts, limits,
 * allowed-paths, protected-paths), in one iterator, so the four parsers
 * cannot disagree on it (docs/config-files.md):
 *  - a line ends at \n; blanks (space, tab, CR) around its content are
 *    dropped, so CRLF files work;
 *  - a comment starts at a `#` that begins the line or follows a blank:
 *    `/srv/c#` and `c#sharp` stay paths, `host.com#x` is not a comment;
 *  - a line with nothing but blanks and a comment is skipped;
 *  - a NUL byte anywhere on a line, or a control character other than tab
 *    in its content, makes the line one the parser must refuse.
 * The iterator hands out each line that has content, with its number; the
 * parser decides what the content means and words its own errors
 * ("FILE:LINE: ..."; config_line_error for the plain form). Pure code. */
#ifndef AS_CONFIG_LINES_H
#define AS_CONFIG_LINES_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "error.h"

typedef struct config_line {
    unsigned number;        /* 1-based */
    const char *text;       /* the content (not NUL-terminated); the whole line with a NUL */
    size_t len;             /* > 0 */
    const char *problem;    /* NULL, or why the line must be refused ("a NUL byte", ...) */
} config_line_t;

typedef struct config_lines {
    const char *file;       /* for messages */
    const char *text;
    size_t len, pos;
    unsigned number;
    char problem[40];
} config_lines_t;

/* `text` need not be NUL-terminated and may be NULL when len is 0. */
void config_lines_init(config_lines_t *it, const char *file, const char *text, size_t len);

/* The next line that has content, or one with a problem; false at the end.
 * *ret points into the text (and, for the problem, into the iterator). */
bool config_lines_next(config_lines_t *it, config_line_t *ret);

/* Fills *err with "FILE:LINE: <message>" (EINVAL) and returns -EINVAL
 * (-ENOMEM when out of memory). */
int config_line_error(const config_lines_t *it, const config_line_t *line, as_error_t **err,
                      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int config_line_verror(const config_lines_t *it, const config_line_t *line, as_error_t **err,
                       const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));

/* Calls fn for each line that has content (or a problem), in order; stops
 * at fn's first negative return and returns it. */
typedef int (*config_line_fn)(const config_lines_t *it, const config_line_t *line, void *ctx,
                              as_error_t **err);
int config_lines_each(const char *file, const char *text, size_t len, config_line_fn fn, void *ctx,
                      as_error_t **err);

/* A word of a line's content: blanks separate words. */
typedef struct config_word {
    const char *text;
    size_t len;
} config_word_t;

/* Splits the content into words: the first `max` go into words[]; returns
 * how many there are in all (more than max when the line has more). */
size_t config_line_words(const config_line_t *line, config_word_t *words, size_t max);

#endif
