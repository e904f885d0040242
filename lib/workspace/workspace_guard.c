/* The lock against overlapping sessions, and the placeholders. */
#include "workspace_int.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "base/paths.h"
#include "base/util.h"
/* ---- the lock ---------------------------------------------------------- */

void workspace_unlock(workspace_t *ws)
{
    for (size_t i = 0; i < ws->n_lock_fds; i++)
        close(ws->lock_fds[i]);
    free(ws->lock_fds);
    ws->lock_fds = NULL;
    ws->n_lock_fds = 0;
}

/* Shared on every ancestor, exclusive on the launch directory: a session in
 * this directory, above it or below it makes the other fail. Directories we
 * cannot open or lock (permissions, a file system without flock) are
 * skipped. */
int ws_lock_tree(workspace_t *ws, as_error_t **err)
{
    _cleanup_free_ char *p = strdup(ws->launch_dir);
    size_t n = ws_depth(ws->launch_dir) + 1;
    ws->lock_fds = calloc(n, sizeof(int));
    if (p == NULL || ws->lock_fds == NULL)
        return ws_oom(err);
    for (char *s = p + 1;; s++) {
        bool end = *s == '\0';
        if (*s != '/' && !end)
            continue;
        *s = '\0';
        int fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0) {
            if (flock(fd, (end ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0) {
                ws->lock_fds[ws->n_lock_fds++] = fd;
            } else {
                int e = errno;
                close(fd);
                if (e == EWOULDBLOCK) {
                    msg_t m;
                    int r = ws_refusal_start(&m, ws->launch_dir, ws->home, err);
                    if (r < 0)
                        return r;
                    if (end) {
                        fputs("another agent-sandbox session is running in this directory or in one below it", m.f);
                    } else {
                        fputs("another agent-sandbox session is running in ", m.f);
                        ws_put_path(m.f, ws->home, p);
                        fputs(", which holds this directory", m.f);
                    }
                    fprintf(m.f, " [rule: %s].\nSessions may not overlap: each one's protected paths are "
                            "host paths the other's agent could change. Wait for it to end, or launch "
                            "from a directory outside its tree.", RULE_BUSY);
                    workspace_unlock(ws);      /* the caller may try again */
                    return msg_fail(&m, WORKSPACE_EBUSY, err);
                }
            }
        }
        if (end)
            break;
        *s = '/';
    }
    /* The launch directory was resolved before the lock: still the same? */
    _cleanup_free_ char *now = realpath(ws->launch_dir, NULL);
    if (now == NULL || strcmp(now, ws->launch_dir) != 0)
        return as_error_make(err, ESTALE, "the launch directory %s changed while starting", ws->launch_dir);
    return 0;
}

/* ---- placeholders ------------------------------------------------------ */

static bool is_empty(const char *path, const struct stat *st)
{
    if (S_ISREG(st->st_mode))
        return st->st_size == 0;
    if (!S_ISDIR(st->st_mode))
        return false;
    DIR *d = opendir(path);
    if (d == NULL)
        return false;
    bool empty = true;
    struct dirent *e;
    while (empty && (e = readdir(d)) != NULL)
        empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    closedir(d);
    return empty;
}

static bool marked(const char *path)
{
    char v[8];
    return lgetxattr(path, PLACEHOLDER_XATTR, v, sizeof(v)) >= 0;
}

/* Removes what a killed session left on the rules' paths: empty and marked. */
void ws_remove_stale_placeholders(workspace_t *ws)
{
    for (size_t i = 0; i <= ws->rules->n; i++) {
        /* the rules' paths, and HEAD (a placeholder without a rule) */
        const char *path = i < ws->rules->n ? ws->rules->v[i].path : "HEAD";
        _cleanup_free_ char *abs = NULL;
        as_error_t *e = NULL;
        if (path_join(ws->launch_dir, path, &abs, &e) < 0) {
            as_error_free(&e);
            return;
        }
        char *c = abs + strlen(ws->launch_dir) + 1;
        for (;;) {
            char *slash = strchr(c, '/');
            if (slash != NULL)
                *slash = '\0';
            struct stat st;
            if (lstat(abs, &st) < 0 || S_ISLNK(st.st_mode))
                break;
            if (marked(abs) && is_empty(abs, &st)) {
                if (S_ISDIR(st.st_mode))
                    rmdir(abs);
                else
                    unlink(abs);
                break;
            }
            if (slash == NULL || !S_ISDIR(st.st_mode))
                break;
            *slash = '/';
            c = slash + 1;
        }
    }
}

int ws_create_placeholder(workspace_mount_t *m, as_error_t **err)
{
    int fd;
    if (m->dir) {
        if (mkdir(m->path, 0755) < 0) {
            if (errno == EEXIST)
                return 0;       /* made meanwhile on the host: it is mounted as it is */
            return as_error_errno(err, errno, "cannot create the placeholder %s", m->path);
        }
        fd = open(m->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    } else {
        fd = open(m->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno == EEXIST)
            return 0;
    }
    if (fd < 0)
        return as_error_errno(err, errno, "cannot create the placeholder %s", m->path);
    struct stat st;
    if (fstat(fd, &st) == 0) {
        m->created = true;
        m->dev = st.st_dev;
        m->ino = st.st_ino;
    }
    (void)fsetxattr(fd, PLACEHOLDER_XATTR, "1", 1, 0);   /* best effort: only helps a later sweep */
    close(fd);
    return 0;
}

/* Removes a placeholder we made if it is still ours and empty. */
bool ws_remove_placeholder(workspace_mount_t *m)
{
    struct stat st;
    if (lstat(m->path, &st) < 0)
        return errno == ENOENT;
    if (st.st_dev != m->dev || st.st_ino != m->ino || !is_empty(m->path, &st))
        return false;
    if ((S_ISDIR(st.st_mode) ? rmdir(m->path) : unlink(m->path)) < 0)
        return errno == ENOENT;
    return true;
}
