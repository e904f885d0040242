#include "file_write.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static int write_all(int fd, const char *text)
{
    size_t len = strlen(text), off = 0;
    while (off < len) {
        ssize_t n = write(fd, text + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        off += (size_t)n;
    }
    return 0;
}

/* The directory that holds path, synced: the rename into it is on disk. */
static int sync_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    _cleanup_free_ char *dir = slash == NULL ? strdup(".") : slash == path ? strdup("/")
                                                           : strndup(path, (size_t)(slash - path));
    if (dir == NULL)
        return -ENOMEM;
    _cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return fd < 0 || fsync(fd) < 0 ? -errno : 0;
}

int file_commit(int fd, const char *tmp, const char *path, as_error_t **err)
{
    if (fsync(fd) < 0 || rename(tmp, path) < 0) {
        int e = errno;
        unlink(tmp);
        return as_error_errno(err, e, "writing %s", path);
    }
    int r = sync_parent(path);
    if (r < 0)
        return as_error_errno(err, -r, "syncing the directory of %s", path);
    return 0;
}

/* The temporary file is new and of this writer alone (mkostemp: a unique
 * name, O_EXCL): two writers of the same file, say two sessions checking
 * one image at once, never share one, so neither renames the other's
 * away nor writes into it. */
int file_write_atomic(const char *dir, const char *name, const char *text, mode_t mode,
                      as_error_t **err)
{
    _cleanup_free_ char *path = NULL, *tmp = NULL;
    if (asprintf(&path, "%s/%s", dir, name) < 0 || asprintf(&tmp, "%s.XXXXXX", path) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    _cleanup_close_ int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return as_error_errno(err, errno, "creating a temporary file for %s", path);
    /* mkostemp's 0600, made exactly `mode` whatever the umask: the reader needs it */
    int r = fchmod(fd, mode) < 0 ? -errno : write_all(fd, text);
    if (r < 0) {
        unlink(tmp);
        return as_error_errno(err, -r, "writing %s", tmp);
    }
    return file_commit(fd, tmp, path, err);
}

static int remove_tree_at(int dfd, const char *name, const char *shown, as_error_t **err)
{
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOTDIR || errno == ELOOP) {
            if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
                return as_error_errno(err, errno, "removing %s/%s", shown, name);
            return 0;
        }
        if (errno == ENOENT)
            return 0;
        return as_error_errno(err, errno, "opening %s/%s", shown, name);
    }
    DIR *dir = fdopendir(fd);
    if (dir == NULL) {
        close(fd);
        return as_error_errno(err, errno, "reading %s/%s", shown, name);
    }
    int r = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (r == 0)
            r = remove_tree_at(dirfd(dir), e->d_name, shown, err);
    }
    closedir(dir);
    if (r < 0)
        return r;
    if (unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
        return as_error_errno(err, errno, "removing %s/%s", shown, name);
    return 0;
}

int remove_tree(const char *path, as_error_t **err)
{
    return remove_tree_at(AT_FDCWD, path, ".", err);
}
