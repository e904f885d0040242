#include "session_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/file_write.h"
#include "base/util.h"
#include "base/user_dirs.h"

int session_id_generate(char ret[SESSION_ID_LEN + 1], as_error_t **err)
{
    unsigned char bytes[SESSION_ID_LEN / 2];
    ssize_t n;
    do
        n = getrandom(bytes, sizeof(bytes), 0);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof(bytes))
        return as_error_errno(err, n < 0 ? errno : EIO, "reading random bytes for the session id");
    for (size_t i = 0; i < sizeof(bytes); i++)
        snprintf(ret + 2 * i, 3, "%02x", bytes[i]);
    return 0;
}

bool session_id_valid(const char *s)
{
    return strlen(s) == SESSION_ID_LEN && strspn(s, "0123456789abcdef") == SESSION_ID_LEN;
}

int session_base_dir(char **ret, as_error_t **err)
{
    _cleanup_free_ char *runtime = NULL, *base = NULL;
    int r = user_runtime_dir(&runtime, NULL, err);
    if (r < 0)
        return r;
    if (asprintf(&base, "%s/agent-sandbox", runtime) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    if (mkdir(base, 0700) < 0 && errno != EEXIST)
        return as_error_errno(err, errno, "creating %s", base);
    struct stat st;
    if (lstat(base, &st) < 0)
        return as_error_errno(err, errno, "checking %s", base);
    if (!S_ISDIR(st.st_mode))
        return as_error_make(err, ENOTDIR, "%s is not a directory", base);
    if (st.st_uid != geteuid())
        return as_error_make(err, EPERM, "%s belongs to uid %u, not to you", base, (unsigned)st.st_uid);
    if ((st.st_mode & 07777) != 0700 && chmod(base, 0700) < 0)
        return as_error_errno(err, errno, "making %s private (mode 0700)", base);
    *ret = steal_pointer(&base);
    return 0;
}

void session_dir_free(session_dir_t *d)
{
    if (d == NULL)
        return;
    if (d->lock_fd >= 0)
        close(d->lock_fd);
    free(d->base);
    free(d->path);
    free(d->socket_path);
    free(d);
}

int session_dir_create(const char *id, session_dir_t **ret, as_error_t **err)
{
    _cleanup_free_ char *tmp = NULL, *lock = NULL;
    _cleanup_(session_dir_freep) session_dir_t *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    d->lock_fd = -1;
    snprintf(d->id, sizeof(d->id), "%s", id);
    int r = session_base_dir(&d->base, err);
    if (r < 0)
        return r;
    if (asprintf(&d->path, "%s/%s", d->base, id) < 0 ||
        asprintf(&d->socket_path, "%s/podman.sock", d->path) < 0 ||
        asprintf(&tmp, "%s/.new-%s", d->base, id) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    if (strlen(d->socket_path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
        return as_error_make(err, ENAMETOOLONG,
                             "the socket path %s is %zu bytes, over the 107 a unix socket allows; "
                             "use a shorter XDG_RUNTIME_DIR", d->socket_path, strlen(d->socket_path));
    if (mkdir(tmp, 0700) < 0)
        return as_error_errno(err, errno, "creating %s", tmp);
    if (asprintf(&lock, "%s/lock", tmp) < 0) {
        rmdir(tmp);
        return as_error_make(err, ENOMEM, "out of memory");
    }
    d->lock_fd = open(lock, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (d->lock_fd < 0 || flock(d->lock_fd, LOCK_EX | LOCK_NB) < 0) {
        r = as_error_errno(err, errno, "locking %s", lock);
        remove_tree(tmp, NULL);
        return r;
    }
    if (rename(tmp, d->path) < 0) {
        r = as_error_errno(err, errno, "renaming %s to %s", tmp, d->path);
        remove_tree(tmp, NULL);
        return r;
    }
    *ret = steal_pointer(&d);
    return 0;
}

bool session_dir_lock_held(int base_fd, const char *id)
{
    char path[SESSION_ID_LEN + 16];
    if ((size_t)snprintf(path, sizeof(path), "%s/lock", id) >= sizeof(path))
        return false;
    int fd = openat(base_fd, path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return false;
    bool held = flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;
    close(fd);
    return held;
}

int session_dir_remove(session_dir_t *d, as_error_t **err)
{
    if (d == NULL || d->path == NULL)
        return 0;
    /* The directory is first renamed out of sight, under the half-made
     * name that the sweep removes after its grace, so that no one sees a
     * session directory half removed (its lock file gone, and a reader of
     * it making it anew). */
    _cleanup_free_ char *gone = NULL;
    const char *path = d->path;
    if (asprintf(&gone, "%s/.new-%s", d->base, d->id) >= 0 && rename(d->path, gone) == 0)
        path = gone;
    int r = remove_tree(path, err);
    if (d->lock_fd >= 0) {
        close(d->lock_fd);
        d->lock_fd = -1;
    }
    return r;
}
