/* The running sessions of this user, as `allow`, `deny` and `log` find
 * them: a directory under <runtime dir>/agent-sandbox/ (lib/session/session_dir.h)
 * whose lock a CLI holds, with a router (its egress state written,
 * lib/egress/egress_state.h). It never touches a directory, only looks, so
 * that it is safe beside a running session. */
#ifndef AS_SESSION_FIND_H
#define AS_SESSION_FIND_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "session_dir.h"
#include "base/error.h"

typedef struct session_found {
    char id[SESSION_ID_LEN + 1];
    char *path;              /* the session directory */
    char *launch_dir;        /* from its registry entry; NULL when it has none yet */
    struct timespec started; /* when its directory was made (its lock file's mtime) */
} session_found_t;

/* Whether base/<id>'s lock is held by a live CLI. */
bool session_dir_live(const char *base, const char *id);

/* The live sessions with a router, newest first (none: *ret_n is 0). */
int session_find_live(session_found_t **ret, size_t *ret_n, as_error_t **err);
void session_found_free(session_found_t *v, size_t n);

/* The index in v of the session whose id is `id` or starts with it (at
 * least 4 digits); -ENOENT when none, -EEXIST when several. */
int session_found_pick(const session_found_t *v, size_t n, const char *id, size_t *ret_index);

/* Of the launch directories `dirs` (the newest session's first; NULL
 * entries are skipped), the one that holds `cwd` (a resolved path: the
 * directory itself or one below it), the deepest, the first of equals:
 * its index, or -ENOENT when none does. Pure. */
int session_pick_by_dir(const char *const *dirs, size_t n, const char *cwd, size_t *ret_index);

#endif
