/* A session's router logs as events: every DNS query the router's dnsmasq
 * answered (dns.log) and every connection and HTTP request its nginx
 * handled (egress.log, one JSON object per line), each with its time,
 * name, port, verdict and bytes, and whether an allowed name could not be
 * reached upstream. Read from a running session's router-log/ or from the
 * copy kept after it; read again, a reader gives what was added since
 * (`log --follow`, the desktop notifications). Names are the agent's own
 * bytes: escape them before printing (path_put_escaped). Each event says
 * whose it is, from where it is in the log, never from its name: before
 * the router's mark (ROUTER_MARK_LINE, written before the agent starts)
 * the sandbox's own (the readiness probe's), after it the agent's, or in
 * verify's session verify's probes'. */
#ifndef AS_EGRESS_LOG_H
#define AS_EGRESS_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "base/error.h"

typedef enum egress_failure {
    EGRESS_REACHED,          /* or not tried: denied, or a DNS answer */
    EGRESS_UNRESOLVED,       /* allowed, but its name did not resolve upstream */
    EGRESS_UNREACHABLE,      /* allowed, but the connection upstream failed (refused, timed out,
                              * or refused by the router: an address in a refused range) */
} egress_failure_t;

typedef enum egress_by {
    EGRESS_BY_SANDBOX,       /* before the mark (or a log without one): the readiness probe's */
    EGRESS_BY_AGENT,
    EGRESS_BY_VERIFY,        /* verify's probes, in verify's session */
} egress_by_t;

typedef struct egress_event {
    time_t time;             /* UTC */
    const char *kind;        /* "dns", "tls", "http" or "tcp" */
    char *name;              /* as the agent sent it: a DNS name, the TLS server name, the
                              * Host; for a host:port forward, the allowed host */
    unsigned port;           /* the port asked for (53 for DNS) */
    bool denied;
    bool by_rule;            /* denied on an allowed name by a held secret's or request rule
                              * (verdict "refused": the name is allowed, the request is not) */
    egress_failure_t failure;
    char qtype[12];          /* dns: A, AAAA, HTTPS, ... */
    char *answer;            /* dns: 127.0.0.2, NXDOMAIN, NODATA-IPv6, ... */
    char *upstream;          /* connections: the allowlisted upstream, "" when denied */
    char *upstream_addr;     /* the address it connected to, "" when none */
    long status;             /* connections: nginx's status */
    long long sent, received;   /* bytes to and from the agent */
    egress_by_t by;
} egress_event_t;

void egress_event_clear(egress_event_t *e);

/* The lower-case name without a trailing dot, as an allowlist holds it;
 * or NULL when it is not a name an allowlist can hold (for the `allow`
 * command to suggest). Free with free(). */
char *egress_event_allowable(const egress_event_t *e);

/* One line of each log; 1 and *ret filled when the line completes an
 * event, 0 when not (another kind of line, or the query's answer is still
 * to come), -ENOMEM. dns_line keeps the pending query in `pending`. */
typedef struct dns_pending {
    bool active;
    time_t time;
    char qtype[12];
    char *name;
} dns_pending_t;
int egress_dns_line(dns_pending_t *pending, const char *line, time_t now, egress_event_t *ret);
void dns_pending_clear(dns_pending_t *p);
int egress_conn_line(const char *line, egress_event_t *ret);
/* Whether a line is the router's mark, and whose events follow it. */
bool egress_mark_line(const char *line, egress_by_t *ret);
/* "agent", "sandbox", "verify" */
const char *egress_by_name(egress_by_t by);

typedef struct egress_log_reader egress_log_reader_t;

/* dir holds dns.log and egress.log (a missing one reads as empty). */
int egress_log_open(const char *dir, egress_log_reader_t **ret, as_error_t **err);
void egress_log_close(egress_log_reader_t *r);

typedef int (*egress_event_fn)(const egress_event_t *e, void *ctx);

/* Calls fn for each event of the lines completed since the last call, in
 * time order (a query before a connection of the same second); stops at
 * fn's first negative return and returns it. */
int egress_log_read(egress_log_reader_t *r, egress_event_fn fn, void *ctx, as_error_t **err);

#endif
