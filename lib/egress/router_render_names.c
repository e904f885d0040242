/* The name files: the router dnsmasq's config, the hosts and servers files
 * it re-reads on SIGHUP, and the agent's hosts file. Each says which names
 * resolve, and to which pod address (router_render.h). */
#include "router_render.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "router_protocol.h"
#include "router_render_int.h"
#include "base/hostname.h"
#include "base/msg.h"

/* ---- dnsmasq ------------------------------------------------------------ */

int router_render_dnsmasq(const allowlist_t *al, const router_layout_t *layout,
                          char **ret_text, as_error_t **err)
{
    render_layout_t l;
    int r = render_allowlist_check(al, err);
    if (r < 0 || (r = render_layout_check(layout, false, true, &l, err)) < 0)
        return r;
    /* The forwards are not in this file, but an allowlist whose forwards
     * do not fit is refused here as by every renderer. */
    size_t hosts, ports;
    if ((r = render_forwards_count(al, &l, &hosts, &ports, err)) < 0)
        return r;

    msg_t o;
    if ((r = msg_open(&o, err)) < 0)
        return r;
    FILE *f = o.f;
    fputs(RENDER_HEADER, f);
    fputs("# Answers only allowlisted names, with their loopback address in the pod;\n"
          "# every other name is NXDOMAIN. No query leaves the router: the only\n"
          "# servers are the router's own second dnsmasq, on its loopback.\n", f);
    fputs("no-resolv\nno-hosts\npid-file=\n", f);
    fprintf(f, "listen-address=%s\nport=%u\nbind-interfaces\n", l.router_ip, l.dns_port);
    fprintf(f, "log-queries\nlog-facility=%s\n", l.dnsmasq_log);

    fputs("\n# Exact names, in a hosts file: each answers the name itself and nothing\n"
          "# below it; other record types (AAAA, TXT, MX, HTTPS, SRV...) get NODATA.\n"
          "# dnsmasq re-reads it on SIGHUP: names come and go without a restart.\n", f);
    fprintf(f, "addn-hosts=%s\n", l.dnsmasq_hosts);

    fputs("\n# Wildcards: the name and every subdomain, from the router's second\n"
          "# dnsmasq, which answers the shared address for A and NODATA otherwise.\n"
          "# Also re-read on SIGHUP.\n", f);
    fprintf(f, "servers-file=%s\n", l.dnsmasq_servers);

    fputs("\n# Everything else: NXDOMAIN.\naddress=/#/\n", f);
    return msg_close(&o, ret_text, err);
}

/* ---- hosts -------------------------------------------------------------- */

/* The name files: the agent's hosts, the router dnsmasq's hosts (no
 * localhost), its servers file of wildcards. */
typedef enum { NAMES_AGENT_HOSTS, NAMES_DNS_HOSTS, NAMES_DNS_WILDCARDS } names_file_t;

/* A host name is one label (the pod's is); otherwise as an allowlist's. */
static bool own_name_valid(const char *name)
{
    size_t where, where_len;
    hostname_check_t c = hostname_check(name, strlen(name), &where, &where_len);
    return c == HOSTNAME_OK || c == HOSTNAME_SINGLE_LABEL;
}

static int render_names(const allowlist_t *al, names_file_t which, const char *hostname,
                        char **ret_text, as_error_t **err)
{
    int r = render_allowlist_check(al, err);
    if (r < 0)
        return r;
    if (hostname != NULL && !own_name_valid(hostname))
        return as_error_make(err, EINVAL, "the pod's host name \"%s\" is not a valid name", hostname);
    msg_t o;
    if ((r = msg_open(&o, err)) < 0)
        return r;
    fputs(RENDER_HEADER, o.f);
    if (which == NAMES_AGENT_HOSTS)
        fputs("127.0.0.1\tlocalhost\n", o.f);
    if (which == NAMES_AGENT_HOSTS && hostname != NULL)
        fprintf(o.f, ROUTER_POD_OWN_NAME_IP "\t%s\n" ROUTER_POD_OWN_NAME_IP6 "\t%s\n", hostname, hostname);
    unsigned octet = ROUTER_POD_FIRST_HOST_OCTET;     /* as router_pod_address counts, in one pass */
    for (size_t i = 0; i < al->n_entries; i++) {
        const allowlist_entry_t *e = &al->entries[i];
        bool own = !e->wildcard && e->n_ports > 0;
        if (which == NAMES_DNS_WILDCARDS && e->wildcard)
            fprintf(o.f, "server=/%s/" ROUTER_WILDCARD_DNS_ADDR "#" ROUTER_WILDCARD_DNS_PORT "\n", e->name);
        else if (which != NAMES_DNS_WILDCARDS && !e->wildcard)
            fprintf(o.f, "127.0.0.%u\t%s\n", own ? octet : 2, e->name);
        octet += own;
    }
    return msg_close(&o, ret_text, err);
}

int router_render_hosts(const allowlist_t *al, const char *hostname, char **ret_text,
                        as_error_t **err)
{
    return render_names(al, NAMES_AGENT_HOSTS, hostname, ret_text, err);
}

int router_render_dns_hosts(const allowlist_t *al, char **ret_text, as_error_t **err)
{
    return render_names(al, NAMES_DNS_HOSTS, NULL, ret_text, err);
}

int router_render_dns_wildcards(const allowlist_t *al, char **ret_text, as_error_t **err)
{
    return render_names(al, NAMES_DNS_WILDCARDS, NULL, ret_text, err);
}
