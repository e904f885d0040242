/* nginx.conf for the router: the stream {} block (TLS by SNI, the fixed
 * host:port forwards) and the http {} block (plain HTTP by Host, the 403
 * of a refusal, the TLS termination of router_terminate.h). */
#include "router_render.h"

#include <stdio.h>

#include "router_protocol.h"
#include "router_render_int.h"
#include "router_terminate.h"
#include "base/msg.h"
#include "base/util.h"

/* Room for 253-byte names and ALLOWLIST_MAX_ENTRIES keys in a map hash (the
 * defaults, 64 and 2048, refuse names longer than about 50 bytes). */
#define MAP_HASH_SIZES "    map_hash_bucket_size 512;\n    map_hash_max_size 16384;\n"

/* A case-insensitive regex matching the apex and every subdomain of a
 * (canonical) wildcard name. It captures only the subdomain labels; the apex
 * is written from the allowlist. Labels are checked as strictly as in the
 * allowlist and the whole name is at most 253 bytes, so the capture can go
 * into proxy_pass: the client's bytes reach it only when they form valid
 * labels under the allowed apex. (The map lower-cases the key for its hash
 * lookups but runs regexes on the original bytes, hence ~*.) Dots are
 * written as [.]; the end is \z, not $, which also matches before a final
 * newline ("x.wild.test\n" would pass). nginx keeps \z in a quoted string. */
static void put_wildcard_regex(FILE *f, const char *apex)
{
    fputs("\"~*^(?=[a-z0-9.-]{1,253}[.]?\\z)((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?[.])*)", f);
    for (const char *c = apex; *c != '\0'; c++)
        if (*c == '.')
            fputs("[.]", f);
        else
            fputc(*c, f);
    fputs("[.]?\\z\"", f);
}

/* map bodies shared by the TLS and HTTP maps; `suffix` is appended to the
 * upstream name (":443" for TLS, "" for HTTP). */
static void put_name_map(FILE *f, const allowlist_t *al, const char *suffix,
                         const router_terminate_t *term)
{
    fputs("        hostnames;\n", f);
    /* a terminated name goes to the router's own TLS server (exact, so it
     * wins over a wildcard that also covers it) */
    for (size_t i = 0; term != NULL && i < term->n_hosts; i++)
        fprintf(f, "        %s unix:" ROUTER_TLS_SOCKET ";\n", term->hosts[i]);
    for (size_t i = 0; i < al->n_entries; i++)
        if (!al->entries[i].wildcard && !router_terminates(term, al->entries[i].name))
            fprintf(f, "        %s %s%s;\n", al->entries[i].name, al->entries[i].name, suffix);
    for (size_t i = 0; i < al->n_entries; i++)
        if (al->entries[i].wildcard) {
            fputs("        ", f);
            put_wildcard_regex(f, al->entries[i].name);
            fprintf(f, " $1%s%s;\n", al->entries[i].name, suffix);
        }
    fputs("        default \"\";\n", f);
}

/* The header, the process and the events. */
static void put_nginx_main(FILE *f, const render_layout_t *l)
{
    fputs(RENDER_HEADER, f);
    fprintf(f, "load_module %s;\n", l->stream_module);
    if (l->terminate != NULL)
        fputs("load_module " ROUTER_JS_MODULE ";\n", f);
    fputc('\n', f);
    fputs("# Runs in the foreground as any user: every file it writes is under the\n"
          "# run directory or at a log path given by agent-sandbox.\n", f);
    /* two workers: a relay and its TLS endpoints share the cores; more
     * would only cost memory per session (BENCHMARKS.md) */
    fprintf(f, "daemon off;\nworker_processes 2;\npid %s/nginx.pid;\nerror_log %s notice;\n\n",
            l->run_dir, l->error_log);
    fputs("events {\n    worker_connections 4096;\n    multi_accept on;\n}\n\n", f);
}

/* stream {}: TLS by SNI, and the fixed host:port forwards. */
static void put_nginx_stream(FILE *f, const allowlist_t *al, const render_layout_t *l,
                             const router_forward_t *fw, size_t n_fw)
{
    fputs("stream {\n", f);
    fputs("    log_format sandbox escape=json '{\"time\":\"$time_iso8601\",\"proto\":\"$sandbox_proto\","
          "\"name\":\"$sandbox_name\",\"port\":$server_port,\"upstream\":\"$sandbox_upstream\","
          "\"verdict\":\"$sandbox_verdict\",\"status\":$status,\"sent\":$bytes_sent,"
          "\"received\":$bytes_received,\"upstream_addr\":\"$upstream_addr\"}';\n", f);
    fprintf(f, "    access_log %s sandbox;\n", l->access_log);
    fprintf(f, "    resolver %s:%u ipv6=off valid=30s;\n    resolver_timeout 10s;\n",
            l->resolver_ip, l->resolver_port);
    /* 64 KiB per direction instead of 16: a quarter of the copies per byte
     * relayed (BENCHMARKS.md) */
    fputs("    proxy_connect_timeout 10s;\n    proxy_half_close on;\n    proxy_buffer_size 64k;\n", f);
    fputs(MAP_HASH_SIZES "\n", f);

    fputs("    # The upstream comes from the allowlist, not from the client: exact names\n"
          "    # map to themselves; a wildcard maps to the client's subdomain labels\n"
          "    # (only if they are valid) plus the allowlisted apex. Anything else,\n"
          "    # including an empty, absent or malformed SNI, maps to \"\": no upstream,\n"
          "    # the connection is closed.\n", f);
    fputs("    map $ssl_preread_server_name $sandbox_tls_upstream {\n", f);
    put_name_map(f, al, ":443", l->terminate);
    fputs("    }\n\n", f);

    /* Per router port: what is logged, and where a fixed forward goes. */
    fputs("    map $server_port $sandbox_upstream {\n", f);
    for (size_t i = 0; i < n_fw; i++)
        if (fw[i].router_port != l->http_port && fw[i].router_port != l->https_port)
            fprintf(f, "        %u %s:%u;\n", fw[i].router_port, fw[i].host, fw[i].pod_port);
    fputs("        default $sandbox_tls_upstream;\n    }\n", f);
    fputs("    map $server_port $sandbox_name {\n", f);
    for (size_t i = 0; i < n_fw; i++)
        if (fw[i].router_port != l->http_port && fw[i].router_port != l->https_port)
            fprintf(f, "        %u %s;\n", fw[i].router_port, fw[i].host);
    fputs("        default $ssl_preread_server_name;\n    }\n", f);
    fprintf(f, "    map $server_port $sandbox_proto {\n        %u tls;\n        default tcp;\n    }\n",
            l->https_port);
    fputs("    map $sandbox_upstream $sandbox_verdict {\n        \"\" deny;\n"
          "        default allow;\n    }\n\n", f);

    fprintf(f, "    server {\n        listen %s:%u;\n        ssl_preread on;\n"
            "        preread_timeout 10s;\n        proxy_pass $sandbox_upstream;\n    }\n",
            l->router_ip, l->https_port);
    for (size_t i = 0; i < n_fw; i++)
        if (fw[i].router_port != l->http_port && fw[i].router_port != l->https_port)
            fprintf(f, "\n    # %s:%u (pod %s:%u)\n    server {\n        listen %s:%u;\n"
                    "        proxy_pass $sandbox_upstream;\n    }\n", fw[i].host, fw[i].pod_port,
                    fw[i].pod_ip, fw[i].pod_port, l->router_ip, fw[i].router_port);
    if (l->terminate != NULL)
        router_render_terminate_stream(f, l->terminate, l->router_ip, l->https_port);
    fputs("}\n\n", f);
}

/* The last line of a refusal's body: the command that would allow the
 * name, when it is one an allowlist can hold (the parser's rule, roughly:
 * labels of letters, digits and '-', a last label that starts with a
 * letter, so no IP address in any spelling). */
static void put_refusal_hint(FILE *f, const render_layout_t *l)
{
    fputs("    map $host $sandbox_allow_hint {\n"
          "        \"~^(?=[a-z0-9.-]{1,253}\\z)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?[.])+"
          "[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?\\z\"\n"
          "            \"To allow it, the user runs on the host: agent-sandbox allow $host", f);
    if (l->session_id != NULL)
        fprintf(f, " --session %s", l->session_id);
    fputs("\";\n        default \"It is not a host name an allowlist can hold.\";\n    }\n\n", f);
}

/* Each request's verdict in the log. The names the router terminates have
 * their request checks on the TLS path only (router_terminate.h): over
 * plain HTTP they are refused, whichever entry allows them (an exact name,
 * or a wildcard above it). */
static void put_http_verdict(FILE *f, const router_terminate_t *term)
{
    if (term == NULL) {
        fputs("    map $sandbox_http_upstream $sandbox_http_verdict {\n        \"\" deny;\n"
              "        default allow;\n    }\n\n", f);
        return;
    }
    fputs("    map $host $sandbox_http_terminated {\n        hostnames;\n", f);
    for (size_t i = 0; i < term->n_hosts; i++)
        fprintf(f, "        %s 1;\n", term->hosts[i]);
    fputs("        default 0;\n    }\n", f);
    fputs("    map \"$sandbox_http_terminated $sandbox_http_upstream\" $sandbox_http_verdict {\n"
          "        \"~^1 \" refused;\n        \"0 \" deny;\n        default allow;\n    }\n\n", f);
}

/* http {}: plain HTTP by Host. */
static void put_nginx_http(FILE *f, const allowlist_t *al, const render_layout_t *l)
{
    const char *d = l->run_dir;
    fputs("http {\n", f);
    fprintf(f, "    client_body_temp_path %s/client_body;\n    proxy_temp_path %s/proxy;\n"
            "    fastcgi_temp_path %s/fastcgi;\n    uwsgi_temp_path %s/uwsgi;\n"
            "    scgi_temp_path %s/scgi;\n\n", d, d, d, d, d);
    fputs("    log_format sandbox escape=json '{\"time\":\"$time_iso8601\",\"proto\":\"http\","
          "\"name\":\"$host\",\"port\":$server_port,\"upstream\":\"$sandbox_http_upstream\","
          "\"verdict\":\"$sandbox_http_verdict\",\"status\":$status,\"method\":\"$request_method\","
          "\"sent\":$bytes_sent,\"received\":$request_length,\"upstream_addr\":\"$upstream_addr\"}';\n",
          f);
    fprintf(f, "    access_log %s sandbox;\n", l->access_log);
    fprintf(f, "    resolver %s:%u ipv6=off valid=30s;\n    resolver_timeout 10s;\n", l->resolver_ip,
            l->resolver_port);
    fputs(MAP_HASH_SIZES, f);
    fputs("    server_tokens off;\n    default_type text/plain;\n    client_max_body_size 0;\n"
          "    proxy_http_version 1.1;\n    proxy_request_buffering off;\n"
          "    proxy_buffering off;\n\n", f);

    fputs("    # $host is the name from an absolute request URI, else from Host (lower\n"
          "    # case, port and trailing dot removed). It must agree with the Host header.\n", f);
    fputs("    map \"$host $http_host\" $sandbox_host_consistent {\n"
          "        \"~*^([^ ]+) \\1[.]?(:[0-9]+)?\\z\" 1;\n        default 0;\n    }\n", f);
    fputs("    map $host $sandbox_http_name {\n", f);
    put_name_map(f, al, "", NULL);
    fputs("    }\n", f);
    fputs("    map $sandbox_host_consistent $sandbox_http_upstream {\n"
          "        1 $sandbox_http_name;\n        default \"\";\n    }\n", f);
    put_http_verdict(f, l->terminate);

    put_refusal_hint(f, l);
    fprintf(f, "    server {\n        listen %s:%u default_server;\n", l->router_ip, l->http_port);
    fputs("        if ($request_method = CONNECT) {\n            return 405;\n        }\n", f);
    if (l->terminate != NULL)
        fputs("        if ($sandbox_http_terminated) {\n"
              "            return 403 \"blocked by agent-sandbox: plain HTTP to $host\\n"
              "The router checks every request to this name (held secrets, request rules) on HTTPS "
              "only, and never sends a held secret in clear text: use https://$host/ (docs/secrets.md).\\n\";\n"
              "        }\n", f);
    fputs("        if ($sandbox_http_upstream = \"\") {\n"
          "            return 403 \"blocked by agent-sandbox: $host\\n"
          "This sandbox reaches only the names in " ROUTER_AGENT_ALLOWLIST ".\\n"
          "$sandbox_allow_hint\\n\";\n        }\n"
          "        location / {\n            proxy_pass http://$sandbox_http_upstream;\n"
          "            proxy_set_header Host $sandbox_http_upstream;\n"
          "            proxy_set_header Connection \"\";\n"
          "            proxy_set_header Proxy \"\";\n        }\n    }\n", f);
    if (l->terminate != NULL)
        router_render_terminate(f, l->terminate);
    fputs("}\n", f);
}

int router_render_nginx(const allowlist_t *al, const router_layout_t *layout,
                        char **ret_text, as_error_t **err)
{
    render_layout_t l;
    int r = render_allowlist_check(al, err);
    if (r < 0 || (r = render_layout_check(layout, true, false, &l, err)) < 0)
        return r;
    _cleanup_free_ router_forward_t *fw = NULL;
    size_t n_fw = 0;
    if ((r = render_forwards(al, &l, &fw, &n_fw, err)) < 0)
        return r;

    msg_t o;
    if ((r = msg_open(&o, err)) < 0)
        return r;
    put_nginx_main(o.f, &l);
    put_nginx_stream(o.f, al, &l, fw, n_fw);
    put_nginx_http(o.f, al, &l);
    return msg_close(&o, ret_text, err);
}
