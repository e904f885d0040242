/* A session, first as pure data: every network, pod and container spec the
 * executor will ask podman for (router, forwarder and agent, with every
 * mount, sysctl, label and variable), computed from the inputs before any
 * API call. Only what podman returns is missing: the session network's
 * subnet, and what follows from it (the router's address, the pod's DNS
 * server, the forwarder's arguments, the rendered router files), filled in
 * by session_plan_bind, pure as well. Printable (--dry-run) and
 * unit-tested without podman; lib/session walks it. */
#ifndef AS_SESSION_PLAN_H
#define AS_SESSION_PLAN_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/error.h"
#include "config/allowlist.h"
#include "config/publish.h"
#include "config/resource_limits.h"
#include "podman/podman_api.h"

#include "labels.h"
#include "session_inputs.h"

/* In the session directory: the git identity's file (agent_spec.h mounts it). */
#define SESSION_GIT_CONFIG_FILE "gitconfig"

struct agent_profile;

typedef struct session_plan {
    char *id;
    char *pid;
    char *network;
    char *pod;
    char *agent;
    const struct agent_profile *profile;   /* borrowed, may be NULL */
    char *image;
    char *workdir;
    char **command;
    char **env;
    bool tty;
    char *session_dir;
    char *home_volume;
    bool home_per_project;
    char *login_volume;          /* only for an agent with login-env */
    char *legacy_home;
    bool private_home;
    bool verify;
    char *router;                /* container names */
    char *forwarder;
    char *router_image;
    char *egress_network;
    char *resolver;
    const allowlist_t *allowlist;
    char *allowlist_path;
    /* workspace protection */
    const struct workspace *workspace;
    /* review mode: "upperdir=...", "workdir=...", NULL; [0] NULL: none */
    char *review_overlay[3];
    limits_t limits;
    cgroup_caps_t cgroups;
    publish_t publish[PUBLISH_MAX];
    size_t n_publish;
    podman_port_t pod_ports[PUBLISH_MAX];   /* the pod's, on the host's loopback */
    char *user_name;
    uid_t uid;
    gid_t gid;
    char *git_config;            /* its text, written to git_config_path by the executor */
    const struct held_secrets *held; /* borrowed from the inputs; NULL or none held: no termination */
    char *git_config_path;       /* <session dir>/gitconfig: read-only at /etc/gitconfig */
    podman_label_t labels[2];
    /* the specs; their strings point into the plan */
    podman_network_spec_t network_spec;
    podman_pod_spec_t pod_spec;
    char *pod_dns[2];                 /* the router's address once bound, NULL-terminated */
    struct egress_spec *egress;       /* the router and forwarder; NULL without a router */
    struct agent_spec *agent_spec;
} session_plan_t;

int session_plan_build(const session_inputs_t *in, session_plan_t **ret, as_error_t **err);
void session_plan_free(session_plan_t *p);
DEFINE_CLEANUP_FUNC(session_plan_t, session_plan_free)

/* Fills in what follows from the subnet podman assigned the session
 * network (egress_spec_bind, and the pod's DNS server). Pure. */
int session_plan_bind(session_plan_t *p, const char *subnet, as_error_t **err);

/* The mount points in the agent of every host path it is given (bind
 * mounts: the launch directory, the workspace's own, the rendered name
 * files), NULL-terminated; the strings point into the plan. For verify. */
int session_plan_host_mounts(const session_plan_t *p, const char ***ret, as_error_t **err);

/* Human-readable description, for --dry-run. */
int session_plan_describe(const session_plan_t *p, char **ret, as_error_t **err);

#endif
