/* The session plan's layout: every name, copy and spec a plan holds. It is
 * a header of its own, below the plan's builder (session_plan.h), because
 * the spec builders (agent_spec.h, egress_spec.h) read the plan's fields
 * while the builder calls them: with the layout here, the specs depend on
 * the plan's data and the builder on the specs, and no unit depends on
 * itself through another. */
#ifndef AS_SESSION_PLAN_DATA_H
#define AS_SESSION_PLAN_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "config/allowlist.h"
#include "config/publish.h"
#include "config/resource_limits.h"
#include "podman/podman_api.h"

struct agent_profile;
struct agent_spec;
struct egress_spec;
struct held_secrets;
struct workspace;

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

#endif
