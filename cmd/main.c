/* agent-sandbox: dispatch to a subcommand; everything else is a session. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/cli.h"
#include "shared/cli_env.h"

/* One row per subcommand: the dispatch, and each one's --help. */
const cli_command_t cli_commands[] = {
    { "ps", cmd_ps, "[--json | -q]", "list the running sessions",
      "Lists the running sessions: ID, the PID of the session's CLI, age, the\n"
      "allowlist's entries at its start, the agent's connections and lookups the\n"
      "router denied so far, the launch directory and the command. Names and paths are escaped.\n"
      "\n"
      "  --json       the same as one JSON array\n"
      "  -q, --quiet  the IDs alone, one a line" },
    { "stop", cmd_stop, "[--now] [ID...|--all]", "end running sessions, as Ctrl-C would",
      "Ends the sessions named by their ID (or a prefix of it that names one\n"
      "alone), or all of them, and waits until each is gone: its CLI forwards\n"
      "the signal to the agent (SIGHUP with a terminal) and tears the sandbox\n"
      "down, exactly as for Ctrl-C, says who stopped it and exits with its\n"
      "usual code (143). An agent still running after 10 s is killed (137).\n"
      "Without an ID: the session started in this directory or above it, and\n"
      "no other. From the session's own terminal: ~. at the start of a line.\n"
      "Exit status 0 when every one ended, 64 when an ID names no running\n"
      "session.\n"
      "\n"
      "  --now   kill the agent at once, without the 10 s grace" },
    { "doctor", cmd_doctor, "", "check this host's set-up, with the fix for each problem",
      "Checks what sessions need of this host, one line each, OK, WARN or FAIL,\n"
      "with the exact command that fixes it: podman and its API, subordinate\n"
      "ids, XDG_RUNTIME_DIR, user namespaces, /dev/net/tun, cgroups and the OCI\n"
      "runtime, resource limits, the storage driver, the images, the egress\n"
      "network, the config files, the home volumes' owner, and git's\n"
      "safe.bareRepository. Exit status 1 on any FAIL." },
    { "allow", cmd_allow, "NAME[:PORT]... [--session ID] [--save]", "let a running session reach more names, at once",
      "Adds names to a running session's allowlist: the agent reaches them at once,\n"
      "without a restart, and keeps its open connections. NAME is a host name\n"
      "(pypi.org), a domain with all its subdomains (.pythonhosted.org) or, with\n"
      "--save only, a host and an extra port (db.example.com:5432): a running\n"
      "session cannot open a new port. The names go through the checks of the\n"
      "allowlist file (" AS_DOCDIR "/docs/allowlist.md).\n"
      "\n"
      "  --session ID   the session (an ID from `agent-sandbox ps`, `log` or the\n"
      "                 end-of-session line, or its first digits); default: the one\n"
      "                 started in this directory or above it, else the only one running\n"
      "  --save         also add them to the allowlist file the session started with\n"
      "                 (with no session, or several and none started here: the\n"
      "                 allowlist file of new sessions)" },
    { "deny", cmd_deny, "NAME... [--session ID]", "take names off a running session's allowlist",
      "Takes names (NAME, or .DOMAIN for a wildcard entry) off a running session's\n"
      "allowlist: new connections and lookups are refused at once; connections\n"
      "open already stay open. The allowlist file is not changed.\n"
      "\n"
      "  --session ID   the session; default: the one started in this directory or\n"
      "                 above it, else the only one running" },
    { "log", cmd_log, "[ID] [--denied] [--follow] [--json]", "a session's DNS queries and connections",
      "Every DNS query and connection of a session: time, name, port, verdict and\n"
      "bytes. A refused one ends with the command that allows it. The sandbox's own\n"
      "readiness check (before the agent starts) and verify's probes are marked as\n"
      "theirs. ID is a session's ID or its first digits; default: the running\n"
      "session started in this directory or above it, else the only one running,\n"
      "else the session that ended last (its logs are kept in the state\n"
      "directory). A first line on stderr names the session, its directory and\n"
      "whether it runs.\n"
      "\n"
      "  --denied       only what the agent was refused\n"
      "  -f, --follow   go on printing while the session runs\n"
      "  --json         one JSON object per line (names escaped as in the text)" },
    { "verify", cmd_verify, "[--agent NAME] [--toolchain NAME]... [--image NAME] [--secret VAR]... [--json]",
      "prove the confinement on this machine",
      "Starts a real session with your configuration, probes it from inside and\n"
      "prints one line per property, PASS, FAIL or SKIP, with the evidence.\n"
      "Exit status 1 on any FAIL.\n"
      "\n"
      "  --agent NAME      the agent's session (default: as a session would choose)\n"
      "  --toolchain NAME  in the agent's image with that toolchain (repeatable)\n"
      "  --image NAME      in the image you derived as NAME\n"
      "                    (default: the image a session here would use)\n"
      "  --secret VAR      the router holds VAR, as a session's --secret; the line\n"
      "                    on held secrets proves its value is nowhere inside\n"
      "                    (repeatable; docs/secrets.md)\n"
      "  --json            the same as JSON" },
    { "image", cmd_image, "build NAME | list", "build an image you derived; list them",
      "build NAME  builds ~/.config/agent-sandbox/images/NAME/Containerfile (its\n"
      "            first instruction FROM a shipped image) with that folder as\n"
      "            its context, through the private podman service, into\n"
      "            localhost/agent-sandbox-user/NAME:TAG; checks it as every\n"
      "            session's image is (no setuid file, ...). Nothing is rebuilt\n"
      "            when the folder and the base are unchanged. The output goes\n"
      "            to ~/.local/state/agent-sandbox/image-builds/NAME.log.\n"
      "list        your images and whether they are built\n"
      "\n"
      "A session runs one with --image NAME or `image NAME` in the settings\n"
      "(docs/images.md)." },
    { "diff", cmd_diff, "[ID] [--stat] [PATH...]", "a review's changes against the host tree",
      "Shows what the agent of a review session (--review) changed, against the\n"
      "host tree: text files as a unified diff; binary files, modes, links,\n"
      "deletions and what apply refuses named in a line each. ID is a review's\n"
      "ID or its first digits; default: the newest review of this directory.\n"
      "PATH... limits it to those paths. Through $PAGER (else less -FRX) on a\n"
      "terminal, plain in a pipe (" AS_DOCDIR "/docs/review.md).\n"
      "\n"
      "  --stat   one line a change, and the summary" },
    { "reviews", cmd_reviews, "", "list the pending reviews",
      "Lists the reviews kept in the state directory: ID, age, size on disk,\n"
      "state (running, ended, killed: its CLI was killed, its changes kept)\n"
      "and the launch directory." },
    { "discard", cmd_discard, "[ID]", "remove a review and its changes",
      "Removes a review (default: the newest of this directory) with all the\n"
      "agent's changes in it. The host tree is not touched. A review whose\n"
      "session still runs is refused." },
    { "cleanup", cmd_cleanup, "[--homes]", "remove what dead sessions left",
      "Removes the containers, pods, networks and directories of sessions whose\n"
      "CLI is gone (killed, crashed), and says what it removed. Running\n"
      "sessions are left alone. Reviews that ended (or were started, when\n"
      "their CLI was killed) more than 30 days ago are removed too.\n"
      "\n"
      "  --homes      also the homes of launch directories that no longer exist" },
    { "apply", cmd_apply, "[ID] [PATH...] [--include PATH]... | --undo ID",
      "bring a review's changes into the host tree, or take them back",
      "Brings the changes of a review session (--review) into the tree it was\n"
      "started in, through one filter: regular files, directories and links that\n"
      "stay inside the tree only; FIFOs, sockets and devices refused; setuid,\n"
      "setgid and world-writable bits dropped, new executable bits listed;\n"
      "nothing inside .git lands as a file; protected paths (hooks, .envrc, tool\n"
      "configs: docs/workspace-protection.md) refused unless named with\n"
      "--include. A path changed on the host since the review started is a\n"
      "conflict: refused, never overwritten. Each write is atomic and recorded.\n"
      "ID is a review's ID or its first digits; default: the newest review of\n"
      "this directory or one above it. PATHs (files or directories) limit it to\n"
      "the changes at or below them. Exit status 1 when a change was not applied.\n"
      "\n"
      "  --include PATH  apply the protected PATH (and what is below it) too;\n"
      "                  listed again before anything is written\n"
      "  --undo ID       take the review's last apply back: what was there before,\n"
      "                  bytes, modes and links; what it added is removed" },
    { "help", cmd_help, "[COMMAND]", "this text, or COMMAND's (as COMMAND --help)",
      "Prints the tool's --help, or with COMMAND that command's own, as\n"
      "`agent-sandbox COMMAND --help` does." },
};
const size_t cli_n_commands = sizeof(cli_commands) / sizeof(cli_commands[0]);

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

static const cli_command_t *find_command(const char *name)
{
    for (size_t i = 0; i < cli_n_commands; i++)
        if (strcmp(name, cli_commands[i].name) == 0)
            return &cli_commands[i];
    return NULL;
}

/* --help or -h anywhere among a command's arguments: no command takes
 * either as a value. */
static bool wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return true;
    return false;
}

int main(int argc, char **argv)
{
    if (std_fds_ensure() < 0)
        return EXIT_INTERNAL;
    /* the environment, read once, before anything can change it */
    const char *trace = cli_env()->trace;
    if (trace != NULL && strcmp(trace, "1") == 0)
        trace_enable();
    const cli_command_t *c = argc > 1 ? find_command(argv[1]) : NULL;
    int rc = 0;
    if (c == NULL)
        rc = cmd_run(argc, argv);
    else if (wants_help(argc - 1, argv + 1))
        cli_command_usage(stdout, c);
    else
        rc = c->fn(argc - 1, argv + 1);
    return stdout_flushed(rc);
}
