/* What a session is asked to be: the request, the agent's profile, the
 * images, the egress path, the workspace, review mode, the limits and the
 * user's identity, all loaded by cmd/ before the plan is made. It is a plain
 * struct in a header of its own so that a caller can embed it in its own
 * inputs (cmd/run) and fill it field by field; session_plan_build
 * (session_plan.h) checks it and copies what the plan keeps. */
#ifndef AS_SESSION_INPUTS_H
#define AS_SESSION_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "config/allowlist.h"
#include "config/publish.h"
#include "config/resource_limits.h"

struct agent_profile;
struct held_secrets;
struct workspace;

typedef struct session_inputs {
    const char *id;              /* from session_id_generate() */
    pid_t cli_pid;
    const char *workdir;         /* resolved launch directory */
    const char *image;
    /* The agent (agent_profile.h; borrowed, may be NULL): its variables are
     * set (env wins over them), its login volume mounted only when it has
     * login-env, and with agent_args its command runs with `command` as
     * its arguments. */
    const struct agent_profile *agent;
    bool agent_args;
    bool autonomy;               /* with agent_args: its unattended mode (autonomy-args, -env) */
    char *const *command;        /* NULL-terminated; non-empty unless agent_args */
    bool tty;
    char *const *env;            /* KEY=VALUE to set inside, NULL-terminated, may be NULL */
    const char *session_dir;     /* host-side session directory (rendered files live there) */
    const char *home_volume;     /* the agent's home (home_volume.h); NULL: none */
    bool home_per_project;       /* the home belongs to the launch tree (workdir); else a named home */
    const char *login_volume;    /* Claude's login, apart from the home; NULL: in the home */
    const char *legacy_home;     /* the old shared home the login is copied from once; may be NULL */
    bool private_home;           /* an empty tmpfs home and no volume at all (verify's probe) */
    bool verify;                 /* verify's probe session: its egress events are verify's
                                  * (ROUTER_MARK_VERIFY), never an agent's */
    /* the egress path */
    const char *router_image;
    const char *egress_network;  /* shared by all sessions, created on demand */
    const char *resolver;        /* IPv4 address the router resolves upstream names with */
    const allowlist_t *allowlist;/* borrowed: must outlive the plan */
    const char *allowlist_path;  /* its file, where `allow --save` adds names; may be NULL */
    /* workspace protection */
    const struct workspace *workspace; /* borrowed, may be NULL: must outlive the plan, and
                                        * be begun (workspace_begin) first: its mounts are taken */
    /* review mode (docs/review.md): the launch directory as the lower layer
     * of an overlay whose upper and work directories are these; NULL: none */
    const char *review_upper;
    const char *review_work;
    /* resource limits, and what the host lets podman enforce */
    limits_t limits;
    cgroup_caps_t cgroups;
    /* daily work: published ports, the user's name and git identity inside */
    const publish_t *publish;    /* n_publish of them (publish.h); needs the router */
    size_t n_publish;
    const char *user_name;       /* the host user's name for the agent's passwd entry; NULL: podman's */
    uid_t uid;                   /* the host user's ids: keep-id maps them as they are */
    gid_t gid;
    const char *git_config;      /* the system git config the agent gets (git_identity.h); NULL: none */
    const struct held_secrets *held; /* the router's held secrets (docs/secrets.md); borrowed, may be NULL */
} session_inputs_t;

#endif
