#include "user_settings.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent_profile.h"
#include "base/config_lines.h"
#include "base/util.h"

static int parse_agent(const config_lines_t *it, const config_line_t *line, const config_word_t *value,
                       user_settings_t *s, as_error_t **err)
{
    _cleanup_free_ char *name = strndup(value->text, value->len);
    if (name == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    if (!agent_name_valid(name))
        return config_line_error(it, line, err, "agent `%.*s` is not an agent's name (lower-case "
                                 "letters, digits and -)", (int)(value->len < 40 ? value->len : 40), value->text);
    free(s->agent);
    s->agent = steal_pointer(&name);
    s->agent_line = line->number;
    return 0;
}

static bool word_is(const config_word_t *w, const char *s)
{
    return w->len == strlen(s) && memcmp(w->text, s, w->len) == 0;
}

/* `KEY on|off` */
static int parse_switch(const config_lines_t *it, const config_line_t *line, const config_word_t *w,
                        bool *ret, as_error_t **err)
{
    if (word_is(&w[1], "on"))
        *ret = true;
    else if (word_is(&w[1], "off"))
        *ret = false;
    else
        return config_line_error(it, line, err, "%.*s is on or off", (int)w[0].len, w[0].text);
    return 0;
}

static int parse_line(const config_lines_t *it, const config_line_t *line, void *ctx,
                      as_error_t **err)
{
    user_settings_t *s = ctx;
    if (line->problem != NULL)
        return config_line_error(it, line, err, "%s", line->problem);
    config_word_t w[3];
    size_t n = config_line_words(line, w, 3);
    if (n != 2)
        return config_line_error(it, line, err, "expected \"KEY VALUE\" (agent NAME, autonomy on|off, "
                                 "git-identity on|off, notifications on|off)");
    if (word_is(&w[0], "agent"))
        return parse_agent(it, line, &w[1], s, err);
    if (word_is(&w[0], "git-identity"))
        return parse_switch(it, line, w, &s->git_identity, err);
    if (word_is(&w[0], "notifications"))
        return parse_switch(it, line, w, &s->notifications, err);
    if (word_is(&w[0], "autonomy"))
        return parse_switch(it, line, w, &s->autonomy, err);
    return config_line_error(it, line, err, "unknown setting `%.*s` (the settings: agent, autonomy, "
                             "git-identity, notifications)",
                             (int)(w[0].len < 40 ? w[0].len : 40), w[0].text);
}

int user_settings_parse(const char *filename, const char *text, size_t len, user_settings_t *ret,
                        as_error_t **err)
{
    user_settings_t s = USER_SETTINGS_DEFAULTS;
    int r = config_lines_each(filename, text, len, parse_line, &s, err);
    if (r < 0) {
        user_settings_clear(&s);
        return r;
    }
    *ret = s;
    return 0;
}

void user_settings_clear(user_settings_t *s)
{
    free(s->agent);
    *s = USER_SETTINGS_DEFAULTS;
}
