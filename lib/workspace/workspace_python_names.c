/* Which names of a tree matter to a virtual environment's python at start
 * (pure, by name alone): the walk stats them at the start of a session
 * (ws_python_relevant), the check after it judges them (workspace_python.c). */
#include "workspace_int.h"

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
