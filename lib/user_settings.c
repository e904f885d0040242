#include "user_settings.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent_profile.h"
#include "config_lines.h"
#include "util.h"

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

static int parse_line(const config_lines_t *it, const config_line_t *line, user_settings_t *s,
                      as_error_t **err)
{
    if (line->problem != NULL)
        return config_line_error(it, line, err, "%s", line->problem);
    config_word_t w[3];
    size_t n = config_line_words(line, w, 3);
    if (n != 2)
        return config_line_error(it, line, err, "expected \"KEY VALUE\" (agent NAME)");
    if (w[0].len == 5 && memcmp(w[0].text, "agent", 5) == 0)
        return parse_agent(it, line, &w[1], s, err);
    return config_line_error(it, line, err, "unknown setting `%.*s` (the settings: agent)",
                             (int)(w[0].len < 40 ? w[0].len : 40), w[0].text);
}

int user_settings_parse(const char *filename, const char *text, size_t len, user_settings_t *ret,
                        as_error_t **err)
{
    user_settings_t s = {0};
    config_lines_t it;
    config_line_t line;
    config_lines_init(&it, filename, text, len);
    while (config_lines_next(&it, &line)) {
        int r = parse_line(&it, &line, &s, err);
        if (r < 0) {
            user_settings_clear(&s);
            return r;
        }
    }
    *ret = s;
    return 0;
}

void user_settings_clear(user_settings_t *s)
{
    free(s->agent);
    s->agent = NULL;
    s->agent_line = 0;
}
