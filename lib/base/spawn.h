/* A program run and waited for: the one place the CLI's short helpers
 * (host git, diff(1)) are started, so that their exit status is read one
 * way. A wait that fails (ECHILD when SIGCHLD is ignored and the kernel
 * reaped the child itself, or any other error) is an error, never the
 * success that an untouched status of 0 would read as. */
#ifndef AS_SPAWN_H
#define AS_SPAWN_H

#include <stdbool.h>

typedef struct spawn_io {
    bool capture;            /* stdout into a pipe: its first line to *ret_line */
    int stdout_fd;           /* without capture: where stdout goes (-1: ours) */
    bool stdin_null;         /* stdin from /dev/null */
    bool quiet;              /* stderr to /dev/null */
    const char *dir;         /* the program's working directory (NULL: ours) */
} spawn_io_t;

/* Runs argv[0], found on PATH, with `env` (NULL: ours), and waits for it.
 * Returns its exit status (0..255; 128 + N when signal N ended it), or
 * -errno when it could not be started or waited for. With io->capture,
 * *ret_line (when not NULL) gets the first line of its output without the
 * newline, of at most 255 bytes; the rest is read and dropped, so that
 * the program never blocks on a full pipe. */
int spawn_and_wait(char *const *argv, char *const *env, const spawn_io_t *io, char **ret_line);

#endif
