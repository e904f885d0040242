#include "agent_profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config_lines.h"
#include "base/strv.h"
#include "base/util.h"
#include "podman/names.h"

#define ALLOWLIST_DEFAULT "allowed-hosts"
#define ALLOWLIST_DIR "allowed-hosts.d/"

bool agent_name_valid(const char *name)
{
    size_t n = name != NULL ? strlen(name) : 0;
    if (n == 0 || n > AGENT_NAME_MAX || name[0] == '-')
        return false;
    return strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

static bool env_name_valid(const char *s, size_t n)
{
    return n > 0 && !(s[0] >= '0' && s[0] <= '9') &&
           strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") >= n;
}

/* Relative, and no component climbs out: "." and ".." are refused. */
static bool relative_path_valid(const char *s)
{
    if (s[0] == '\0' || s[0] == '/')
        return false;
    for (const char *c = s; *c != '\0';) {
        size_t n = strcspn(c, "/");
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return false;
        c += n;
        c += *c == '/';
    }
    return s[strlen(s) - 1] != '/';
}

/* A project config: relative to the launch directory, one trailing "/"
 * allowed (a directory). */
static bool project_config_valid(const char *s)
{
    size_t n = strlen(s);
    if (n < 2 || s[n - 1] != '/')
        return relative_path_valid(s);
    _cleanup_free_ char *dir = strndup(s, n - 1);
    return dir != NULL && relative_path_valid(dir);
}

typedef enum key_id {
    K_IMAGE, K_COMMAND, K_LOGIN, K_CREDENTIAL, K_ENV, K_TELEMETRY_OFF, K_HOME,
    K_CREDENTIALS_FILE, K_LOGIN_ENV, K_ALLOWLIST, K_PROJECT_CONFIG, K_OPTION, K_SUBCOMMAND,
    K_AUTONOMY_ARGS, K_AUTONOMY_ENV, K_SECRET, K_COUNT,
} key_id_t;

static const struct key {
    key_id_t id;
    const char *name;
    bool repeats;
} keys[] = {
    { K_IMAGE, "image", false },          { K_COMMAND, "command", false },
    { K_LOGIN, "login", false },          { K_CREDENTIAL, "credential", true },
    { K_ENV, "env", true },               { K_TELEMETRY_OFF, "telemetry-off", true },
    { K_HOME, "home", true },             { K_CREDENTIALS_FILE, "credentials-file", false },
    { K_LOGIN_ENV, "login-env", false },  { K_ALLOWLIST, "allowlist", false },
    { K_PROJECT_CONFIG, "project-config", true }, { K_OPTION, "option", true },
    { K_SUBCOMMAND, "subcommand", true },
    { K_AUTONOMY_ARGS, "autonomy-args", false }, { K_AUTONOMY_ENV, "autonomy-env", true },
    { K_SECRET, "secret", true },
};

typedef struct parser {
    const config_lines_t *it;
    const config_line_t *line;
    agent_profile_t *p;
    unsigned seen[K_COUNT];      /* the line each key was first given on */
} parser_t;

#define perr(ps, err, ...) config_line_error((ps)->it, (ps)->line, err, __VA_ARGS__)

/* NAME=VALUE with a variable name the CLI does not set itself. */
static int env_value(parser_t *ps, const char *key, const char *v, as_error_t **err)
{
    const char *eq = strchr(v, '=');
    if (eq == NULL || !env_name_valid(v, (size_t)(eq - v)))
        return perr(ps, err, "%s: expected NAME=VALUE with NAME of letters, digits and _, not "
                    "starting with a digit", key);
    if (eq - v == 4 && strncmp(v, "HOME", 4) == 0)
        return perr(ps, err, "%s: HOME is the sandbox's (%s), not the profile's", key, AGENT_HOME);
    return 0;
}

/* -X, or --name: what the agent takes as an option. */
static bool option_word_valid(const char *v)
{
    static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    size_t n = strlen(v);
    if (n == 2)
        return v[0] == '-' && strchr(alnum, v[1]) != NULL && v[1] != '\0';
    return n > 2 && n <= 64 && strncmp(v, "--", 2) == 0 && strchr(alnum, v[2]) != NULL &&
           strspn(v + 2, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-") == n - 2;
}

/* One word that must be valid for its key; the message says why not. */
static const char *word_problem(key_id_t id, const char *v)
{
    switch (id) {
    case K_IMAGE:
        return image_ref_valid(v) && strpbrk(v, ":@") == NULL
                   ? NULL : "expected an image repository without a tag (the CLI adds its own)";
    case K_CREDENTIAL:
    case K_LOGIN_ENV:
        return env_name_valid(v, strlen(v)) ? NULL : "expected a variable name (letters, digits and _)";
    case K_HOME:
        return relative_path_valid(v) ? NULL : "expected a path relative to the home, without . or ..";
    case K_CREDENTIALS_FILE:
        return relative_path_valid(v) || (strncmp(v, AGENT_LOGIN_DIR "/", sizeof(AGENT_LOGIN_DIR)) == 0 &&
                                          relative_path_valid(v + sizeof(AGENT_LOGIN_DIR)))
                   ? NULL : "expected a path relative to the home, or one in " AGENT_LOGIN_DIR;
    case K_ALLOWLIST:
        return strcmp(v, ALLOWLIST_DEFAULT) == 0 ||
               (strncmp(v, ALLOWLIST_DIR, strlen(ALLOWLIST_DIR)) == 0 &&
                agent_name_valid(v + strlen(ALLOWLIST_DIR)))
                   ? NULL : "expected " ALLOWLIST_DEFAULT " or " ALLOWLIST_DIR "NAME";
    case K_OPTION:
        return option_word_valid(v) ? NULL : "expected -X or --name (letters, digits and -)";
    case K_SUBCOMMAND:
        return v[0] != '-' && agent_name_valid(v) ? NULL : "expected a word of a-z, 0-9 and -";
    case K_PROJECT_CONFIG:
        return project_config_valid(v) ? NULL : "expected a path relative to the launch directory, without . "
                                                "or .. (a trailing / for a directory)";
    default:
        return NULL;
    }
}

/* The value's slot in the profile: a string or a vector. */
static int store(parser_t *ps, key_id_t id, char *value, as_error_t **err)
{
    agent_profile_t *p = ps->p;
    char **one[K_COUNT] = {
        [K_IMAGE] = &p->image, [K_LOGIN] = &p->login, [K_CREDENTIALS_FILE] = &p->credentials_file,
        [K_LOGIN_ENV] = &p->login_env, [K_ALLOWLIST] = &p->allowlist,
    };
    char ***many[K_COUNT] = {
        [K_CREDENTIAL] = &p->credentials, [K_ENV] = &p->env, [K_TELEMETRY_OFF] = &p->telemetry_off,
        [K_HOME] = &p->home, [K_COMMAND] = &p->command, [K_PROJECT_CONFIG] = &p->project_config,
        [K_OPTION] = &p->options, [K_SUBCOMMAND] = &p->subcommands,
        [K_AUTONOMY_ARGS] = &p->autonomy_args, [K_AUTONOMY_ENV] = &p->autonomy_env,
    };
    if (one[id] != NULL) {
        *one[id] = value;
        return 0;
    }
    int r = strv_push(many[id], value);
    free(value);
    return r < 0 ? as_error_make(err, ENOMEM, "out of memory") : 0;
}

/* A placement, parsed as a line of the secrets file is (secret_rules.h). */
static int parse_secret(parser_t *ps, const config_word_t *w, size_t n, as_error_t **err)
{
    if (n > 5)
        return perr(ps, err, "secret: expected VAR HOST PLACEMENT [USER] (docs/secrets.md)");
    _cleanup_free_ char *origin = NULL;
    char *words[4] = {0};
    int r = asprintf(&origin, "%s:%u", ps->it->file, ps->line->number) < 0 ? -ENOMEM : 0;
    for (size_t i = 1; r == 0 && i < n; i++)
        if ((words[i - 1] = strndup(w[i].text, w[i].len)) == NULL)
            r = -ENOMEM;
    r = r == 0 ? secret_rule_add(&ps->p->secrets, origin, (const char *const *)words, n - 1, err)
               : as_error_make(err, ENOMEM, "out of memory");
    for (size_t i = 0; i < ARRAY_SIZE(words); i++)
        free(words[i]);
    return r;
}

/* The value after the key: the rest of the line (login), its words
 * (command), or one word. */
static int parse_value(parser_t *ps, const struct key *k, const config_word_t *w, size_t n,
                       as_error_t **err)
{
    const config_line_t *line = ps->line;
    if (n < 2)
        return perr(ps, err, "%s needs a value", k->name);
    if (k->id == K_SECRET)
        return parse_secret(ps, w, n, err);
    if (k->id == K_LOGIN) {
        char *text = strndup(w[1].text, (size_t)(line->text + line->len - w[1].text));
        return text != NULL ? store(ps, k->id, text, err) : as_error_make(err, ENOMEM, "out of memory");
    }
    if (k->id == K_COMMAND || k->id == K_OPTION || k->id == K_SUBCOMMAND || k->id == K_AUTONOMY_ARGS) {
        for (size_t i = 1; i < n; i++) {
            char *word = strndup(w[i].text, w[i].len);
            const char *problem = word != NULL ? word_problem(k->id, word) : NULL;
            if (problem != NULL) {
                int r = perr(ps, err, "%s `%s`: %s", k->name, word, problem);
                free(word);
                return r;
            }
            int r = word != NULL ? store(ps, k->id, word, err) : as_error_make(err, ENOMEM, "out of memory");
            if (r < 0)
                return r;
        }
        return 0;
    }
    if (n > 2)
        return perr(ps, err, "%s takes one value, not %zu", k->name, n - 1);
    _cleanup_free_ char *v = strndup(w[1].text, w[1].len);
    if (v == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    int r = k->id == K_ENV || k->id == K_TELEMETRY_OFF || k->id == K_AUTONOMY_ENV ? env_value(ps, k->name, v, err) : 0;
    if (r < 0)
        return r;
    const char *problem = word_problem(k->id, v);
    if (problem != NULL)
        return perr(ps, err, "%s `%s`: %s", k->name, v, problem);
    return store(ps, k->id, steal_pointer(&v), err);
}

#define MAX_WORDS 64

static int parse_line(parser_t *ps, as_error_t **err)
{
    const config_line_t *line = ps->line;
    if (line->problem != NULL)
        return perr(ps, err, "%s", line->problem);
    config_word_t w[MAX_WORDS];
    size_t n = config_line_words(line, w, MAX_WORDS);
    if (n > MAX_WORDS)
        return perr(ps, err, "more than %d words", MAX_WORDS - 1);
    for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
        const struct key *k = &keys[i];
        if (w[0].len != strlen(k->name) || memcmp(w[0].text, k->name, w[0].len) != 0)
            continue;
        if (!k->repeats && ps->seen[k->id] != 0)
            return perr(ps, err, "%s is given twice (first on line %u)", k->name, ps->seen[k->id]);
        if (ps->seen[k->id] == 0)
            ps->seen[k->id] = line->number;
        return parse_value(ps, k, w, n, err);
    }
    return perr(ps, err, "unknown key `%.*s` (expected image, command, login, credential, env, "
                "telemetry-off, home, credentials-file, login-env, allowlist, project-config, option, "
                "subcommand, autonomy-args, autonomy-env or secret)",
                (int)(w[0].len < 40 ? w[0].len : 40), w[0].text);
}

/* What the lines say must also hold together. */
static int check_whole(const char *filename, const agent_profile_t *p, as_error_t **err)
{
    const char *missing = p->image == NULL ? "image" : p->command == NULL ? "command"
                        : p->allowlist == NULL ? "allowlist" : NULL;
    if (missing != NULL)
        return as_error_make(err, EINVAL, "%s: no `%s` line", filename, missing);
    bool in_login_dir = p->credentials_file != NULL && p->credentials_file[0] == '/';
    if (p->login_env != NULL && strcmp(p->login_env, "HOME") == 0)
        return as_error_make(err, EINVAL, "%s: login-env HOME: HOME is the sandbox's", filename);
    if (p->login_env != NULL && !in_login_dir)
        return as_error_make(err, EINVAL, "%s: login-env needs a credentials-file in " AGENT_LOGIN_DIR,
                             filename);
    if (p->login_env == NULL && in_login_dir)
        return as_error_make(err, EINVAL, "%s: a credentials-file in " AGENT_LOGIN_DIR " needs "
                             "login-env (the variable that points the agent there)", filename);
    /* a credential is passed only when the user names it: never set here */
    char **const sets[] = { p->env, p->telemetry_off };
    for (size_t k = 0; k < ARRAY_SIZE(sets); k++)
        for (size_t i = 0; sets[k] != NULL && sets[k][i] != NULL; i++) {
            size_t n = strcspn(sets[k][i], "=");
            for (size_t c = 0; p->credentials != NULL && p->credentials[c] != NULL; c++)
                if (strlen(p->credentials[c]) == n && strncmp(sets[k][i], p->credentials[c], n) == 0)
                    return as_error_make(err, EINVAL, "%s: %s is a credential: it is passed only "
                                         "when named (--env), never set by the profile", filename,
                                         p->credentials[c]);
            if (p->login_env != NULL && strlen(p->login_env) == n && strncmp(sets[k][i], p->login_env, n) == 0)
                return as_error_make(err, EINVAL, "%s: %s is set by the CLI (login-env)", filename,
                                     p->login_env);
        }
    return 0;
}

int agent_profile_parse(const char *filename, const char *name, const char *text, size_t len,
                        agent_profile_t **ret, as_error_t **err)
{
    if (!agent_name_valid(name))
        return as_error_make(err, EINVAL, "agent name \"%s\" is not [a-z0-9-] (at most %d)",
                             name != NULL ? name : "", AGENT_NAME_MAX);
    _cleanup_(agent_profile_freep) agent_profile_t *p = calloc(1, sizeof(*p));
    if (p == NULL || (p->name = strdup(name)) == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    config_lines_t it;
    config_line_t line;
    parser_t ps = { .it = &it, .line = &line, .p = p };
    config_lines_init(&it, filename, text, len);
    int r = 0;
    while (r == 0 && config_lines_next(&it, &line))
        r = parse_line(&ps, err);
    if (r == 0)
        r = check_whole(filename, p, err);
    if (r < 0)
        return r;
    *ret = steal_pointer(&p);
    return 0;
}

bool agent_profile_allowlist_is_default(const agent_profile_t *p)
{
    return strcmp(p->allowlist, ALLOWLIST_DEFAULT) == 0;
}

bool agent_profile_has_autonomy(const agent_profile_t *p)
{
    return p->autonomy_args != NULL || p->autonomy_env != NULL;
}

void agent_profile_free(agent_profile_t *p)
{
    if (p == NULL)
        return;
    free(p->name);
    free(p->image);
    strv_free(p->command);
    free(p->login);
    strv_free(p->credentials);
    strv_free(p->env);
    strv_free(p->telemetry_off);
    strv_free(p->home);
    free(p->credentials_file);
    free(p->login_env);
    free(p->allowlist);
    strv_free(p->project_config);
    strv_free(p->options);
    strv_free(p->subcommands);
    strv_free(p->autonomy_args);
    strv_free(p->autonomy_env);
    secret_rules_clear(&p->secrets);
    free(p);
}
