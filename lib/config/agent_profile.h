/* An agent's profile (config/agents/NAME, installed as DATADIR/agents/NAME):
 * which image runs it, its default command, the variables it gets, where
 * it keeps its state and its login, which allowlist file it adds, and
 * where its held credentials go.
 * One `KEY VALUE` per line in the one line syntax (config_lines.h); the
 * keys and what they mean: docs/agents.md. Everything stored here has been
 * validated, so the plan can use it as is. Pure: the caller reads the file
 * (file_read.h). */
#ifndef AS_AGENT_PROFILE_H
#define AS_AGENT_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "base/util.h"
#include "secret_rules.h"

#define AGENT_PROFILE_MAX (64 * 1024)   /* bytes of a profile file */
#define AGENT_NAME_MAX 32
#define AGENT_DEFAULT "claude"

/* The sandbox's layout that a profile is checked against (its HOME and
 * state paths), which the agent's spec (session/agent_spec.h) mounts. */
/* Where the home volume is mounted; HOME inside. */
#define AGENT_HOME "/home/agent"
/* Where the login volume is mounted, outside the home, for an agent whose
 * profile names the variable that points it there (login-env: Claude Code
 * keeps its credentials file in CLAUDE_SECURESTORAGE_CONFIG_DIR, checked
 * against the pinned version in tests/e2e/200-agent-home.bats). */
#define AGENT_LOGIN_DIR "/var/lib/agent-sandbox-login"

typedef struct agent_profile {
    char *name;
    char *image;             /* repository without a tag: the CLI adds its own */
    char **command;          /* the default command, NULL-terminated, non-empty */
    char *login;             /* how to log in, in words; may be NULL */
    char **credentials;      /* variables that hold a credential: passed only when named */
    char **env;              /* NAME=VALUE set in the agent's environment */
    char **telemetry_off;    /* NAME=VALUE set too: the switches that turn telemetry off */
    char **home;             /* where it keeps its state, relative to the home */
    char *credentials_file;  /* where its login lands; may be NULL */
    char *login_env;         /* the variable that points it at the shared login
                              * directory (AGENT_LOGIN_DIR); NULL: its login is in the home */
    char *allowlist;         /* relative to the config directory: "allowed-hosts" or
                              * "allowed-hosts.d/NAME" */
    char **project_config;   /* its configs in a project, relative to the launch directory
                              * ("dir/" for a directory); each must be in the workspace's
                              * default protected set (test_agent_profile checks) */
    char **options;          /* its own options ("-p", "--continue"): they pass to it as
                              * they are, never judged as a mistyped option of ours */
    char **subcommands;      /* its own commands ("mcp"): the same, in a command's place */
    /* Its unattended mode (`autonomy on`, docs/agents.md): words put
     * between its command and the user's arguments, and NAME=VALUE set
     * in its environment; both NULL: it has none. */
    char **autonomy_args;
    char **autonomy_env;
    /* Where its held credentials go (`secret VAR HOST PLACEMENT [USER]`,
     * a line of the secrets file: docs/secrets.md); origins "FILE:LINE". */
    secret_rules_t secrets;
} agent_profile_t;

/* [a-z0-9][a-z0-9-]*, at most AGENT_NAME_MAX bytes: safe in a file name. */
bool agent_name_valid(const char *name);

/* Parses the profile of agent `name` from `text` (len bytes, need not be
 * NUL-terminated); `filename` is for messages ("FILE:LINE: ..."). Any
 * error refuses the whole profile. */
int agent_profile_parse(const char *filename, const char *name, const char *text, size_t len,
                        agent_profile_t **ret, as_error_t **err);

/* Whether the profile has an unattended mode (autonomy-args or autonomy-env). */
bool agent_profile_has_autonomy(const agent_profile_t *p);

/* Whether the profile's allowlist is the user's allowed-hosts itself
 * (nothing to merge). */
bool agent_profile_allowlist_is_default(const agent_profile_t *p);

void agent_profile_free(agent_profile_t *p);
DEFINE_CLEANUP_FUNC(agent_profile_t, agent_profile_free)

#endif
