/* A rendered nginx.conf's maps read back as nginx reads them, for the tests
 * that run the router's request checks with PCRE2 (tests/unit/
 * test_router_query.c, tests/fuzz/fuzz_request_checks.c). Header-only: the
 * unit tests and the fuzz targets are built apart. */
#ifndef AS_NGINX_MAP_H
#define AS_NGINX_MAP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A quoted nginx string as nginx reads it: \" \' \\ drop their backslash,
 * \t \r \n are those bytes, any other backslash stays. *end: after it.
 * NULL when s is no whole quoted string. */
static inline char *nginx_unquote(const char *s, const char **end)
{
    if (*s != '"')
        return NULL;
    char *out = calloc(strlen(s), 1), *o = out;
    if (out == NULL)
        return NULL;
    for (s++; *s != '"'; s++) {
        if (*s == '\0') {
            free(out);
            return NULL;
        }
        if (*s == '\\' && s[1] != '\0' && strchr("\"'\\", s[1]) != NULL)
            *o++ = *++s;
        else if (*s == '\\' && s[1] != '\0' && strchr("trn", s[1]) != NULL)
            *o++ = *++s == 't' ? '\t' : *s == 'r' ? '\r' : '\n';
        else
            *o++ = *s;
    }
    *end = s + 1;
    return out;
}

/* Where the entries of the map that sets `var` start, or NULL. */
static inline const char *nginx_map_entries(const char *conf, const char *var)
{
    char head[128];
    snprintf(head, sizeof(head), " %s {\n", var);
    const char *p = strstr(conf, head);
    return p != NULL ? p + strlen(head) : NULL;
}

#endif
