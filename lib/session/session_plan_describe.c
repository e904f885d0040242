/* --dry-run describes the whole plan in words, every spec as the executor
 * will send it, and names what podman has not assigned yet as such. Paths
 * are escaped because the workspace's may be names the agent chose. */
#include "session_plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_spec.h"
#include "egress_spec.h"
#include "base/escape.h"
#include "base/msg.h"
#include "base/util.h"
#include "config/agent_profile.h"
#include "egress/held_secrets.h"

static void put_path(FILE *f, const char *s)
{
    path_put_escaped(f, s, strlen(s));
}

static void put_list(FILE *f, char *const *v, const char *sep)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        fprintf(f, "%s%s", i ? sep : "", v[i]);
}

static void put_mounts(FILE *f, const podman_mount_t *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "  mount:   %s ", m[i].type);
        if (m[i].source != NULL) {
            put_path(f, m[i].source);
            fputs(" -> ", f);
        }
        put_path(f, m[i].destination);
        fputs(" (", f);
        put_list(f, m[i].options, ",");
        fputs(")\n", f);
    }
}

/* What every container spec may carry, in the order podman applies it. */
static void put_container(FILE *f, const podman_container_spec_t *c)
{
    fprintf(f, "  image:   %s\n", c->image);
    if (c->user != NULL)
        fprintf(f, "  user:    %s\n", c->user);
    fputs("  caps:    ", f);
    put_list(f, c->cap_add, ",");
    fprintf(f, "%s%s%s%s\n", c->cap_add != NULL ? " only" : "none", c->no_new_privileges ? "; no-new-privileges" : "",
            c->read_only ? "; read-only root" : "", c->init ? "; an init as PID 1" : "");
    for (size_t i = 0; i < c->n_networks; i++)
        fprintf(f, "  network: %s%s%s\n", c->networks[i].network,
                c->networks[i].static_ip ? " at " : "", c->networks[i].static_ip ? c->networks[i].static_ip : "");
    for (size_t i = 0; i < c->n_sysctls; i++)
        fprintf(f, "  sysctl:  %s=%s\n", c->sysctls[i].key, c->sysctls[i].value);
    put_mounts(f, c->mounts, c->n_mounts);
    for (size_t i = 0; i < c->n_volumes; i++) {
        fprintf(f, "  volume:  %s -> %s (", c->volumes[i].name, c->volumes[i].destination);
        put_list(f, c->volumes[i].options, ",");
        fputs(")\n", f);
    }
}

/* Describes the names the router terminates and the secrets it holds, but
 * never a value, so that the description can be shown anywhere. */
static void put_held(FILE *f, const held_secrets_t *h)
{
    if (h == NULL || h->n_hosts == 0)
        return;
    fputs("  terminated (TLS, session CA; docs/secrets.md):", f);
    for (size_t i = 0; i < h->n_hosts; i++)
        fprintf(f, " %s", h->hosts[i]);
    fputs("\n", f);
    for (size_t i = 0; i < h->n_held; i++)
        fprintf(f, "  held:    %s in %s on %s (the sandbox gets a stand-in; the value only through "
                "the router's stdin)\n", h->held[i].var, h->held[i].header, h->held[i].host);
    for (size_t i = 0; i < h->n_read_only; i++)
        fprintf(f, "  rule:    %s read-only (GET, HEAD, POST .../git-upload-pack; nothing else)\n",
                h->read_only[i]);
}

static void put_egress(FILE *f, const session_plan_t *p)
{
    const egress_spec_t *e = p->egress;
    fprintf(f, "router:    %s (outside the pod; on the session network and %s)\n", p->router,
            p->in.egress_network);
    fprintf(f, "  resolver for upstream names: %s\n", p->in.resolver);
    size_t names = p->in.allowlist ? p->in.allowlist->n_entries : 0, nets = p->in.allowlist ? p->in.allowlist->n_nets : 0;
    fprintf(f, "  allowed: %zu %s, %zu upstream %s\n", names, plural(names, "name", "names"), nets,
            plural(nets, "net", "nets"));
    for (size_t i = 0; p->in.allowlist != NULL && i < p->in.allowlist->n_entries; i++) {
        const allowlist_entry_t *a = &p->in.allowlist->entries[i];
        fprintf(f, "    %s%s", a->wildcard ? "." : "", a->name);
        for (size_t k = 0; k < a->n_ports; k++)
            fprintf(f, "%s%u", k == 0 ? " + ports " : ",", a->ports[k].port);
        fprintf(f, "\n");
    }
    put_container(f, &e->router);
    fputs("  command: ", f);
    put_list(f, e->router.command, " ");
    fputs("\n  files:   " ROUTER_FILE_DNSMASQ ", " ROUTER_FILE_NGINX ", " ROUTER_FILE_IPTABLES ", "
          ROUTER_FILE_IP6TABLES "; the agent's hosts and resolv.conf", f);
    fputs(e->bound ? "\n" : " (rendered once podman assigns the subnet)\n", f);
    if (!e->bound)
        fputs("  address: the last host address of the session subnet (once podman assigns it)\n", f);
    put_held(f, p->in.held);
    fprintf(f, "forwarder: %s (in the pod; loopback listeners to the router)\n", p->forwarder);
    put_container(f, &e->forwarder);
    fputs("  command: ", f);
    if (e->bound)
        put_list(f, e->forwarder.command, " ");
    else
        fputs(ROUTER_PROTO_FORWARDER_BIN " " ROUTER_PROTO_PROBE_FLAG " " ROUTER_PROTO_PROBE_DENIED
              " [NAME IP] " ROUTER_PROTO_ARGS_END " LISTEN=ROUTER:PORT... (once the router's address is known)", f);
    fputc('\n', f);
}

static void put_pod(FILE *f, const session_plan_t *p)
{
    const podman_pod_spec_t *pod = &p->pod_spec;
    fprintf(f, "pod:       %s (userns keep-id; on %s)\n", pod->name, pod->network);
    if (p->egress != NULL)
        fprintf(f, "  dns:     %s only; no hosts file of podman's\n",
                p->egress->bound ? p->egress->router_ip : "the router");
    for (size_t i = 0; i < pod->n_sysctls; i++)
        fprintf(f, "  sysctl:  %s=%s\n", pod->sysctls[i].key, pod->sysctls[i].value);
    for (size_t i = 0; i < p->in.n_publish; i++)
        fprintf(f, "  publish: %s:%u on the host -> port %u in the sandbox (the forwarder's relay on %u)\n",
                pod->ports[i].host_ip, pod->ports[i].host_port, p->in.publish[i].port, pod->ports[i].container_port);
}

static void put_limits(FILE *f, const session_plan_t *p)
{
    fprintf(f, "  limits:  memory ");
    if (p->in.limits.memory_bytes > 0)
        fprintf(f, "%lld MiB%s", p->in.limits.memory_bytes >> 20, p->in.cgroups.memory ? "" : " (not applied)");
    else
        fprintf(f, "unlimited");
    fprintf(f, ", processes ");
    if (p->in.limits.pids > 0)
        fprintf(f, "%lld%s", p->in.limits.pids, p->in.cgroups.pids ? "" : " (as RLIMIT_NPROC)");
    else
        fprintf(f, "unlimited");
    fprintf(f, ", CPU ");
    if (p->in.limits.cpu_millis > 0)
        fprintf(f, "%lld.%03lld%s\n", p->in.limits.cpu_millis / 1000, p->in.limits.cpu_millis % 1000,
                p->in.cgroups.cpu ? "" : " (not applied)");
    else
        fprintf(f, "unlimited\n");
}

/* Describes which agent runs, where it keeps its state, and what it gets
 * only when named. */
static void put_profile(FILE *f, const agent_profile_t *a)
{
    fprintf(f, "  profile: %s; its state:", a->name);
    for (size_t i = 0; a->home != NULL && a->home[i] != NULL; i++)
        fprintf(f, "%s ~/%s", i ? "," : "", a->home[i]);
    fprintf(f, "; its login: %s\n", a->login_env != NULL ? "the login volume" : "in the home");
    if (a->credentials != NULL) {
        fputs("  credentials, passed only when named (--env): ", f);
        put_list(f, a->credentials, " ");
        fputc('\n', f);
    }
}

static void put_agent(FILE *f, const session_plan_t *p)
{
    fprintf(f, "agent:     %s (in the pod)\n", p->agent);
    if (p->in.agent != NULL)
        put_profile(f, p->in.agent);
    if (p->in.private_home)
        fprintf(f, "  home:    an empty tmpfs of its own (no volume)\n");
    else if (p->in.home_volume != NULL && p->in.home_per_project)
        fprintf(f, "  home:    volume %s (this launch directory's own)\n", p->in.home_volume);
    else if (p->in.home_volume != NULL)
        fprintf(f, "  home:    volume %s (named by AGENT_SANDBOX_HOME_VOLUME, used as is)\n",
                p->in.home_volume);
    if (p->login_volume != NULL)
        fprintf(f, "  login:   volume %s (the agent's login, shared by every project)\n",
                p->login_volume);
    put_container(f, &p->agent_spec->spec);
    if (p->agent_spec->spec.passwd_entry != NULL)
        fprintf(f, "  passwd:  %s\n", p->agent_spec->spec.passwd_entry);
    fputs("  workdir: ", f);
    put_path(f, p->in.workdir);
    fprintf(f, "\n  tty:     %s\n", p->in.tty ? "yes" : "no");
    put_limits(f, p);
    fprintf(f, "  command:");
    for (size_t i = 0; p->command[i] != NULL; i++)
        fprintf(f, " %s", p->command[i]);
    fprintf(f, "\n  env:    ");
    for (char *const *e = p->agent_spec->spec.env; e != NULL && *e != NULL; e++) {
        const char *eq = strchr(*e, '=');
        fprintf(f, " %.*s", (int)(eq - *e), *e);   /* names only: values may be secrets */
    }
    fprintf(f, "\n");
}

int session_plan_describe(const session_plan_t *p, char **ret, as_error_t **err)
{
    msg_t m;
    int r = msg_open(&m, err);
    if (r < 0)
        return as_error_prefix(err, "describing the plan");
    FILE *f = m.f;
    fprintf(f, "session:   %s (cli pid %s)\n", p->in.id, p->pid);
    fprintf(f, "network:   %s (internal, no DNS, no route out)\n", p->network);
    if (p->egress != NULL)
        put_egress(f, p);
    put_pod(f, p);
    put_agent(f, p);
    if ((r = msg_close(&m, ret, err)) < 0)
        return as_error_prefix(err, "describing the plan");
    return 0;
}
