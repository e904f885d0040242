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
    { "allow", cmd_allow },
    { "cleanup", cmd_cleanup },
    { "deny", cmd_deny },
    { "log", cmd_log },
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

/* What the CLI printed itself (--help, --dry-run, verify's table) failed to
 * reach stdout: an error like any other write error; a reader that went
 * away (EPIPE) is not one to report. */
static int stdout_flushed(int rc)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    int e = errno != 0 ? errno : EIO;
    if (e == EPIPE)
        return rc;
    report("error: writing to stdout: %s", strerror(e));
    return rc == 0 ? EXIT_OUTPUT : rc;
}

int main(int argc, char **argv)
{
    if (std_fds_ensure() < 0)
        return EXIT_INTERNAL;
    const char *trace = getenv("AGENT_SANDBOX_TRACE");
    if (trace != NULL && strcmp(trace, "1") == 0)
        trace_enable();
    int rc = -1;
    if (argc > 1)
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
            if (strcmp(argv[1], commands[i].name) == 0)
                rc = commands[i].fn(argc - 1, argv + 1);
    if (rc < 0)
        rc = cmd_run(argc, argv);
    return stdout_flushed(rc);
}
