#include "session_find.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session_dir.h"
#include "session_registry.h"
#include "base/util.h"
#include "egress/egress_state.h"

bool session_dir_live(const char *base, const char *id)
{
    if (!session_id_valid(id))
        return false;
    int dfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return false;
    bool held = session_dir_lock_held(dfd, id);
    close(dfd);
    return held;
}

void session_found_free(session_found_t *v, size_t n)
{
    for (size_t i = 0; v != NULL && i < n; i++) {
        free(v[i].path);
        free(v[i].launch_dir);
    }
    free(v);
}

static int newest_first(const void *a, const void *b)
{
    const session_found_t *x = a, *y = b;
    if (x->started.tv_sec != y->started.tv_sec)
        return x->started.tv_sec < y->started.tv_sec ? 1 : -1;
    if (x->started.tv_nsec != y->started.tv_nsec)
        return x->started.tv_nsec < y->started.tv_nsec ? 1 : -1;
    return strcmp(x->id, y->id);
}

/* Fills *ret when base/id is a live session with a router, and returns
 * false otherwise. The ID is a session ID (session_id_valid); the
 * precisions in the formats only tell the compiler so. */
static bool found_at(int dfd, const char *base, const char *id, session_found_t *ret)
{
    char rel[SESSION_ID_LEN + 64];
    struct stat lock, state;
    snprintf(rel, sizeof(rel), "%.*s/" EGRESS_STATE_DIR "/" EGRESS_STATE_FILE, SESSION_ID_LEN, id);
    if (fstatat(dfd, rel, &state, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(state.st_mode))
        return false;
    snprintf(rel, sizeof(rel), "%.*s/lock", SESSION_ID_LEN, id);
    if (fstatat(dfd, rel, &lock, AT_SYMLINK_NOFOLLOW) < 0 || !session_dir_lock_held(dfd, id))
        return false;
    *ret = (session_found_t){ .started = lock.st_mtim };
    snprintf(ret->id, sizeof(ret->id), "%.*s", SESSION_ID_LEN, id);
    if (asprintf(&ret->path, "%s/%s", base, id) < 0)
        return false;
    /* With no entry (yet), or an unreadable one, the session has no launch
     * directory to be chosen by, but it is still found by its ID. */
    session_entry_t *e = NULL;
    as_error_t *err = NULL;
    if (session_registry_read(ret->path, &e, &err) == 0) {
        ret->launch_dir = e->launch_dir;
        e->launch_dir = NULL;
        session_entry_free(e);
    }
    as_error_free(&err);
    return true;
}

int session_find_live(session_found_t **ret, size_t *ret_n, as_error_t **err)
{
    _cleanup_free_ char *base = NULL;
    int r = session_base_dir(&base, err);
    if (r < 0)
        return r;
    int dfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (d == NULL) {
        r = as_error_errno(err, errno, "reading %s", base);
        if (dfd >= 0)
            close(dfd);
        return r;
    }
    session_found_t *v = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        session_found_t one;
        if (!session_id_valid(e->d_name) || !found_at(dirfd(d), base, e->d_name, &one))
            continue;
        session_found_t *grown = reallocarray(v, n + 1, sizeof(*v));
        if (grown == NULL) {
            free(one.path);
            free(one.launch_dir);
            closedir(d);
            session_found_free(v, n);
            return as_error_make(err, ENOMEM, "out of memory");
        }
        v = grown;
        v[n++] = one;
    }
    closedir(d);
    if (n > 1)
        qsort(v, n, sizeof(*v), newest_first);
    *ret = v;
    *ret_n = n;
    return 0;
}

int session_found_pick(const session_found_t *v, size_t n, const char *id, size_t *ret_index)
{
    size_t len = strlen(id), hits = 0, at = 0;
    if (len < 4 || len > SESSION_ID_LEN)
        return -ENOENT;
    for (size_t i = 0; i < n; i++)
        if (strncmp(v[i].id, id, len) == 0) {
            hits++;
            at = i;
        }
    if (hits == 0)
        return -ENOENT;
    if (hits > 1)
        return -EEXIST;
    *ret_index = at;
    return 0;
}

/* Whether dir is cwd or above it. */
static bool holds(const char *dir, const char *cwd)
{
    size_t len = strlen(dir);
    if (strcmp(dir, "/") == 0)
        return cwd[0] == '/';
    return strncmp(cwd, dir, len) == 0 && (cwd[len] == '\0' || cwd[len] == '/');
}

int session_pick_by_dir(const char *const *dirs, size_t n, const char *cwd, size_t *ret_index)
{
    size_t best = n, best_len = 0;
    for (size_t i = 0; i < n; i++) {
        if (dirs[i] == NULL || !holds(dirs[i], cwd))
            continue;
        size_t len = strlen(dirs[i]);
        if (best == n || len > best_len) {
            best = i;
            best_len = len;
        }
    }
    if (best == n)
        return -ENOENT;
    *ret_index = best;
    return 0;
}
