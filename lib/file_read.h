/* Reading a small config file whole: the loop every config reader needs,
 * with a size bound so a huge or endless file cannot exhaust memory. */
#ifndef AS_FILE_READ_H
#define AS_FILE_READ_H

#include <stddef.h>

/* Reads fd to its end into a new NUL-terminated buffer (the text may hold
 * NULs: *ret_len counts every byte). -EFBIG past `max` bytes, -errno on a
 * read error, -ENOMEM. */
int read_fd_bounded(int fd, size_t max, char **ret_buf, size_t *ret_len);

#endif
