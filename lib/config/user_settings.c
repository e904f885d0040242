#include "user_settings.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent_profile.h"
#include "images/toolchains.h"
#include "base/config_lines.h"
#include "base/strv.h"
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

/* A toolchain's or a derived image's name: lower-case letters, digits,
 * `-` and `_`, starting with a letter or digit (what the image name and the
 * config directory's folder are made from). */
static bool name_valid(const config_word_t *w, size_t max)
{
    if (w->len == 0 || w->len > max || w->text[0] == '-' || w->text[0] == '_')
        return false;
    for (size_t i = 0; i < w->len; i++)
        if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789-_", w->text[i]))
            return false;
    return true;
}

/* `toolchain NAME...` or `toolchain none`; which names this build knows is
 * the caller's to check (the file names the line: user_settings_origin). */
static int parse_toolchains(const config_lines_t *it, const config_line_t *line, const config_word_t *w,
                            size_t n, user_settings_t *s, as_error_t **err)
{
    if (n > USER_SETTINGS_WORDS_MAX + 1)
        return config_line_error(it, line, err, "at most %d toolchains", USER_SETTINGS_WORDS_MAX);
    _cleanup_(strv_freep) char **names = calloc(n, sizeof(char *));
    if (names == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    bool none = n == 2 && word_is(&w[1], "none");
    for (size_t i = 1; i < n && !none; i++) {
        if (!name_valid(&w[i], 32) || word_is(&w[i], "none"))
            return config_line_error(it, line, err, "toolchain `%.*s` is not a toolchain's name (or none "
                                     "alone)", (int)(w[i].len < 40 ? w[i].len : 40), w[i].text);
        if ((names[i - 1] = strndup(w[i].text, w[i].len)) == NULL)
            return as_error_make(err, ENOMEM, "out of memory");
    }
    strv_free(s->toolchains);
    s->toolchains = steal_pointer(&names);
    return 0;
}

/* `image NAME`: an image the user derived (its folder in the config
 * directory is the caller's to find). */
static int parse_image(const config_lines_t *it, const config_line_t *line, const config_word_t *value,
                       user_settings_t *s, as_error_t **err)
{
    if (!name_valid(value, 64))
        return config_line_error(it, line, err, "image `%.*s` is not an image's name (lower-case letters, "
                                 "digits, - and _)", (int)(value->len < 40 ? value->len : 40), value->text);
    char *name = strndup(value->text, value->len);
    if (name == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    free(s->image);
    s->image = name;
    return 0;
}

/* One `KEY VALUE` setting into s. */
static int parse_setting(const config_lines_t *it, const config_line_t *line, user_settings_t *s,
                         as_error_t **err)
{
    config_word_t w[USER_SETTINGS_WORDS_MAX + 2];
    size_t n = config_line_words(line, w, ARRAY_SIZE(w));
    if (n >= 2 && word_is(&w[0], "toolchain"))
        return parse_toolchains(it, line, w, n, s, err);
    if (n != 2)
        return config_line_error(it, line, err, "expected \"KEY VALUE\" (agent NAME, autonomy on|off, "
                                 "git-identity on|off, notifications on|off, review on|off, toolchain NAME..., image NAME)");
    if (word_is(&w[0], "image"))
        return parse_image(it, line, &w[1], s, err);
    if (word_is(&w[0], "agent"))
        return parse_agent(it, line, &w[1], s, err);
    if (word_is(&w[0], "git-identity"))
        return parse_switch(it, line, w, &s->git_identity, err);
    if (word_is(&w[0], "notifications"))
        return parse_switch(it, line, w, &s->notifications, err);
    if (word_is(&w[0], "autonomy"))
        return parse_switch(it, line, w, &s->autonomy, err);
    if (word_is(&w[0], "review"))
        return parse_switch(it, line, w, &s->review, err);
    return config_line_error(it, line, err, "unknown setting `%.*s` (the settings: agent, autonomy, "
                             "git-identity, image, notifications, review, toolchain)",
                             (int)(w[0].len < 40 ? w[0].len : 40), w[0].text);
}

static const user_settings_t defaults = USER_SETTINGS_DEFAULTS;

typedef struct parse_ctx {
    user_settings_t *s;
    const char *launch_dir, *home;
} parse_ctx_t;

/* `in DIR REST`: DIR (quoted or not) into dir with `~/` expanded and
 * trailing slashes dropped; *ret_rest where the setting starts. */
static int parse_in(const config_lines_t *it, const config_line_t *line, const parse_ctx_t *c,
                    char **ret_dir, size_t *ret_rest, as_error_t **err)
{
    const char *t = line->text;
    size_t pos = 2, end;
    while (pos < line->len && (t[pos] == ' ' || t[pos] == '\t'))
        pos++;
    size_t start = pos;
    if (pos < line->len && t[pos] == '"') {
        const char *q = memchr(t + pos + 1, '"', line->len - pos - 1);
        if (q == NULL)
            return config_line_error(it, line, err, "in: the quote of DIR is not closed");
        start = pos + 1, end = (size_t)(q - t), pos = end + 1;
    } else {
        while (pos < line->len && t[pos] != ' ' && t[pos] != '\t')
            pos++;
        end = pos;
    }
    bool tilde = end - start >= 2 && t[start] == '~' && t[start + 1] == '/';
    if (end == start || (t[start] != '/' && !tilde))
        return config_line_error(it, line, err, "in: DIR must be an absolute path or start with ~/ "
                                 "(\"in DIR KEY VALUE\")");
    if (tilde && c->home == NULL)
        return config_line_error(it, line, err, "in: ~/ cannot be expanded (no HOME)");
    if (asprintf(ret_dir, "%s%.*s", tilde ? c->home : "", (int)(end - start - tilde), t + start + tilde) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    size_t n = strlen(*ret_dir);
    while (n > 1 && (*ret_dir)[n - 1] == '/')
        (*ret_dir)[--n] = '\0';
    *ret_rest = pos;
    return 0;
}

/* DIR is the launch directory or one of its parents: a whole-component
 * prefix (`/src/web` is not a parent of `/src/website`). */
static bool dir_contains(const char *dir, const char *launch_dir)
{
    size_t n = strlen(dir);
    if (launch_dir == NULL || strncmp(dir, launch_dir, n) != 0)
        return false;
    return launch_dir[n] == '\0' || launch_dir[n] == '/' || strcmp(dir, "/") == 0;
}

static user_setting_origin_t *origin_of(user_settings_t *s, const config_word_t *key)
{
    for (size_t i = 0; i < s->n_origin; i++)
        if (word_is(key, s->origin[i].key))
            return &s->origin[i];
    return NULL;
}

/* The setting of a line applies when it is at least as specific as the
 * one that set its key so far; one that does not is parsed into a scratch
 * copy, so every line is checked whatever the launch directory. */
static int apply(const config_lines_t *it, const config_line_t *line, parse_ctx_t *c, size_t rank,
                 as_error_t **err)
{
    config_word_t key;
    if (config_line_words(line, &key, 1) == 0)
        return config_line_error(it, line, err, "in DIR: a setting must follow");
    user_setting_origin_t *o = origin_of(c->s, &key);
    if (o == NULL || rank >= o->rank) {
        int r = parse_setting(it, line, c->s, err);
        if (r < 0)
            return r;
        if (o == NULL && c->s->n_origin < USER_SETTINGS_KEYS_MAX && key.len < sizeof(o->key))
            o = &c->s->origin[c->s->n_origin++];
        if (o != NULL)
            *o = (user_setting_origin_t){ .rank = rank, .line = line->number };
        if (o != NULL)
            memcpy(o->key, key.text, key.len);
        return 0;
    }
    user_settings_t scratch = defaults;
    int r = parse_setting(it, line, &scratch, err);
    user_settings_clear(&scratch);
    return r;
}

static int parse_line(const config_lines_t *it, const config_line_t *line, void *ctx, as_error_t **err)
{
    parse_ctx_t *c = ctx;
    if (line->problem != NULL)
        return config_line_error(it, line, err, "%s", line->problem);
    bool in = line->len > 2 && memcmp(line->text, "in", 2) == 0 && (line->text[2] == ' ' || line->text[2] == '\t');
    if (!in)
        return apply(it, line, c, 0, err);
    _cleanup_free_ char *dir = NULL;
    size_t rest = 0;
    int r = parse_in(it, line, c, &dir, &rest, err);
    if (r < 0)
        return r;
    config_line_t setting = { .number = line->number, .text = line->text + rest, .len = line->len - rest };
    if (!dir_contains(dir, c->launch_dir)) {
        user_settings_t scratch = defaults;
        r = parse_setting(it, &setting, &scratch, err);
        user_settings_clear(&scratch);
        return r;
    }
    return apply(it, &setting, c, strlen(dir) + 1, err);
}

int user_settings_parse_at(const char *filename, const char *text, size_t len, const char *launch_dir,
                           const char *home, user_settings_t *ret, as_error_t **err)
{
    user_settings_t s = defaults;
    parse_ctx_t c = { .s = &s, .launch_dir = launch_dir, .home = home };
    int r = config_lines_each(filename, text, len, parse_line, &c, err);
    if (r < 0) {
        user_settings_clear(&s);
        return r;
    }
    *ret = s;
    return 0;
}

int user_settings_parse(const char *filename, const char *text, size_t len, user_settings_t *ret,
                        as_error_t **err)
{
    return user_settings_parse_at(filename, text, len, NULL, NULL, ret, err);
}

const user_setting_origin_t *user_settings_origin(const user_settings_t *s, const char *key)
{
    for (size_t i = 0; i < s->n_origin; i++)
        if (strcmp(s->origin[i].key, key) == 0)
            return &s->origin[i];
    return NULL;
}

void user_settings_clear(user_settings_t *s)
{
    free(s->agent);
    strv_free(s->toolchains);
    free(s->image);
    *s = defaults;
}
