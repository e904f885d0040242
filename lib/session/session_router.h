/* The egress path at run time: the shared egress network, the router's
 * files written into the session directory, and the proof that the path is
 * up before the agent starts. The specs and the rendered files are pure
 * data, built by egress_spec.h; the protocol with the image's scripts is
 * in lib/egress/router_protocol.h. */
#ifndef AS_SESSION_ROUTER_H
#define AS_SESSION_ROUTER_H

#include <stdbool.h>
#include <stddef.h>

#include "egress_spec.h"
#include "base/error.h"
#include "base/http.h"
#include "base/signal_source.h"
#include "egress/router_protocol.h"
#include "podman/podman_api.h"

#define PROBE_DENIED_NAME ROUTER_PROTO_PROBE_DENIED

/* Writes the bound spec's files into the session directory: the router's
 * configuration, its empty logs (writable by the router's uid), the agent's
 * hosts and resolv.conf. */
int egress_files_write(const egress_spec_t *e, as_error_t **err);

/* Makes sure the shared egress network exists, creating it when missing. */
int egress_network_ensure(podman_api_t *api, const char *name, as_error_t **err);

typedef struct router_wait {
    const char *router;              /* the router's container, checked while waiting */
    const egress_spec_t *egress;     /* its logs say why it stopped */
    long timeout_ms;
    const signal_source_t *signals;  /* a terminating one ends the wait (-EINTR); may be NULL */
} router_wait_t;

/* Waits until the forwarder, attached before its start, reports that its
 * probe passed (ROUTER_PROTO_READY_LINE): a denied name does not resolve, an
 * allowed one resolves to its loopback address, every listener is bound
 * (all seen from inside the pod). Fails when it stops instead, or after
 * the timeout. */
int router_wait_ready(podman_api_t *api, const router_wait_t *w, http_stream_t *forwarder_output,
                      as_error_t **err);

/* Tells the router whose events follow, before the agent starts
 * (docs/router-protocol.md, "Whose events"): the agent's, or with `verify`
 * verify's probes'. Signals it again every second until it answers in its
 * log directory; fails after the timeout (the agent must not start: its
 * events would read as the sandbox's own). */
int router_mark_start(podman_api_t *api, const router_wait_t *w, bool verify, as_error_t **err);

#endif
