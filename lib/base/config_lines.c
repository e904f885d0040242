#include "config_lines.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

void config_lines_init(config_lines_t *it, const char *file, const char *text, size_t len)
{
    *it = (config_lines_t){ .file = file, .text = text != NULL ? text : "", .len = text != NULL ? len : 0 };
}

/* The content of s[0..n): before the comment, without the blanks around it. */
static void content(const char *s, size_t n, const char **ret, size_t *ret_len)
{
    size_t end = n;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '#' && (i == 0 || is_blank(s[i - 1]))) {
            end = i;
            break;
        }
    size_t start = 0;
    while (start < end && is_blank(s[start]))
        start++;
    while (end > start && is_blank(s[end - 1]))
        end--;
    *ret = s + start;
    *ret_len = end - start;
}

static const char *control_in(config_lines_t *it, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f) {
            snprintf(it->problem, sizeof(it->problem), "a control character (0x%02x)", c);
            return it->problem;
        }
    }
    return NULL;
}

bool config_lines_next(config_lines_t *it, config_line_t *ret)
{
    while (it->pos < it->len) {
        const char *s = it->text + it->pos;
        const char *nl = memchr(s, '\n', it->len - it->pos);
        size_t n = nl != NULL ? (size_t)(nl - s) : it->len - it->pos;
        it->pos += n + (nl != NULL ? 1 : 0);
        it->number++;
        if (memchr(s, '\0', n) != NULL) {
            *ret = (config_line_t){ it->number, s, n, "a NUL byte; a config file is text" };
            return true;
        }
        const char *text;
        size_t len;
        content(s, n, &text, &len);
        if (len == 0)
            continue;
        *ret = (config_line_t){ it->number, text, len, control_in(it, text, len) };
        return true;
    }
    return false;
}

int config_line_verror(const config_lines_t *it, const config_line_t *line, as_error_t **err,
                       const char *fmt, va_list ap)
{
    char *msg = NULL;
    int n = vasprintf(&msg, fmt, ap);
    int r = as_error_make(err, n < 0 ? ENOMEM : EINVAL, "%s:%u: %s", it->file, line->number,
                          n < 0 ? "out of memory" : msg);
    free(msg);
    return r;
}

int config_line_error(const config_lines_t *it, const config_line_t *line, as_error_t **err,
                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = config_line_verror(it, line, err, fmt, ap);
    va_end(ap);
    return r;
}

int config_lines_each(const char *file, const char *text, size_t len, config_line_fn fn, void *ctx,
                      as_error_t **err)
{
    config_lines_t it;
    config_line_t line;
    config_lines_init(&it, file, text, len);
    while (config_lines_next(&it, &line)) {
        int r = fn(&it, &line, ctx, err);
        if (r < 0)
            return r;
    }
    return 0;
}

size_t config_line_words(const config_line_t *line, config_word_t *words, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < line->len;) {
        while (i < line->len && is_blank(line->text[i]))
            i++;
        if (i == line->len)
            break;
        size_t start = i;
        while (i < line->len && !is_blank(line->text[i]))
            i++;
        if (n < max)
            words[n] = (config_word_t){ line->text + start, i - start };
        n++;
    }
    return n;
}
