/* router_render: loopback/port assignment, golden configs, and refusal of
 * anything that is not validated input. Golden files live in
 * tests/unit/golden/; run with UPDATE_GOLDEN=1 to rewrite them, then review
 * the diff. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allowlist_of.h"
#include "golden_file.h"
#include "base/hostname.h"
#include "config/allowlist.h"
#include "egress/router_firewall.h"
#include "egress/router_render.h"
#include "egress/router_terminate.h"

/* ---- fixtures ---- */

static const char sample_text[] =
    "# A sample allowlist for the golden files.\n"
    "api.anthropic.com\n"
    ".wild.example\n"
    "db.example.com:5432\n"
    "cache.example.net:6379\n"
    "db.example.com:5433\n"
    "static.wild.example            # covered by the wildcard: still an exact name\n"
    "pg.wild.example:5432           # a host:port under a wildcard gets its own address\n"
    "allow-upstream-net 10.20.0.0/16\n";

static const router_layout_t sample_layout = {
    .router_ip = "10.89.3.2",
    .resolver_ip = "10.89.4.1",
    .nginx_run_dir = "/run/agent-sandbox/nginx",
    .nginx_error_log = "/var/log/agent-sandbox/nginx-error.log",
    .nginx_access_log = "/var/log/agent-sandbox/egress.log",
    .dnsmasq_log = "-",
    .dnsmasq_hosts = "/etc/agent-sandbox-router/hosts",
    .dnsmasq_servers = "/etc/agent-sandbox-router/wildcards",
    .session_id = "0123456789ab",
};

/* ---- forwards ---- */

static void test_forwards(void **state)
{
    (void)state;
    allowlist_t *al = allowlist_of(sample_text);
    router_forward_t *fw = NULL;
    size_t n = 0;
    as_error_t *err = NULL;
    assert_int_equal(router_forwards(al, &sample_layout, &fw, &n, &err), 0);

    const struct { const char *ip; unsigned pod, router; const char *host; } want[] = {
        { "127.0.0.2", 80, 80, NULL },
        { "127.0.0.2", 443, 443, NULL },
        { "127.0.0.3", 80, 80, "db.example.com" },
        { "127.0.0.3", 443, 443, "db.example.com" },
        { "127.0.0.3", 5432, 10000, "db.example.com" },
        { "127.0.0.3", 5433, 10001, "db.example.com" },
        { "127.0.0.4", 80, 80, "cache.example.net" },
        { "127.0.0.4", 443, 443, "cache.example.net" },
        { "127.0.0.4", 6379, 10002, "cache.example.net" },
        { "127.0.0.5", 80, 80, "pg.wild.example" },
        { "127.0.0.5", 443, 443, "pg.wild.example" },
        { "127.0.0.5", 5432, 10003, "pg.wild.example" },
    };
    assert_int_equal(n, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(fw[i].pod_ip, want[i].ip);
        assert_int_equal(fw[i].pod_port, want[i].pod);
        assert_int_equal(fw[i].router_port, want[i].router);
        if (want[i].host == NULL)
            assert_null(fw[i].host);
        else
            assert_string_equal(fw[i].host, want[i].host);
    }
    free(fw);

    char ip[INET_ADDRSTRLEN];
    assert_int_equal(router_pod_address(al, "api.anthropic.com", ip, &err), 0);
    assert_string_equal(ip, "127.0.0.2");
    assert_int_equal(router_pod_address(al, "cache.example.net", ip, &err), 0);
    assert_string_equal(ip, "127.0.0.4");
    assert_int_equal(router_pod_address(al, "static.wild.example", ip, &err), 0);
    assert_string_equal(ip, "127.0.0.2");
    assert_int_equal(router_pod_address(al, "wild.example", ip, &err), -ENOENT);
    as_error_free(&err);
    assert_int_equal(router_pod_address(al, "other.example", ip, &err), -ENOENT);
    as_error_free(&err);
    allowlist_free(al);
}

static void test_forwards_custom_ports(void **state)
{
    (void)state;
    allowlist_t *al = allowlist_of("db.example.com:5432\n");
    router_layout_t l = sample_layout;
    l.http_port = 8080;
    l.https_port = 8443;
    l.forward_port_base = 20000;
    router_forward_t *fw = NULL;
    size_t n = 0;
    as_error_t *err = NULL;
    assert_int_equal(router_forwards(al, &l, &fw, &n, &err), 0);
    assert_int_equal(n, 5);
    assert_int_equal(fw[0].router_port, 8080);
    assert_int_equal(fw[1].router_port, 8443);
    assert_int_equal(fw[4].pod_port, 5432);
    assert_int_equal(fw[4].router_port, 20000);
    free(fw);

    /* A forward range that overlaps a fixed port is refused. */
    l.forward_port_base = 8443;
    assert_int_equal(router_forwards(al, &l, &fw, &n, &err), -EINVAL);
    assert_non_null(strstr(err->msg, "router port 8443"));
    as_error_free(&err);

    l.forward_port_base = 65535;
    allowlist_free(al);
    al = allowlist_of("db.example.com:5432\ndb.example.com:5433\n");
    assert_int_equal(router_forwards(al, &l, &fw, &n, &err), -E2BIG);
    as_error_free(&err);
    allowlist_free(al);
}

static void test_too_many_hosts_with_ports(void **state)
{
    (void)state;
    char text[253 * 24], *p = text;
    for (int i = 0; i < 253; i++)
        p += sprintf(p, "h%d.example:22\n", i);
    allowlist_t *al = allowlist_of(text);
    router_forward_t *fw = NULL;
    size_t n = 0;
    as_error_t *err = NULL;
    assert_int_equal(router_forwards(al, &sample_layout, &fw, &n, &err), -E2BIG);
    assert_non_null(strstr(err->msg, "253 hosts have extra ports; at most 252 can"));
    as_error_free(&err);
    allowlist_free(al);

    *strrchr(text, 'h') = '\0';        /* 252 hosts fit: 127.0.0.3 .. 127.0.0.254 */
    al = allowlist_of(text);
    assert_int_equal(router_forwards(al, &sample_layout, &fw, &n, &err), 0);
    assert_string_equal(fw[n - 1].pod_ip, "127.0.0.254");
    free(fw);
    allowlist_free(al);
}

/* ---- golden configs ---- */

static void render_all(const char *prefix, const char *text)
{
    allowlist_t *al = allowlist_of(text);
    as_error_t *err = NULL;
    char *out = NULL;
    char name[64];

    assert_int_equal(router_render_dnsmasq(al, &sample_layout, &out, &err), 0);
    snprintf(name, sizeof(name), "%s.dnsmasq.conf", prefix);
    assert_golden_file(name, out);
    free(out);

    assert_int_equal(router_render_nginx(al, &sample_layout, &out, &err), 0);
    snprintf(name, sizeof(name), "%s.nginx.conf", prefix);
    assert_golden_file(name, out);
    free(out);

    assert_int_equal(router_render_hosts(al, "agent-sandbox-0123456789ab", &out, &err), 0);
    snprintf(name, sizeof(name), "%s.hosts", prefix);
    assert_golden_file(name, out);
    free(out);

    assert_int_equal(router_render_dns_hosts(al, &out, &err), 0);
    snprintf(name, sizeof(name), "%s.dns-hosts", prefix);
    assert_golden_file(name, out);
    free(out);

    assert_int_equal(router_render_dns_wildcards(al, &out, &err), 0);
    snprintf(name, sizeof(name), "%s.dns-wildcards", prefix);
    assert_golden_file(name, out);
    free(out);

    assert_int_equal(router_render_iptables(al, sample_layout.resolver_ip, &out, &err), 0);
    snprintf(name, sizeof(name), "%s.iptables", prefix);
    assert_golden_file(name, out);
    free(out);
    allowlist_free(al);
}

static void test_golden_sample(void **state)
{
    (void)state;
    render_all("sample", sample_text);
}

static void test_golden_empty(void **state)
{
    (void)state;
    render_all("empty", "# nothing allowed\n");
}

/* The router's termination of names with held secrets and request rules
 * (router_terminate.h). One name holds a secret in a header, one in
 * Authorization, and a read-only name under a wildcard. */
static const char *const terminate_hosts[] = { "api.anthropic.com", "code.wild.example", "git.example.com" };
static const char *const terminate_read_only[] = { "code.wild.example" };
static const held_header_t terminate_held[] = {
    { "api.anthropic.com", "ANTHROPIC_API_KEY", "x-api-key", "sk-ant-api03-STANDIN0", "sk-ant-api03-VALUE00" },
    { "git.example.com", "GIT_TOKEN", "authorization", "Basic eDpTVEFORElO", "Basic eDpWQUxVRQ==" },
};
static const router_terminate_t terminate_sample = {
    .hosts = terminate_hosts, .n_hosts = 3, .held = terminate_held, .n_held = 2,
    .read_only = terminate_read_only, .n_read_only = 1, .cert = "/etc/agent-sandbox-router/tls-cert.pem",
    .upstream_ca = "/etc/agent-sandbox-router/upstream-ca.pem", .log = "/var/log/agent-sandbox/egress.log",
};
static const char terminate_allowlist[] = "api.anthropic.com\n.wild.example\ngit.example.com\n";

static char *render_terminate_sample(void)
{
    router_layout_t l = sample_layout;
    l.terminate = &terminate_sample;
    allowlist_t *al = allowlist_of(terminate_allowlist);
    as_error_t *err = NULL;
    char *out = NULL;
    assert_int_equal(router_render_nginx(al, &l, &out, &err), 0);
    allowlist_free(al);
    return out;
}

/* The servers, every request check, the port-80 refusal, the upstream
 * path, and the value maps (fake values). */
static void test_golden_terminate(void **state)
{
    (void)state;
    char *out = render_terminate_sample();
    assert_golden_file("terminate.nginx.conf", out);
    free(out);
    as_error_t *err = NULL;
    assert_int_equal(router_render_held_values(&terminate_sample, &out, &err), 0);
    assert_golden_file("terminate.values.conf", out);
    free(out);
}

static size_t count_of(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(text, needle); p != NULL; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Keep-alive to the origins (docs/secrets.md): each terminated name's
 * location proxies to its own upstream{} block with a connection pool,
 * whose one server is that name's relay in stream{}, which resolves the
 * name per connection. No terminated name is proxied through a variable
 * (no pool), and the TLS to the origin is still verified by the name. */
static void test_terminate_upstream_path(void **state)
{
    (void)state;
    char *conf = render_terminate_sample();
    const char *http = strstr(conf, "\nhttp {\n");
    assert_non_null(http);
    char want[1024];
    for (size_t i = 0; i < terminate_sample.n_hosts; i++) {
        const char *h = terminate_hosts[i];
        snprintf(want, sizeof(want), "    upstream sandbox_terminated_%zu {\n        server unix:"
                 ROUTER_RELAY_SOCKET_PREFIX "%zu.sock max_fails=0;\n        keepalive 8;\n"
                 "        keepalive_timeout 30s;\n    }\n", i, i);
        assert_non_null(strstr(http, want));
        assert_int_equal(count_of(conf, want), 1);
        snprintf(want, sizeof(want), "        location / {\n"
                 "            proxy_pass https://sandbox_terminated_%zu;\n"
                 "            proxy_ssl_server_name on;\n            proxy_ssl_name %s;\n"
                 "            proxy_ssl_verify on;\n", i, h);
        assert_int_equal(count_of(conf, want), 1);
        /* the relay, in stream{} (before http{}), and only there */
        snprintf(want, sizeof(want), "        listen unix:" ROUTER_RELAY_SOCKET_PREFIX "%zu.sock;\n"
                 "        access_log off;\n        proxy_buffer_size 256k;\n"
                 "        set $sandbox_relay_upstream %s:443;\n"
                 "        proxy_pass $sandbox_relay_upstream;\n", i, h);
        const char *relay = strstr(conf, want);
        assert_non_null(relay);
        assert_true(relay < http);
        assert_int_equal(count_of(conf, want), 1);
        /* its virtual server on 443, in stream{}, hands the connection over */
        snprintf(want, sizeof(want), "        listen 10.89.3.2:443;\n        server_name %s;\n"
                 "        ssl_preread on;\n        preread_timeout 10s;\n"
                 "        pass unix:" ROUTER_TLS_SOCKET ";\n", h);
        const char *pass = strstr(conf, want);
        assert_non_null(pass);
        assert_true(pass < http);
        assert_int_equal(count_of(conf, want), 1);
    }
    /* the SNI map still sends each to the terminating server */
    assert_int_equal(count_of(conf, " unix:" ROUTER_TLS_SOCKET ";\n"), 2 * terminate_sample.n_hosts);
    assert_null(strstr(conf, "proxy_pass https://$"));
    assert_int_equal(count_of(conf, "keepalive 8;"), terminate_sample.n_hosts);
    assert_int_equal(count_of(conf, "set $sandbox_relay_upstream "), terminate_sample.n_hosts);
    assert_int_equal(count_of(conf, "proxy_buffer_size 256k;\n            proxy_buffers 4 256k;\n"),
                     terminate_sample.n_hosts);
    /* a pool needs HTTP/1.1 and no "Connection: close" upstream */
    assert_non_null(strstr(http, "    proxy_http_version 1.1;\n"));
    assert_int_equal(count_of(conf, "proxy_set_header Connection \"\";"), terminate_sample.n_hosts + 1);
    /* the log names the upstream the relay connects to, not its socket */
    assert_non_null(strstr(conf, "\"upstream_addr\":\"$sandbox_held_upstream_addr\"}';\n"));
    assert_non_null(strstr(conf, "    map $upstream_addr $sandbox_held_upstream_addr {\n"
                                 "        \"~^unix:\" \"$sandbox_held_upstream:443\";\n"));
    /* no allowed name can select an upstream{} block in a proxy_pass variable */
    assert_false(hostname_is_canonical("sandbox_terminated_0"));
    free(conf);

    /* without termination: no upstream{} block, no relay */
    allowlist_t *al = allowlist_of(terminate_allowlist);
    as_error_t *err = NULL;
    assert_int_equal(router_render_nginx(al, &sample_layout, &conf, &err), 0);
    assert_null(strstr(conf, "upstream sandbox_"));
    assert_null(strstr(conf, ROUTER_RELAY_SOCKET_PREFIX));
    free(conf);
    allowlist_free(al);
}

static void test_golden_test_ports(void **state)
{
    (void)state;
    /* The layout the loopback checks use: everything on high ports. */
    allowlist_t *al = allowlist_of("api.allowed.test\n.wild.test\ndb.allowed.test:5432\n");
    router_layout_t l = {
        .router_ip = "127.0.0.1", .dns_port = 5353, .http_port = 8080, .https_port = 8443,
        .forward_port_base = 18000, .resolver_ip = "127.0.0.1", .resolver_port = 5399,
        .stream_module = "/usr/lib/nginx/modules/ngx_stream_module.so",
        .nginx_run_dir = "/tmp/rt/run", .nginx_error_log = "/tmp/rt/error.log",
        .nginx_access_log = "/tmp/rt/access.log", .dnsmasq_log = "/tmp/rt/dnsmasq.log",
        .dnsmasq_hosts = "/tmp/rt/hosts", .dnsmasq_servers = "/tmp/rt/wildcards",
    };
    as_error_t *err = NULL;
    char *out = NULL;
    assert_int_equal(router_render_nginx(al, &l, &out, &err), 0);
    assert_golden_file("highports.nginx.conf", out);
    free(out);
    assert_int_equal(router_render_dnsmasq(al, &l, &out, &err), 0);
    assert_golden_file("highports.dnsmasq.conf", out);
    free(out);
    allowlist_free(al);
}

/* Properties that must hold whatever the golden files say. */
static void test_config_properties(void **state)
{
    (void)state;
    allowlist_t *al = allowlist_of(sample_text);
    as_error_t *err = NULL;
    char *dns = NULL, *ngx = NULL, *hosts = NULL, *dns_hosts = NULL, *wild = NULL;
    assert_int_equal(router_render_dnsmasq(al, &sample_layout, &dns, &err), 0);
    assert_int_equal(router_render_nginx(al, &sample_layout, &ngx, &err), 0);
    assert_int_equal(router_render_hosts(al, NULL, &hosts, &err), 0);
    assert_int_equal(router_render_dns_hosts(al, &dns_hosts, &err), 0);
    assert_int_equal(router_render_dns_wildcards(al, &wild, &err), 0);

    /* nothing is forwarded but wildcards, to the router's own loopback */
    assert_null(strstr(dns, "\nserver="));
    assert_non_null(strstr(dns, "\nservers-file=/etc/agent-sandbox-router/wildcards\n"));
    assert_non_null(strstr(wild, "\nserver=/wild.example/127.0.0.1#5354\n"));
    for (const char *l = strstr(wild, "\nserver="); l != NULL; l = strstr(l + 1, "\nserver="))
        assert_non_null(strstr(l, "/127.0.0.1#5354\n"));
    assert_non_null(strstr(dns, "\nno-resolv\n"));
    assert_non_null(strstr(dns, "\nno-hosts\n"));
    assert_non_null(strstr(dns, "\naddress=/#/\n"));
    /* Exact names never via address= (which would answer subdomains), but
     * in a hosts file dnsmasq re-reads on SIGHUP. */
    assert_null(strstr(dns, "address=/api.anthropic.com/"));
    assert_null(strstr(dns, "host-record="));
    assert_non_null(strstr(dns, "\naddn-hosts=/etc/agent-sandbox-router/hosts\n"));
    assert_non_null(strstr(dns_hosts, "\n127.0.0.2\tapi.anthropic.com\n"));
    assert_null(strstr(dns_hosts, "localhost"));
    assert_null(strstr(dns, "address=/wild.example/"));

    assert_non_null(strstr(ngx, "load_module /usr/lib/nginx/modules/ngx_stream_module.so;\n"));
    assert_non_null(strstr(ngx, "resolver 10.89.4.1:53 ipv6=off valid=30s;"));
    assert_non_null(strstr(ngx, "listen 10.89.3.2:443;"));
    assert_non_null(strstr(ngx, "listen 10.89.3.2:80 default_server;"));
    assert_non_null(strstr(ngx, "10000 db.example.com:5432;"));
    assert_non_null(strstr(ngx, "10003 pg.wild.example:5432;"));
    /* the refusal names the host, where the list is, and the command
     * that allows a host name (and only a host name: no IP in any spelling) */
    assert_non_null(strstr(ngx, "return 403 \"blocked by agent-sandbox: $host\\n"
                                "This sandbox reaches only the names in /etc/agent-sandbox/allowed-hosts.\\n"
                                "$sandbox_allow_hint\\n\";"));
    assert_non_null(strstr(ngx, "agent-sandbox allow $host --session 0123456789ab\";"));

    assert_string_equal(hosts,
        "# Generated by agent-sandbox from the allowlist; do not edit.\n"
        "127.0.0.1\tlocalhost\n"
        "127.0.0.2\tapi.anthropic.com\n"
        "127.0.0.3\tdb.example.com\n"
        "127.0.0.4\tcache.example.net\n"
        "127.0.0.2\tstatic.wild.example\n"
        "127.0.0.5\tpg.wild.example\n");
    assert_null(strstr(hosts, "host.containers.internal"));
    free(dns);
    free(ngx);
    free(hosts);
    free(dns_hosts);
    free(wild);
    allowlist_free(al);
}

/* ---- refusal of unvalidated input ---- */

static void expect_refused(const allowlist_t *al, const router_layout_t *l, const char *needle)
{
    as_error_t *err = NULL;
    char *out = NULL;
    int (*const renderers[])(const allowlist_t *, const router_layout_t *, char **, as_error_t **) = {
        router_render_dnsmasq, router_render_nginx,
    };
    for (size_t i = 0; i < 2; i++) {
        int r = renderers[i](al, l, &out, &err);
        if (r >= 0) {
            free(out);
            fail_msg("renderer %zu accepted input (wanted `%s`)", i, needle);
        }
        assert_null(out);
        if (strstr(err->msg, needle) == NULL)
            fail_msg("message `%s` lacks `%s`", err->msg, needle);
        as_error_free(&err);
    }
}

static void test_refuses_bad_allowlist(void **state)
{
    (void)state;
    const char *bad_names[] = {
        "evil.example;\n", "evil.example\nserver=8.8.8.8", "a.example {", "A.example",
        "x.example.", "\"q\".example", "1.2.3.4", "localhost", "", "a b.example",
        "a.example:443",
    };
    for (size_t i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++) {
        allowlist_entry_t e = { .name = (char *)bad_names[i] };
        allowlist_t al = { .entries = &e, .n_entries = 1 };
        expect_refused(&al, &sample_layout, "not a canonical host name");
        char *out = NULL;
        as_error_t *err = NULL;
        assert_int_equal(router_render_hosts(&al, NULL, &out, &err), -EINVAL);
        as_error_free(&err);
        allowlist_t none = {0};
        if (strcmp(bad_names[i], "localhost") != 0 && strcmp(bad_names[i], "A.example") != 0 &&
            strcmp(bad_names[i], "x.example.") != 0) {
            assert_int_equal(router_render_hosts(&none, bad_names[i], &out, &err), -EINVAL);
            as_error_free(&err);
        }
    }

    allowlist_port_t ports[] = { { .port = 443 }, { .port = 5432 }, { .port = 5432 }, { .port = 0 } };
    allowlist_entry_t e = { .name = (char *)"db.example", .ports = ports, .n_ports = 1 };
    allowlist_t al = { .entries = &e, .n_entries = 1 };
    expect_refused(&al, &sample_layout, "invalid extra port 443");
    e.ports = ports + 3;
    expect_refused(&al, &sample_layout, "invalid extra port 0");
    e.ports = ports + 1;
    e.n_ports = 2;
    expect_refused(&al, &sample_layout, "lists port 5432 twice");
    e.n_ports = 1;
    e.wildcard = true;
    expect_refused(&al, &sample_layout, "has ports it cannot have");

    allowlist_entry_t twice[] = { { .name = (char *)"a.example" }, { .name = (char *)"a.example" } };
    allowlist_t al2 = { .entries = twice, .n_entries = 2 };
    expect_refused(&al2, &sample_layout, "is listed twice");

    expect_refused(NULL, &sample_layout, "allowlist: missing");
}

static void test_refuses_bad_layout(void **state)
{
    (void)state;
    allowlist_t *al = allowlist_of("api.example.com\n");
    router_layout_t l;

    const char *bad_ips[] = { NULL, "", "10.0.0.1;", "10.0.0.1\n", "10.0.0.01", "10.1", "::1",
                              "10.0.0.1 ", "host.example" };
    for (size_t i = 0; i < sizeof(bad_ips) / sizeof(bad_ips[0]); i++) {
        l = sample_layout;
        l.router_ip = bad_ips[i];
        expect_refused(al, &l, "router address is not an IPv4 address");
        l = sample_layout;
        l.resolver_ip = bad_ips[i];
        as_error_t *err = NULL;
        char *out = NULL;
        assert_int_equal(router_render_nginx(al, &l, &out, &err), -EINVAL);
        assert_non_null(strstr(err->msg, "resolver is not an IPv4 address"));
        as_error_free(&err);
    }

    const char *bad_paths[] = { NULL, "", "relative/log", "/var/log/a b", "/var/log/x;",
                                "/var/log/x\n", "/var/log/{x}", "/var/log/$x", "/var/log/\"x\"" };
    for (size_t i = 0; i < sizeof(bad_paths) / sizeof(bad_paths[0]); i++) {
        as_error_t *err = NULL;
        char *out = NULL;
        l = sample_layout;
        l.nginx_access_log = bad_paths[i];
        assert_int_equal(router_render_nginx(al, &l, &out, &err), -EINVAL);
        assert_non_null(strstr(err->msg, "nginx access log must be an absolute path"));
        as_error_free(&err);
        l = sample_layout;
        l.nginx_run_dir = bad_paths[i];
        assert_int_equal(router_render_nginx(al, &l, &out, &err), -EINVAL);
        as_error_free(&err);
        l = sample_layout;
        l.stream_module = bad_paths[i] != NULL ? bad_paths[i] : "x";
        assert_int_equal(router_render_nginx(al, &l, &out, &err), -EINVAL);
        as_error_free(&err);
        l = sample_layout;
        l.dnsmasq_log = bad_paths[i];
        assert_int_equal(router_render_dnsmasq(al, &l, &out, &err), -EINVAL);
        assert_non_null(strstr(err->msg, "dnsmasq log must be"));
        as_error_free(&err);
        l = sample_layout;
        l.dnsmasq_hosts = bad_paths[i];
        assert_int_equal(router_render_dnsmasq(al, &l, &out, &err), -EINVAL);
        assert_non_null(strstr(err->msg, "dnsmasq's hosts and servers files must be"));
        as_error_free(&err);
        l = sample_layout;
        l.dnsmasq_servers = bad_paths[i];
        assert_int_equal(router_render_dnsmasq(al, &l, &out, &err), -EINVAL);
        as_error_free(&err);
    }

    const char *bad_ids[] = { "", "0123456789AB", "01234\"", "0123 45", "x", "0123456789ab\n" };
    for (size_t i = 0; i < sizeof(bad_ids) / sizeof(bad_ids[0]); i++) {
        as_error_t *err = NULL;
        char *out = NULL;
        l = sample_layout;
        l.session_id = bad_ids[i];
        assert_int_equal(router_render_nginx(al, &l, &out, &err), -EINVAL);
        assert_non_null(strstr(err->msg, "the session id must be lower-case hex"));
        as_error_free(&err);
    }

    l = sample_layout;
    l.http_port = 70000;
    expect_refused(al, &l, "HTTP port 70000 is out of range");
    l = sample_layout;
    l.http_port = 443;
    expect_refused(al, &l, "HTTP and HTTPS ports are both 443");
    expect_refused(al, NULL, "router layout: missing");
    allowlist_free(al);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forwards),
        cmocka_unit_test(test_forwards_custom_ports),
        cmocka_unit_test(test_too_many_hosts_with_ports),
        cmocka_unit_test(test_golden_sample),
        cmocka_unit_test(test_golden_empty),
        cmocka_unit_test(test_golden_terminate),
        cmocka_unit_test(test_terminate_upstream_path),
        cmocka_unit_test(test_golden_test_ports),
        cmocka_unit_test(test_config_properties),
        cmocka_unit_test(test_refuses_bad_allowlist),
        cmocka_unit_test(test_refuses_bad_layout),
    };
    return cmocka_run_group_tests_name("router_render", tests, NULL, NULL);
}
