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

#include "session_inputs.h"
#include "podman/podman_api.h"

struct agent_spec;
struct egress_spec;

typedef struct session_plan {
    /* The inputs it was built from, as they were: a copy that borrows what
     * they own (session_inputs.h), read by the specs as p->in.FIELD. */
    session_inputs_t in;
    /* What follows from them: names, the composed command and
     * environment, the mounts' options, and the specs. */
    char *pid;
    char *network;
    char *pod;
    char *agent;                 /* container names */
    char *router;
    char *forwarder;
    char **command;
    char **env;
    const char *login_volume;    /* in.login_volume, only for an agent with login-env */
    const char *legacy_home;
    /* review mode: "upperdir=...", "workdir=...", NULL; [0] NULL: none */
    char *review_overlay[3];
    podman_port_t pod_ports[PUBLISH_MAX];   /* the pod's, on the host's loopback */
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
