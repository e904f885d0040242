#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The first line of what fd gives until its end; once it is in (or 255
 * bytes of it), the rest is read into `sink` and dropped. */
static char *first_line(int fd)
{
    char buf[256], sink[4096];
    size_t len = 0;
    for (;;) {
        bool have = len == sizeof(buf) - 1 || memchr(buf, '\n', len) != NULL;
        ssize_t n = have ? read(fd, sink, sizeof(sink)) : read(fd, buf + len, sizeof(buf) - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (!have)
            len += (size_t)n;
    }
    buf[len] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return strdup(buf);
}

static void set_up_io(posix_spawn_file_actions_t *fa, const spawn_io_t *io, int pipe_w)
{
    if (io->capture)
        posix_spawn_file_actions_adddup2(fa, pipe_w, STDOUT_FILENO);
    else if (io->stdout_fd >= 0)
        posix_spawn_file_actions_adddup2(fa, io->stdout_fd, STDOUT_FILENO);
    if (io->stdin_null)
        posix_spawn_file_actions_addopen(fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    if (io->quiet)
        posix_spawn_file_actions_addopen(fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    if (io->dir != NULL)
        posix_spawn_file_actions_addchdir_np(fa, io->dir);
}

int spawn_and_wait(char *const *argv, char *const *env, const spawn_io_t *io, char **ret_line)
{
    int fds[2] = { -1, -1 };
    if (io->capture && pipe2(fds, O_CLOEXEC) < 0)
        return -errno;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    set_up_io(&fa, io, fds[1]);
    pid_t pid;
    int r = posix_spawnp(&pid, argv[0], &fa, NULL, argv, env != NULL ? env : environ);
    posix_spawn_file_actions_destroy(&fa);
    if (fds[1] >= 0)
        close(fds[1]);
    if (r != 0) {
        if (fds[0] >= 0)
            close(fds[0]);
        return -r;
    }
    char *line = NULL;
    if (io->capture) {
        line = first_line(fds[0]);
        close(fds[0]);
    }
    int status = 0;
    pid_t waited;
    while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR) { }
    if (waited < 0) {
        int e = errno;
        free(line);
        return -e;
    }
    if (io->capture && ret_line != NULL) {
        if (line == NULL)
            return -ENOMEM;
        *ret_line = line;
    } else {
        free(line);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
