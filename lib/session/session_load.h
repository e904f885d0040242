/* Every input of a session, loaded into its one record (session_inputs.h)
 * before any podman, each from where it lives and checked, what is wrong
 * with it said (session_say.h): the settings file; the agent (--agent,
 * else the settings', else Claude Code) and its packaged profile; the
 * image (lib/config/image_choice); the router's image, the egress
 * network and the host's resolver; the limits (defaults, the limits file,
 * --memory/--pids/--cpus); the allowlist (session_load_allowlist.c); the
 * user's name and git identity; the held secrets
 * (session_load_secrets.c); and every host port to publish free. */
#ifndef AS_SESSION_LOAD_H
#define AS_SESSION_LOAD_H

#include "session_inputs.h"
#include "session_say.h"

#ifndef AS_IMAGE_TAG
#define AS_IMAGE_TAG "dev"
#endif
#define DEFAULT_IMAGE "localhost/agent-sandbox:" AS_IMAGE_TAG
#define DEFAULT_ROUTER_IMAGE "localhost/agent-sandbox-router:" AS_IMAGE_TAG
#define DEFAULT_EGRESS_NETWORK "agent-sandbox-egress"

/* SESSION_OK, or the fault after saying what is wrong (what was loaded
 * stays in `in` for session_inputs_clear). */
session_fault_t session_load(const session_request_t *req, const session_say_t *to, session_inputs_t *in);

/* A packaged default (DATADIR/REL, or config/REL of the source tree next to
 * a development build), or NULL when there is none. */
char *packaged_file(const char *rel);

/* The file `name` of the config directory (lib/base/user_dirs.h). */
session_fault_t user_config_path(const session_say_t *to, const char *name, char **ret_path);

/* The settings file, parsed with its `in DIR` lines matched against the
 * current directory (home: $HOME, for `~`), or its defaults when there is
 * none: -ENOENT then, with ret_path set. For doctor as for a session. */
int settings_config_read(const char *home, user_settings_t *ret, char **ret_path, as_error_t **err);

/* The allowlist file a session uses (AGENT_SANDBOX_ALLOWLIST as is, else
 * allowed-hosts of the config directory, copied into place from the
 * packaged default on first use), where `allow --save` adds names. */
session_fault_t allowlist_config_path(const session_env_t *vars, const session_say_t *to, char **ret_path);
/* That allowlist with the agent's allowed-hosts.d/NAME merged in (none
 * into an AGENT_SANDBOX_ALLOWLIST one), every error of a file said, one
 * per line. */
session_fault_t load_allowlist(const session_env_t *vars, const session_say_t *to, const struct agent_profile *agent,
                               allowlist_t **ret, char **ret_path);

/* The secrets the router holds for this session (docs/secrets.md): NULL
 * without --secret and without a request rule (the `rules` file). The
 * placements: the agent's profile's, then the config directory's `secrets`
 * file; the upstream CAs: the system's and AGENT_SANDBOX_UPSTREAM_CA's;
 * none of them also an --env variable. */
session_fault_t load_secrets(const session_request_t *req, const session_say_t *to, session_inputs_t *in);

#endif
