#include "podman_spec_json.h"

#include <string.h>

#include "base/json.h"
#include "base/util.h"

/* A flat object of string members: labels, sysctls, a driver's options. */
static void gen_labels(json_gen_t *g, const char *key, const podman_label_t *labels, size_t n)
{
    json_key(g, key);
    json_obj_open(g);
    for (size_t i = 0; i < n; i++)
        json_kv_str(g, labels[i].key, labels[i].value);
    json_obj_close(g);
}

/* A namespace's mode, as libpod takes it: "key": {"nsmode": mode}. */
static void gen_nsmode(json_gen_t *g, const char *key, const char *mode)
{
    json_key(g, key);
    json_obj_open(g);
    json_kv_str(g, "nsmode", mode);
    json_obj_close(g);
}

/* The networks joined, each with its static address when it has one:
 * "Networks": {"<name>": {"static_ips": [ip]}, ...}. */
static void gen_networks(json_gen_t *g, const podman_network_attach_t *nets, size_t n)
{
    json_key(g, "Networks");
    json_obj_open(g);
    for (size_t i = 0; i < n; i++) {
        json_key(g, nets[i].network);
        json_obj_open(g);
        if (nets[i].static_ip != NULL) {
            char *ips[] = { (char *)nets[i].static_ip, NULL };
            json_kv_strv(g, "static_ips", ips, (size_t)-1);
        }
        json_obj_close(g);
    }
    json_obj_close(g);
}

/* The document built in g, which is freed here whatever the outcome. */
static int finish(json_gen_t *g, char **ret, as_error_t **err)
{
    int r = json_gen_finish(g, ret, err);
    json_gen_free(g);
    return r;
}

int podman_network_spec_json(const podman_network_spec_t *spec, char **ret, as_error_t **err)
{
    json_gen_t *g = json_gen_new();
    json_obj_open(g);
    json_kv_str(g, "name", spec->name);
    json_kv_bool(g, "internal", spec->internal);
    json_kv_bool(g, "dns_enabled", spec->dns_enabled);
    gen_labels(g, "labels", spec->labels, spec->n_labels);
    json_obj_close(g);
    return finish(g, ret, err);
}

static void gen_ports(json_gen_t *g, const podman_port_t *ports, size_t n)
{
    if (n == 0)
        return;
    json_key(g, "portmappings");
    json_arr_open(g);
    for (size_t i = 0; i < n; i++) {
        json_obj_open(g);
        json_kv_str(g, "host_ip", ports[i].host_ip);
        json_kv_int(g, "host_port", ports[i].host_port);
        json_kv_int(g, "container_port", ports[i].container_port);
        json_kv_str(g, "protocol", "tcp");
        json_obj_close(g);
    }
    json_arr_close(g);
}

int podman_pod_spec_json(const podman_pod_spec_t *spec, char **ret, as_error_t **err)
{
    json_gen_t *g = json_gen_new();
    json_obj_open(g);
    json_kv_str(g, "name", spec->name);
    if (spec->hostname != NULL)
        json_kv_str(g, "hostname", spec->hostname);
    gen_labels(g, "labels", spec->labels, spec->n_labels);
    if (spec->network != NULL) {
        gen_nsmode(g, "netns", "bridge");
        gen_networks(g, &(podman_network_attach_t){ .network = spec->network }, 1);
    }
    if (spec->userns_keep_id)
        gen_nsmode(g, "userns", "keep-id");
    json_kv_bool(g, "no_manage_hosts", spec->no_manage_hosts);
    if (spec->dns_servers != NULL)
        json_kv_strv(g, "dns_server", spec->dns_servers, (size_t)-1);
    if (spec->n_sysctls > 0)
        gen_labels(g, "sysctl", spec->sysctls, spec->n_sysctls);
    gen_ports(g, spec->ports, spec->n_ports);
    json_obj_close(g);
    return finish(g, ret, err);
}

int podman_volume_spec_json(const podman_volume_spec_t *spec, char **ret, as_error_t **err)
{
    json_gen_t *g = json_gen_new();
    json_obj_open(g);
    json_kv_str(g, "Name", spec->name);
    gen_labels(g, "Label", spec->labels, spec->n_labels);
    if (spec->n_options > 0)
        gen_labels(g, "Options", spec->options, spec->n_options);
    json_obj_close(g);
    return finish(g, ret, err);
}

/* libpod takes env as an object, so each KEY=VALUE is split; an entry
 * without '=' is left out. */
static void gen_env(json_gen_t *g, char *const *env)
{
    json_key(g, "env");
    json_obj_open(g);
    for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
        const char *eq = strchr(env[i], '=');
        if (eq == NULL)
            continue;
        _cleanup_free_ char *key = strndup(env[i], (size_t)(eq - env[i]));
        if (key == NULL) {
            /* A NULL key makes the generator fail, so the document ends
             * as out of memory. */
            json_key(g, NULL);
            return;
        }
        json_kv_str(g, key, eq + 1);
    }
    json_obj_close(g);
}

static void gen_mounts(json_gen_t *g, const podman_mount_t *mounts, size_t n)
{
    json_key(g, "mounts");
    json_arr_open(g);
    for (size_t i = 0; i < n; i++) {
        /* libpod takes overlay mounts apart, in overlay_volumes. */
        if (strcmp(mounts[i].type, "overlay") == 0)
            continue;
        json_obj_open(g);
        json_kv_str(g, "destination", mounts[i].destination);
        json_kv_str(g, "type", mounts[i].type);
        if (mounts[i].source != NULL)
            json_kv_str(g, "source", mounts[i].source);
        if (mounts[i].options != NULL)
            json_kv_strv(g, "options", mounts[i].options, (size_t)-1);
        json_obj_close(g);
    }
    json_arr_close(g);
}

/* Overlay mounts of a host directory (podman's `-v SRC:DST:O,upperdir=,workdir=`):
 * SpecGenerator's overlay_volumes, apart from the other mounts. */
static void gen_overlay_volumes(json_gen_t *g, const podman_mount_t *mounts, size_t n)
{
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(mounts[i].type, "overlay") != 0)
            continue;
        if (!any) {
            json_key(g, "overlay_volumes");
            json_arr_open(g);
            any = true;
        }
        json_obj_open(g);
        json_kv_str(g, "destination", mounts[i].destination);
        json_kv_str(g, "source", mounts[i].source);
        if (mounts[i].options != NULL)
            json_kv_strv(g, "options", mounts[i].options, (size_t)-1);
        json_obj_close(g);
    }
    if (any)
        json_arr_close(g);
}

static void gen_volumes(json_gen_t *g, const podman_named_volume_t *volumes, size_t n)
{
    if (n == 0)
        return;
    json_key(g, "volumes");
    json_arr_open(g);
    for (size_t i = 0; i < n; i++) {
        json_obj_open(g);
        json_kv_str(g, "Name", volumes[i].name);
        json_kv_str(g, "Dest", volumes[i].destination);
        if (volumes[i].options != NULL)
            json_kv_strv(g, "Options", volumes[i].options, (size_t)-1);
        json_obj_close(g);
    }
    json_arr_close(g);
}

/* A cgroup limit, "key": {"limit": value}, written only when it is set. */
static void gen_cgroup_limit(json_gen_t *g, const char *key, long long value)
{
    if (value <= 0)
        return;
    json_key(g, key);
    json_obj_open(g);
    json_kv_int(g, "limit", value);
    json_obj_close(g);
}

/* RLIMIT_NPROC, and the cgroup limits of pids, memory and CPU. */
static void gen_limits(json_gen_t *g, const podman_container_spec_t *spec)
{
    if (spec->nproc_rlimit > 0) {
        json_key(g, "r_limits");
        json_arr_open(g);
        json_obj_open(g);
        json_kv_str(g, "type", "nproc");     /* podman adds the RLIMIT_ */
        json_kv_int(g, "hard", spec->nproc_rlimit);
        json_kv_int(g, "soft", spec->nproc_rlimit);
        json_obj_close(g);
        json_arr_close(g);
    }
    if (spec->pids_limit <= 0 && spec->memory_limit <= 0 && spec->cpu_quota_us <= 0)
        return;
    json_key(g, "resource_limits");
    json_obj_open(g);
    gen_cgroup_limit(g, "pids", spec->pids_limit);
    gen_cgroup_limit(g, "memory", spec->memory_limit);
    if (spec->cpu_quota_us > 0) {
        json_key(g, "cpu");
        json_obj_open(g);
        json_kv_int(g, "quota", spec->cpu_quota_us);
        json_kv_int(g, "period", 100000);
        json_obj_close(g);
    }
    json_obj_close(g);
}

static void gen_container(json_gen_t *g, const podman_container_spec_t *spec)
{
    json_obj_open(g);
    json_kv_str(g, "name", spec->name);
    json_kv_str(g, "image", spec->image);
    if (spec->pod != NULL)
        json_kv_str(g, "pod", spec->pod);
    json_kv_strv(g, "command", spec->command, (size_t)-1);
    gen_env(g, spec->env);
    if (spec->work_dir != NULL)
        json_kv_str(g, "work_dir", spec->work_dir);
    if (spec->user != NULL)
        json_kv_str(g, "user", spec->user);
    if (spec->passwd_entry != NULL)
        json_kv_str(g, "passwd_entry", spec->passwd_entry);
    json_kv_bool(g, "stdin", spec->stdin_open);
    json_kv_bool(g, "terminal", spec->terminal);
    json_kv_bool(g, "read_only_filesystem", spec->read_only);
    json_kv_bool(g, "no_new_privileges", spec->no_new_privileges);
    if (spec->init)
        json_kv_bool(g, "init", true);
    if (spec->cap_drop != NULL)
        json_kv_strv(g, "cap_drop", spec->cap_drop, (size_t)-1);
    if (spec->cap_add != NULL)
        json_kv_strv(g, "cap_add", spec->cap_add, (size_t)-1);
    gen_mounts(g, spec->mounts, spec->n_mounts);
    gen_overlay_volumes(g, spec->mounts, spec->n_mounts);
    gen_volumes(g, spec->volumes, spec->n_volumes);
    if (spec->n_sysctls > 0)
        gen_labels(g, "sysctl", spec->sysctls, spec->n_sysctls);
    gen_limits(g, spec);
    if (spec->no_network)
        gen_nsmode(g, "netns", "none");
    if (spec->userns_keep_id)
        gen_nsmode(g, "userns", "keep-id");
    if (spec->n_networks > 0) {
        gen_nsmode(g, "netns", "bridge");
        gen_networks(g, spec->networks, spec->n_networks);
    }
    gen_labels(g, "labels", spec->labels, spec->n_labels);
    json_obj_close(g);
}

int podman_container_spec_json(const podman_container_spec_t *spec, char **ret, as_error_t **err)
{
    json_gen_t *g = json_gen_new();
    gen_container(g, spec);
    return finish(g, ret, err);
}
