/* The tool's --help and each command's: the commands (cmd/main.c's
 * table), the session's options (cmd/run/run_options.c's table), the
 * environment and the exit codes. docs/usage.md and docs/agent-sandbox.1
 * carry the same tables; tests/e2e/010-cli.bats checks that they agree. */
#include <stdio.h>
#include <string.h>

#include "shared/cli.h"
#include "run/run_options.h"
#include "base/escape.h"
#include "base/suggest.h"
#include "base/util.h"

static const struct {
    const char *name, *meaning;
} environment[] = {
    { "AGENT_SANDBOX_IMAGE", "the sandbox image unless --image or --toolchain names one (default: the agent's, "
                             DEFAULT_IMAGE " for claude)" },
    { "AGENT_SANDBOX_ROUTER_IMAGE", "the router image (default " DEFAULT_ROUTER_IMAGE ")" },
    { "AGENT_SANDBOX_ALLOWLIST", "the allowlist file (default: allowed-hosts in the config directory)" },
    { "AGENT_SANDBOX_UPSTREAM_CA", "more CAs (PEM) for the real servers of held secrets' names (docs/secrets.md)" },
    { "AGENT_SANDBOX_RESOLVER", "the IPv4 resolver for upstream names (default: /etc/resolv.conf's)" },
    { "AGENT_SANDBOX_EGRESS_NETWORK", "the router's upstream network (default " DEFAULT_EGRESS_NETWORK ")" },
    { "AGENT_SANDBOX_HOME_VOLUME", "one home volume for every launch directory, login included" },
    { "AGENT_SANDBOX_VOLUME_PREFIX", "the start of the home and login volumes' names (default agent-sandbox)" },
    { "AGENT_SANDBOX_TRACE", "1: print every API call with its duration" },
    { "AGENT_SANDBOX_TEST_ROOT", "for test suites: ps, stop, allow, deny and log see only sessions launched here or below" },
    { "XDG_CONFIG_HOME", "the config directory is $XDG_CONFIG_HOME/agent-sandbox (~/.config/...)" },
    { "XDG_STATE_HOME", "the router's logs, the image checks and builds: $XDG_STATE_HOME/agent-sandbox "
                        "(~/.local/state/...)" },
    { "XDG_RUNTIME_DIR", "the sessions' directories (unset: /run/user/UID where podman would use it)" },
};

static const struct {
    const char *code, *meaning;
} exit_codes[] = {
    { "64", "bad arguments" },
    { "65", "a config file is unreadable or malformed" },
    { "66", "the sandbox or router image is missing, or the image check refused the session's image" },
    { "69", "the private podman service did not start" },
    { "70", "internal error" },
    { "71", "the sandbox could not be set up (the command never started)" },
    { "74", "the command's output could not be written (disk full, I/O error)" },
    { "75", "the command's exit status is lost: the podman service or its monitor died" },
    { "76", "the command's container was removed from outside the session" },
    { "77", "the launch directory was refused, another session runs in its tree, or run as root" },
    { "78", "no runtime directory (XDG_RUNTIME_DIR unset, /run/user/UID unusable)" },
    { "126", "the command cannot be executed in the sandbox" },
    { "127", "the command was not found in the sandbox" },
    { "128+N", "interrupted by signal N before the command started" },
};

void cli_usage(FILE *f)
{
    fputs("usage: agent-sandbox [OPTIONS] [--] [AGENT ARGS...]\n"
          "       agent-sandbox [OPTIONS] --exec COMMAND [ARGS...]\n"
          "       agent-sandbox COMMAND [ARGS...]   (agent-sandbox COMMAND --help)\n"
          "\n"
          "Runs an AI coding agent (Claude Code unless --agent or the settings file\n"
          "says another), or COMMAND, in a rootless podman sandbox that sees only\n"
          "the current directory and reaches only the hosts on your allowlist.\n"
          "\n"
          "commands:\n", f);
    /* a synopsis too long for the column puts its summary on a line below */
    for (size_t i = 0; i < cli_n_commands; i++) {
        int n = fprintf(f, "  %s %s", cli_commands[i].name, cli_commands[i].synopsis);
        fprintf(f, "%*s%s\n", n > 24 ? 0 : 26 - n, n > 24 ? "\n                          " : "",
                cli_commands[i].summary);
    }
    fputs("\noptions:\n", f);
    run_options_usage(f);
    fputs("\nOn a terminal, every key is the agent's, Ctrl-C too: ~. after Enter or\n"
          "Ctrl-C stops the session (~. again kills the agent at once; ~~ types one ~).\n", f);
    fputs("\nenvironment:\n", f);
    for (size_t i = 0; i < ARRAY_SIZE(environment); i++)
        fprintf(f, "  %-28s  %s\n", environment[i].name, environment[i].meaning);
    fputs("\nexit status: the command's own (128+N when signal N ended it; 141 when the\n"
          "reader of its output went away), or one of the CLI's:\n", f);
    for (size_t i = 0; i < ARRAY_SIZE(exit_codes); i++)
        fprintf(f, "  %5s  %s\n", exit_codes[i].code, exit_codes[i].meaning);
    fputs("\nMore: man agent-sandbox, and `agent-sandbox doctor` when a session will not start.\n", f);
}

void cli_command_usage(FILE *f, const cli_command_t *c)
{
    fprintf(f, "usage: agent-sandbox %s%s%s\n\n%s\n", c->name, c->synopsis[0] ? " " : "", c->synopsis, c->help);
}

int cmd_help(int argc, char **argv)
{
    if (argc == 1) {
        cli_usage(stdout);
        return 0;
    }
    if (argc > 2)
        return cli_bad_argument("help", argv[2], NULL, 0);
    const char *names[cli_n_commands];
    for (size_t i = 0; i < cli_n_commands; i++) {
        if (strcmp(argv[1], cli_commands[i].name) == 0) {
            cli_command_usage(stdout, &cli_commands[i]);
            return 0;
        }
        names[i] = cli_commands[i].name;
    }
    if (argv[1][0] == '-')
        return cli_bad_argument("help", argv[1], NULL, 0);
    const char *near = suggest_nearest(argv[1], names, cli_n_commands);
    _cleanup_free_ char *shown = path_escaped(argv[1]);
    report("error: help: no command %s%s%s%s (`agent-sandbox help` lists them)", shown ? shown : "?",
           near ? "; did you mean " : "", near ? near : "", near ? "?" : "");
    return EXIT_USAGE;
}
