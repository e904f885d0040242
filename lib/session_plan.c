#include "session_plan.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strv.h"
#include "util.h"

bool image_ref_valid(const char *ref)
{
    if (ref == NULL || ref[0] == '\0' || strlen(ref) > 255 || ref[0] == '-' || ref[0] == '/')
        return false;
    for (const char *c = ref; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              strchr("._/:@-", *c) != NULL))
            return false;
    return strstr(ref, "..") == NULL;
}

bool network_name_valid(const char *name)
{
    if (name == NULL || name[0] == '\0' || strlen(name) > 200 || !isalnum((unsigned char)name[0]))
        return false;
    for (const char *c = name; *c; c++)
        if (!isalnum((unsigned char)*c) && strchr("_.-", *c) == NULL)
            return false;
    return true;
}

static bool id_valid(const char *id)
{
    if (id == NULL || strlen(id) != 12)
        return false;
    for (const char *c = id; *c; c++)
        if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
            return false;
    return true;
}

/* Copies s unless it is NULL; false only when out of memory. */
static bool dup_or_null(const char *s, char **ret)
{
    *ret = s != NULL ? strdup(s) : NULL;
    return s == NULL || *ret != NULL;
}

void session_plan_free(session_plan_t *p)
{
    if (p == NULL)
        return;
    free(p->id);
    free(p->pid);
    free(p->network);
    free(p->pod);
    free(p->agent);
    free(p->image);
    free(p->workdir);
    free(p->session_dir);
    free(p->home_volume);
    free(p->home_project);
    free(p->login_volume);
    free(p->legacy_home);
    free(p->router);
    free(p->forwarder);
    free(p->router_image);
    free(p->egress_network);
    free(p->resolver);
    strv_free(p->command);
    strv_free(p->env);
    free(p);
}

int session_plan_build(const session_inputs_t *in, session_plan_t **ret, as_error_t **err)
{
    if (!id_valid(in->id))
        return as_error_make(err, EINVAL, "session id \"%s\" is not 12 lower-case hex digits",
                             in->id ? in->id : "");
    if (!image_ref_valid(in->image))
        return as_error_make(err, EINVAL, "image name \"%s\" is not a valid image reference",
                             in->image ? in->image : "");
    if (in->workdir == NULL || in->workdir[0] != '/')
        return as_error_make(err, EINVAL, "the launch directory must be an absolute path");
    const char *volumes[] = { in->home_volume, in->login_volume, in->legacy_home };
    for (size_t i = 0; i < ARRAY_SIZE(volumes); i++)
        if (volumes[i] != NULL && !network_name_valid(volumes[i]))
            return as_error_make(err, EINVAL, "%s volume name \"%s\" is not a valid volume name "
                                 "([a-zA-Z0-9][a-zA-Z0-9_.-]*)", i == 1 ? "login" : "home", volumes[i]);
    if (in->private_home && (in->home_volume != NULL || in->login_volume != NULL))
        return as_error_make(err, EINVAL, "a private home takes no volume");
    if (in->command == NULL || in->command[0] == NULL || in->command[0][0] == '\0')
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

    session_plan_t *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    p->tty = in->tty;
    p->private_home = in->private_home;
    if ((p->id = strdup(in->id)) == NULL ||
        asprintf(&p->pid, "%ld", (long)in->cli_pid) < 0 ||
        asprintf(&p->network, "agent-sandbox-%s-net", in->id) < 0 ||
        asprintf(&p->pod, "agent-sandbox-%s", in->id) < 0 ||
        asprintf(&p->agent, "agent-sandbox-%s-agent", in->id) < 0 ||
        (p->image = strdup(in->image)) == NULL ||
        (p->workdir = strdup(in->workdir)) == NULL ||
        (in->session_dir != NULL && (p->session_dir = strdup(in->session_dir)) == NULL) ||
        !dup_or_null(in->home_volume, &p->home_volume) ||
        !dup_or_null(in->home_project, &p->home_project) ||
        !dup_or_null(in->login_volume, &p->login_volume) ||
        !dup_or_null(in->legacy_home, &p->legacy_home) ||
        (p->command = strv_copy(in->command)) == NULL ||
        (p->env = strv_copy(in->env)) == NULL ||
        asprintf(&p->router, "agent-sandbox-%s-router", in->id) < 0 ||
        asprintf(&p->forwarder, "agent-sandbox-%s-forwarder", in->id) < 0 ||
        (in->router_image != NULL && (p->router_image = strdup(in->router_image)) == NULL) ||
        (in->egress_network != NULL && (p->egress_network = strdup(in->egress_network)) == NULL) ||
        (in->resolver != NULL && (p->resolver = strdup(in->resolver)) == NULL)) {
        session_plan_free(p);
        return as_error_make(err, ENOMEM, "out of memory");
    }
    p->allowlist = in->allowlist;
    p->limits = in->limits;
    p->cgroups = in->cgroups;
    p->workspace = in->workspace;
    p->labels[0] = (podman_label_t){ LABEL_SESSION, p->id };
    p->labels[1] = (podman_label_t){ LABEL_PID, p->pid };
    *ret = p;
    return 0;
}

int session_plan_describe(const session_plan_t *p, char **ret, as_error_t **err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return as_error_errno(err, errno, "describing the plan");
    fprintf(f, "session:   %s (cli pid %s)\n", p->id, p->pid);
    fprintf(f, "network:   %s (internal, no DNS, no route out)\n", p->network);
    if (p->router_image != NULL) {
        fprintf(f, "router:    %s (image %s; on the session network and %s)\n", p->router,
                p->router_image, p->egress_network);
        fprintf(f, "  resolver for upstream names: %s\n", p->resolver);
        fprintf(f, "  allowed: %zu name(s), %zu upstream net(s)\n",
                p->allowlist ? p->allowlist->n_entries : 0, p->allowlist ? p->allowlist->n_nets : 0);
        for (size_t i = 0; p->allowlist != NULL && i < p->allowlist->n_entries; i++) {
            const allowlist_entry_t *e = &p->allowlist->entries[i];
            fprintf(f, "    %s%s", e->wildcard ? "." : "", e->name);
            for (size_t k = 0; k < e->n_ports; k++)
                fprintf(f, "%s%u", k == 0 ? " + ports " : ",", e->ports[k].port);
            fprintf(f, "\n");
        }
        fprintf(f, "forwarder: %s (in the pod; loopback listeners to the router)\n", p->forwarder);
    }
    fprintf(f, "pod:       %s (userns keep-id)\n", p->pod);
    fprintf(f, "agent:     %s\n", p->agent);
    fprintf(f, "  image:   %s\n", p->image);
    fprintf(f, "  mount:   %s (rw, the only host path)\n", p->workdir);
    if (p->private_home)
        fprintf(f, "  home:    an empty tmpfs of its own (no volume)\n");
    else if (p->home_volume != NULL && p->home_project != NULL)
        fprintf(f, "  home:    volume %s (this launch directory's own)\n", p->home_volume);
    else if (p->home_volume != NULL)
        fprintf(f, "  home:    volume %s (named by AGENT_SANDBOX_HOME_VOLUME, used as is)\n",
                p->home_volume);
    if (p->login_volume != NULL)
        fprintf(f, "  login:   volume %s (Claude's credentials, shared by every project)\n",
                p->login_volume);
    fprintf(f, "  workdir: %s\n", p->workdir);
    fprintf(f, "  tty:     %s\n", p->tty ? "yes" : "no");
    fprintf(f, "  caps:    none; no-new-privileges\n");
    fprintf(f, "  limits:  memory ");
    if (p->limits.memory_bytes > 0)
        fprintf(f, "%lld MiB%s", p->limits.memory_bytes >> 20, p->cgroups.memory ? "" : " (not applied)");
    else
        fprintf(f, "unlimited");
    fprintf(f, ", processes ");
    if (p->limits.pids > 0)
        fprintf(f, "%lld%s", p->limits.pids, p->cgroups.pids ? "" : " (as RLIMIT_NPROC)");
    else
        fprintf(f, "unlimited");
    fprintf(f, ", CPU ");
    if (p->limits.cpu_millis > 0)
        fprintf(f, "%lld.%03lld%s\n", p->limits.cpu_millis / 1000, p->limits.cpu_millis % 1000,
                p->cgroups.cpu ? "" : " (not applied)");
    else
        fprintf(f, "unlimited\n");
    fprintf(f, "  command:");
    for (size_t i = 0; p->command[i] != NULL; i++)
        fprintf(f, " %s", p->command[i]);
    fprintf(f, "\n  env:    ");
    for (size_t i = 0; p->env[i] != NULL; i++) {
        const char *eq = strchr(p->env[i], '=');
        fprintf(f, " %.*s", (int)(eq - p->env[i]), p->env[i]);   /* names only: values may be secrets */
    }
    fprintf(f, "\n");
    if (fclose(f) != 0) {
        free(text);
        return as_error_make(err, ENOMEM, "describing the plan: out of memory");
    }
    *ret = text;
    return 0;
}
