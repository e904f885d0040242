/* The egress path of a session. The router sits outside the pod, on the
 * session's internal network (at a fixed address) and on the shared egress
 * network; the forwarder sits in the pod and relays the loopback addresses
 * the allowed names resolve to onto the router. Rendering is pure
 * (lib/router_render, lib/router_firewall); this module writes the files,
 * builds the container specs and checks that the path is up. */
#ifndef AS_SESSION_ROUTER_H
#define AS_SESSION_ROUTER_H

#include <stddef.h>

#include "error.h"
#include "http.h"
#include "podman_api.h"
#include "router_render.h"
#include "session_plan.h"

#define ROUTER_CONF_DIR   "/etc/agent-sandbox-router"
#define ROUTER_LOG_DIR    "/var/log/agent-sandbox"
/* The servers log into pipes here; the router's bounded writers copy at most
 * ROUTER_LOG_MAX_BYTES (session_logs.h) of each into ROUTER_LOG_DIR. */
#define ROUTER_LOG_PIPES  "/run/agent-sandbox/nginx/log-pipes"
#define ROUTER_RUN_DIR    "/run/agent-sandbox/nginx"
#define FORWARDER_RUN_DIR "/run/agent-sandbox"   /* router-image/bin/agent-sandbox-forwarder */
#define PROBE_DENIED_NAME "denied-probe.agent-sandbox.invalid"

typedef struct router_runtime {
    char router_ip[16];
    char *conf_dir;          /* host side: <session dir>/router (ro in the router) */
    char *log_dir;           /* host side: <session dir>/router-log */
    char *hosts_path;        /* host side: <session dir>/hosts (ro at /etc/hosts in the agent) */
    char *resolv_path;       /* host side: <session dir>/resolv.conf (ro in the agent) */
    char **forwarder_argv;
    /* storage the container specs point into */
    podman_mount_t router_mounts[3];
    podman_network_attach_t router_networks[2];
    podman_label_t router_sysctls[1];
} router_runtime_t;

/* The router's address in a session subnet: its last usable host address,
 * away from the gateway (first) and the pod's addresses (allocated upwards). */
int router_ip_for_subnet(const char *subnet, char ret[16], as_error_t **err);

/* Renders every file for the router and the agent into the session
 * directory and computes the forwarder's and the probe's arguments. */
int router_runtime_prepare(const session_plan_t *p, const char *subnet, router_runtime_t *rt,
                           as_error_t **err);
void router_runtime_clear(router_runtime_t *rt);

/* Container specs pointing into the plan and the runtime. */
void router_container_spec(const session_plan_t *p, router_runtime_t *rt, podman_container_spec_t *ret);
void forwarder_container_spec(const session_plan_t *p, const router_runtime_t *rt,
                              podman_container_spec_t *ret);

/* The shared egress network, created when missing. */
int egress_network_ensure(podman_api_t *api, const char *name, as_error_t **err);

/* Waits until the forwarder, attached before its start, reports that its
 * probe passed: a denied name does not resolve, an allowed one resolves to
 * its loopback address, every listener is bound (all seen from inside the
 * pod). Fails when it stops instead, or after `timeout_ms`. */
int router_wait_ready(podman_api_t *api, const session_plan_t *p, const router_runtime_t *rt,
                      http_stream_t *forwarder_output, long timeout_ms, as_error_t **err);

#endif
