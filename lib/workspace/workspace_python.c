/* After the session: Python virtual environments in the tree. Host python
 * run from one (.venv/bin/python, its pip, `. .venv/bin/activate`) reads, at
 * start and without anyone choosing to run the project's code: pyvenv.cfg
 * (which python runs, with which stdlib), every .pth file of its
 * site-packages (site.py runs a line that starts with `import` and adds the
 * directory each other line names to sys.path), sitecustomize and
 * usercustomize, and the scripts and modules beside the interpreter in bin/
 * (sys.path[0] for a script there). What of that is new or changed since the
 * start is disabled; what a plain `pip install` of a wheel writes (a package
 * directory, its dist-info, console scripts without a suffix) is not. See
 * "Python environments" in docs/workspace-protection.md. */
#include "workspace_int.h"
#include "python_env.h"
#include "host_names.h"
#include "link_resolve.h"

#include <limits.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file_read.h"
#include "base/paths.h"
#include "base/strv.h"
#include "base/util.h"

#define PTH_MAX (1024 * 1024)

#define WHY_PTH_EXEC  "a .pth file with a line python runs when it starts (import ...)"
#define WHY_PTH_PATH  "a .pth file naming a directory outside its site-packages, which python puts on " \
                      "sys.path when it starts"
#define WHY_PTH_READ  "a .pth file that cannot be read (not a regular file, unreadable or over 1 MiB), " \
                      "which python would read when it starts"
#define WHY_PTH_TEXT  "a .pth file that is not plain ASCII text, which python versions split and " \
                      "decode differently"

/* ---- the environments ------------------------------------------------- */

/* Adds the directory of each pyvenv.cfg in s (a file or a link: python
 * follows one) to *roots, once. */
static int add_roots(const workspace_snapshot_t *s, char ***roots)
{
    for (size_t i = 0; s != NULL && i < s->n; i++) {
        const ws_item_t *it = &s->v[i];
        if (!(it->what & W_PYTHON) || strcmp(ws_base_name(it->rel), "pyvenv.cfg") != 0 ||
            !(S_ISREG(it->mode) || S_ISLNK(it->mode)))
            continue;
        _cleanup_free_ char *dir = strdup(it->rel);
        if (dir == NULL)
            return -ENOMEM;
        char *slash = strrchr(dir, '/');
        if (slash != NULL)
            *slash = '\0';
        const char *root = slash != NULL ? dir : ".";
        if (!strv_contains(*roots, root) && strv_push(roots, root) < 0)
            return -ENOMEM;
    }
    return 0;
}

/* rel below root: the part after it, or NULL when rel is not inside. */
static const char *below(const char *root, const char *rel)
{
    if (strcmp(root, ".") == 0)
        return rel;
    size_t l = strlen(root);
    return strncmp(rel, root, l) == 0 && rel[l] == '/' ? rel + l + 1 : NULL;
}

int ws_python_roots(const workspace_t *ws, const workspace_snapshot_t *after, char ***ret)
{
    /* An environment of the start counts even if its pyvenv.cfg is gone:
     * its activate script still runs when sourced. */
    _cleanup_(strv_freep) char **roots = NULL;
    int r = add_roots(ws->before, &roots);
    if (r == 0)
        r = add_roots(after, &roots);
    if (r == 0)
        *ret = steal_pointer(&roots);
    return r;
}

const char *ws_python_sub(char *const *roots, const char *rel)
{
    const char *best = NULL;
    for (size_t i = 0; roots != NULL && roots[i] != NULL; i++) {
        const char *sub = below(roots[i], rel);
        if (sub != NULL && (best == NULL || strlen(sub) < strlen(best)))
            best = sub;
    }
    return best;
}

/* ---- .pth files --------------------------------------------------------- */

/* Only printable ASCII, tabs and line ends: python 3.11 reads a .pth in the
 * locale's encoding and splits it at \n and \r, 3.13 decodes UTF-8 first
 * and also splits at \v, \f, \x1c-\x1e, U+0085, U+2028 and U+2029, so a
 * comment line could hide an import line from one of them. */
static bool plain_text(const char *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t[i];
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c >= 0x7f)
            return false;
    }
    return true;
}

/* Does a path line lead outside the site directory `site` (absolute and
 * physical)? site.py joins it to the site directory and normalizes it by
 * name; a link inside could still lead out. */
static int leads_outside(const char *site, const char *line, size_t n, bool *ret)
{
    _cleanup_free_ char *joined = NULL, *norm = NULL, *real = NULL, *real_site = NULL;
    if ((line[0] == '/' ? asprintf(&joined, "%.*s", (int)n, line)
                        : asprintf(&joined, "%s/%.*s", site, (int)n, line)) < 0)
        return -ENOMEM;
    as_error_t *e = NULL;
    if (path_normalize(joined, &norm, &e) < 0) {
        as_error_free(&e);
        return -ENOMEM;
    }
    path_relation_t rel = path_relation(norm, site);
    *ret = true;
    if (rel != PATH_SAME && rel != PATH_INSIDE)
        return 0;
    if ((real = realpath(norm, NULL)) == NULL) {
        *ret = errno != ENOENT;      /* python adds only what exists */
        return errno == ENOMEM ? -ENOMEM : 0;
    }
    if ((real_site = realpath(site, NULL)) == NULL)
        return errno == ENOMEM ? -ENOMEM : 0;
    rel = path_relation(real, real_site);
    *ret = rel != PATH_SAME && rel != PATH_INSIDE;
    return 0;
}

/* One line, as site.py's addpackage() takes it. */
static int pth_line(const char *site, const char *s, size_t n, const char **ret_why)
{
    size_t b = 0;
    while (b < n && (s[b] == ' ' || s[b] == '\t'))
        b++;
    if (b == n || s[0] == '#')
        return 0;
    if (n > 6 && memcmp(s, "import", 6) == 0 && (s[6] == ' ' || s[6] == '\t')) {
        *ret_why = WHY_PTH_EXEC;
        return 0;
    }
    while (s[n - 1] == ' ' || s[n - 1] == '\t')
        n--;
    bool out = false;
    int r = leads_outside(site, s, n, &out);
    if (r == 0 && out)
        *ret_why = WHY_PTH_PATH;
    return r;
}

static int pth_text(const char *site, const char *t, size_t n, const char **ret_why)
{
    if (n >= 3 && memcmp(t, "\xef\xbb\xbf", 3) == 0) {   /* 3.13 drops it (utf-8-sig) */
        t += 3;
        n -= 3;
    }
    if (!plain_text(t, n)) {
        *ret_why = WHY_PTH_TEXT;
        return 0;
    }
    for (size_t i = 0; i < n && *ret_why == NULL;) {
        size_t e = i;
        while (e < n && t[e] != '\n' && t[e] != '\r')
            e++;
        int r = pth_line(site, t + i, e - i, ret_why);
        if (r < 0)
            return r;
        i = e + (e + 1 < n && t[e] == '\r' && t[e + 1] == '\n' ? 2 : 1);
    }
    return 0;
}

/* Reads the .pth at rel (never through a link): *ret_why says what is
 * wrong with it, or stays NULL. */
static int pth_check(const workspace_t *ws, const char *rel, const char **ret_why)
{
    _cleanup_free_ char *abs = NULL, *text = NULL;
    if (asprintf(&abs, "%s/%s", ws->launch_dir, rel) < 0)
        return -ENOMEM;
    _cleanup_close_ int fd = open(abs, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    size_t len = 0;
    int r = fd < 0 || fstat(fd, &st) < 0 ? -errno : !S_ISREG(st.st_mode) ? -EINVAL
          : read_fd_bounded(fd, PTH_MAX, &text, &len);
    if (r == -ENOMEM)
        return r;
    if (r < 0) {
        *ret_why = WHY_PTH_READ;
        return 0;
    }
    *strrchr(abs, '/') = '\0';
    return pth_text(abs, text, len, ret_why);
}

/* ---- pyvenv.cfg --------------------------------------------------------- */

/* A path value of a pyvenv.cfg: absolute, leading out of the tree to the
 * system (root's, not writable by us). */
static bool system_path(const workspace_t *ws, const char *v, size_t n)
{
    _cleanup_free_ char *p = strndup(v, n), *end = NULL, *norm = NULL;
    as_error_t *e = NULL;
    link_end_t how;
    if (p == NULL || p[0] != '/' || link_resolve(p, NULL, &end, &how, &e) < 0 || how != LINK_FOUND ||
        path_normalize(end, &norm, &e) < 0) {
        as_error_free(&e);
        return false;
    }
    return !ws_in_tree(ws, norm) && link_system_file(norm);
}

/* One "key = value" line as venv writes it. */
static bool cfg_line(const workspace_t *ws, const char *s, size_t n)
{
    const char *eq = memchr(s, '=', n);
    if (eq == NULL)
        return false;
    size_t kl = (size_t)(eq - s), vb = kl + 1;
    while (kl > 0 && (s[kl - 1] == ' ' || s[kl - 1] == '\t'))
        kl--;
    while (vb < n && (s[vb] == ' ' || s[vb] == '\t'))
        vb++;
    while (n > vb && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    char key[64];
    if (kl == 0 || kl >= sizeof(key))
        return false;
    memcpy(key, s, kl);
    key[kl] = '\0';
    int kind = python_env_cfg_key(key);
    return kind == 1 || (kind == 2 && system_path(ws, s + vb, n - vb));
}

/* Is the pyvenv.cfg at rel the shape venv writes: plain text, known keys,
 * every path python uses (home, base prefixes and executables) one of the
 * system's? Then a python of the system runs, with its own library. */
static int cfg_venv_shape(const workspace_t *ws, const char *rel, bool *ret)
{
    _cleanup_free_ char *abs = NULL, *text = NULL;
    size_t len = 0;
    as_error_t *e = NULL;
    *ret = false;
    if (asprintf(&abs, "%s/%s", ws->launch_dir, rel) < 0)
        return -ENOMEM;
    int r = config_file_read(AT_FDCWD, abs, CONFIG_NOFOLLOW, PTH_MAX, &text, &len, &e);
    as_error_free(&e);
    if (r < 0)
        return r == -ENOMEM ? r : 0;
    if (!plain_text(text, len))
        return 0;
    for (size_t i = 0; i < len;) {
        size_t end = i;
        while (end < len && text[end] != '\n')
            end++;
        size_t b = i;
        while (b < end && (text[b] == ' ' || text[b] == '\t' || text[b] == '\r'))
            b++;
        if (b < end && text[b] != '#' && !cfg_line(ws, text + b, end - b))
            return 0;
        i = end + 1;
    }
    *ret = true;
    return 0;
}

/* ---- what runs ---------------------------------------------------------- */

/* Why the new or changed entry `it`, at `sub` below its environment, is
 * to be disabled; *ret_why stays NULL when it is harmless. */
static int verdict(const workspace_t *ws, const ws_item_t *it, const char *sub, const char **ret_why)
{
    *ret_why = python_env_verdict(it->rel, sub, it->mode, it->link);
    if (*ret_why == PYTHON_ENV_PTH) {
        *ret_why = NULL;
        return pth_check(ws, it->rel, ret_why);
    }
    if (*ret_why == PYTHON_ENV_SYSTEM_PYTHON) {
        _cleanup_free_ char *abs = NULL;
        if (asprintf(&abs, "%s/%s", ws->launch_dir, it->rel) < 0)
            return -ENOMEM;
        if (system_path(ws, abs, strlen(abs)))
            *ret_why = NULL;
        return 0;
    }
    if (*ret_why == PYTHON_ENV_CFG && S_ISREG(it->mode)) {
        bool shape = false;
        int r = cfg_venv_shape(ws, it->rel, &shape);
        if (shape)
            *ret_why = NULL;
        return r;
    }
    return 0;
}

/* A new entry of an environment's bin/ named like a command on the host's
 * PATH: once the environment is activated (an editor's terminal does it),
 * `git status` runs it instead. The environment's own names stay. */
static int shadows_command(const ws_item_t *it, const char *sub, host_names_t *hn, char **ret_why)
{
    const char *name = sub + 4;
    _cleanup_free_ char *where = NULL;
    *ret_why = NULL;
    if (strncmp(sub, "bin/", 4) != 0 || strchr(name, '/') != NULL || S_ISDIR(it->mode) ||
        python_env_own_bin_name(name))
        return 0;
    int r = host_names_command(hn, name, &where);
    if (r < 0 || where == NULL)
        return r;
    return asprintf(ret_why, "an entry of a virtual environment's bin named like the host command %s (%s), "
                    "which runs instead of it once the environment is activated", name, where) < 0 ? -ENOMEM : 0;
}

static int check_item(const workspace_t *ws, char *const *roots, host_names_t *hn, const ws_item_t *it,
                      ws_actions_t *acts)
{
    if (!(it->what & (W_PYTHON | W_LINK)))
        return 0;
    const char *sub = ws_python_sub(roots, it->rel);
    /* gone (inside something disabled already) or disabled already: nothing
     * to do; the user's own, unchanged: never touched */
    if (sub == NULL || ws_acted_on(acts, it->rel) || !ws_changed(ws, it->rel))
        return 0;
    const char *why = NULL;
    int r = verdict(ws, it, sub, &why);
    if (r < 0 || why != NULL)
        return r < 0 ? r : ws_disable(ws, it->rel, why, acts);
    _cleanup_free_ char *shadow = NULL;
    if ((r = shadows_command(it, sub, hn, &shadow)) < 0 || shadow == NULL)
        return r;
    return ws_disable(ws, it->rel, shadow, acts);
}

int ws_python_check(const workspace_t *ws, const workspace_snapshot_t *after, host_names_t *hn, ws_actions_t *acts,
                    as_error_t **err)
{
    _cleanup_(strv_freep) char **roots = NULL;
    int r = ws_python_roots(ws, after, &roots);
    for (size_t i = 0; r == 0 && roots != NULL && i < after->n; i++)
        r = check_item(ws, roots, hn, &after->v[i], acts);
    return r == -ENOMEM ? ws_oom(err) : r < 0 ? as_error_errno(err, -r, "checking the Python environments") : 0;
}
