/* What a session is: the request (the command line's options, the
 * environment the CLI read, what verify asks of its probe), and the one
 * owned record of everything loaded for it (session_load.h) and decided at
 * its launch (session_life.h). The loaders fill it field by field; the
 * plan (session_plan.h) checks it and keeps a copy of it that borrows from
 * it, so it must outlive the plan; session_inputs_clear frees what it
 * owns. A test may fill the plan's fields by hand (literals) and never
 * clear it. */
#ifndef AS_SESSION_INPUTS_H
#define AS_SESSION_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "config/allowlist.h"
#include "config/image_choice.h"
#include "config/publish.h"
#include "config/resource_limits.h"
#include "config/user_settings.h"

struct agent_profile;
struct held_secrets;
struct session_plan;
struct workspace;

typedef enum session_autonomy { AUTONOMY_SETTING, AUTONOMY_ON, AUTONOMY_OFF } session_autonomy_t;

/* The environment's say in a session (cmd/shared/cli_env.h reads it once);
 * NULL: unset (or empty, for ours). */
typedef struct session_env {
    const char *home;             /* HOME */
    const char *image;            /* AGENT_SANDBOX_IMAGE */
    const char *router_image;     /* AGENT_SANDBOX_ROUTER_IMAGE */
    const char *egress_network;   /* AGENT_SANDBOX_EGRESS_NETWORK */
    const char *resolver;         /* AGENT_SANDBOX_RESOLVER */
    const char *home_volume;      /* AGENT_SANDBOX_HOME_VOLUME */
    const char *volume_prefix;    /* AGENT_SANDBOX_VOLUME_PREFIX */
    const char *allowlist;        /* AGENT_SANDBOX_ALLOWLIST */
    const char *upstream_ca;      /* AGENT_SANDBOX_UPSTREAM_CA */
    const char *path;             /* PATH */
} session_env_t;

/* What a session is asked to be (cmd/run/run_options.c fills it from the
 * command line; verify, for its probe). It outlives the session. */
typedef struct session_request {
    bool exec;                   /* command is the command, else the agent's arguments */
    bool review;                 /* --review (docs/review.md) */
    bool dry_run;                /* the plan described, nothing run */
    const char *agent;           /* --agent NAME, or NULL */
    session_autonomy_t autonomy; /* --autonomy, --no-autonomy */
    char **toolchains;           /* --toolchain NAME..., or NULL */
    const char *image;           /* --image NAME, or NULL */
    const char *memory, *pids, *cpus;   /* as given, or NULL */
    char **command;              /* NULL-terminated: the agent's arguments (may be NULL), or the command */
    char **env;                  /* KEY=VALUE, NULL-terminated */
    char **secrets;              /* --secret NAME..., or NULL (docs/secrets.md) */
    publish_t publish[PUBLISH_MAX];   /* --publish, in order */
    size_t n_publish;
    session_env_t vars;
    /* Not options of the command line: where the session's I/O goes, and
     * what verify asks of its probe's session. */
    int in_fd, out_fd, err_fd;   /* in_fd -1: no input */
    bool allow_tty;
    bool private_home;           /* an empty home of its own, no volume */
    bool no_notices;             /* no desktop notifications */
    bool verify;                 /* verify's probe session: its egress is verify's, not an agent's */
    const char *ps_command;      /* what `ps` shows instead of the command, or NULL */
    /* Called with the complete plan before set-up; may be NULL. */
    void (*on_plan)(const struct session_plan *plan, void *ctx);
    void *on_plan_ctx;
} session_request_t;

typedef struct session_inputs {
    /* What was asked (set at the launch): the plan's specs read an option
     * of the command line here (p->in.request->FIELD), as it was given.
     * NULL in a plan made by hand (the tests'). */
    const session_request_t *request;
    char *id;                    /* from session_id_generate() */
    pid_t cli_pid;
    char *workdir;               /* resolved launch directory */
    const char *image;           /* image_choice.ref */
    /* The agent (agent_profile.h; may be NULL): its variables are set (env
     * wins over them), its login volume mounted only when it has
     * login-env, and with agent_args its command runs with `command` as
     * its arguments. */
    struct agent_profile *agent;
    bool agent_args;
    bool autonomy;               /* with agent_args: its unattended mode (autonomy-args, -env) */
    char *const *command;        /* the request's; non-empty unless agent_args */
    bool tty;
    char **env;                  /* KEY=VALUE to set inside, NULL-terminated, may be NULL */
    char *session_dir;           /* host-side session directory (rendered files live there) */
    char *home_volume;           /* the agent's home (home_volume.h); NULL: none */
    bool home_per_project;       /* the home belongs to the launch tree (workdir); else a named home */
    char *login_volume;          /* Claude's login, apart from the home; NULL: in the home */
    char *legacy_home;           /* the old shared home the login is copied from once; may be NULL */
    bool private_home;           /* an empty tmpfs home and no volume at all (verify's probe) */
    bool verify;                 /* verify's probe session: its egress events are verify's
                                  * (ROUTER_MARK_VERIFY), never an agent's */
    /* the egress path */
    const char *router_image;
    const char *egress_network;  /* shared by all sessions, created on demand */
    char *resolver;              /* IPv4 address the router resolves upstream names with */
    allowlist_t *allowlist;
    char *allowlist_path;        /* its file, where `allow --save` adds names; may be NULL */
    /* workspace protection: the launch's (session_life.h), begun (its
     * mounts are taken); NULL: none */
    const struct workspace *workspace;
    /* review mode (docs/review.md): the launch directory as the lower layer
     * of an overlay whose upper and work directories are these; NULL: none */
    char *review_upper;
    char *review_work;
    /* resource limits, and what the host lets podman enforce */
    limits_t limits;
    cgroup_caps_t cgroups;
    /* daily work: published ports, the user's name and git identity inside */
    const publish_t *publish;    /* n_publish of them, the request's (publish.h); needs the router */
    size_t n_publish;
    char *user_name;             /* the host user's name for the agent's passwd entry; NULL: podman's */
    uid_t uid;                   /* the host user's ids: keep-id maps them as they are */
    gid_t gid;
    char *git_config;            /* the system git config the agent gets (git_identity.h); NULL: none */
    struct held_secrets *held;   /* the router's held secrets (docs/secrets.md); may be NULL */
    /* loaded with the rest, for the launch */
    user_settings_t settings;    /* the settings file's (notifications, review, autonomy among them) */
    char *settings_path;
    image_choice_t image_choice; /* the session's image, why, and what builds it */
} session_inputs_t;

void session_inputs_clear(session_inputs_t *in);

#endif
