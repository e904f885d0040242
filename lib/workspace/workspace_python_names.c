/* Which names of a tree matter to a virtual environment's python at start
 * (pure, by name alone): the walk stats them at the start of a session
 * (ws_python_relevant), the check after it judges them (workspace_python.c). */
#include "workspace_int.h"
#include "python_env.h"

#include <string.h>

#include "base/util.h"

const char *ws_base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s != NULL ? s + 1 : path;
}

/* Is the directory holding path ("a/b/c" or "/a/b/c") named `name`? */
static bool parent_named(const char *path, const char *name)
{
    const char *slash = strrchr(path, '/');
    size_t n = strlen(name);
    if (slash == NULL || (size_t)(slash - path) < n)
        return false;
    const char *p = slash - n;
    return strncmp(p, name, n) == 0 && (p == path || p[-1] == '/');
}

bool ws_has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), l = strlen(suffix);
    return n >= l && strcmp(s + n - l, suffix) == 0;
}

/* sitecustomize or usercustomize: the module, a package, a .py, .pyc, .so... */
bool ws_python_customize_name(const char *base)
{
    static const char *const names[] = { "sitecustomize", "usercustomize" };
    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        size_t l = strlen(names[i]);
        if (strncmp(base, names[i], l) == 0 && (base[l] == '\0' || base[l] == '.'))
            return true;
    }
    return false;
}

bool ws_python_pth_path(const char *path)
{
    return ws_has_suffix(ws_base_name(path), ".pth") &&
           (parent_named(path, "site-packages") || parent_named(path, "dist-packages"));
}

bool ws_python_relevant(const char *path)
{
    const char *base = ws_base_name(path);
    return strcmp(base, "pyvenv.cfg") == 0 || ws_python_customize_name(base) || parent_named(path, "bin") ||
           ws_python_pth_path(path);
}

/* ---- the verdict by name (python_env.h) --------------------------------- */

const char PYTHON_ENV_PTH[] = "a .pth file of a virtual environment, whose lines python reads when it starts";

#define WHY_CFG       "a virtual environment's pyvenv.cfg, which says which python runs and with which " \
                      "standard library"
#define WHY_CUSTOMIZE "a sitecustomize or usercustomize module of a virtual environment, which python " \
                      "imports when it starts"
#define WHY_ACTIVATE  "an activate script of a virtual environment, which your shell runs when you " \
                      "activate it"
#define WHY_PYTHON    "an interpreter of a virtual environment (changed or re-pointed, it runs " \
                      "something else)"
#define WHY_BIN_MOD   "a Python module in a virtual environment's bin directory, which shadows what " \
                      "the scripts there import (it is first on their sys.path)"
#define WHY_LINK      "a symlink on the way to a virtual environment's bin or site-packages"

/* An entry of the environment's bin/ (by its name and type). */
static const char *bin_verdict(const char *base, mode_t mode)
{
    if (strncmp(base, "activate", 8) == 0 || strcmp(base, "Activate.ps1") == 0)
        return WHY_ACTIVATE;
    if (strncmp(base, "python", 6) == 0)
        return WHY_PYTHON;
    if (S_ISDIR(mode) || ws_has_suffix(base, ".py") || ws_has_suffix(base, ".pyc") || ws_has_suffix(base, ".so"))
        return WHY_BIN_MOD;
    return NULL;
}

/* A link python follows to reach bin/ or site-packages: bin itself, or in
 * lib/, lib64/ (Fedora's platlibdir) ... down to lib/pythonX.Y/site-packages. */
static bool on_the_way(const char *sub)
{
    if (strcmp(sub, "bin") == 0)
        return true;
    size_t depth = 1;
    for (const char *c = sub; *c != '\0'; c++)
        depth += *c == '/';
    return (strncmp(sub, "lib", 3) == 0 || strncmp(sub, "Lib", 3) == 0) && depth <= 3;
}

const char *python_env_verdict(const char *rel, const char *sub, mode_t mode)
{
    const char *base = ws_base_name(rel), *why = NULL;
    if (strcmp(base, "pyvenv.cfg") == 0)
        why = WHY_CFG;
    else if (ws_python_customize_name(base))
        why = WHY_CUSTOMIZE;
    else if (strcmp(base, "activate_this.py") == 0)
        why = WHY_ACTIVATE;
    else if (ws_python_pth_path(rel))
        return PYTHON_ENV_PTH;
    else if (strncmp(sub, "bin/", 4) == 0 && strchr(sub + 4, '/') == NULL)
        why = bin_verdict(base, mode);
    if (why == NULL && S_ISLNK(mode) && on_the_way(sub))
        why = WHY_LINK;
    return why;
}
