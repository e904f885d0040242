/* After the session: Python modules at the top of the tree that stand in
 * for the host python's. Python run from the top (`python3 -m venv .venv`,
 * the docs' own remedy; a script there; the REPL, which imports readline)
 * puts that directory first on sys.path, so a `json.py`, `readline.py` or
 * `argparse/__init__.py` there is imported instead of the standard
 * library's. The names are computed on the host when the check runs
 * (host_names.h: the host python's sys.stdlib_module_names and every
 * module on its sys.path, and its own import suffixes), not typed in; only
 * what `python3 -m` commonly runs is kept by name, since python imports it
 * from the tree (a namespace package will do) when the host lacks it. A
 * module the session made or changed with such a name is disabled; when
 * the host python cannot answer, every one the session made is. */
#include "workspace_int.h"
#include "host_names.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* What `python3 -m NAME` commonly runs, from each one's documentation;
 * also shadowed by a bare directory when the host has no such module. */
static const char *const RUN_WITH_M[] = {
    "pip",              /* https://pip.pypa.io/en/stable/user_guide/#running-pip */
    "setuptools",       /* https://setuptools.pypa.io/: pip and build import it */
    "pkg_resources",    /* setuptools', imported by pip and console scripts */
    "_distutils_hack",  /* setuptools', imported by its distutils-precedence.pth */
    "wheel",            /* https://wheel.readthedocs.io/ (python -m wheel) */
    "virtualenv",       /* https://virtualenv.pypa.io/en/latest/user_guide.html */
    "pipx",             /* https://pipx.pypa.io/stable/installation/ (python3 -m pipx) */
    "build",            /* https://build.pypa.io/en/stable/ (python -m build) */
    "twine",            /* https://twine.readthedocs.io/ (python -m twine) */
    "pytest",           /* https://docs.pytest.org/en/stable/how-to/usage.html (python -m pytest) */
    "black",            /* https://black.readthedocs.io/ (python -m black) */
    "mypy",             /* https://mypy.readthedocs.io/ (python3 -m mypy) */
    "coverage",         /* https://coverage.readthedocs.io/ (python -m coverage) */
    "sitecustomize",    /* https://docs.python.org/3/library/site.html */
    "usercustomize",    /* https://docs.python.org/3/library/site.html */
};

/* Import suffixes every CPython on Linux has: what "module-shaped" means
 * when the host python cannot be asked (fail closed). */
static const char *const FALLBACK_SUFFIXES[] = { ".py", ".pyc", ".so" };

static bool run_with_m(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(RUN_WITH_M); i++)
        if (strcmp(name, RUN_WITH_M[i]) == 0)
            return true;
    return false;
}

/* The module a top-level entry (or an __init__ of a top-level directory)
 * makes, by the host's suffixes, or by the fallback ones when `h` is NULL.
 * *ret_target: what to disable (the entry, or the package's __init__ when
 * its directory was there at the start, else the directory). */
static char *module_of(const workspace_t *ws, const host_names_t *h, const ws_item_t *it, const char **ret_target)
{
    const char *slash = strchr(it->rel, '/');
    *ret_target = it->rel;
    if (slash == NULL) {
        if (S_ISDIR(it->mode))
            return run_with_m(it->rel) ? strdup(it->rel) : NULL;
        if (h != NULL)
            return host_names_module_of(h, it->rel, false);
        for (size_t i = 0; i < ARRAY_SIZE(FALLBACK_SUFFIXES); i++)
            if (ws_has_suffix(it->rel, FALLBACK_SUFFIXES[i]))
                return strndup(it->rel, strlen(it->rel) - strlen(FALLBACK_SUFFIXES[i]));
        return NULL;
    }
    bool init = h != NULL ? host_names_init_file(h, slash + 1) : strncmp(slash + 1, "__init__.", 9) == 0;
    if (!init || S_ISDIR(it->mode))
        return NULL;
    char *pkg = strndup(it->rel, (size_t)(slash - it->rel));
    if (pkg != NULL && ws_snapshot_find(ws->before, pkg) == NULL)
        *ret_target = NULL;                /* the whole package is new: the caller takes the directory */
    return pkg;
}

/* Made or changed during the session, still there, not disabled yet. */
static bool news(const workspace_t *ws, const ws_item_t *it, const ws_actions_t *acts)
{
    return (it->what & W_TOP) && !ws_acted_on(acts, it->rel) && ws_changed(ws, it->rel);
}

static int judge(const workspace_t *ws, const host_names_t *h, const char *failed, const ws_item_t *it,
                 ws_actions_t *acts)
{
    const char *target = NULL;
    _cleanup_free_ char *module = module_of(ws, h, it, &target), *why = NULL;
    if (module == NULL || (failed == NULL && !run_with_m(module) && !host_names_is_module(h, module)))
        return 0;
    int n = failed != NULL
            ? asprintf(&why, "a Python module at the top of the tree, made or changed during the session; the "
                       "host python's modules could not be listed (%s), so it is taken for one of them", failed)
            : host_names_is_module(h, module)
            ? asprintf(&why, "a Python module named like the host python's %s, which python run from the top "
                       "of the tree (python3 -m, a script there, the REPL) imports instead", module)
            : asprintf(&why, "a Python module named like %s, which python3 -m %s run from the top of the tree "
                       "would load instead of the tool's own", module, module);
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
            r = judge(ws, failed != NULL ? NULL : hn, failed, &after->v[i], acts);
    return r == -ENOMEM ? ws_oom(err) : r;
}
