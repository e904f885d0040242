#include "router_terminate.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "router_protocol.h"
#include "router_terminate_int.h"
#include "base/hostname.h"
#include "base/msg.h"
#include "base/util.h"

static bool token_valid(const char *s, size_t max)
{
    if (s == NULL || s[0] == '\0' || strlen(s) > max)
        return false;
    for (const char *c = s; *c != '\0'; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '-' || *c == '_'))
            return false;
    return true;
}

/* A header name as the checks spell it: lower case (nginx's $http_NAME
 * and the header lines are), letters, digits and '-'. */
static bool header_name_valid(const char *s)
{
    if (s == NULL || s[0] == '\0' || strlen(s) > 64)
        return false;
    return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == strlen(s);
}

/* A header value as the renderers write it in a quoted string: what
 * secret_header_value makes (letters, digits, -._+/=, one space). */
static bool header_value_valid(const char *s)
{
    if (s == NULL || s[0] == '\0' || strlen(s) > 8192)
        return false;
    for (const char *c = s; *c != '\0'; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              strchr("-._+/= :", *c) != NULL))
            return false;
    return true;
}

static bool path_valid(const char *s)
{
    if (s == NULL || s[0] != '/' || strlen(s) > 1024)
        return false;
    for (const char *c = s; *c != '\0'; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              strchr("/._+-", *c) != NULL))
            return false;
    return true;
}

bool router_terminates(const router_terminate_t *t, const char *name)
{
    for (size_t i = 0; t != NULL && i < t->n_hosts; i++)
        if (strcmp(t->hosts[i], name) == 0)
            return true;
    return false;
}

int router_terminate_check(const router_terminate_t *t, bool with_values, as_error_t **err)
{
    if (t->n_hosts == 0 || t->hosts == NULL || (t->n_held > 0 && t->held == NULL))
        return as_error_make(err, EINVAL, "termination: no names");
    if (!path_valid(t->cert) || !path_valid(t->upstream_ca) || !path_valid(t->log))
        return as_error_make(err, EINVAL, "termination: paths must be absolute, of letters, "
                             "digits and /._+-");
    for (size_t i = 0; i < t->n_hosts; i++)
        if (!hostname_is_canonical(t->hosts[i]))
            return as_error_make(err, EINVAL, "termination: name %zu is not canonical", i);
    for (size_t i = 0; i < t->n_held; i++) {
        const held_header_t *h = &t->held[i];
        if (!router_terminates(t, h->host) || !token_valid(h->var, 128) ||
            !header_name_valid(h->header) || !header_value_valid(h->standin) ||
            (with_values && !header_value_valid(h->value)))
            return as_error_make(err, EINVAL, "termination: held secret %zu cannot go into the "
                                 "router's configuration", i);
    }
    for (size_t i = 0; i < t->n_read_only; i++)
        if (t->read_only == NULL || !router_terminates(t, t->read_only[i]))
            return as_error_make(err, EINVAL, "termination: read-only name %zu is not terminated", i);
    return 0;
}

bool terminate_read_only(const router_terminate_t *t, const char *name)
{
    for (size_t i = 0; i < t->n_read_only; i++)
        if (strcmp(t->read_only[i], name) == 0)
            return true;
    return false;
}

static bool same_place(const held_header_t *a, const held_header_t *b)
{
    return strcmp(a->host, b->host) == 0 && strcmp(a->header, b->header) == 0;
}

bool terminate_first_in_place(const router_terminate_t *t, size_t k)
{
    for (size_t j = 0; j < k; j++)
        if (same_place(&t->held[j], &t->held[k]))
            return false;
    return true;
}

void terminate_put_header_var(FILE *f, const char *header)
{
    fputs("$http_", f);
    for (const char *c = header; *c != '\0'; c++)
        fputc(*c == '-' ? '_' : *c, f);
}

bool terminate_host_places(const router_terminate_t *t, size_t i, const char *header)
{
    for (size_t k = 0; k < t->n_held; k++)
        if (strcmp(t->held[k].host, t->hosts[i]) == 0 && strcmp(t->held[k].header, header) == 0)
            return true;
    return false;
}

bool terminate_holds_secrets(const router_terminate_t *t, const char *h)
{
    for (size_t k = 0; k < t->n_held; k++)
        if (strcmp(t->held[k].host, h) == 0)
            return true;
    return false;
}

/* ---- the upstream path: kept alive, resolved per connection ------------ */

/* The name of terminated name i's upstream{} block. An underscore and no
 * dot: no host name an allowlist can hold, so the plain HTTP server's
 * proxy_pass, whose variable holds only allowed names, never picks it. */
#define TERMINATED_UPSTREAM "sandbox_terminated_"

/* Keep-alive to the origin needs an upstream{} block: a proxy_pass with a
 * variable keeps no connection pool, so each request would open a new TCP
 * and TLS connection. A name in an upstream{} block, though, is resolved
 * once, when nginx loads its config (nginx 1.26 has no `resolve` there):
 * the block's one server is the name's relay (router_render_terminate_stream),
 * which resolves the name through the router's resolver for each new
 * connection, as every other upstream is. The one server is never marked
 * down (max_fails=0): there is no other to try. Up to 8 idle connections
 * per worker are kept, an agent's few requests at once, each for 30 s,
 * shorter than most origins keep an idle connection open, so that the
 * router rarely reuses one its origin is closing. */
static void put_upstream(FILE *f, size_t i)
{
    fprintf(f, "    upstream " TERMINATED_UPSTREAM "%zu {\n"
            "        server unix:" ROUTER_RELAY_SOCKET_PREFIX "%zu.sock max_fails=0;\n"
            "        keepalive 8;\n        keepalive_timeout 30s;\n    }\n", i, i);
}

/* The first hop: the stream{} server on the router's 443 picks a virtual
 * server by the ClientHello's SNI (ssl_preread, nginx 1.25.5 and later), and
 * a terminated name's one hands the accepted connection itself to the
 * terminating http{} server (pass), in the same worker: no second socket
 * and no copy of every byte, as a proxy_pass to the TLS socket would make.
 * The SNI map still sends a terminated name to that socket (by proxy), so
 * an SNI spelling the virtual servers did not pick is terminated too. */
static void put_passes(FILE *f, const router_terminate_t *t, const char *listen_ip, unsigned port)
{
    for (size_t i = 0; i < t->n_hosts; i++)
        fprintf(f, "\n    # %s: handed to its terminating server\n    server {\n"
                "        listen %s:%u;\n        server_name %s;\n        ssl_preread on;\n"
                "        preread_timeout 10s;\n        pass unix:" ROUTER_TLS_SOCKET ";\n    }\n",
                t->hosts[i], listen_ip, port, t->hosts[i]);
}

void router_render_terminate_stream(FILE *f, const router_terminate_t *t, const char *listen_ip,
                                    unsigned port)
{
    put_passes(f, t, listen_ip, port);
    /* Not in the stream access log: the connection is the terminated
     * server's, which logs each request (an empty $server_port on a unix
     * socket would also break the log's JSON). It copies as much at a
     * time as the terminating server reads (put_server). */
    for (size_t i = 0; i < t->n_hosts; i++)
        fprintf(f, "\n    # %s: the terminated server's connections to it\n    server {\n"
                "        listen unix:" ROUTER_RELAY_SOCKET_PREFIX "%zu.sock;\n        access_log off;\n"
                "        proxy_buffer_size 256k;\n"
                "        set $sandbox_relay_upstream %s:443;\n"
                "        proxy_pass $sandbox_relay_upstream;\n    }\n", t->hosts[i], i, t->hosts[i]);
}

/* ---- the servers ---------------------------------------------------------- */

static void put_server(FILE *f, const router_terminate_t *t, size_t i)
{
    const char *h = t->hosts[i];
    fprintf(f, "\n    # %s: terminated (%s)\n", h,
            terminate_holds_secrets(t, h) ? "held secrets" : "request rules");
    put_upstream(f, i);
    fprintf(f, "    server {\n        listen unix:%s ssl;\n"
            "        server_name %s;\n        access_log %s sandbox_held;\n", ROUTER_TLS_SOCKET, h, t->log);
    terminate_put_refusals(f, t, i);
    /* The TLS to the upstream is verified by the name, not by the
     * upstream{} block's. Unbuffered (a streamed answer reaches the agent
     * as it comes), a response moves proxy_buffer_size at a time: 256 KiB,
     * as the relay's, instead of a page (a 1 GiB download: 126 MB/s with
     * 4 KiB, 193 with 64 KiB, 0.53x then 0.59x the SNI-routed path with
     * 256 KiB, BENCHMARKS.md); proxy_buffers, unused here, only has to be
     * larger for nginx to accept it. */
    fprintf(f, "        location / {\n"
            "            proxy_pass https://" TERMINATED_UPSTREAM "%zu;\n"
            "            proxy_ssl_server_name on;\n            proxy_ssl_name %s;\n"
            "            proxy_ssl_verify on;\n            proxy_ssl_verify_depth 5;\n"
            "            proxy_ssl_trusted_certificate %s;\n"
            "            proxy_buffer_size 256k;\n            proxy_buffers 4 256k;\n"
            "            proxy_set_header Host %s;\n            proxy_set_header Connection \"\";\n"
            "            proxy_set_header Proxy \"\";\n", i, h, t->upstream_ca, h);
    for (size_t k = 0; k < t->n_held; k++)
        if (strcmp(t->held[k].host, h) == 0 && terminate_first_in_place(t, k))
            fprintf(f, "            proxy_set_header %s $sandbox_held_%zu;\n", t->held[k].header, k);
    terminate_put_dropped_headers(f, t, i);
    fputs("        }\n    }\n", f);
}

/* Each request on the terminating socket is logged under the name its TLS
 * connection was made to: every one the router answers itself (a refusal,
 * a 421, or a request nginx rejects before any check runs: two
 * Authorization headers, a request line or header too long) is `refused`
 * by that name's rules, never taken for a blocked name; one its origin
 * answered (it has an upstream status) is `allow`. The log names the
 * upstream the relay connects to, so that a failure upstream still says
 * where (the address a failed connection tried is in nginx's error log). */
static void put_log(FILE *f)
{
    fputs("    log_format sandbox_held escape=json '{\"time\":\"$time_iso8601\",\"proto\":\"http\","
            "\"name\":\"$sandbox_tls_name\",\"port\":443,\"upstream\":\"$sandbox_held_upstream\","
            "\"verdict\":\"$sandbox_held_verdict\",\"status\":$status,\"method\":\"$request_method\","
            "\"sent\":$bytes_sent,\"received\":$request_length,"
            "\"upstream_addr\":\"$sandbox_held_upstream_addr\"}';\n"
            "    map $upstream_status $sandbox_held_verdict {\n        \"\" refused;\n        default allow;\n    }\n"
            "    map $upstream_status $sandbox_held_upstream {\n        \"\" \"\";\n"
            "        default $sandbox_tls_name;\n    }\n"
            "    map $upstream_addr $sandbox_held_upstream_addr {\n"
            "        \"~^unix:\" \"$sandbox_held_upstream:443\";\n        default $upstream_addr;\n    }\n", f);
}

void router_render_terminate(FILE *f, const router_terminate_t *t)
{
    fputs("\n    # ---- TLS termination for the names with held secrets (docs/secrets.md)\n", f);
    fprintf(f, "    ssl_certificate %s;\n    ssl_certificate_key " ROUTER_HELD_KEY ";\n"
            "    ssl_protocols TLSv1.2 TLSv1.3;\n", t->cert);
    fputs("    # the value maps: only in the router's tmpfs, from its stdin\n", f);
    fputs("    include " ROUTER_HELD_VALUES ";\n", f);
    terminate_put_checks(f, t);
    put_log(f);
    fprintf(f, "    server {\n        listen unix:%s ssl default_server;\n"
            "        access_log %s sandbox_held;\n"
            "        return 421 \"blocked by agent-sandbox: the Host of this request is not "
            "the name it connected to\\n\";\n    }\n", ROUTER_TLS_SOCKET, t->log);
    for (size_t i = 0; i < t->n_hosts; i++)
        put_server(f, t, i);
}

int router_render_held_values(const router_terminate_t *t, char **ret_text, as_error_t **err)
{
    int r = router_terminate_check(t, true, err);
    if (r < 0)
        return r;
    msg_t o;
    if ((r = msg_open_secret(&o, err)) < 0)
        return r;
    /* "h:" in front: no key is ever empty, a special word or a regex */
    for (size_t k = 0; k < t->n_held; k++) {
        if (!terminate_first_in_place(t, k))
            continue;
        fputs("map \"h:", o.f);
        terminate_put_header_var(o.f, t->held[k].header);
        fprintf(o.f, "\" $sandbox_held_%zu {\n    \"h:\" \"\";\n", k);
        for (size_t j = k; j < t->n_held; j++)
            if (same_place(&t->held[j], &t->held[k]))
                fprintf(o.f, "    \"h:%s\" \"%s\";\n", t->held[j].standin, t->held[j].value);
        fputs("    default \"!\";\n}\n", o.f);
    }
    return msg_close(&o, ret_text, err);
}
