/* agent-sandbox: dispatch to a subcommand; everything else is a session. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
} commands[] = {
    { "cleanup", cmd_cleanup },
    { "verify", cmd_verify },
};

int main(int argc, char **argv)
{
    const char *trace = getenv("AGENT_SANDBOX_TRACE");
    if (trace != NULL && strcmp(trace, "1") == 0)
        trace_enable();
    if (argc > 1)
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
            if (strcmp(argv[1], commands[i].name) == 0)
                return commands[i].fn(argc - 1, argv + 1);
    return cmd_run(argc, argv);
}
