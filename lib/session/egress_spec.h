/* The egress path of a session as pure data: the router's and the
 * forwarder's container specs and the files they read. The router sits
 * outside the pod, on the session's internal network (at a fixed address)
 * and on the shared egress network; the forwarder sits in the pod and
 * relays the loopback addresses the allowed names resolve to onto the
 * router. It is built with the rest of the plan; what depends on the subnet
 * podman assigns (the router's address, the forwarder's arguments, the
 * rendered files) is filled in by egress_spec_bind, which is pure as well.
 * session_router.h writes it to disk and checks the path at run time. */
#ifndef AS_EGRESS_SPEC_H
#define AS_EGRESS_SPEC_H

#include <stdbool.h>

#include "session_plan_data.h"
#include "base/error.h"
#include "base/util.h"
#include "egress/egress_state.h"
#include "egress/router_terminate.h"
#include "egress/router_protocol.h"
#include "podman/podman_api.h"

#define EGRESS_FILES 20

typedef struct egress_file {
    const char *dir;         /* host side: a directory of the egress path, or the session's */
    const char *name;
    char *text;              /* owned, or NULL when `borrowed` holds it */
    const char *borrowed;
} egress_file_t;

typedef struct egress_spec {
    char *conf_dir;          /* <session dir>/router: read-only at ROUTER_CONF_DIR */
    char *log_dir;           /* <session dir>/router-log: the router's logs, ROUTER_LOG_DIR */
    char *hosts_path;        /* <session dir>/hosts: read-only at /etc/hosts in the agent */
    char *resolv_path;       /* <session dir>/resolv.conf: read-only in the agent */
    char *state_dir;         /* <session dir>/egress: what `allow` and `deny` read (host only) */
    char *view_dir;          /* <session dir>/agent-view: read-only at /etc/agent-sandbox */
    podman_container_spec_t router;
    podman_container_spec_t forwarder;   /* command: NULL until bound */
    podman_mount_t router_mounts[3];
    podman_network_attach_t router_networks[2];
    /* set by egress_spec_bind */
    bool bound;
    char router_ip[16];
    char **forwarder_argv;
    egress_state_t state;            /* its strings point into the spec and the plan */
    egress_names_t names;            /* what follows from the allowlist */
    egress_file_t files[EGRESS_FILES];
    router_terminate_t terminate;    /* names with held secrets (p->held); n_hosts 0: none */
} egress_spec_t;

/* Builds the router's and the forwarder's specs for plan p (its names,
 * images, labels, session directory). Their strings point into p, which
 * must outlive them. */
int egress_spec_build(const session_plan_t *p, egress_spec_t **ret, as_error_t **err);
void egress_spec_free(egress_spec_t *e);
DEFINE_CLEANUP_FUNC(egress_spec_t, egress_spec_free)

/* Fills in what follows from the session network's subnet: the router's
 * address there, the forwarder's arguments (its readiness probe and
 * listeners, docs/router-protocol.md) and every file the router and the
 * agent read, rendered in memory. */
int egress_spec_bind(egress_spec_t *e, const session_plan_t *p, const char *subnet,
                     as_error_t **err);

/* Computes the router's address in a session subnet: its last usable host
 * address, chosen to stay away from the gateway (the first) and the pod's
 * addresses (allocated upwards). */
int router_ip_for_subnet(const char *subnet, char ret[16], as_error_t **err);

#endif
