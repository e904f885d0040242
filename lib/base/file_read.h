/* Reading a config file whole, by one policy for all of them (allowed-hosts,
 * limits, allowed-paths, protected-paths), so that they never disagree:
 *  - a regular file only, opened with O_NONBLOCK: a FIFO or a device put in
 *    its place is refused at once instead of hanging the launch;
 *  - a missing file is -ENOENT (the caller's default applies), but a symlink
 *    to a missing file is an error: the user meant a file to be there, and
 *    the default must not apply silently;
 *  - at most `max` bytes, so a huge or endless file cannot exhaust memory;
 *  - text only: a NUL byte (with its line) and a UTF-8 byte-order mark are
 *    refused by name.
 * Messages escape every invisible byte of the names they quote. */
#ifndef AS_FILE_READ_H
#define AS_FILE_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

/* Reads fd to its end into a new NUL-terminated buffer (the text may hold
 * NULs: *ret_len counts every byte). -EFBIG past `max` bytes, -errno on a
 * read error, -ENOMEM. */
int read_fd_bounded(int fd, size_t max, char **ret_buf, size_t *ret_len);

typedef enum config_follow {
    CONFIG_FOLLOW,       /* the user's own file: a symlink is followed */
    CONFIG_NOFOLLOW,     /* a file the agent could have written: never followed */
} config_follow_t;

/* Reads `path` (relative to dirfd, or AT_FDCWD) by the policy above. On
 * failure *err says why without naming the file ("it has a NUL byte on line 3"),
 * for the caller to put after the name in its own words (see
 * config_error_name); its code is ENOENT only for a file that is not there
 * at all, ENOMEM when out of memory. */
int config_file_read(int dirfd, const char *path, config_follow_t follow, size_t max,
                     char **ret_text, size_t *ret_len, as_error_t **err);

/* Puts "<what><path>: " in front of err's message, the path escaped.
 * Returns the error's negative code. */
int config_error_name(as_error_t **err, const char *what, const char *path);

#endif
