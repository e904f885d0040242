#include "session_say.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each line of text apart. */
static void lines(const session_say_t *s, say_level_t level, const char *text)
{
    for (const char *line = text; line != NULL && *line != '\0';) {
        const char *nl = strchr(line, '\n');
        size_t len = nl != NULL ? (size_t)(nl - line) : strlen(line);
        char *one = strndup(line, len);
        s->line(level, one != NULL ? one : "(out of memory)", s->ctx);
        free(one);
        line = nl != NULL ? nl + 1 : NULL;
    }
}

void say(const session_say_t *s, say_level_t level, const char *fmt, ...)
{
    if (s == NULL || s->line == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *text = NULL;
    int n = vasprintf(&text, fmt, ap);
    va_end(ap);
    s->line(level, n >= 0 ? text : "(out of memory formatting a message)", s->ctx);
    free(text);
}

void say_error(const session_say_t *s, as_error_t **err)
{
    if (s != NULL && s->line != NULL)
        s->line(SAY_ERROR, *err != NULL && (*err)->msg != NULL ? (*err)->msg : "unknown error", s->ctx);
    as_error_free(err);
}

void say_error_lines(const session_say_t *s, as_error_t **err)
{
    if (s != NULL && s->line != NULL)
        lines(s, SAY_ERROR, *err != NULL && (*err)->msg != NULL ? (*err)->msg : "unknown error");
    as_error_free(err);
}

void say_progress(const session_say_t *s, const char *what)
{
    if (s != NULL && s->progress != NULL)
        s->progress(what, s->ctx);
}
