#include "file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "util.h"

int read_fd_bounded(int fd, size_t max, char **ret_buf, size_t *ret_len)
{
    size_t cap = 4096, len = 0;
    _cleanup_free_ char *buf = malloc(cap + 1);
    if (buf == NULL)
        return -ENOMEM;
    for (;;) {
        if (len == cap) {
            if (cap > max)
                return -EFBIG;
            char *bigger = realloc(buf, cap * 2 + 1);
            if (bigger == NULL)
                return -ENOMEM;
            buf = bigger;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (n == 0)
            break;
        len += (size_t)n;
        if (len > max)
            return -EFBIG;
    }
    buf[len] = '\0';
    *ret_buf = steal_pointer(&buf);
    *ret_len = len;
    return 0;
}

/* open() failed with ENOENT: nothing there, or a symlink to nothing. */
static int missing(int dirfd, const char *path, as_error_t **err)
{
    struct stat st;
    if (fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode))
        return as_error_make(err, ENOENT, "%s", strerror(ENOENT));
    char target[4096];
    ssize_t n = readlinkat(dirfd, path, target, sizeof(target) - 1);
    target[n > 0 ? n : 0] = '\0';
    _cleanup_free_ char *shown = path_escaped(target);
    return as_error_make(err, ENOLINK, "it is a symlink to %s, which does not exist",
                         shown != NULL ? shown : "a file");
}

static const char *kind_of(mode_t mode)
{
    return S_ISFIFO(mode) ? "it is a FIFO" : S_ISSOCK(mode) ? "it is a socket"
         : S_ISCHR(mode) || S_ISBLK(mode) ? "it is a device" : "it is not a regular file";
}

/* Text only: no NUL byte, no byte-order mark. */
static int check_text(const char *text, size_t len, as_error_t **err)
{
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        return as_error_make(err, EILSEQ, "it starts with a UTF-8 byte-order mark (bytes EF BB BF); "
                             "save it without one");
    const char *nul = memchr(text, '\0', len);
    if (nul != NULL) {
        unsigned line = 1;
        for (const char *p = text; p < nul; p++)
            line += *p == '\n';
        return as_error_make(err, EILSEQ, "it has a NUL byte on line %u; a config file is text", line);
    }
    return 0;
}

int config_file_read(int dirfd, const char *path, config_follow_t follow, size_t max,
                     char **ret_text, size_t *ret_len, as_error_t **err)
{
    int nofollow = follow == CONFIG_NOFOLLOW ? O_NOFOLLOW : 0;
    _cleanup_close_ int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | nofollow);
    if (fd < 0 && errno == ENOENT)
        return missing(dirfd, path, err);
    if (fd < 0 && errno == ELOOP && follow == CONFIG_NOFOLLOW)
        return as_error_make(err, ELOOP, "it is a symlink, which is never followed for this file");
    if (fd < 0)
        return as_error_make(err, errno, "%s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0)
        return as_error_make(err, errno, "%s", strerror(errno));
    if (S_ISDIR(st.st_mode))
        return as_error_make(err, EISDIR, "%s", strerror(EISDIR));
    if (!S_ISREG(st.st_mode))
        return as_error_make(err, EINVAL, "%s; a config file must be a regular file", kind_of(st.st_mode));

    _cleanup_free_ char *text = NULL;
    size_t len = 0;
    int r = read_fd_bounded(fd, max, &text, &len);
    if (r == -EFBIG)
        return as_error_make(err, EFBIG, "it is larger than the limit of %zu bytes", max);
    if (r == -ENOMEM)
        return as_error_make(err, ENOMEM, "out of memory");
    if (r < 0)
        return as_error_make(err, -r, "%s", strerror(-r));
    if ((r = check_text(text, len, err)) < 0)
        return r;
    *ret_text = steal_pointer(&text);
    *ret_len = len;
    return 0;
}

int config_error_name(as_error_t **err, const char *what, const char *path)
{
    _cleanup_free_ char *name = path_escaped(path);
    return as_error_prefix(err, "%s%s", what, name != NULL ? name : path);
}
