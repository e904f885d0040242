#include "file_read.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

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
