#include "session_plan.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_spec.h"
#include "egress_spec.h"
#include "session_dir.h"
#include "base/strv.h"
#include "base/util.h"
#include "config/agent_profile.h"
#include "podman/names.h"
#include "workspace/workspace.h"

void session_plan_free(session_plan_t *p)
{
    if (p == NULL)
        return;
    free(p->pid);
    free(p->network);
    free(p->pod);
    free(p->agent);
    free(p->review_overlay[0]);
    free(p->review_overlay[1]);
    free(p->router);
    free(p->forwarder);
    free(p->git_config_path);
    strv_free(p->command);
    strv_free(p->env);
    egress_spec_free(p->egress);
    free(p->agent_spec);
    free(p);
}

static bool env_sets(char *const *env, const char *entry)
{
    size_t n = strcspn(entry, "=");
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        if (strncmp(env[i], entry, n) == 0 && env[i][n] == '=')
            return true;
    return false;
}

/* Composes the command: the agent's, with the request's as its arguments,
 * or the request's own. */
static char **compose_command(const session_inputs_t *in)
{
    _cleanup_(strv_freep) char **v = strv_copy(in->agent_args ? in->agent->command : in->command);
    /* The unattended mode is only for the agent itself, never for an
     * --exec command. */
    char *const *autonomy = in->agent_args && in->autonomy ? in->agent->autonomy_args : NULL;
    for (size_t i = 0; v != NULL && autonomy != NULL && autonomy[i] != NULL; i++)
        if (strv_push(&v, autonomy[i]) < 0)
            return NULL;
    for (size_t i = 0; v != NULL && in->agent_args && in->command != NULL && in->command[i] != NULL; i++)
        if (strv_push(&v, in->command[i]) < 0)
            return NULL;
    return steal_pointer(&v);
}

/* Composes the environment: first the agent's variables (its telemetry
 * switches among them), each unless the request sets that name itself, so
 * that the request wins; then the request's; then, with the login volume,
 * the variable that points the agent at it. */
static char **compose_env(const session_inputs_t *in, bool login)
{
    const struct agent_profile *a = in->agent;
    _cleanup_(strv_freep) char **v = strv_copy(NULL);
    char *const *sets[] = { a != NULL ? a->env : NULL, a != NULL ? a->telemetry_off : NULL,
                            a != NULL && in->agent_args && in->autonomy ? a->autonomy_env : NULL };
    for (size_t k = 0; v != NULL && k < ARRAY_SIZE(sets); k++)
        for (size_t i = 0; sets[k] != NULL && sets[k][i] != NULL; i++)
            if (!env_sets(in->env, sets[k][i]) && strv_push(&v, sets[k][i]) < 0)
                return NULL;
    for (size_t i = 0; v != NULL && in->env != NULL && in->env[i] != NULL; i++)
        if (strv_push(&v, in->env[i]) < 0)
            return NULL;
    _cleanup_free_ char *login_env = NULL;
    if (v != NULL && login && (asprintf(&login_env, "%s=" AGENT_LOGIN_DIR, a->login_env) < 0 ||
                               strv_push(&v, login_env) < 0))
        return NULL;
    return steal_pointer(&v);
}

/* The pod gets no IPv6 at all, not even link-local: its egress goes only
 * through the router, over IPv4 (docs/threat-model.md). */
static const podman_label_t pod_sysctls[] = {
    { "net.ipv6.conf.all.disable_ipv6", "1" },
    { "net.ipv6.conf.default.disable_ipv6", "1" },
};

/* Builds the specs: the network, the pod, the egress path and the agent. */
static int build_specs(session_plan_t *p, as_error_t **err)
{
    bool egress = p->in.router_image != NULL;
    p->network_spec = (podman_network_spec_t){
        .name = p->network, .internal = true, .dns_enabled = false,
        .labels = p->labels, .n_labels = ARRAY_SIZE(p->labels),
    };
    /* With a router, its address is the pod's one DNS server, set when the
     * subnet is bound. */
    p->pod_spec = (podman_pod_spec_t){
        .name = p->pod, .hostname = p->pod, .network = p->network, .userns_keep_id = true,
        .no_manage_hosts = egress,
        .sysctls = pod_sysctls, .n_sysctls = ARRAY_SIZE(pod_sysctls),
        .ports = p->pod_ports, .n_ports = p->in.n_publish,
        .labels = p->labels, .n_labels = ARRAY_SIZE(p->labels),
    };
    int r;
    if (egress && (r = egress_spec_build(p, &p->egress, err)) < 0)
        return r;
    if ((p->agent_spec = calloc(1, sizeof(*p->agent_spec))) == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    return agent_spec_build(p, p->agent_spec, err);
}

/* Everything the plan takes from the inputs, checked before any of it is used. */
static int check_inputs(const session_inputs_t *in, as_error_t **err)
{
    if (in->id == NULL || !session_id_valid(in->id))
        return as_error_make(err, EINVAL, "session id \"%s\" is not 12 lower-case hex digits",
                             in->id ? in->id : "");
    if (!image_ref_valid(in->image))
        return as_error_make(err, EINVAL, "image name \"%s\" is not a valid image reference",
                             in->image ? in->image : "");
    if (in->workdir == NULL || in->workdir[0] != '/')
        return as_error_make(err, EINVAL, "the launch directory must be an absolute path");
    /* There is one launch directory: the protected paths must be of the
     * same one. */
    if (in->workspace != NULL && strcmp(in->workspace->launch_dir, in->workdir) != 0)
        return as_error_make(err, EINVAL, "internal error: the protected paths are of %s, the session "
                             "of %s", in->workspace->launch_dir, in->workdir);
    /* Podman hands the layers to the kernel as one option string, where ','
     * and ':' separate, so a path holding one could name another layer. */
    const char *layers[] = { in->workdir, in->review_upper, in->review_work };
    for (size_t i = 0; in->review_upper != NULL && i < ARRAY_SIZE(layers); i++)
        if (layers[i] == NULL || layers[i][0] != '/' || strpbrk(layers[i], ",:\\\n") != NULL)
            return as_error_make(err, EINVAL, "review mode cannot put an overlay on a path with ',', ':' or "
                                 "'\\' in it (%s)", layers[i] ? layers[i] : "no work directory");
    if (in->home_per_project && in->home_volume == NULL)
        return as_error_make(err, EINVAL, "a home of the launch directory needs its volume");
    const char *volumes[] = { in->home_volume, in->login_volume, in->legacy_home };
    for (size_t i = 0; i < ARRAY_SIZE(volumes); i++)
        if (volumes[i] != NULL && !network_name_valid(volumes[i]))
            return as_error_make(err, EINVAL, "%s volume name \"%s\" is not a valid volume name "
                                 "([a-zA-Z0-9][a-zA-Z0-9_.-]*)", i == 1 ? "login" : "home", volumes[i]);
    if (in->private_home && (in->home_volume != NULL || in->login_volume != NULL))
        return as_error_make(err, EINVAL, "a private home takes no volume");
    if (in->agent_args && in->agent == NULL)
        return as_error_make(err, EINVAL, "arguments for an agent, but no agent");
    char *const *command = in->agent_args ? in->agent->command : in->command;
    if (command == NULL || command[0] == NULL || command[0][0] == '\0')
        return as_error_make(err, EINVAL, "no command to run in the sandbox");
    if (in->router_image != NULL && !image_ref_valid(in->router_image))
        return as_error_make(err, EINVAL, "router image name \"%s\" is not a valid image reference",
                             in->router_image);
    if (in->egress_network != NULL && !network_name_valid(in->egress_network))
        return as_error_make(err, EINVAL, "egress network name \"%s\" is not a valid network name "
                             "([a-zA-Z0-9][a-zA-Z0-9_.-]*)", in->egress_network);
    struct in_addr resolver;
    if (in->resolver != NULL && inet_pton(AF_INET, in->resolver, &resolver) != 1)
        return as_error_make(err, EINVAL, "resolver \"%s\" is not an IPv4 address", in->resolver);
    for (size_t i = 0; in->env != NULL && in->env[i] != NULL; i++) {
        const char *eq = strchr(in->env[i], '=');
        if (eq == NULL || eq == in->env[i])
            return as_error_make(err, EINVAL, "environment entry \"%s\" is not NAME=VALUE", in->env[i]);
    }
    if (in->n_publish > 0 && in->router_image == NULL)
        return as_error_make(err, EINVAL, "publishing a port needs the router's forwarder");
    int r;
    if (in->n_publish > 0 && (r = publish_list_check(in->publish, in->n_publish, err)) < 0)
        return r;
    if (in->git_config != NULL && in->session_dir == NULL)
        return as_error_make(err, EINVAL, "the git identity needs a session directory");
    return 0;
}

/* The pod's published ports, on the host's loopback, each to its relay. */
static void pod_ports(session_plan_t *p)
{
    for (size_t i = 0; i < p->in.n_publish; i++)
        p->pod_ports[i] = (podman_port_t){ .host_ip = PUBLISH_HOST_IP, .host_port = p->in.publish[i].host_port,
                                           .container_port = publish_relay_port(i) };
}

int session_plan_build(const session_inputs_t *in, session_plan_t **ret, as_error_t **err)
{
    int r = check_inputs(in, err);
    if (r < 0)
        return r;
    _cleanup_(session_plan_freep) session_plan_t *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    p->in = *in;
    /* Only an agent that reads its login from a directory of its own gets
     * the shared login volume: no other agent's session holds that login. */
    bool login = in->login_volume != NULL && in->agent != NULL && in->agent->login_env != NULL;
    p->login_volume = login ? in->login_volume : NULL;
    p->legacy_home = login ? in->legacy_home : NULL;
    if (asprintf(&p->pid, "%ld", (long)in->cli_pid) < 0 ||
        asprintf(&p->network, "agent-sandbox-%s-net", in->id) < 0 ||
        asprintf(&p->pod, ROUTER_POD_HOSTNAME_PREFIX "%s", in->id) < 0 ||
        asprintf(&p->agent, "agent-sandbox-%s-agent", in->id) < 0 ||
        (p->command = compose_command(in)) == NULL ||
        (p->env = compose_env(in, login)) == NULL ||
        asprintf(&p->router, "agent-sandbox-%s-router", in->id) < 0 ||
        asprintf(&p->forwarder, "agent-sandbox-%s-forwarder", in->id) < 0 ||
        (in->git_config != NULL && asprintf(&p->git_config_path, "%s/" SESSION_GIT_CONFIG_FILE, in->session_dir) < 0))
        return as_error_make(err, ENOMEM, "out of memory");
    if (in->review_upper != NULL && (asprintf(&p->review_overlay[0], "upperdir=%s", in->review_upper) < 0 ||
                                     asprintf(&p->review_overlay[1], "workdir=%s", in->review_work) < 0))
        return as_error_make(err, ENOMEM, "out of memory");
    pod_ports(p);
    p->labels[0] = (podman_label_t){ LABEL_SESSION, in->id };
    p->labels[1] = (podman_label_t){ LABEL_PID, p->pid };
    r = build_specs(p, err);
    if (r < 0)
        return r;
    *ret = steal_pointer(&p);
    return 0;
}

int session_plan_bind(session_plan_t *p, const char *subnet, as_error_t **err)
{
    if (p->egress == NULL)
        return 0;
    int r = egress_spec_bind(p->egress, p, subnet, err);
    if (r < 0)
        return r;
    p->pod_dns[0] = p->egress->router_ip;
    p->pod_spec.dns_servers = p->pod_dns;
    return 0;
}

int session_plan_host_mounts(const session_plan_t *p, const char ***ret, as_error_t **err)
{
    const agent_spec_t *a = p->agent_spec;
    const char **v = calloc(a->n_mounts + 1, sizeof(char *));
    if (v == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < a->n_mounts; i++)
        if (strcmp(a->mounts[i].type, "bind") == 0)
            v[n++] = a->mounts[i].destination;
    *ret = v;
    return 0;
}
