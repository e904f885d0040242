/* The router's TLS termination for the names that carry a held secret
 * (docs/secrets.md): pure renderers, like router_render.
 *
 * The stream{} block hands a terminated name's TLS connection to a unix
 * socket instead of relaying it to its upstream; an http{} server there holds the session's
 * certificate, judges every request (router_terminate_checks.c: credentials
 * by value and by name, router_credentials.h; the rule read-only as git's
 * fetch; a Host other than the connection's name), puts the held value in the
 * stand-in's place and opens its own TLS to the real name, verified
 * against the upstream CAs, kept alive from one request to the next. That
 * TLS goes through a relay in the stream{} block, one per name, which
 * resolves the name for each new connection. Every other name is
 * untouched (SNI routing).
 *
 * Two texts: the servers (no value: written into the session directory),
 * and the value maps (router_render_held_values: only ever sent through
 * the router's stdin into its tmpfs, where the servers include it). */
#ifndef AS_ROUTER_TERMINATE_H
#define AS_ROUTER_TERMINATE_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

#include "base/error.h"

/* Where things are inside the router. */
#define ROUTER_TLS_SOCKET "/run/agent-sandbox/nginx/tls.sock"
/* The relay of terminated name i to its origin listens on this prefix,
 * then i, then ".sock". */
#define ROUTER_RELAY_SOCKET_PREFIX "/run/agent-sandbox/nginx/relay-"
#define ROUTER_HELD_DIR "/run/agent-sandbox/nginx/held"
#define ROUTER_HELD_KEY ROUTER_HELD_DIR "/key.pem"
#define ROUTER_HELD_VALUES ROUTER_HELD_DIR "/values.conf"
/* nginx's njs module (Debian's libnginx-mod-http-js), loaded when a name
 * is terminated: its checks read the request's header lines through it. */
#define ROUTER_JS_MODULE "/usr/lib/nginx/modules/ngx_http_js_module.so"

/* One held secret in one header of one terminated name. */
typedef struct held_header {
    const char *host;        /* canonical name */
    const char *var;         /* the variable that names it (the 403 names it) */
    const char *header;      /* lower-case header name */
    const char *standin;     /* the header's value with the stand-in */
    const char *value;       /* with the real value; NULL for router_render_terminate */
} held_header_t;

typedef struct router_terminate {
    const char *const *hosts;    /* the terminated names, each once */
    size_t n_hosts;
    const held_header_t *held;
    size_t n_held;
    const char *const *read_only;  /* names with the rule read-only (each also in hosts) */
    size_t n_read_only;
    const char *cert;            /* the router's certificate (path inside the router) */
    const char *upstream_ca;     /* CAs the upstreams are verified against (path) */
    const char *log;             /* access log */
} router_terminate_t;

/* Checks every string that reaches a config; 0 or -EINVAL. */
int router_terminate_check(const router_terminate_t *t, bool with_values, as_error_t **err);

/* True when `name` is terminated. */
bool router_terminates(const router_terminate_t *t, const char *name);

/* The http{} part (maps that hold no value, the upstreams, the servers);
 * t checked. */
void router_render_terminate(FILE *f, const router_terminate_t *t);

/* The stream{} part: each name's virtual server on listen_ip:port, which
 * passes the connection to the terminating server, and each name's relay
 * to its origin; t checked. */
void router_render_terminate_stream(FILE *f, const router_terminate_t *t, const char *listen_ip,
                                    unsigned port);

/* The value maps the servers include (ROUTER_HELD_VALUES). */
int router_render_held_values(const router_terminate_t *t, char **ret_text, as_error_t **err);

#endif
