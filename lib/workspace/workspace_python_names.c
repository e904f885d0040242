/* Which names of a tree matter to a virtual environment's python at start
 * (pure, by name alone): the walk stats them at the start of a session
 * (ws_python_relevant), the check after it judges them (workspace_python.c). */
#include "workspace_int.h"
#include "python_env.h"
#include "tool_configs.h"

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

/* The table's venv rows by their name (pip.conf): recorded wherever they
 * are, since the environments are known only once the walk is done. */
static bool venv_config_name(const char *base)
{
    size_t n = 0;
    const tool_config_t *t = tool_configs(&n);
    for (size_t i = 0; i < n; i++)
        if ((t[i].how & TOOL_VENV) && strcmp(t[i].path, base) == 0)
            return true;
    return false;
}

bool ws_python_relevant(const char *path)
{
    const char *base = ws_base_name(path);
    return strcmp(base, "pyvenv.cfg") == 0 || ws_python_customize_name(base) || parent_named(path, "bin") ||
           ws_python_pth_path(path) || venv_config_name(base);
}

/* ---- the verdict by name (python_env.h) --------------------------------- */

const char PYTHON_ENV_PTH[] = "a .pth file of a virtual environment, whose lines python reads when it starts";
const char PYTHON_ENV_CFG[] = "a virtual environment's pyvenv.cfg, which says which python runs and with "
                              "which standard library";
const char PYTHON_ENV_SYSTEM_PYTHON[] = "an interpreter of a virtual environment, a link out of the tree "
                                        "to something else than a python of the system";

#define WHY_CUSTOMIZE "a sitecustomize or usercustomize module of a virtual environment, which python " \
                      "imports when it starts"
#define WHY_ACTIVATE  "an activate script of a virtual environment, which your shell runs when you " \
                      "activate it"
#define WHY_PYTHON    "an interpreter of a virtual environment (changed or re-pointed, it runs " \
                      "something else)"
#define WHY_BIN_MOD   "a Python module in a virtual environment's bin directory, which shadows what " \
                      "the scripts there import (it is first on their sys.path)"
#define WHY_LINK      "a symlink on the way to a virtual environment's bin or site-packages"
#define WHY_CONFIG    "a config file in a virtual environment that a tool run from it reads " \
                      "(tool_configs.table), which chooses where code comes from"

/* "python", "python3", "python3.11": venv's interpreter names. */
static bool python_name(const char *name)
{
    return strncmp(name, "python", 6) == 0 && strspn(name + 6, "0123456789.") == strlen(name + 6);
}

bool python_env_own_bin_name(const char *name)
{
    return python_name(name) || (strncmp(name, "pip", 3) == 0 && strspn(name + 3, "0123456789.") == strlen(name + 3)) ||
           strncmp(name, "activate", 8) == 0 || strcmp(name, "Activate.ps1") == 0;
}

bool python_env_link_shape(const char *sub, const char *target)
{
    if (target == NULL || strncmp(sub, "bin/", 4) != 0 || !python_name(sub + 4))
        return false;
    const char *last = strrchr(target, '/');
    return last == NULL ? python_name(target) : target[0] == '/' && python_name(last + 1);
}

/* An entry of the environment's bin/ (by its name, type and link target). */
static const char *bin_verdict(const char *base, mode_t mode, const char *sub, const char *target)
{
    if (strncmp(base, "activate", 8) == 0 || strcmp(base, "Activate.ps1") == 0)
        return WHY_ACTIVATE;
    if (python_name(base) && S_ISLNK(mode) && target != NULL) {
        if (strchr(target, '/') == NULL && python_name(target))
            return NULL;               /* python -> python3: stays in bin/, judged there */
        return python_env_link_shape(sub, target) ? PYTHON_ENV_SYSTEM_PYTHON : WHY_PYTHON;
    }
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

const char *python_env_verdict(const char *rel, const char *sub, mode_t mode, const char *target)
{
    const char *base = ws_base_name(rel), *why = NULL;
    if (strcmp(base, "pyvenv.cfg") == 0)
        why = PYTHON_ENV_CFG;
    else if (ws_python_customize_name(base))
        why = WHY_CUSTOMIZE;
    else if (strcmp(base, "activate_this.py") == 0)
        why = WHY_ACTIVATE;
    else if (ws_python_pth_path(rel))
        return PYTHON_ENV_PTH;
    else if (venv_config_name(sub))   /* in the root: pip.conf, not bin/pip.conf */
        why = WHY_CONFIG;
    else if (strncmp(sub, "bin/", 4) == 0 && strchr(sub + 4, '/') == NULL)
        return bin_verdict(base, mode, sub, target);
    /* venv's own lib64 -> lib (64-bit POSIX, not macOS) */
    if (why == NULL && S_ISLNK(mode) && strcmp(sub, "lib64") == 0 && target != NULL && strcmp(target, "lib") == 0)
        return NULL;
    if (why == NULL && S_ISLNK(mode) && on_the_way(sub))
        why = WHY_LINK;
    return why;
}

/* The keys venv (Lib/venv/__init__.py) and virtualenv (its creator's
 * pyvenv.cfg) write; those naming a path python uses to find its prefix. */
int python_env_cfg_key(const char *key)
{
    static const char *const plain[] = {
        "include-system-site-packages", "version", "version_info", "implementation", "virtualenv",
        "prompt", "command", "uv",
    };
    static const char *const paths[] = {
        "home", "executable", "base-prefix", "base-exec-prefix", "base-executable",
    };
    for (size_t i = 0; i < ARRAY_SIZE(paths); i++)
        if (strcmp(key, paths[i]) == 0)
            return 2;
    for (size_t i = 0; i < ARRAY_SIZE(plain); i++)
        if (strcmp(key, plain[i]) == 0)
            return 1;
    return 0;
}
