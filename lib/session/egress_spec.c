#include "egress_spec.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session_plan_data.h"
#include "base/strv.h"
#include "base/util.h"
#include "egress/router_firewall.h"
#include "egress/held_secrets.h"
#include "egress/router_render.h"
#include "egress/session_logs.h"

int router_ip_for_subnet(const char *subnet, char ret[16], as_error_t **err)
{
    char addr[32];
    struct in_addr a;
    const char *slash = subnet != NULL ? strchr(subnet, '/') : NULL;
    if (slash == NULL || (size_t)(slash - subnet) >= sizeof(addr))
        return as_error_make(err, EINVAL, "subnet \"%s\" is not ADDRESS/PREFIX", subnet ? subnet : "");
    memcpy(addr, subnet, (size_t)(slash - subnet));
    addr[slash - subnet] = '\0';
    char *end = NULL;
    unsigned long prefix = strtoul(slash + 1, &end, 10);
    if (inet_pton(AF_INET, addr, &a) != 1 || end == slash + 1 || *end != '\0' || prefix > 32)
        return as_error_make(err, EINVAL, "subnet \"%s\" is not an IPv4 ADDRESS/PREFIX", subnet);
    if (prefix > 29)
        return as_error_make(err, EINVAL, "subnet %s is too small for a session (at most /29)", subnet);
    uint32_t mask = prefix == 0 ? 0 : 0xffffffffu << (32 - prefix);
    uint32_t net = ntohl(a.s_addr) & mask;
    uint32_t last = net | ~mask;             /* broadcast */
    struct in_addr r = { .s_addr = htonl(last - 1) };
    inet_ntop(AF_INET, &r, ret, 16);
    return 0;
}

void egress_spec_free(egress_spec_t *e)
{
    if (e == NULL)
        return;
    free(e->conf_dir);
    free(e->log_dir);
    free(e->hosts_path);
    free(e->resolv_path);
    free(e->state_dir);
    free(e->view_dir);
    strv_free(e->forwarder_argv);
    egress_names_clear(&e->names);
    for (size_t i = 0; i < EGRESS_FILES; i++)
        free(e->files[i].text);
    free(e);
}

static char *const cap_drop_all[] = { "all", NULL };
/* The router's capabilities are only for its entry point, which loads the
 * firewall and then drops to nobody with an empty bounding set before any
 * server starts. */
static char *const router_caps[] = { "NET_ADMIN", "SETUID", "SETGID", "SETPCAP", NULL };
static char *const forwarder_caps[] = { "NET_BIND_SERVICE", NULL };
#define STR_(x) #x
#define STR(x) STR_(x)
static char *const router_cmd[] = { ROUTER_PROTO_ROUTER_BIN, STR(ROUTER_LOG_MAX_BYTES), NULL };
static char *const ro_bind[] = { "ro", "rbind", "rprivate", NULL };
static char *const rw_bind[] = { "rw", "rbind", "rprivate", NULL };
static char *const run_tmpfs[] = { "rw", "nosuid", "nodev", "noexec", "mode=1777", "size=16m", NULL };
/* The forwarder writes its relay's configuration here, in a tmpfs of its
 * own: the agent shares the pod's /dev/shm, never this. */
static char *const forwarder_tmpfs[] = { "rw", "nosuid", "nodev", "noexec", "mode=0700", "size=1m", NULL };
static const podman_mount_t forwarder_mounts[] = {
    { .destination = FORWARDER_RUN_DIR, .type = "tmpfs", .options = forwarder_tmpfs },
};
/* The router's servers run as nobody and must bind 53, 80 and 443; the
 * sysctl holds only in the router's own network namespace. */
static const podman_label_t router_sysctls[] = { { "net.ipv4.ip_unprivileged_port_start", "0" } };

static void router_spec(const session_plan_t *p, egress_spec_t *e)
{
    e->router_mounts[0] = (podman_mount_t){ .source = e->conf_dir, .destination = ROUTER_CONF_DIR,
                                            .type = "bind", .options = ro_bind };
    e->router_mounts[1] = (podman_mount_t){ .source = e->log_dir, .destination = ROUTER_LOG_DIR,
                                            .type = "bind", .options = rw_bind };
    e->router_mounts[2] = (podman_mount_t){ .destination = ROUTER_RUN_DIR, .type = "tmpfs",
                                            .options = run_tmpfs };
    /* Its address on the session network is set when the subnet is bound. */
    e->router_networks[0] = (podman_network_attach_t){ .network = p->network };
    e->router_networks[1] = (podman_network_attach_t){ .network = p->in.egress_network };
    e->router = (podman_container_spec_t){
        .name = p->router, .image = p->in.router_image, .command = router_cmd, .user = "0:0",
        .read_only = true, .no_new_privileges = true, .cap_drop = cap_drop_all, .cap_add = router_caps,
        .mounts = e->router_mounts, .n_mounts = ARRAY_SIZE(e->router_mounts),
        .sysctls = router_sysctls, .n_sysctls = ARRAY_SIZE(router_sysctls),
        .networks = e->router_networks, .n_networks = ARRAY_SIZE(e->router_networks),
        /* The held secrets come through its stdin (docs/secrets.md), so it
         * is kept open only when there are some. */
        .stdin_open = p->in.held != NULL && p->in.held->n_hosts > 0,
        .labels = p->labels, .n_labels = ARRAY_SIZE(p->labels),
    };
}

/* The forwarder runs as container root of the pod's keep-id namespace,
 * which is a subordinate uid on the host: with NET_BIND_SERVICE it can bind
 * 80 and 443 on loopback and nothing else, while the agent's own uid gets
 * no capability at all. Its command is set when the subnet is bound
 * (build_argv). */
static void forwarder_spec(const session_plan_t *p, egress_spec_t *e)
{
    e->forwarder = (podman_container_spec_t){
        .name = p->forwarder, .image = p->in.router_image, .pod = p->pod, .user = "0:0",
        .read_only = true, .no_new_privileges = true, .cap_drop = cap_drop_all, .cap_add = forwarder_caps,
        .mounts = forwarder_mounts, .n_mounts = ARRAY_SIZE(forwarder_mounts),
        .labels = p->labels, .n_labels = ARRAY_SIZE(p->labels),
    };
}

int egress_spec_build(const session_plan_t *p, egress_spec_t **ret, as_error_t **err)
{
    if (p->in.session_dir == NULL)
        return as_error_make(err, EINVAL, "the egress path needs a session directory");
    _cleanup_(egress_spec_freep) egress_spec_t *e = calloc(1, sizeof(*e));
    if (e == NULL ||
        asprintf(&e->conf_dir, "%s/router", p->in.session_dir) < 0 ||
        asprintf(&e->log_dir, "%s/router-log", p->in.session_dir) < 0 ||
        asprintf(&e->hosts_path, "%s/hosts", p->in.session_dir) < 0 ||
        asprintf(&e->resolv_path, "%s/resolv.conf", p->in.session_dir) < 0 ||
        asprintf(&e->state_dir, "%s/" EGRESS_STATE_DIR, p->in.session_dir) < 0 ||
        asprintf(&e->view_dir, "%s/" EGRESS_AGENT_VIEW_DIR, p->in.session_dir) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    router_spec(p, e);
    forwarder_spec(p, e);
    *ret = steal_pointer(&e);
    return 0;
}

/* Builds the forwarder's argv (docs/router-protocol.md): its readiness
 * probe, then its listeners to the router, then the relays of published
 * ports (publish.h), each from every address of the pod to the agent's
 * server on the pod's loopback. */
static int build_argv(const session_plan_t *p, egress_spec_t *e, const router_forward_t *fw,
                      size_t n, as_error_t **err)
{
    char **v = calloc(n + p->in.n_publish + 8, sizeof(char *));
    if (v == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    e->forwarder_argv = v;
    size_t a = 0;
    int r;
    if ((v[a++] = strdup(ROUTER_PROTO_FORWARDER_BIN)) == NULL ||
        (v[a++] = strdup(ROUTER_PROTO_PROBE_FLAG)) == NULL ||
        (v[a++] = strdup(ROUTER_PROTO_PROBE_DENIED)) == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    /* The probe checks that the first allowed name resolves to its address.
     * Any entry will do, since a wildcard's apex answers too. */
    const allowlist_t *al = p->in.allowlist;
    if (al != NULL && al->n_entries > 0) {
        char ip[INET_ADDRSTRLEN];
        const allowlist_entry_t *first = &al->entries[0];
        if (first->wildcard)
            snprintf(ip, sizeof(ip), "%s", ROUTER_PROTO_SHARED_IP);
        else if ((r = router_pod_address(al, first->name, ip, err)) < 0)
            return r;
        if ((v[a++] = strdup(first->name)) == NULL || (v[a++] = strdup(ip)) == NULL)
            return as_error_make(err, ENOMEM, "out of memory");
    }
    if ((v[a++] = strdup(ROUTER_PROTO_ARGS_END)) == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (asprintf(&v[a++], "%s:%u=%s:%u", fw[i].pod_ip, fw[i].pod_port, e->router_ip,
                     fw[i].router_port) < 0)
            return as_error_make(err, ENOMEM, "out of memory");
    for (size_t i = 0; i < p->in.n_publish; i++)
        if (asprintf(&v[a++], "0.0.0.0:%u=" PUBLISH_TARGET_IP ":%u", publish_relay_port(i),
                     p->in.publish[i].port) < 0)
            return as_error_make(err, ENOMEM, "out of memory");
    e->forwarder.command = v;
    return 0;
}

/* Sets up the termination of the names with held secrets: its files and
 * what the renderers take. No secret value is among the files: values
 * reach the router only through its stdin (router_held.h). */
static size_t terminate_files(egress_spec_t *e, const session_plan_t *p, egress_file_t *f)
{
    const held_secrets_t *h = p->in.held;
    if (h == NULL || h->n_hosts == 0)
        return 0;
    e->terminate = (router_terminate_t){
        .hosts = (const char *const *)h->hosts, .n_hosts = h->n_hosts, .held = h->held,
        .n_held = h->n_held, .read_only = (const char *const *)h->read_only,
        .n_read_only = h->n_read_only, .cert = ROUTER_CONF_DIR "/" ROUTER_FILE_TLS_CERT,
        .upstream_ca = ROUTER_CONF_DIR "/" ROUTER_FILE_UPSTREAM_CA,
        .log = ROUTER_LOG_PIPES "/" ROUTER_LOG_EGRESS,
    };
    e->state.terminate = &e->terminate;
    size_t k = 0;
    f[k++] = (egress_file_t){ e->conf_dir, ROUTER_FILE_TLS_CERT, NULL, h->tls.cert_pem };
    f[k++] = (egress_file_t){ e->conf_dir, ROUTER_FILE_UPSTREAM_CA, NULL, h->upstream_ca };
    f[k++] = (egress_file_t){ e->conf_dir, ROUTER_FILE_HELD, NULL, "held secrets on stdin\n" };
    f[k++] = (egress_file_t){ e->view_dir, EGRESS_AGENT_SESSION_CA, NULL, h->tls.ca_pem };
    f[k++] = (egress_file_t){ e->view_dir, EGRESS_AGENT_CA_BUNDLE, NULL, h->agent_bundle };
    return k;
}

/* Renders every file of the egress path in memory: the router's (its
 * configuration, and the generation of the files, 0 at the start), the
 * agent's name files, and the state that `allow` and `deny` change the
 * session with. */
static int render_files(egress_spec_t *e, const session_plan_t *p, as_error_t **err)
{
    e->state = (egress_state_t){
        .id = p->in.id, .router = p->router, .router_ip = e->router_ip, .resolver = p->in.resolver,
    };
    size_t k = terminate_files(e, p, e->files);
    int r;
    if ((r = egress_names_render(p->in.allowlist, &e->state, &e->names, err)) < 0)
        return as_error_prefix(err, "rendering the router's configuration");
    const egress_names_t *n = &e->names;
    egress_file_t *f = e->files;
    f[k++] = (egress_file_t){ e->conf_dir, ROUTER_FILE_DNSMASQ, NULL, n->dnsmasq_conf };
    f[k++] = (egress_file_t){ e->conf_dir, ROUTER_FILE_NGINX, NULL, n->nginx_conf };
    f[k++] = (egress_file_t){ e->conf_dir, ROUTER_FILE_DNS_HOSTS, NULL, n->dns_hosts };
    f[k++] = (egress_file_t){ e->conf_dir, ROUTER_FILE_DNS_WILDCARDS, NULL, n->dns_wildcards };
    f[k++] = (egress_file_t){ e->conf_dir, ROUTER_FILE_GENERATION, NULL, "0\n" };
    f[k] = (egress_file_t){ e->conf_dir, ROUTER_FILE_IPTABLES, NULL, NULL };
    if ((r = router_render_iptables(p->in.allowlist, p->in.resolver, &f[k++].text, err)) < 0)
        return as_error_prefix(err, "rendering the router's firewall");
    f[k] = (egress_file_t){ e->conf_dir, ROUTER_FILE_IP6TABLES, NULL, NULL };
    if ((r = router_render_ip6tables(&f[k++].text, err)) < 0)
        return as_error_prefix(err, "rendering the router's firewall");
    f[k++] = (egress_file_t){ p->in.session_dir, "hosts", NULL, n->agent_hosts };
    f[k] = (egress_file_t){ p->in.session_dir, "resolv.conf", NULL, NULL };
    if (asprintf(&f[k++].text, "# Generated by agent-sandbox: the session's router only.\n"
                               "nameserver %s\n", e->router_ip) < 0) {
        f[k - 1].text = NULL;
        return as_error_make(err, ENOMEM, "out of memory");
    }
    f[k++] = (egress_file_t){ e->view_dir, EGRESS_AGENT_VIEW_FILE, NULL, n->agent_view };
    f[k++] = (egress_file_t){ e->state_dir, EGRESS_STATE_ALLOWLIST, NULL, n->allowlist };
    f[k] = (egress_file_t){ e->state_dir, EGRESS_STATE_FILE, NULL, NULL };
    if ((r = egress_state_format(&e->state, &f[k++].text, err)) < 0)
        return r;
    if (p->in.allowlist_path != NULL)
        f[k++] = (egress_file_t){ e->state_dir, EGRESS_STATE_SOURCE, NULL, p->in.allowlist_path };
    return 0;
}

int egress_spec_bind(egress_spec_t *e, const session_plan_t *p, const char *subnet, as_error_t **err)
{
    if (e->bound)
        return as_error_make(err, EALREADY, "internal error: the egress path is bound already");
    int r = router_ip_for_subnet(subnet, e->router_ip, err);
    if (r < 0)
        return r;
    e->router_networks[0].static_ip = e->router_ip;
    if ((r = render_files(e, p, err)) < 0)
        return r;
    router_layout_t layout;
    egress_router_layout(&e->state, &layout);
    router_forward_t *fw = NULL;
    size_t n = 0;
    if ((r = router_forwards(p->in.allowlist, &layout, &fw, &n, err)) < 0)
        return r;
    r = build_argv(p, e, fw, n, err);
    free(fw);
    if (r < 0)
        return r;
    e->bound = true;
    return 0;
}
