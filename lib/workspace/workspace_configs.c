/* After the session: the default paths frozen only where they exist
 * (if_exists: agents' and editors' project configs, the Gradle wrapper,
 * mise's configs, rustup's toolchain files, pnpm-workspace.yaml), and the
 * top-level names of the table's glob rows (mise.ENV.toml). Where one was missing at the start there was no
 * placeholder, so the agent could create it, and the tool obeys it the
 * next time it starts or opens here: Gemini CLI starts the MCP servers of a
 * new .gemini/settings.json, Dev Containers runs initializeCommand on the
 * host. So what was created (for a directory, the whole of it), or a file
 * that changed, is disabled. .git/commondir is left to ws_git_check, which
 * reads it the way git does. */
#include "workspace_int.h"
#include "tool_configs.h"

#include <stdlib.h>
#include <string.h>

#include "base/paths.h"
#include "base/util.h"

/* A link on the way to the rule's path ("gradle" of gradle/wrapper), made or
 * re-pointed during the session inside the tree: the tool reads through it,
 * so it is disabled. *ret_done: one was. (A link there at the start is put
 * back by ws_chain_check; one leading out is ws_outside_links_check's.) */
static int check_links_on_the_way(const workspace_t *ws, const workspace_snapshot_t *after,
                                  const workspace_rule_t *rule, ws_actions_t *acts, bool *ret_done)
{
    _cleanup_free_ char *prefix = strdup(rule->path), *why = NULL;
    if (prefix == NULL)
        return -ENOMEM;
    *ret_done = false;
    for (char *slash = prefix; (slash = strchr(slash, '/')) != NULL; *slash++ = '/') {
        *slash = '\0';
        const ws_item_t *it = ws_snapshot_find(after, prefix);
        if (it == NULL || !S_ISLNK(it->mode) || ws_acted_on(acts, prefix) || ws_unchanged(ws, prefix))
            continue;
        const char *reader = ws_default_reader(rule->path);
        if (asprintf(&why, "a symlink on the way to %s, a project config of %s, made or re-pointed during "
                     "the session", rule->path, reader != NULL ? reader : "a tool") < 0)
            return -ENOMEM;
        *ret_done = true;
        return ws_disable(ws, prefix, why, acts);
    }
    return 0;
}

static int check_rule(const workspace_t *ws, const workspace_snapshot_t *after, const workspace_rule_t *rule,
                      ws_actions_t *acts)
{
    bool done = false;
    int r = check_links_on_the_way(ws, after, rule, acts, &done);
    if (r < 0 || done)
        return r;
    const ws_item_t *b = ws_snapshot_find(ws->before, rule->path);
    /* A directory there at the start was frozen with all in it. */
    if (b != NULL && S_ISDIR(b->mode))
        return 0;
    /* The walk records the path itself whenever it is in the tree (a link
     * included, never followed: a link out of the tree is another check's). */
    if (ws_snapshot_find(after, rule->path) == NULL || ws_acted_on(acts, rule->path) ||
        ws_unchanged(ws, rule->path))
        return 0;
    const char *reader = ws_default_reader(rule->path);
    _cleanup_free_ char *why = NULL;
    if (asprintf(&why, "a project config of %s, which it obeys when started here, %s during the session",
                 reader != NULL ? reader : "a tool", b == NULL ? "created" : "changed") < 0)
        return -ENOMEM;
    return ws_disable(ws, rule->path, why, acts);
}

/* A top-level name of a glob row (mise.ENV.toml), made or changed during
 * the session: no list of names can freeze those, so they are judged here. */
static int check_glob(const workspace_t *ws, const ws_item_t *it, ws_actions_t *acts)
{
    const tool_config_t *t = strchr(it->rel, '/') == NULL ? tool_config_glob(it->rel) : NULL;
    if (t == NULL || ws_acted_on(acts, it->rel) || ws_unchanged(ws, it->rel))
        return 0;
    _cleanup_free_ char *why = NULL;
    if (asprintf(&why, "a project config of %s, which it obeys when started here, made or changed during the "
                 "session", t->reader) < 0)
        return -ENOMEM;
    return ws_disable(ws, it->rel, why, acts);
}

typedef struct named_check {
    const workspace_t *ws;
    const char *config;      /* the config that names it */
    ws_actions_t *acts;
} named_check_t;

/* Made or changed during the session: recorded at the start and not the
 * same, or not recorded and changed since (its ctime, which no program can
 * set back, of the session). */
static bool changed_in_session(const workspace_t *ws, const char *rel, const struct stat *st)
{
    if (ws_snapshot_find(ws->before, rel) != NULL)
        return !ws_unchanged(ws, rel);
    const struct timespec *t = &ws->before->started;
    return st->st_ctim.tv_sec != t->tv_sec ? st->st_ctim.tv_sec > t->tv_sec : st->st_ctim.tv_nsec >= t->tv_nsec;
}

/* A file a config deeper in the tree names for its tool to run (web's
 * pnpm-workspace.yaml's pnpmfile, a yarnPath): frozen only at the top, so
 * one the session made or changed is disabled. */
static int check_named(void *ctx, const char *path)
{
    named_check_t *c = ctx;
    _cleanup_free_ char *abs = NULL, *norm = NULL, *why = NULL;
    as_error_t *e = NULL;
    struct stat st;
    if (asprintf(&abs, "%s/%s", c->ws->launch_dir, path) < 0)
        return -ENOMEM;
    if (path_normalize(abs, &norm, &e) < 0) {
        as_error_free(&e);
        return 0;
    }
    size_t l = strlen(c->ws->launch_dir);
    if (!path_is_inside(norm, c->ws->launch_dir) || lstat(norm, &st) < 0 || S_ISDIR(st.st_mode))
        return 0;
    const char *rel = norm + l + (strcmp(c->ws->launch_dir, "/") == 0 ? 0 : 1);
    if (ws_acted_on(c->acts, rel) || !changed_in_session(c->ws, rel, &st))
        return 0;
    if (asprintf(&why, "a file that %s names for its tool to run or read, made or changed during the session",
                 c->config) < 0)
        return -ENOMEM;
    return ws_disable(c->ws, rel, why, c->acts);
}

static int check_nested_named(const workspace_t *ws, const ws_item_t *it, ws_actions_t *acts)
{
    if (!(it->what & W_NESTED) || !S_ISREG(it->mode) || !ws_naming_config(it->rel) || ws_acted_on(acts, it->rel))
        return 0;
    /* the config's directory: "web" of web/.npmrc, "sub" of sub/.hg/sharedpath */
    _cleanup_free_ char *dir = strdup(it->rel);
    if (dir == NULL)
        return -ENOMEM;
    char *cut = strstr(dir, "/.hg/sharedpath");
    if (cut == NULL && (cut = strrchr(dir, '/')) == NULL)
        return 0;                        /* at the top: what it names is frozen */
    *cut = '\0';
    named_check_t c = { ws, it->rel, acts };
    return ws_tool_named_files_in(ws->launch_dir, dir, check_named, &c);
}

int ws_configs_check(const workspace_t *ws, const workspace_snapshot_t *after, ws_actions_t *acts,
                     as_error_t **err)
{
    for (size_t i = 0; i < ws->rules->n; i++) {
        const workspace_rule_t *rule = &ws->rules->v[i];
        if (!rule->if_exists || strncmp(rule->path, ".git/", 5) == 0)
            continue;
        if (check_rule(ws, after, rule, acts) < 0)
            return ws_oom(err);
    }
    for (size_t i = 0; i < after->n; i++)
        if (((after->v[i].what & W_TOP) && check_glob(ws, &after->v[i], acts) < 0) ||
            check_nested_named(ws, &after->v[i], acts) < 0)
            return ws_oom(err);
    return 0;
}
