/* Pure renderers for the router's configs and the pod's hosts file: an
 * allowlist and a layout in, malloc'd text out. No file is read, nothing is
 * written, nothing is resolved.
 *
 * Addressing (one session):
 *   - every allowed name (exact or wildcard) resolves in the pod to the
 *     shared loopback address 127.0.0.2; the forwarder listens there on 80
 *     and 443 and relays to the router's HTTP and HTTPS ports;
 *   - each exact host with extra ports gets its own 127.0.0.N (N >= 3, in
 *     allowlist order), so two hosts can use the same port number; the
 *     forwarder listens there on 80, 443 and each extra port;
 *   - each host:port gets its own router port (forward_port_base + i, i in
 *     allowlist order, ports in file order) whose upstream is fixed to that
 *     host:port.
 * router_forwards() computes this; the forwarder and every renderer use it.
 *
 * Every string that reaches a config is re-checked here (host names via
 * hostname_is_canonical, addresses, ports, paths), so a caller cannot
 * smuggle a newline, quote, ';' or '{' into a config. */
#ifndef AS_ROUTER_RENDER_H
#define AS_ROUTER_RENDER_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "config/allowlist.h"

#define ROUTER_POD_SHARED_IP "127.0.0.2"
#define ROUTER_POD_FIRST_HOST_OCTET 3      /* 127.0.0.3 is the first per-host address */
#define ROUTER_POD_LAST_HOST_OCTET 254
/* The pod's host name (its name too): this and the session id. The agent's
 * hosts file answers it for IPv4 and IPv6 alike (an IPv6 lookup the file
 * cannot answer goes on to DNS), so looking up the sandbox's own name never
 * reaches the router. 127.0.1.1 as on Debian: the name's own line, so it
 * is its canonical name (`hostname -f`), and an address no forwarder
 * listens on; for IPv6, which the pod does not have at all, the same
 * address v4-mapped (glibc would turn ::1 into 127.0.0.1 for IPv4 lookups,
 * a second address for the name). */
#define ROUTER_POD_HOSTNAME_PREFIX "agent-sandbox-"
#define ROUTER_POD_OWN_NAME_IP "127.0.1.1"
#define ROUTER_POD_OWN_NAME_IP6 "::ffff:127.0.1.1"
#define ROUTER_STREAM_MODULE_DEBIAN "/usr/lib/nginx/modules/ngx_stream_module.so"

/* Where things are. Ports left 0 take the standard value (DNS 53, HTTP 80,
 * HTTPS 443, forward base 10000, resolver 53); tests set high ports to run
 * the configs on loopback. All paths must be absolute. */
typedef struct router_layout {
    const char *router_ip;          /* router's address on the session's internal network;
                                     * dnsmasq and nginx listen here */
    unsigned dns_port;
    unsigned http_port;
    unsigned https_port;
    unsigned forward_port_base;     /* router port of the first host:port entry */
    const char *resolver_ip;        /* IPv4 resolver nginx uses for upstream names (egress side) */
    unsigned resolver_port;
    const char *stream_module;      /* NULL: ROUTER_STREAM_MODULE_DEBIAN */
    const char *nginx_run_dir;      /* writable by nginx: pid file and every *_temp_path */
    const char *nginx_error_log;
    const char *nginx_access_log;   /* one JSON line per HTTP request and per TLS/TCP connection */
    const char *dnsmasq_log;        /* path, or "-" for stderr */
    const char *dnsmasq_hosts;      /* where dnsmasq reads the exact names (the text of
                                     * router_render_dns_hosts): re-read on SIGHUP */
    const char *dnsmasq_servers;    /* where it reads the wildcards (the text of
                                     * router_render_dns_wildcards): re-read on SIGHUP */
    const char *session_id;         /* named in the 403 body's `allow` command; may be NULL */
    const struct router_terminate *terminate; /* names with held secrets; NULL: none */
} router_layout_t;

/* A session id as the renderers take it (it goes into a quoted nginx
 * string): 1 to 64 lower-case hex digits. */
bool router_session_id_valid(const char *s);

/* Where the agent finds the allowlist in effect (the 403 body names it). */
#define ROUTER_AGENT_ALLOWLIST "/etc/agent-sandbox/allowed-hosts"

/* One listener of the forwarder in the pod and where it relays to. */
typedef struct router_forward {
    char pod_ip[INET_ADDRSTRLEN];   /* "127.0.0.2", "127.0.0.3", ... */
    unsigned pod_port;              /* 80, 443 or an extra port */
    unsigned router_port;           /* on layout->router_ip */
    const char *host;               /* NULL for the shared address, else the entry's name
                                     * (borrowed from the allowlist) */
} router_forward_t;

/* The forwarder's listeners: 127.0.0.2:80 and :443 first, then per host with
 * extra ports (in allowlist order) its 80, 443 and extra ports. Free
 * *ret_forwards with free(). Fails when the allowlist needs more loopback
 * addresses or router ports than exist. */
int router_forwards(const allowlist_t *al, const router_layout_t *layout,
                    router_forward_t **ret_forwards, size_t *ret_n, as_error_t **err);

/* The pod-side address of an exact name: 127.0.0.N for a host with extra
 * ports, else ROUTER_POD_SHARED_IP. Fails for a name not in the allowlist. */
int router_pod_address(const allowlist_t *al, const char *name, char ret_ip[INET_ADDRSTRLEN],
                       as_error_t **err);

/* dnsmasq.conf for the router: answers only allowed names, with their pod
 * loopback address; NXDOMAIN for everything else; nothing leaves the
 * router. The names are in two files it re-reads on SIGHUP (its config it
 * reads only when it starts), so that they change without a restart: the
 * exact names in a hosts file (layout->dnsmasq_hosts), and the wildcards
 * as domains it asks the router's second dnsmasq for, on the router's own
 * loopback (layout->dnsmasq_servers; ROUTER_WILDCARD_DNS_PORT), which
 * answers every name with the shared address. */
int router_render_dnsmasq(const allowlist_t *al, const router_layout_t *layout,
                          char **ret_text, as_error_t **err);

/* nginx.conf for the router: SNI routing on the HTTPS port, Host routing on
 * the HTTP port, one fixed TCP proxy per host:port entry. A refused HTTP
 * request gets a 403 whose body names the host, where the allowlist in
 * effect is (ROUTER_AGENT_ALLOWLIST) and the command that would allow it. */
int router_render_nginx(const allowlist_t *al, const router_layout_t *layout,
                        char **ret_text, as_error_t **err);

/* /etc/hosts for the agent: localhost, the pod's own host name (NULL:
 * none) and every exact name with its pod address; nothing else (no
 * host.containers.internal). */
int router_render_hosts(const allowlist_t *al, const char *hostname, char **ret_text,
                        as_error_t **err);

/* The router dnsmasq's hosts file: every exact name with its pod address
 * (no localhost: the router answers only allowed names). */
int router_render_dns_hosts(const allowlist_t *al, char **ret_text, as_error_t **err);

/* Its servers file: one `server=/DOMAIN/` line per wildcard, naming the
 * router's second dnsmasq. */
int router_render_dns_wildcards(const allowlist_t *al, char **ret_text, as_error_t **err);

#endif
