/* After the session: the default paths frozen only where they exist
 * (if_exists: agents' and editors' project configs, the Gradle wrapper,
 * mise's configs). Where one was missing at the start there was no
 * placeholder, so the agent could create it, and the tool obeys it the
 * next time it starts or opens here: Gemini CLI starts the MCP servers of a
 * new .gemini/settings.json, Dev Containers runs initializeCommand on the
 * host. So what was created (for a directory, the whole of it), or a file
 * that changed, is disabled. .git/commondir is left to ws_git_check, which
 * reads it the way git does. */
#include "workspace_int.h"

#include <stdlib.h>
#include <string.h>

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
    return 0;
}
