#include "session_router.h"
#include "session_logs.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "attach_stream.h"
#include "router_firewall.h"
#include "session_dir.h"
#include "signals.h"
#include "strv.h"
#include "util.h"

int router_ip_for_subnet(const char *subnet, char ret[16], as_error_t **err)
{
    char addr[32];
    unsigned prefix = 0;
    struct in_addr a;
    const char *slash = subnet != NULL ? strchr(subnet, '/') : NULL;
    if (slash == NULL || (size_t)(slash - subnet) >= sizeof(addr))
        return as_error_make(err, EINVAL, "subnet \"%s\" is not ADDRESS/PREFIX", subnet ? subnet : "");
    memcpy(addr, subnet, (size_t)(slash - subnet));
    addr[slash - subnet] = '\0';
    char *end = NULL;
    unsigned long p = strtoul(slash + 1, &end, 10);
    if (inet_pton(AF_INET, addr, &a) != 1 || end == slash + 1 || *end != '\0' || p > 32)
        return as_error_make(err, EINVAL, "subnet \"%s\" is not an IPv4 ADDRESS/PREFIX", subnet);
    prefix = (unsigned)p;
    if (prefix > 29)
        return as_error_make(err, EINVAL, "subnet %s is too small for a session (at most /29)", subnet);
    uint32_t mask = prefix == 0 ? 0 : 0xffffffffu << (32 - prefix);
    uint32_t net = ntohl(a.s_addr) & mask;
    uint32_t last = net | ~mask;             /* broadcast */
    struct in_addr r = { .s_addr = htonl(last - 1) };
    inet_ntop(AF_INET, &r, ret, 16);
    return 0;
}

void router_runtime_clear(router_runtime_t *rt)
{
    if (rt == NULL)
        return;
    free(rt->conf_dir);
    free(rt->log_dir);
    free(rt->hosts_path);
    free(rt->resolv_path);
    strv_free(rt->forwarder_argv);
    memset(rt, 0, sizeof(*rt));
}

static int make_dir(const char *path, mode_t mode, as_error_t **err)
{
    if (mkdir(path, mode) < 0 && errno != EEXIST)
        return as_error_errno(err, errno, "creating %s", path);
    /* the router reads and writes as another uid: exact modes */
    if (chmod(path, mode) < 0)
        return as_error_errno(err, errno, "setting the mode of %s", path);
    return 0;
}

static int write_rendered(const char *dir, const char *name, char *text, as_error_t **err)
{
    int r = session_dir_write_file_mode(dir, name, text, 0644, err);
    free(text);
    return r;
}

/* The forwarder's argv: its readiness probe, then its listeners. */
static int build_argv(const session_plan_t *p, router_runtime_t *rt, const router_forward_t *fw,
                      size_t n, as_error_t **err)
{
    char **v = calloc(n + 8, sizeof(char *));
    if (v == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    rt->forwarder_argv = v;
    size_t a = 0;
    if ((v[a++] = strdup("/usr/local/bin/agent-sandbox-forwarder")) == NULL ||
        (v[a++] = strdup("--probe")) == NULL ||
        (v[a++] = strdup(PROBE_DENIED_NAME)) == NULL)
        return as_error_make(err, ENOMEM, "out of memory");

    /* the first allowed name must resolve to its address: any entry will do,
     * a wildcard's apex answers too */
    const allowlist_t *al = p->allowlist;
    if (al != NULL && al->n_entries > 0) {
        char ip[INET_ADDRSTRLEN];
        const allowlist_entry_t *e = &al->entries[0];
        if (e->wildcard)
            snprintf(ip, sizeof(ip), "%s", ROUTER_POD_SHARED_IP);
        else if (router_pod_address(al, e->name, ip, err) < 0)
            return -EINVAL;
        if ((v[a++] = strdup(e->name)) == NULL || (v[a++] = strdup(ip)) == NULL)
            return as_error_make(err, ENOMEM, "out of memory");
    }
    if ((v[a++] = strdup("--")) == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (asprintf(&v[a++], "%s:%u=%s:%u", fw[i].pod_ip, fw[i].pod_port, rt->router_ip,
                     fw[i].router_port) < 0)
            return as_error_make(err, ENOMEM, "out of memory");
    return 0;
}

int router_runtime_prepare(const session_plan_t *p, const char *subnet, router_runtime_t *rt,
                           as_error_t **err)
{
    memset(rt, 0, sizeof(*rt));
    int r = router_ip_for_subnet(subnet, rt->router_ip, err);
    if (r < 0)
        return r;
    if (asprintf(&rt->conf_dir, "%s/router", p->session_dir) < 0 ||
        asprintf(&rt->log_dir, "%s/router-log", p->session_dir) < 0 ||
        asprintf(&rt->hosts_path, "%s/hosts", p->session_dir) < 0 ||
        asprintf(&rt->resolv_path, "%s/resolv.conf", p->session_dir) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    if ((r = make_dir(rt->conf_dir, 0755, err)) < 0 || (r = make_dir(rt->log_dir, 0755, err)) < 0)
        return r;
    /* The router's log writers run as nobody (a subordinate uid on the
     * host) and write these: made here, they stay the user's own and
     * readable. Each log has a count of the lines past its ceiling. */
    for (size_t i = 0; i < ROUTER_LOG_FILES; i++) {
        _cleanup_free_ char *dropped = NULL;
        if (asprintf(&dropped, "%s" LOG_DROPPED_SUFFIX, router_log_files[i]) < 0)
            return as_error_make(err, ENOMEM, "out of memory");
        if ((r = session_dir_write_file_mode(rt->log_dir, router_log_files[i], "", 0666, err)) < 0 ||
            (r = session_dir_write_file_mode(rt->log_dir, dropped, "", 0666, err)) < 0)
            return r;
    }

    router_layout_t layout = {
        .router_ip = rt->router_ip,
        .resolver_ip = p->resolver,
        .nginx_run_dir = ROUTER_RUN_DIR,
        .nginx_error_log = ROUTER_LOG_PIPES "/nginx-error.log",
        .nginx_access_log = ROUTER_LOG_PIPES "/egress.log",
        .dnsmasq_log = ROUTER_LOG_PIPES "/dns.log",
    };
    char *text = NULL;
    if ((r = router_render_dnsmasq(p->allowlist, &layout, &text, err)) < 0 ||
        (r = write_rendered(rt->conf_dir, "dnsmasq.conf", text, err)) < 0 ||
        (r = router_render_nginx(p->allowlist, &layout, &text, err)) < 0 ||
        (r = write_rendered(rt->conf_dir, "nginx.conf", text, err)) < 0 ||
        (r = router_render_iptables(p->allowlist, p->resolver, &text, err)) < 0 ||
        (r = write_rendered(rt->conf_dir, "iptables.rules", text, err)) < 0 ||
        (r = router_render_ip6tables(&text, err)) < 0 ||
        (r = write_rendered(rt->conf_dir, "ip6tables.rules", text, err)) < 0 ||
        (r = router_render_hosts(p->allowlist, &text, err)) < 0 ||
        (r = write_rendered(p->session_dir, "hosts", text, err)) < 0 ||
        (r = asprintf(&text, "# Generated by agent-sandbox: the session's router only.\n"
                             "nameserver %s\n", rt->router_ip)) < 0 ||
        (r = write_rendered(p->session_dir, "resolv.conf", text, err)) < 0)
        return as_error_prefix(err, "rendering the router's configuration");

    router_forward_t *fw = NULL;
    size_t n = 0;
    if ((r = router_forwards(p->allowlist, &layout, &fw, &n, err)) < 0)
        return r;
    r = build_argv(p, rt, fw, n, err);
    free(fw);
    return r;
}

static char *const cap_drop_all[] = { "all", NULL };
/* Only for the entry point: load the firewall, then drop to nobody with an
 * empty bounding set before any server starts. */
static char *const router_caps[] = { "NET_ADMIN", "SETUID", "SETGID", "SETPCAP", NULL };
static char *const forwarder_caps[] = { "NET_BIND_SERVICE", NULL };
#define STR_(x) #x
#define STR(x) STR_(x)
static char *const router_cmd[] = { "/usr/local/bin/agent-sandbox-router", STR(ROUTER_LOG_MAX_BYTES), NULL };
static char *const ro_bind[] = { "ro", "rbind", "rprivate", NULL };
static char *const rw_bind[] = { "rw", "rbind", "rprivate", NULL };
static char *const run_tmpfs[] = { "rw", "nosuid", "nodev", "noexec", "mode=1777", "size=16m", NULL };
/* The forwarder writes its relay's configuration here, in a tmpfs of its
 * own: the agent shares the pod's /dev/shm, never this. */
static char *const forwarder_tmpfs[] = { "rw", "nosuid", "nodev", "noexec", "mode=0700", "size=1m", NULL };
static const podman_mount_t forwarder_mounts[] = {
    { .destination = FORWARDER_RUN_DIR, .type = "tmpfs", .options = forwarder_tmpfs },
};

void router_container_spec(const session_plan_t *p, router_runtime_t *rt, podman_container_spec_t *ret)
{
    rt->router_mounts[0] = (podman_mount_t){ .source = rt->conf_dir, .destination = ROUTER_CONF_DIR,
                                             .type = "bind", .options = ro_bind };
    rt->router_mounts[1] = (podman_mount_t){ .source = rt->log_dir, .destination = ROUTER_LOG_DIR,
                                             .type = "bind", .options = rw_bind };
    rt->router_mounts[2] = (podman_mount_t){ .destination = ROUTER_RUN_DIR, .type = "tmpfs",
                                             .options = run_tmpfs };
    rt->router_networks[0] = (podman_network_attach_t){ .network = p->network, .static_ip = rt->router_ip };
    rt->router_networks[1] = (podman_network_attach_t){ .network = p->egress_network };
    /* nobody binds 53, 80 and 443 in the router's own network namespace */
    rt->router_sysctls[0] = (podman_label_t){ "net.ipv4.ip_unprivileged_port_start", "0" };
    *ret = (podman_container_spec_t){
        .name = p->router,
        .image = p->router_image,
        .command = router_cmd,
        .user = "0:0",
        .read_only = true,
        .no_new_privileges = true,
        .cap_drop = cap_drop_all,
        .cap_add = router_caps,
        .mounts = rt->router_mounts,
        .n_mounts = 3,
        .sysctls = rt->router_sysctls,
        .n_sysctls = 1,
        .networks = rt->router_networks,
        .n_networks = 2,
        .labels = p->labels,
        .n_labels = 2,
    };
}

void forwarder_container_spec(const session_plan_t *p, const router_runtime_t *rt,
                              podman_container_spec_t *ret)
{
    /* Container root of the pod's keep-id namespace is a subordinate uid:
     * with NET_BIND_SERVICE it binds 80 and 443 on loopback, and nothing
     * else. The agent's own uid gets no capability at all. */
    *ret = (podman_container_spec_t){
        .name = p->forwarder,
        .image = p->router_image,
        .pod = p->pod,
        .command = rt->forwarder_argv,
        .user = "0:0",
        .read_only = true,
        .no_new_privileges = true,
        .cap_drop = cap_drop_all,
        .cap_add = forwarder_caps,
        .mounts = forwarder_mounts,
        .n_mounts = ARRAY_SIZE(forwarder_mounts),
        .labels = p->labels,
        .n_labels = 2,
    };
}

int egress_network_ensure(podman_api_t *api, const char *name, as_error_t **err)
{
    bool present = false;
    int r = podman_network_exists(api, name, &present, err);
    if (r < 0 || present)
        return r;
    static const podman_label_t labels[] = { { LABEL_EGRESS, "true" } };
    podman_network_spec_t spec = {
        .name = name, .internal = false, .dns_enabled = false, .labels = labels, .n_labels = 1,
    };
    r = podman_network_create(api, &spec, NULL, err);
    if (r == -EEXIST) {          /* another session made it meanwhile */
        as_error_free(err);
        return 0;
    }
    return r;
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

#define READY_LINE "agent-sandbox-forwarder: ready\n"

typedef struct {
    char text[4096];
    size_t len;
} collected_t;

static int collect(int stream, const char *data, size_t len, void *ctx)
{
    (void)stream;
    collected_t *c = ctx;
    size_t room = sizeof(c->text) - 1 - c->len;
    if (len > room)
        len = room;
    memcpy(c->text + c->len, data, len);
    c->len += len;
    c->text[c->len] = '\0';
    return 0;
}

/* The last non-empty line of what the forwarder said. */
static const char *last_line(collected_t *c)
{
    while (c->len > 0 && c->text[c->len - 1] == '\n')
        c->text[--c->len] = '\0';
    char *nl = strrchr(c->text, '\n');
    return nl != NULL ? nl + 1 : c->text;
}

/* The last non-empty line of a host-side log file, for error messages
 * (the session directory is gone by the time the user reads them). */
static void log_tail(const char *dir, const char *name, char *buf, size_t size)
{
    char path[PATH_MAX];
    buf[0] = '\0';
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return;
    char line[512];
    while (fgets(line, sizeof(line), f) != NULL)
        if (line[0] != '\n') {
            line[strcspn(line, "\n")] = '\0';
            snprintf(buf, size, "%s: %s", name, line);
        }
    fclose(f);
}

static int router_stopped(const router_runtime_t *rt, as_error_t **err)
{
    char why[600];
    log_tail(rt->log_dir, "nginx-error.log", why, sizeof(why));
    if (why[0] == '\0')
        log_tail(rt->log_dir, "dns.log", why, sizeof(why));
    return as_error_make(err, ECHILD, "the router stopped while starting%s%s", why[0] ? "; " : "",
                         why[0] ? why : "it left no log line");
}

int router_wait_ready(podman_api_t *api, const session_plan_t *p, const router_runtime_t *rt,
                      http_stream_t *forwarder_output, long timeout_ms, as_error_t **err)
{
    long deadline = now_ms() + timeout_ms, next_check = now_ms() + 1000;
    frame_parser_t parser = {0};
    collected_t c = { .len = 0 };
    c.text[0] = '\0';
    for (;;) {
        if (strstr(c.text, READY_LINE) != NULL)
            return 0;
        if (signals_terminating() != 0)
            return as_error_make(err, EINTR, "interrupted by %s while the egress path came up",
                                 strsignal(signals_terminating()));
        long now = now_ms();
        if (now >= deadline)
            return as_error_make(err, ETIMEDOUT, "the egress path did not come up within %ld ms%s%s",
                                 timeout_ms, c.len ? ": " : "", last_line(&c));
        if (now >= next_check) {
            /* a router that died will not come up: say so now */
            bool running = true;
            as_error_t *e = NULL;
            if (podman_container_running(api, p->router, &running, &e) == 0 && !running)
                return router_stopped(rt, err);
            as_error_free(&e);
            next_check = now + 1000;
        }
        struct pollfd pfd[2] = {
            { .fd = http_stream_fd(forwarder_output), .events = POLLIN },
            { .fd = signals_fd(), .events = POLLIN },
        };
        long wait = next_check - now < deadline - now ? next_check - now : deadline - now;
        if (poll(pfd, signals_fd() >= 0 ? 2 : 1, (int)wait) < 0 && errno != EINTR)
            return as_error_errno(err, errno, "waiting for the forwarder");
        if (pfd[1].revents & POLLIN)
            while (signals_next() != 0) { }   /* the flag above says what matters */
        if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        char buf[4096];
        ssize_t got = http_stream_recv(forwarder_output, buf, sizeof(buf), err);
        if (got == -EAGAIN)
            continue;
        if (got < 0)
            return as_error_prefix(err, "reading the forwarder's output");
        if (got == 0) {
            /* it stopped: say why, from the router's state or its own words */
            bool running = true;
            as_error_t *e = NULL;
            if (podman_container_running(api, p->router, &running, &e) == 0 && !running)
                return router_stopped(rt, err);
            as_error_free(&e);
            return as_error_make(err, EPERM, "the egress path is not confined as planned: %s",
                                 c.len ? last_line(&c) : "the forwarder stopped without a word");
        }
        int r = frame_parser_feed(&parser, buf, (size_t)got, collect, &c, err);
        if (r < 0)
            return r;
    }
}
