/* After the session: Python modules at the top of the tree that stand in
 * for the host python's. Python run from the top (`python3 -m venv .venv`,
 * the docs' own remedy; a script there; the REPL, which imports readline)
 * puts that directory first on sys.path, so a `json.py`, `readline.py` or
 * `argparse/__init__.py` there is imported instead of the standard
 * library's. The names are computed on the host when the check runs
 * (host_names.h: the host python's sys.stdlib_module_names and every
 * module on its sys.path, and its own import suffixes), not typed in; only
 * what `python3 -m` commonly runs is kept by name (host_names.c), since
 * python imports it from the tree (a namespace package will do) when the
 * host lacks it. A
 * module the session made or changed with such a name is disabled; when
 * the host python cannot answer, every one the session made is. */
#include "workspace_int.h"
#include "host_names.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* The module `it` makes at the top, or NULL; *ret_target: what to
 * disable (the entry; for a package's __init__, the __init__ when its
 * directory was there at the start, else the whole directory: NULL). */
static char *module_of(const workspace_t *ws, const host_names_t *h, const ws_item_t *it, const char **ret_target)
{
    char *m = host_names_top_module(h, it->rel, S_ISDIR(it->mode));
    *ret_target = it->rel;
    if (m != NULL && strchr(it->rel, '/') != NULL && ws_snapshot_find(ws->before, m) == NULL)
        *ret_target = NULL;
    return m;
}

/* Made or changed during the session, still there, not disabled yet. */
static bool news(const workspace_t *ws, const ws_item_t *it, const ws_actions_t *acts)
{
    return (it->what & W_TOP) && !ws_acted_on(acts, it->rel) && ws_changed(ws, it->rel);
}

/* `failed`: why the host python could not be asked (then every module
 * the session made is taken for one of its own), or NULL. */
static int judge(const workspace_t *ws, const host_names_t *h, const char *failed, const ws_item_t *it,
                 ws_actions_t *acts)
{
    const char *target = NULL;
    _cleanup_free_ char *module = module_of(ws, h, it, &target), *why = NULL;
    if (module == NULL || (failed == NULL && !host_names_shadows(h, module)))
        return 0;
    int n = failed != NULL
            ? asprintf(&why, "a Python module at the top of the tree, made or changed during the session; the "
                       "host python's modules could not be listed (%s), so it is taken for one of them", failed)
            : asprintf(&why, "a Python module named %s, like one of the host python's or what python3 -m "
                       "runs, which python run from the top of the tree (python3 -m, a script there, the REPL) "
                       "imports instead", module);
    if (n < 0)
        return -ENOMEM;
    return ws_disable(ws, target != NULL ? target : module, why, acts);
}

int ws_shadow_check(const workspace_t *ws, const workspace_snapshot_t *after, host_names_t *hn, ws_actions_t *acts,
                    as_error_t **err)
{
    bool any = false;
    for (size_t i = 0; i < after->n && !any; i++)
        any = news(ws, &after->v[i], acts);
    if (!any)
        return 0;                          /* nothing to ask the host python about */
    bool found = false;
    as_error_t *e = NULL;
    int r = host_names_python(hn, &found, &e);
    if (r == -ENOMEM) {
        as_error_free(&e);
        return ws_oom(err);
    }
    if (r == 0 && !found)
        return 0;                          /* no python3 on the host: nothing to stand in for */
    _cleanup_free_ char *failed = r < 0 ? strdup(e != NULL ? e->msg : "no answer") : NULL;
    as_error_free(&e);
    if (r < 0 && failed == NULL)
        return ws_oom(err);
    r = 0;
    for (size_t i = 0; i < after->n && r == 0; i++)
        if (news(ws, &after->v[i], acts))
            r = judge(ws, hn, failed, &after->v[i], acts);
    return r == -ENOMEM ? ws_oom(err) : r;
}
