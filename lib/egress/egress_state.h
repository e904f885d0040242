/* What changes when a running session's allowlist changes, as pure data:
 * the state `allow` and `deny` read from the session directory (the
 * router's container, address and resolver: what the router's files are
 * rendered from), and the files that follow from the allowlist in effect.
 * The session renders them at its start (lib/egress_spec), `allow` and
 * `deny` again (lib/egress_live); both through egress_names_render, so the
 * router reads the same files either way. docs/router-protocol.md,
 * "Live changes". */
#ifndef AS_EGRESS_STATE_H
#define AS_EGRESS_STATE_H

#include "router_render.h"
#include "base/error.h"
#include "base/util.h"
#include "config/allowlist.h"

/* In the session directory (host side only, never mounted anywhere). */
#define EGRESS_STATE_DIR        "egress"
#define EGRESS_STATE_FILE       "state"          /* egress_state_format */
#define EGRESS_STATE_ALLOWLIST  "allowed-hosts"  /* the list in effect (allowlist_format) */
#define EGRESS_STATE_SOURCE     "allowlist-path" /* the file the session started with, as is */
#define EGRESS_STATE_LOCK       "lock"           /* held while one change is made */
/* Read-only at /etc/agent-sandbox in the agent: the list in effect, for it
 * to read (ROUTER_AGENT_ALLOWLIST). */
#define EGRESS_AGENT_VIEW_DIR   "agent-view"
#define EGRESS_AGENT_VIEW_FILE  "allowed-hosts"
/* With held secrets: the session CA, and the system's CAs with it. */
#define EGRESS_AGENT_SESSION_CA "session-ca.pem"
#define EGRESS_AGENT_CA_BUNDLE  "ca-bundle.pem"
#define EGRESS_AGENT_VIEW_MOUNT "/etc/agent-sandbox"

typedef struct egress_state {
    char *id;          /* the session's id */
    char *router;      /* its router's container */
    char *router_ip;   /* on the session network: dnsmasq and nginx listen there */
    char *resolver;    /* the router's upstream resolver */
    /* the names it terminates (docs/secrets.md): set by the session for its
     * start only, never in the state file */
    const struct router_terminate *terminate;
} egress_state_t;

/* "KEY VALUE" lines (docs/config-files.md syntax); every value checked:
 * a session id of lower-case hex, a container name, IPv4 addresses. */
int egress_state_format(const egress_state_t *st, char **ret_text, as_error_t **err);
int egress_state_parse(const char *file, const char *text, size_t len, egress_state_t **ret,
                       as_error_t **err);
void egress_state_free(egress_state_t *st);
DEFINE_CLEANUP_FUNC(egress_state_t, egress_state_free)

/* The router's layout in its image (lib/egress/router_protocol.h) for this state. */
void egress_router_layout(const egress_state_t *st, router_layout_t *ret);

/* Every file that follows from the allowlist in effect. */
typedef struct egress_names {
    char *dnsmasq_conf;     /* router/ */
    char *nginx_conf;       /* router/ */
    char *dns_hosts;        /* router/, dnsmasq's exact names */
    char *dns_wildcards;    /* router/, dnsmasq's wildcards */
    char *agent_hosts;      /* the agent's /etc/hosts */
    char *agent_view;       /* the agent's /etc/agent-sandbox/allowed-hosts */
    char *allowlist;        /* egress/allowed-hosts: allowlist_format */
} egress_names_t;

int egress_names_render(const allowlist_t *al, const egress_state_t *st, egress_names_t *ret,
                        as_error_t **err);
void egress_names_clear(egress_names_t *n);

#endif
