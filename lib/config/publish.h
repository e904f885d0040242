/* --publish [HOSTPORT:]PORT: a server the agent runs on PORT becomes
 * reachable on the host at 127.0.0.1:HOSTPORT, and nowhere else: the one
 * inbound path into a session (docs/publish.md).
 *
 * The path: podman publishes a port of the pod on the host's loopback
 * (rootlessport: a listener on the host, a dialer in the pod's network
 * namespace that the agent cannot see); that port is a relay of the
 * forwarder's, which passes each connection on to 127.0.0.1:PORT in the pod,
 * so a server that listens on localhost only is reached too. Nothing of it
 * gives the pod a route or an address outside: its egress stays the router.
 *
 * Parsing and the relay ports are pure; publish_host_port_check asks the
 * host's kernel whether the port is free. */
#ifndef AS_PUBLISH_H
#define AS_PUBLISH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#define PUBLISH_MAX 16
/* Where podman listens on the host: loopback only. */
#define PUBLISH_HOST_IP "127.0.0.1"
/* The forwarder's relay of the i-th publish listens on every address of the
 * pod at PUBLISH_RELAY_PORT_BASE + i: above Linux's default ephemeral range
 * (32768-60999), so no outgoing connection of the agent collides with it. */
#define PUBLISH_RELAY_PORT_BASE 61000
/* Where the relay passes connections on: the agent's server. */
#define PUBLISH_TARGET_IP "127.0.0.1"

typedef struct publish {
    uint16_t host_port;      /* on the host's 127.0.0.1 */
    uint16_t port;           /* the agent's server in the sandbox */
} publish_t;

/* "[HOSTPORT:]PORT", each 1-65535 in decimal; HOSTPORT defaults to PORT. A
 * PORT among the relay ports is refused (the relay would reach itself). */
int publish_parse(const char *spec, publish_t *ret, as_error_t **err);

/* The relay port of the i-th publish (i < PUBLISH_MAX). */
static inline uint16_t publish_relay_port(size_t i)
{
    return (uint16_t)(PUBLISH_RELAY_PORT_BASE + i);
}

/* A list the plan can take: at most PUBLISH_MAX, no host port twice. */
int publish_list_check(const publish_t *v, size_t n, as_error_t **err);

/* Whether the host port can be published now: binds PUBLISH_HOST_IP:port
 * with SO_REUSEADDR (as podman's listener does) and lets go. -EADDRINUSE
 * when a program listens there, -EACCES for a port this user may not bind,
 * with a message that names the port. */
int publish_host_port_check(const publish_t *p, as_error_t **err);

#endif
