#include "settings.h"

#include <errno.h>
#include <string.h>

#include "config_lines.h"
#include "util.h"

void settings_defaults(settings_t *ret)
{
    *ret = (settings_t){ .git_identity = true };
}

static bool word_is(const config_word_t *w, const char *s)
{
    return w->len == strlen(s) && memcmp(w->text, s, w->len) == 0;
}

/* on|off */
static int parse_switch(const config_lines_t *it, const config_line_t *line, const char *name,
                        const config_word_t *value, bool *slot, as_error_t **err)
{
    if (word_is(value, "on") || word_is(value, "off")) {
        *slot = word_is(value, "on");
        return 0;
    }
    return config_line_error(it, line, err, "%s takes on or off, not \"%.*s\"", name,
                             (int)(value->len < 64 ? value->len : 64), value->text);
}

static int parse_line(const config_lines_t *it, const config_line_t *line, settings_t *s,
                      as_error_t **err)
{
    if (line->problem != NULL)
        return config_line_error(it, line, err, "%s", line->problem);
    const struct {
        const char *name;
        bool *slot;
    } switches[] = {
        { "git-identity", &s->git_identity },
    };
    config_word_t w[2];
    if (config_line_words(line, w, 2) != 2)
        return config_line_error(it, line, err, "expected \"NAME VALUE\", such as \"git-identity off\"");
    for (size_t i = 0; i < ARRAY_SIZE(switches); i++)
        if (word_is(&w[0], switches[i].name))
            return parse_switch(it, line, switches[i].name, &w[1], switches[i].slot, err);
    return config_line_error(it, line, err, "unknown setting \"%.*s\" (git-identity)",
                             (int)(w[0].len < 64 ? w[0].len : 64), w[0].text);
}

int settings_parse_file(const char *file, const char *text, size_t len, settings_t *s,
                        as_error_t **err)
{
    settings_t next = *s;
    config_lines_t it;
    config_line_t line;
    config_lines_init(&it, file, text, len);
    while (config_lines_next(&it, &line)) {
        int r = parse_line(&it, &line, &next, err);
        if (r < 0)
            return r;
    }
    *s = next;
    return 0;
}
