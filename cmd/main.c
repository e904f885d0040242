/* agent-sandbox: dispatch to a subcommand; everything else is a session. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
} commands[] = {
    { "cleanup", cmd_cleanup },
    { "verify", cmd_verify },
};

/* A descriptor among 0, 1 and 2 that the caller closed (`<&-`) would be
 * taken by the next file we open (the signal pipe, the service's log) and
 * then used as the agent's stdin or stdout. /dev/null in its place gives the
 * agent end-of-file, and output nobody asked for goes nowhere, as in a shell. */
static int std_fds_ensure(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        /* the lowest free descriptor: this one, the lower ones being open */
        int null = open("/dev/null", O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (null != fd) {
            if (null >= 0)
                close(null);
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (std_fds_ensure() < 0)
        return EXIT_INTERNAL;
    const char *trace = getenv("AGENT_SANDBOX_TRACE");
    if (trace != NULL && strcmp(trace, "1") == 0)
        trace_enable();
    if (argc > 1)
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
            if (strcmp(argv[1], commands[i].name) == 0)
                return commands[i].fn(argc - 1, argv + 1);
    return cmd_run(argc, argv);
}
