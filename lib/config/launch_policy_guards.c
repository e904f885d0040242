/* The hard rules: the places no launch directory may be, hold or sit in,
 * whatever allowed-paths says (docs/launch-policy.md). Each place is a guard,
 * built once from the input and compared with the resolved launch directory. */
#include "launch_policy_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/paths.h"
#include "base/util.h"

/* ---- the guards -------------------------------------------------------- */

static int push_guard(struct ctx *c, const struct guard *tmpl, const char *shown, char *path,
                      as_error_t **err)
{
    char *s = strdup(shown);
    struct guard *g = realloc(c->guards, (c->n_guards + 1) * sizeof(*g));
    if (g != NULL)
        c->guards = g;
    if (s == NULL || g == NULL) {
        free(s);
        free(path);
        return lp_oom(err);
    }
    struct guard *n = &c->guards[c->n_guards++];
    *n = *tmpl;
    n->shown = s;
    n->path = path;
    return 0;
}

/* Guard a place under both its normalized and its resolved form: a symlinked
 * $HOME or ~/.ssh must not hide it from either side. */
static int add_guard(struct ctx *c, launch_policy_rule_t rule, unsigned relations,
                     const char *noun, const char *why, const char *raw, as_error_t **err)
{
    const struct guard tmpl = { .rule = rule, .relations = relations, .noun = noun, .why = why };
    char *lex = NULL, *res = NULL;
    int r = path_normalize(raw, &lex, err);
    if (r < 0)
        return r;
    r = lp_resolve_loose(c, raw, &res, err);
    if (r < 0) {
        free(lex);
        return r;
    }
    /* lex is owned by the first guard from here on, and stays valid. */
    r = push_guard(c, &tmpl, lex, lex, err);
    if (r < 0 || strcmp(lex, res) == 0) {
        free(res);
        return r;
    }
    return push_guard(c, &tmpl, lex, res, err);
}

static int add_home_guard(struct ctx *c, launch_policy_rule_t rule, unsigned relations,
                          const char *noun, const char *why, const char *name, as_error_t **err)
{
    _cleanup_free_ char *p = NULL;
    int r = path_join(c->home_lex, name, &p, err);
    if (r < 0)
        return r;
    return add_guard(c, rule, relations, noun, why, p, err);
}

int lp_build_guards(struct ctx *c, as_error_t **err)
{
    const launch_policy_input_t *in = c->in;
    const unsigned all = REL(PATH_SAME) | REL(PATH_INSIDE) | REL(PATH_CONTAINS);
    int r;

    r = add_guard(c, LAUNCH_POLICY_RULE_HOME_OR_PARENT, REL(PATH_SAME) | REL(PATH_CONTAINS),
                  "your home directory", "so every dotfile and key in it would be exposed",
                  in->home, err);
    if (r < 0)
        return r;

    static const char *const system_dirs[] = { "/run", "/tmp", "/var/tmp", "/proc", "/sys", "/dev" };
    for (size_t i = 0; i < ARRAY_SIZE(system_dirs); i++) {
        r = add_guard(c, LAUNCH_POLICY_RULE_SYSTEM_DIR, REL(PATH_SAME) | REL(PATH_INSIDE),
                      NULL, "a shared or system directory", system_dirs[i], err);
        if (r < 0)
            return r;
    }

    static const struct { const char *name, *why; } secrets[] = {
        { ".ssh",    "which holds your SSH keys" },
        { ".gnupg",  "which holds your GnuPG keys" },
        { ".config", "which holds your applications' settings and tokens" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(secrets); i++) {
        r = add_home_guard(c, LAUNCH_POLICY_RULE_SECRET_DIR, all, NULL, secrets[i].why,
                           secrets[i].name, err);
        if (r < 0)
            return r;
    }

    if (in->xdg_runtime_dir != NULL && in->xdg_runtime_dir[0] != '\0') {
        r = add_guard(c, LAUNCH_POLICY_RULE_RUNTIME_DIR, all, "$XDG_RUNTIME_DIR",
                      "where your session's sockets live", in->xdg_runtime_dir, err);
        if (r < 0)
            return r;
    }

    static const char storage[] = "podman's storage";
    static const char storage_why[] = "which holds every container, image and volume";
    if (in->graphroot != NULL && in->graphroot[0] != '\0') {
        r = add_guard(c, LAUNCH_POLICY_RULE_PODMAN_STORAGE, all, storage, storage_why,
                      in->graphroot, err);
        if (r < 0)
            return r;
    }
    r = add_home_guard(c, LAUNCH_POLICY_RULE_PODMAN_STORAGE, all, storage, storage_why,
                       ".local/share/containers", err);
    if (r < 0)
        return r;

    static const char config[] = "agent-sandbox's config directory";
    static const char config_why[] = "so the agent could rewrite its own policy";
    r = add_guard(c, LAUNCH_POLICY_RULE_CONFIG_DIR, all, config, config_why, in->config_dir, err);
    if (r < 0)
        return r;

    /* Absolute $PATH entries; relative and empty ones are refused outright later. */
    if (in->path_env != NULL) {
        _cleanup_free_ char *copy = strdup(in->path_env);
        if (copy == NULL)
            return lp_oom(err);
        char *save = NULL;
        for (char *e = strtok_r(copy, ":", &save); e != NULL; e = strtok_r(NULL, ":", &save)) {
            if (e[0] != '/')
                continue;
            r = add_guard(c, LAUNCH_POLICY_RULE_PATH_ENTRY, REL(PATH_SAME) | REL(PATH_CONTAINS),
                          NULL, "an entry of $PATH, so the agent could plant programs you later "
                          "run outside the sandbox", e, err);
            if (r < 0)
                return r;
        }
    }
    return 0;
}

/* ---- the rules --------------------------------------------------------- */

/* The first relative or empty $PATH entry, or NULL. *ret_len gets its length. */
static const char *relative_path_entry(const char *path_env, size_t *ret_len)
{
    if (path_env == NULL)
        return NULL;
    const char *p = path_env;
    for (;;) {
        const char *end = strchrnul(p, ':');
        if (p == end || p[0] != '/') {
            *ret_len = (size_t)(end - p);
            return p;
        }
        if (*end == '\0')
            return NULL;
        p = end + 1;
    }
}

/* Whether dir is a top-level dot-directory of home itself, such as ~/.local
 * (one below it may be listed as a root). */
static bool is_home_dot_dir(const char *dir, const char *home)
{
    const char *first = lp_first_component_below(dir, home);
    return first != NULL && first[0] == '.' && strchr(first, '/') == NULL;
}

int lp_check_hard_rules(struct ctx *c, as_error_t **err)
{
    for (size_t i = 0; i < c->n_guards; i++) {
        const struct guard *g = &c->guards[i];
        path_relation_t rel = path_relation(c->dir, g->path);
        if (rel != PATH_UNRELATED && (g->relations & REL(rel)) != 0) {
            int r = lp_refuse_guard(c, g, rel, err);
            return r < 0 ? r : 1;
        }
    }

    size_t len = 0;
    const char *entry = relative_path_entry(c->in->path_env, &len);
    if (entry != NULL) {
        int r = lp_refuse_relative_path_entry(c, entry, len, err);
        return r < 0 ? r : 1;
    }

    if (is_home_dot_dir(c->dir, c->home_res) || is_home_dot_dir(c->dir, c->home_lex)) {
        int r = lp_refuse_home_dot_dir(c, err);
        return r < 0 ? r : 1;
    }
    return 0;
}
