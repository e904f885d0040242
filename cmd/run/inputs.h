/* Each input of a session, loaded and reported: the launch directory
 * (launch_check.c), the agent (load_agent.c), the allowlist
 * (load_allowlist.c), the limits (load_limits.c), the settings and the
 * config directory (load_settings.c), the user's name and git identity
 * (host_identity.c), the packaged defaults (packaged.c). Each loader returns
 * 0, or an exit code after reporting. */
#ifndef AS_INPUTS_H
#define AS_INPUTS_H

#include "shared/backend.h"
#include "config/resource_limits.h"
#include "config/user_settings.h"

/* The launch directory, in two steps around the private service's start
 * (cmd/run/cmd_run.c starts it in one place, between them).
 * launch_decide applies the launch policy to the current directory with no
 * podman: with podman's storage location as cached by an earlier session,
 * and the path within PATH_MAX. A refusal that needs no podman is final
 * (reported, an exit code), so that it starts no podman at all.
 * launch_confirm, with the service running, asks podman for its storage
 * location where the decision rests on it (none cached, or a refusal as
 * podman's storage by the cached one) and decides again, then checks that
 * podman sees the same directory (its mount namespace); 0 and the
 * resolved directory (to mount) when allowed, else an exit code, reported. */
typedef struct launch {
    char *cwd, *config_dir, *file_path, *runtime_dir;
    struct launch_policy_file *file;
    struct launch_policy_result *result;
    bool storage_cached;       /* the decision used a cached storage location */
} launch_t;
int launch_decide(const cli_backend_t *b, launch_t *l);
int launch_confirm(const cli_backend_t *b, launch_t *l, char **ret_dir);
void launch_clear(launch_t *l);

/* A packaged default (DATADIR/REL, or config/REL of the source tree next to
 * a development build), or NULL when there is none. */
char *packaged_file(const char *rel);

/* The session's agent: `requested` (--agent), else the settings file's
 * (read at settings_path), else Claude Code; its profile read and checked.
 * 0, or an exit code after reporting. */
struct agent_profile;
struct user_settings;
int load_agent(const char *requested, const struct user_settings *settings, const char *settings_path,
                      struct agent_profile **ret);

/* The session's allowlist: AGENT_SANDBOX_ALLOWLIST as is, else the user's
 * file with the agent's merged in (each copied into place from the
 * packaged default on first use), and in ret_path (when not NULL) the file
 * `allow --save` appends to. 0, or an exit code after reporting (every
 * error of a file, one per line). */
struct allowlist;
int load_allowlist(const struct agent_profile *agent, struct allowlist **ret, char **ret_path);
/* Only that file's path (the default copied into place on first run). */
int allowlist_config_path(char **ret_path);
/* Limits from the defaults, the limits file and the command line (NULL when
 * not given); says which cannot be enforced here. 0 or an exit code. */
int load_limits(const char *memory, const char *pids, const char *cpus, limits_t *ret,
                       cgroup_caps_t *ret_caps);

/* The path of a file of the config directory. 0, or an exit code after
 * reporting. */
int user_config_path(const char *name, char **ret_path);

/* The secrets the router holds for this session (docs/secrets.md): NULL
 * without --secret and without a request rule (the `rules` file). The
 * placements: the running agent's profile's (agent_rules), then the config
 * directory's `secrets` file; the upstream CAs: the
 * system's and AGENT_SANDBOX_UPSTREAM_CA's. env: the --env variables, none
 * of which may be a held one. 0, or an exit code after reporting. */
struct held_secrets;
struct secret_rules;
int load_secrets(char *const *names, char *const *env, const struct secret_rules *agent_rules,
                        const struct allowlist *al, struct held_secrets **ret);

/* What the sandbox gets of the host user: the name for the agent's passwd
 * entry, and the git identity as git config text (or NULL: none, or turned
 * off). 0 or an exit code, reported; an unreadable identity is a warning. */
typedef struct host_identity {
    char *user_name;
    char *git_config;
} host_identity_t;
int host_identity_load(const struct user_settings *settings, const char *settings_path, host_identity_t *ret);
void host_identity_clear(host_identity_t *h);

/* The settings file (lib/config/user_settings.h), or its defaults when there is
 * none, and its path. A session reads it once (run_inputs_load) and hands it
 * on. load_settings: 0, or an exit code after reporting.
 * settings_config_read: the same without a report, for doctor: -ENOENT
 * (defaults filled in) when there is no file, ret_path set when known. */
int load_settings(user_settings_t *ret, char **ret_path);
int settings_config_read(user_settings_t *ret, char **ret_path, as_error_t **err);

#endif
