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

int file_write_atomic(const char *dir, const char *name, const char *text, mode_t mode,
                      as_error_t **err)
{
    _cleanup_free_ char *path = NULL, *tmp = NULL;
    if (asprintf(&path, "%s/%s", dir, name) < 0 || asprintf(&tmp, "%s.tmp", path) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0)
        return as_error_errno(err, errno, "creating %s", tmp);
    size_t len = strlen(text), off = 0;
    while (off < len) {
        ssize_t n = write(fd, text + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            return as_error_errno(err, e, "writing %s", tmp);
        }
        off += (size_t)n;
    }
    /* the umask may have narrowed the mode; the reader needs it exactly */
    int mode_rc = fchmod(fd, mode);
    if (close(fd) < 0 || mode_rc < 0) {
        unlink(tmp);
        return as_error_errno(err, errno, "writing %s", tmp);
    }
    if (rename(tmp, path) < 0) {
        unlink(tmp);
        return as_error_errno(err, errno, "renaming %s", tmp);
    }
    return 0;
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
