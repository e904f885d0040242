#include "request_rules.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config_lines.h"
#include "base/hostname.h"

void request_rules_clear(request_rules_t *rules)
{
    for (size_t i = 0; rules != NULL && i < rules->n; i++) {
        free(rules->rules[i].host);
        free(rules->rules[i].origin);
    }
    if (rules != NULL) {
        free(rules->rules);
        *rules = (request_rules_t){0};
    }
}

static int add(request_rules_t *rules, const char *host, size_t host_len, const char *origin,
               as_error_t **err)
{
    request_rule_t r = { .host = strndup(host, host_len), .origin = strdup(origin) };
    request_rule_t *more = r.host != NULL && r.origin != NULL
                               ? reallocarray(rules->rules, rules->n + 1, sizeof(*more)) : NULL;
    if (more == NULL) {
        free(r.host);
        free(r.origin);
        return as_error_make(err, ENOMEM, "out of memory");
    }
    rules->rules = more;
    rules->rules[rules->n++] = r;
    return 0;
}

static int parse_line(const config_lines_t *it, const config_line_t *line, void *ctx, as_error_t **err)
{
    request_rules_t *rules = ctx;
    if (line->problem != NULL)
        return config_line_error(it, line, err, "%s", line->problem);
    config_word_t w[3];
    if (config_line_words(line, w, 3) != 2)
        return config_line_error(it, line, err, "a request rule is HOST read-only (docs/secrets.md)");
    _cleanup_free_ char *host = strndup(w[0].text, w[0].len);
    if (host == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    if (!hostname_is_canonical(host))
        return config_line_error(it, line, err, "\"%s\" is not a host name (lower case, no port, "
                                 "no wildcard)", host);
    if (w[1].len != 9 || strncmp(w[1].text, "read-only", 9) != 0)
        return config_line_error(it, line, err, "\"%.*s\" is not a rule (read-only is the only one)",
                                 (int)w[1].len, w[1].text);
    for (size_t i = 0; i < rules->n; i++)
        if (strcmp(rules->rules[i].host, host) == 0)
            return config_line_error(it, line, err, "%s already has a rule (%s)", host,
                                     rules->rules[i].origin);
    _cleanup_free_ char *origin = NULL;
    if (asprintf(&origin, "%s:%u", it->file, line->number) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    return add(rules, host, strlen(host), origin, err);
}

int request_rules_parse(request_rules_t *rules, const char *file, const char *text, size_t len,
                        as_error_t **err)
{
    return config_lines_each(file, text, len, parse_line, rules, err);
}
