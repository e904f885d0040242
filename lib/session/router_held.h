/* The held secrets reach the router through its stdin, never through a
 * file, a container spec or an exec, because podman keeps those. What goes
 * that way is the router's key and the value maps, framed by the lines of
 * router_protocol.h; agent-sandbox-router-run reads them into its tmpfs
 * before nginx starts (docs/secrets.md). */
#ifndef AS_ROUTER_HELD_H
#define AS_ROUTER_HELD_H

#include "egress_spec.h"
#include "base/error.h"
#include "podman/podman_api.h"

/* What goes to the router's stdin (secret: the caller wipes and frees it). */
int router_held_payload(const egress_spec_t *e, const char *key_pem, char **ret, as_error_t **err);

/* Creates and starts the router of spec e, attaching its stdin first so
 * that nothing written is lost, and writes the payload (wiped here). It
 * runs under bg_start, whose arg is a router_held_job_t. */
typedef struct router_held_job {
    const egress_spec_t *egress;
    char *payload;           /* owned: wiped and freed by the job */
} router_held_job_t;
int router_held_start(podman_api_t *api, void *arg, as_error_t **err);

#endif
