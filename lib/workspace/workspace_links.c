/* After the session: symlinks. A link on the way to a protected path that
 * was re-pointed (or replaced) is put back; a link that is new or re-pointed
 * and leads out of the launch directory is replaced by a note, whatever it
 * leads to: host tools that save in place write through it (npm's
 * lockfile, an editor), and host tools run what it leads to (a toolchain's
 * bin/cargo -> /bin/sh that rust-toolchain.toml names, an activated
 * environment's bin/git). The one shape that stays is the one venv makes:
 * a virtual environment's bin/python* -> a python of the system. */
#include "workspace_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "link_resolve.h"
#include "python_env.h"
#include "base/paths.h"
#include "base/strv.h"
#include "base/util.h"

static bool is_chain_link(const workspace_t *ws, const char *rel)
{
    for (size_t i = 0; i < ws->n_links; i++)
        if (strcmp(ws->links[i].rel, rel) == 0)
            return true;
    return false;
}

int ws_chain_check(const workspace_t *ws, ws_actions_t *acts, as_error_t **err)
{
    for (size_t i = 0; i < ws->n_links; i++) {
        const workspace_link_t *l = &ws->links[i];
        _cleanup_free_ char *abs = NULL, *why = NULL;
        if (asprintf(&abs, "%s/%s", ws->launch_dir, l->rel) < 0)
            return ws_oom(err);
        char buf[PATH_MAX];
        ssize_t n = readlink(abs, buf, sizeof(buf) - 1);
        if (n >= 0 && (size_t)n == strlen(l->target) && memcmp(buf, l->target, (size_t)n) == 0)
            continue;
        if (asprintf(&why, "a symlink on the way to the protected %s, %s during the session", l->leads_to,
                     n >= 0 ? "re-pointed" : "replaced or removed") < 0 ||
            ws_link_restore(ws, l->rel, l->target, why, acts) < 0)
            return ws_oom(err);
    }
    return 0;
}

/* Where the link at rel leads: NULL when it stays in the tree, else the
 * place (malloc'd); *ret_system: that place is a file of the system. */
static int leads_out(const workspace_t *ws, const char *rel, char **ret, bool *ret_system)
{
    _cleanup_free_ char *abs = NULL, *end_path = NULL, *norm = NULL;
    if (asprintf(&abs, "%s/%s", ws->launch_dir, rel) < 0)
        return -ENOMEM;
    as_error_t *e = NULL;
    link_end_t end;
    *ret = NULL;
    *ret_system = false;
    if (link_resolve(abs, NULL, &end_path, &end, &e) < 0) {
        /* a loop, an unreadable place: nothing a tool writes through, but no
         * telling where it leads either */
        as_error_free(&e);
        return (*ret = strdup("(a place that cannot be resolved)")) == NULL ? -ENOMEM : 0;
    }
    if (path_normalize(end_path, &norm, &e) < 0) {
        as_error_free(&e);
        return -ENOMEM;
    }
    if (ws_in_tree(ws, norm))
        return 0;
    *ret_system = end == LINK_FOUND && link_system_file(norm);
    *ret = steal_pointer(&norm);
    return 0;
}

/* The one shape of a link out of the tree that stays: a virtual
 * environment's interpreter, bin/python* -> a python of the system (what
 * venv makes; the python check judges it further). */
static bool venv_interpreter(char *const *roots, const ws_item_t *it, bool system)
{
    const char *sub = ws_python_sub(roots, it->rel);
    return system && sub != NULL && python_env_link_shape(sub, it->link);
}

int ws_outside_links_check(const workspace_t *ws, const workspace_snapshot_t *after, ws_actions_t *acts,
                           as_error_t **err)
{
    _cleanup_(strv_freep) char **roots = NULL;
    if (ws_python_roots(ws, after, &roots) < 0)
        return ws_oom(err);
    for (size_t i = 0; i < after->n; i++) {
        const ws_item_t *it = &after->v[i];
        if (!(it->what & W_LINK) || it->link == NULL || is_chain_link(ws, it->rel) || ws_unchanged(ws, it->rel))
            continue;
        _cleanup_free_ char *out = NULL, *why = NULL;
        bool system = false;
        if (leads_out(ws, it->rel, &out, &system) < 0)
            return ws_oom(err);
        if (out == NULL || venv_interpreter(roots, it, system))
            continue;
        if (asprintf(&why, "a symlink made or re-pointed during the session, to %s, outside the launch "
                     "directory", it->link) < 0 ||
            ws_link_to_note(ws, it->rel, it->link, why, acts) < 0)
            return ws_oom(err);
    }
    return 0;
}
