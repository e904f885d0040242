/* The router's inputs checked (every string that reaches a config) and the
 * addressing every renderer and the forwarder share: which pod address and
 * router port each allowed name and host:port gets (router_render.h). */
#include "router_render.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "router_render_int.h"
#include "base/hostname.h"
#include "base/util.h"

/* ---- input checks ------------------------------------------------------ */

static bool valid_ipv4(const char *s)
{
    struct in_addr a;
    char back[INET_ADDRSTRLEN];
    return s != NULL && inet_pton(AF_INET, s, &a) == 1
           && inet_ntop(AF_INET, &a, back, sizeof(back)) != NULL && strcmp(back, s) == 0;
}

/* Absolute, and only characters that mean nothing to nginx or dnsmasq. */
static bool valid_path(const char *s)
{
    if (s == NULL || s[0] != '/' || strlen(s) > 1024)
        return false;
    for (const char *c = s; *c != '\0'; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')
              || *c == '/' || *c == '.' || *c == '_' || *c == '-' || *c == '+'))
            return false;
    return true;
}

bool router_session_id_valid(const char *s)
{
    if (s == NULL || s[0] == '\0' || strlen(s) > 64)
        return false;
    for (const char *c = s; *c != '\0'; c++)
        if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
            return false;
    return true;
}

static int port_or_default(unsigned port, unsigned dflt, const char *what, unsigned *ret,
                           as_error_t **err)
{
    if (port > 65535)
        return as_error_make(err, EINVAL, "router layout: %s %u is out of range", what, port);
    *ret = port != 0 ? port : dflt;
    return 0;
}

int render_layout_check(const router_layout_t *in, bool for_nginx, bool for_dnsmasq,
                        render_layout_t *out, as_error_t **err)
{
    if (in == NULL)
        return as_error_make(err, EINVAL, "router layout: missing");
    if (!valid_ipv4(in->router_ip))
        return as_error_make(err, EINVAL, "router layout: router address is not an IPv4 address");
    *out = (render_layout_t){ .router_ip = in->router_ip };
    int r;
    if ((r = port_or_default(in->dns_port, 53, "DNS port", &out->dns_port, err)) < 0
        || (r = port_or_default(in->http_port, 80, "HTTP port", &out->http_port, err)) < 0
        || (r = port_or_default(in->https_port, 443, "HTTPS port", &out->https_port, err)) < 0
        || (r = port_or_default(in->forward_port_base, 10000, "forward port base",
                                &out->forward_port_base, err)) < 0
        || (r = port_or_default(in->resolver_port, 53, "resolver port", &out->resolver_port,
                                err)) < 0)
        return r;
    if (out->http_port == out->https_port)
        return as_error_make(err, EINVAL, "router layout: HTTP and HTTPS ports are both %u",
                             out->http_port);

    if (for_nginx) {
        if (!valid_ipv4(in->resolver_ip))
            return as_error_make(err, EINVAL, "router layout: resolver is not an IPv4 address");
        out->resolver_ip = in->resolver_ip;
        out->stream_module = in->stream_module != NULL ? in->stream_module
                                                       : ROUTER_STREAM_MODULE_DEBIAN;
        const struct { const char *v; const char *what; } paths[] = {
            { out->stream_module, "stream module" },
            { in->nginx_run_dir, "nginx run directory" },
            { in->nginx_error_log, "nginx error log" },
            { in->nginx_access_log, "nginx access log" },
        };
        for (size_t i = 0; i < ARRAY_SIZE(paths); i++)
            if (!valid_path(paths[i].v))
                return as_error_make(err, EINVAL, "router layout: %s must be an absolute path "
                                     "of letters, digits and /._+-", paths[i].what);
        out->run_dir = in->nginx_run_dir;
        out->error_log = in->nginx_error_log;
        out->access_log = in->nginx_access_log;
        if (in->session_id != NULL && !router_session_id_valid(in->session_id))
            return as_error_make(err, EINVAL, "router layout: the session id must be lower-case hex");
        out->session_id = in->session_id;
        int r2;
        if (in->terminate != NULL && (r2 = router_terminate_check(in->terminate, false, err)) < 0)
            return r2;
        out->terminate = in->terminate;
    }
    if (for_dnsmasq) {
        if (in->dnsmasq_log == NULL
            || (strcmp(in->dnsmasq_log, "-") != 0 && !valid_path(in->dnsmasq_log)))
            return as_error_make(err, EINVAL, "router layout: dnsmasq log must be \"-\" or an "
                                 "absolute path of letters, digits and /._+-");
        if (!valid_path(in->dnsmasq_hosts) || !valid_path(in->dnsmasq_servers))
            return as_error_make(err, EINVAL, "router layout: dnsmasq's hosts and servers files "
                                 "must be absolute paths of letters, digits and /._+-");
        out->dnsmasq_log = in->dnsmasq_log;
        out->dnsmasq_hosts = in->dnsmasq_hosts;
        out->dnsmasq_servers = in->dnsmasq_servers;
    }
    return 0;
}

/* The parser only stores valid data; this re-check makes sure a hand-built
 * or corrupted allowlist cannot put anything else into a config. */
static int check_entries(const allowlist_t *al, allowlist_index_t *names, as_error_t **err)
{
    for (size_t i = 0; i < al->n_entries; i++) {
        const allowlist_entry_t *e = &al->entries[i];
        if (!hostname_is_canonical(e->name))
            return as_error_make(err, EINVAL, "allowlist: entry %zu is not a canonical host name",
                                 i);
        if (e->n_ports > 0 && (e->wildcard || e->ports == NULL))
            return as_error_make(err, EINVAL, "allowlist: %s has ports it cannot have", e->name);
        for (size_t j = 0; j < e->n_ports; j++) {
            unsigned p = e->ports[j].port;
            if (p == 0 || p == 80 || p == 443)
                return as_error_make(err, EINVAL, "allowlist: %s has invalid extra port %u",
                                     e->name, p);
            for (size_t k = 0; k < j; k++)
                if (e->ports[k].port == p)
                    return as_error_make(err, EINVAL, "allowlist: %s lists port %u twice",
                                         e->name, p);
        }
        const allowlist_entry_t *earlier = NULL;
        if (allowlist_index_add(names, al, i, &earlier) < 0)
            return as_error_make(err, ENOMEM, "out of memory");
        if (earlier != NULL)
            return as_error_make(err, EINVAL, "allowlist: %s is listed twice", e->name);
    }
    return 0;
}

int render_allowlist_check(const allowlist_t *al, as_error_t **err)
{
    if (al == NULL)
        return as_error_make(err, EINVAL, "allowlist: missing");
    if (al->n_entries > 0 && al->entries == NULL)
        return as_error_make(err, EINVAL, "allowlist: entries missing");
    allowlist_index_t *names = allowlist_index_new();
    if (names == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    int r = check_entries(al, names, err);
    allowlist_index_free(names);
    if (r < 0)
        return r;
    if (al->n_nets > 0 && al->nets == NULL)
        return as_error_make(err, EINVAL, "allowlist: networks missing");
    return 0;
}

/* ---- addressing --------------------------------------------------------- */

/* Octet of the per-host loopback address of entry i, or 2 for the shared one. */
static unsigned entry_octet(const allowlist_t *al, size_t i)
{
    const allowlist_entry_t *e = &al->entries[i];
    if (e->wildcard || e->n_ports == 0)
        return 2;
    unsigned n = ROUTER_POD_FIRST_HOST_OCTET;
    for (size_t k = 0; k < i; k++)
        if (!al->entries[k].wildcard && al->entries[k].n_ports > 0)
            n++;
    return n;
}

int render_forwards_count(const allowlist_t *al, const render_layout_t *l, size_t *ret_hosts,
                          size_t *ret_ports, as_error_t **err)
{
    size_t hosts = 0, ports = 0;
    for (size_t i = 0; i < al->n_entries; i++)
        if (!al->entries[i].wildcard && al->entries[i].n_ports > 0) {
            hosts++;
            ports += al->entries[i].n_ports;
        }
    if (hosts > ROUTER_POD_LAST_HOST_OCTET - ROUTER_POD_FIRST_HOST_OCTET + 1)
        return as_error_make(err, E2BIG, "%zu hosts have extra ports; at most %d can",
                             hosts, ROUTER_POD_LAST_HOST_OCTET - ROUTER_POD_FIRST_HOST_OCTET + 1);
    if (ports > 0) {
        if (l->forward_port_base + ports - 1 > 65535)
            return as_error_make(err, E2BIG, "%zu host:port entries do not fit above router "
                                 "port %u", ports, l->forward_port_base);
        unsigned lo = l->forward_port_base, hi = (unsigned)(l->forward_port_base + ports - 1);
        const unsigned fixed[] = { l->dns_port, l->http_port, l->https_port };
        for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
            if (fixed[i] >= lo && fixed[i] <= hi)
                return as_error_make(err, EINVAL, "router port %u is both a fixed port and in "
                                     "the forward range %u-%u", fixed[i], lo, hi);
    }
    *ret_hosts = hosts;
    *ret_ports = ports;
    return 0;
}

int render_forwards(const allowlist_t *al, const render_layout_t *l,
                    router_forward_t **ret, size_t *ret_n, as_error_t **err)
{
    size_t hosts, ports;
    int r = render_forwards_count(al, l, &hosts, &ports, err);
    if (r < 0)
        return r;
    size_t n = 2 + 2 * hosts + ports, k = 0;
    router_forward_t *f = calloc(n, sizeof(*f));
    if (f == NULL)
        return as_error_make(err, ENOMEM, "out of memory");

    f[k++] = (router_forward_t){ ROUTER_POD_SHARED_IP, 80, l->http_port, NULL };
    f[k++] = (router_forward_t){ ROUTER_POD_SHARED_IP, 443, l->https_port, NULL };
    unsigned octet = ROUTER_POD_FIRST_HOST_OCTET, next_port = l->forward_port_base;
    for (size_t i = 0; i < al->n_entries; i++) {
        const allowlist_entry_t *e = &al->entries[i];
        if (e->wildcard || e->n_ports == 0)
            continue;
        char ip[INET_ADDRSTRLEN];
        snprintf(ip, sizeof(ip), "127.0.0.%u", octet++);
        f[k] = (router_forward_t){ .pod_port = 80, .router_port = l->http_port, .host = e->name };
        memcpy(f[k++].pod_ip, ip, sizeof(ip));
        f[k] = (router_forward_t){ .pod_port = 443, .router_port = l->https_port, .host = e->name };
        memcpy(f[k++].pod_ip, ip, sizeof(ip));
        for (size_t j = 0; j < e->n_ports; j++) {
            f[k] = (router_forward_t){ .pod_port = e->ports[j].port, .router_port = next_port++,
                                       .host = e->name };
            memcpy(f[k++].pod_ip, ip, sizeof(ip));
        }
    }
    *ret = f;
    *ret_n = k;
    return 0;
}

int router_forwards(const allowlist_t *al, const router_layout_t *layout,
                    router_forward_t **ret_forwards, size_t *ret_n, as_error_t **err)
{
    render_layout_t l;
    int r = render_allowlist_check(al, err);
    if (r < 0)
        return r;
    if ((r = render_layout_check(layout, false, false, &l, err)) < 0)
        return r;
    return render_forwards(al, &l, ret_forwards, ret_n, err);
}

int router_pod_address(const allowlist_t *al, const char *name, char ret_ip[INET_ADDRSTRLEN],
                       as_error_t **err)
{
    int r = render_allowlist_check(al, err);
    if (r < 0)
        return r;
    for (size_t i = 0; i < al->n_entries; i++)
        if (!al->entries[i].wildcard && name != NULL && strcmp(al->entries[i].name, name) == 0) {
            snprintf(ret_ip, INET_ADDRSTRLEN, "127.0.0.%u", entry_octet(al, i));
            return 0;
        }
    return as_error_make(err, ENOENT, "%s is not an exact name in the allowlist",
                         name != NULL ? name : "(null)");
}
