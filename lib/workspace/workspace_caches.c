/* After the session: caches the session wrote that a host tool would trust
 * over their sources. Python loads `__pycache__/NAME.cpython-311.pyc`
 * instead of compiling NAME.py when the mtime and size it records match
 * the source's (PEP 3147; the agent can write both), and imports a bare
 * NAME.pyc where no source is (sourceless). So bytecode made or changed
 * during the session is removed: python writes it again from the source,
 * nothing is lost. Bytecode that was there at the start, unchanged, stays. */
#include "workspace_int.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ws_bytecode_drop(const workspace_t *ws, const workspace_snapshot_t *after, ws_actions_t *acts, size_t *ret_n,
                     as_error_t **err)
{
    size_t n = 0;
    for (size_t i = 0; i < after->n; i++) {
        const ws_item_t *it = &after->v[i];
        if (!(it->what & W_BYTECODE) || S_ISDIR(it->mode) || ws_acted_on(acts, it->rel) || ws_unchanged(ws, it->rel))
            continue;
        _cleanup_free_ char *abs = NULL;
        if (asprintf(&abs, "%s/%s", ws->launch_dir, it->rel) < 0)
            return ws_oom(err);
        if (unlink(abs) == 0)
            n++;
        else if (errno != ENOENT && ws_disable(ws, it->rel, "bytecode the session wrote, which python would load "
                                               "instead of its source, and which could not be removed", acts) < 0)
            return ws_oom(err);
    }
    *ret_n = n;
    return 0;
}
