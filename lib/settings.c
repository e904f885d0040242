#include "settings.h"

#include <errno.h>
#include <string.h>

#include "config_lines.h"
#include "util.h"

void settings_defaults(settings_t *ret)
{
    *ret = (settings_t){ .notifications = true };
}

/* Each setting: its name, and where its on/off goes. */
static bool *switch_of(settings_t *s, const config_word_t *name)
{
    static const char *const names[] = { "notifications" };
    bool *fields[] = { &s->notifications };
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        if (name->len == strlen(names[i]) && memcmp(name->text, names[i], name->len) == 0)
            return fields[i];
    return NULL;
}

static bool word_is(const config_word_t *w, const char *s)
{
    return w->len == strlen(s) && memcmp(w->text, s, w->len) == 0;
}

static int parse_setting(const config_lines_t *it, const config_line_t *line, void *ctx,
                         as_error_t **err)
{
    config_word_t w[2];
    bool *field = NULL;
    if (line->problem != NULL)
        return config_line_error(it, line, err, "%s", line->problem);
    if (config_line_words(line, w, 2) != 2)
        return config_line_error(it, line, err, "expected a setting and its value "
                                 "(notifications off)");
    if ((field = switch_of(ctx, &w[0])) == NULL)
        return config_line_error(it, line, err, "`%.*s` is not a setting (known: notifications)",
                                 (int)(w[0].len > 60 ? 60 : w[0].len), w[0].text);
    if (word_is(&w[1], "on"))
        *field = true;
    else if (word_is(&w[1], "off"))
        *field = false;
    else
        return config_line_error(it, line, err, "%.*s is on or off", (int)w[0].len, w[0].text);
    return 0;
}

int settings_parse(const char *filename, const char *text, size_t len, settings_t *s,
                   as_error_t **err)
{
    return config_lines_each(filename, text, len, parse_setting, s, err);
}
