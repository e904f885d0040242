#include "podman_api.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/util.h"

#define API "/v4.0.0/libpod"

/* Generous: a container create on vfs storage copies the whole image. */
#define CALL_TIMEOUT_MS 120000L

struct podman_api {
    http_client_t *http;
};

int podman_api_new(const char *socket_path, podman_api_t **ret, as_error_t **err)
{
    podman_api_t *api = calloc(1, sizeof(*api));
    if (api == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    int r = http_client_new(socket_path, &api->http, err);
    if (r < 0) {
        free(api);
        return r;
    }
    *ret = api;
    return 0;
}

int podman_api_clone(const podman_api_t *api, podman_api_t **ret, as_error_t **err)
{
    podman_api_t *copy = calloc(1, sizeof(*copy));
    if (copy == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    int r = http_client_clone(api->http, &copy->http, err);
    if (r < 0) {
        free(copy);
        return r;
    }
    *ret = copy;
    return 0;
}

void podman_api_free(podman_api_t *api)
{
    if (api == NULL)
        return;
    http_client_free(api->http);
    free(api);
}

int podman_error_from_answer(long status, const char *body, const char *what, as_error_t **err)
{
    _cleanup_(json_freep) json_t *doc = NULL;
    const char *cause = NULL;
    as_error_t *parse_err = NULL;
    if (body != NULL && body[0] != '\0' && json_parse(body, what, &doc, &parse_err) == 0) {
        cause = json_get_str(doc, "message");
        if (cause == NULL || cause[0] == '\0')
            cause = json_get_str(doc, "cause");
    }
    as_error_free(&parse_err);
    if (cause == NULL) {
        /* not libpod's error shape: quote the start of the body */
        cause = body != NULL && body[0] != '\0' ? body : "no details given";
    }
    int n = (int)strcspn(cause, "\n");
    if (n > 500)
        n = 500;
    int r = as_error_http(err, status, "%s: HTTP %ld: %.*s", what, status, n, cause);
    /* libpod answers some lookups of a gone object with 500 "no such ..." */
    if (status == 500 && err != NULL && *err != NULL && strstr(cause, "no such ") != NULL) {
        (*err)->code = ENOENT;
        r = -ENOENT;
    }
    return r;
}

/* One API call. `ok1`/`ok2` are the statuses that mean success; any other
 * status becomes an error named by `what`. When ret_doc is set, a success
 * body is parsed into it. */
static int call(podman_api_t *api, const char *method, const char *path, const char *body,
                long timeout_ms, long ok1, long ok2, const char *what,
                long *ret_status, json_t **ret_doc, as_error_t **err)
{
    http_response_t res = {0};
    int r = http_request(api->http, method, path, body, timeout_ms, &res, err);
    if (r < 0)
        return as_error_prefix(err, "%s", what);
    if (res.status != ok1 && res.status != ok2) {
        r = podman_error_from_answer(res.status, res.body, what, err);
        http_response_clear(&res);
        return r;
    }
    if (ret_status != NULL)
        *ret_status = res.status;
    if (ret_doc != NULL) {
        r = json_parse(res.body, what, ret_doc, err);
        if (r < 0) {
            http_response_clear(&res);
            return r;
        }
    }
    http_response_clear(&res);
    return 0;
}

static char *path_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *path_printf(const char *fmt, ...)
{
    char *p = NULL;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&p, fmt, ap) < 0)
        p = NULL;
    va_end(ap);
    return p;
}

#define OOM(err) as_error_make(err, ENOMEM, "out of memory")

/* A copy of a string of the answer (`name` says which, for the error). */
static int copy_str(const char *value, const char *what, const char *name, char **ret,
                    as_error_t **err)
{
    char *copy = value != NULL ? strdup(value) : NULL;
    if (value == NULL)
        return as_error_make(err, EPROTO, "%s: the answer has no %s", what, name);
    if (copy == NULL)
        return OOM(err);
    *ret = copy;
    return 0;
}

int podman_ping(podman_api_t *api, long timeout_ms, as_error_t **err)
{
    http_response_t res = {0};
    int r = http_request(api->http, "GET", "/_ping", NULL, timeout_ms, &res, err);
    if (r < 0)
        return r;
    long status = res.status;
    http_response_clear(&res);
    if (status != 200)
        return as_error_http(err, status, "pinging the podman service: HTTP %ld", status);
    return 0;
}

int podman_info_graphroot(podman_api_t *api, char **ret, as_error_t **err)
{
    _cleanup_(json_freep) json_t *doc = NULL;
    int r = call(api, "GET", API "/info", NULL, CALL_TIMEOUT_MS, 200, 200,
                 "reading podman's info", NULL, &doc, err);
    if (r < 0)
        return r;
    return copy_str(json_get_str(json_get(doc, "store"), "graphRoot"), "reading podman's info",
                    "store.graphRoot", ret, err);
}

/* GET .../exists answers 204 or 404. */
static int exists(podman_api_t *api, const char *path, const char *what, bool *ret, as_error_t **err)
{
    long status = 0;
    int r = call(api, "GET", path, NULL, CALL_TIMEOUT_MS, 204, 404, what, &status, NULL, err);
    if (r < 0)
        return r;
    *ret = status == 204;
    return 0;
}

/* GET /<collection>/<name>/exists */
static int named_exists(podman_api_t *api, const char *collection, const char *kind, const char *name,
                        bool *ret, as_error_t **err)
{
    _cleanup_free_ char *path = path_printf(API "/%s/%s/exists", collection, name);
    _cleanup_free_ char *what = path_printf("looking up %s %s", kind, name);
    if (path == NULL || what == NULL)
        return OOM(err);
    return exists(api, path, what, ret, err);
}

static char *dup_str(const json_t *obj, const char *key)
{
    const char *v = json_get_str(obj, key);
    return v != NULL ? strdup(v) : NULL;
}

int podman_info_host(podman_api_t *api, podman_host_info_t *ret, as_error_t **err)
{
    _cleanup_(json_freep) json_t *doc = NULL;
    int r = call(api, "GET", API "/info", NULL, CALL_TIMEOUT_MS, 200, 200,
                 "reading podman's info", NULL, &doc, err);
    if (r < 0)
        return r;
    const json_t *host = json_get(doc, "host"), *version = json_get(doc, "version");
    podman_host_info_t info = {
        .version = dup_str(version, "Version"),
        .api_version = dup_str(version, "APIVersion"),
        .graph_driver = dup_str(json_get(doc, "store"), "graphDriverName"),
        .oci_runtime = dup_str(json_get(host, "ociRuntime"), "name"),
        .cgroup_version = dup_str(host, "cgroupVersion"),
        .network_backend = dup_str(host, "networkBackend"),
    };
    *ret = info;
    return 0;
}

void podman_host_info_clear(podman_host_info_t *info)
{
    free(info->version);
    free(info->api_version);
    free(info->graph_driver);
    free(info->oci_runtime);
    free(info->cgroup_version);
    free(info->network_backend);
    *info = (podman_host_info_t){0};
}

int podman_image_exists(podman_api_t *api, const char *name, bool *ret, as_error_t **err)
{
    return named_exists(api, "images", "image", name, ret, err);
}

static void gen_labels(json_gen_t *g, const char *key, const podman_label_t *labels, size_t n)
{
    json_key(g, key);
    json_obj_open(g);
    for (size_t i = 0; i < n; i++)
        json_kv_str(g, labels[i].key, labels[i].value);
    json_obj_close(g);
}

/* "key": {"nsmode": mode} */
static void gen_nsmode(json_gen_t *g, const char *key, const char *mode)
{
    json_key(g, key);
    json_obj_open(g);
    json_kv_str(g, "nsmode", mode);
    json_obj_close(g);
}

/* "Networks": {"<name>": {"static_ips": [ip]}, ...} */
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

static int finish(json_gen_t *g, char **ret, as_error_t **err)
{
    int r = json_gen_finish(g, ret, err);
    json_gen_free(g);
    return r;
}

/* POST the document built in g (freed here) to `path`; `what` names the
 * call. ret_doc (may be NULL) receives the parsed answer. */
static int post_doc(podman_api_t *api, json_gen_t *g, const char *path, long ok1, long ok2,
                    const char *what, json_t **ret_doc, as_error_t **err)
{
    _cleanup_free_ char *body = NULL;
    if (what == NULL) {
        json_gen_free(g);
        return OOM(err);
    }
    if (finish(g, &body, err) < 0)
        return as_error_prefix(err, "%s", what);
    return call(api, "POST", path, body, CALL_TIMEOUT_MS, ok1, ok2, what, NULL, ret_doc, err);
}

/* `prefix` and the filters built in g (freed here), percent-encoded. */
static char *filters_path(podman_api_t *api, const char *prefix, json_gen_t *g, as_error_t **err)
{
    _cleanup_free_ char *filters = NULL;
    if (finish(g, &filters, err) < 0)
        return NULL;
    _cleanup_free_ char *escaped = http_escape(api->http, filters);
    char *path = escaped != NULL ? path_printf("%sfilters=%s", prefix, escaped) : NULL;
    if (path == NULL)
        OOM(err);
    return path;
}

int podman_network_create(podman_api_t *api, const podman_network_spec_t *spec,
                          char **ret_subnet, as_error_t **err)
{
    json_gen_t *g = json_gen_new();
    json_obj_open(g);
    json_kv_str(g, "name", spec->name);
    json_kv_bool(g, "internal", spec->internal);
    json_kv_bool(g, "dns_enabled", spec->dns_enabled);
    gen_labels(g, "labels", spec->labels, spec->n_labels);
    json_obj_close(g);
    _cleanup_free_ char *what = path_printf("creating network %s", spec->name);
    _cleanup_(json_freep) json_t *doc = NULL;
    int r = post_doc(api, g, API "/networks/create", 200, 201, what, ret_subnet != NULL ? &doc : NULL, err);
    if (r < 0 || ret_subnet == NULL)
        return r;
    return copy_str(json_get_str(json_array_at(json_get(doc, "subnets"), 0), "subnet"), what,
                    "subnets[0].subnet", ret_subnet, err);
}

/* GET /<collection>/<name>/json, parsed. */
static int inspect(podman_api_t *api, const char *collection, const char *kind, const char *name,
                   json_t **ret, as_error_t **err)
{
    _cleanup_free_ char *path = path_printf(API "/%s/%s/json", collection, name);
    _cleanup_free_ char *what = path_printf("inspecting %s %s", kind, name);
    if (path == NULL || what == NULL)
        return OOM(err);
    return call(api, "GET", path, NULL, CALL_TIMEOUT_MS, 200, 200, what, NULL, ret, err);
}

/* A label of an image (Config.Labels, else Labels) or a volume (Labels). */
static int label_of(podman_api_t *api, const char *collection, const char *kind, const char *name,
                    const char *key, char **ret, as_error_t **err)
{
    _cleanup_(json_freep) json_t *doc = NULL;
    int r = inspect(api, collection, kind, name, &doc, err);
    if (r < 0)
        return r;
    const char *value = json_get_str(json_get(json_get(doc, "Config"), "Labels"), key);
    if (value == NULL)
        value = json_get_str(json_get(doc, "Labels"), key);
    char *copy = value != NULL ? strdup(value) : NULL;
    if (value != NULL && copy == NULL)
        return OOM(err);
    *ret = copy;
    return 0;
}

int podman_image_label(podman_api_t *api, const char *name, const char *key, char **ret,
                       as_error_t **err)
{
    return label_of(api, "images", "image", name, key, ret, err);
}

int podman_volume_label(podman_api_t *api, const char *name, const char *key, char **ret,
                        as_error_t **err)
{
    return label_of(api, "volumes", "volume", name, key, ret, err);
}

int podman_network_internal(podman_api_t *api, const char *name, bool *ret_exists, bool *ret_internal,
                            as_error_t **err)
{
    bool exists = false, internal = false;
    int r = podman_network_exists(api, name, &exists, err);
    if (r < 0)
        return r;
    if (exists) {
        _cleanup_(json_freep) json_t *doc = NULL;
        if ((r = inspect(api, "networks", "network", name, &doc, err)) < 0)
            return r;
        json_get_bool(doc, "internal", &internal);
    }
    *ret_exists = exists;
    *ret_internal = internal;
    return 0;
}

int podman_network_exists(podman_api_t *api, const char *name, bool *ret, as_error_t **err)
{
    return named_exists(api, "networks", "network", name, ret, err);
}

static int remove_named(podman_api_t *api, const char *collection, const char *query,
                        const char *kind, const char *name, long ok, as_error_t **err)
{
    _cleanup_free_ char *path = path_printf(API "/%s/%s%s", collection, name, query);
    _cleanup_free_ char *what = path_printf("removing %s %s", kind, name);
    if (path == NULL || what == NULL)
        return OOM(err);
    return call(api, "DELETE", path, NULL, CALL_TIMEOUT_MS, ok, 200, what, NULL, NULL, err);
}

int podman_network_remove(podman_api_t *api, const char *name, as_error_t **err)
{
    return remove_named(api, "networks", "?force=true", "network", name, 200, err);
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

int podman_pod_create(podman_api_t *api, const podman_pod_spec_t *spec, as_error_t **err)
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
    _cleanup_free_ char *what = path_printf("creating pod %s", spec->name);
    return post_doc(api, g, API "/pods/create", 201, 200, what, NULL, err);
}

int podman_pod_remove(podman_api_t *api, const char *name, as_error_t **err)
{
    return remove_named(api, "pods", "?force=true&timeout=0", "pod", name, 200, err);
}

/* libpod takes env as an object: split each KEY=VALUE. */
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
            json_key(g, NULL);          /* makes the generator fail: out of memory */
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
        if (strcmp(mounts[i].type, "overlay") == 0)
            continue;                   /* libpod takes them apart */
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

/* "key": {"limit": value}, when value is set */
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

int podman_container_create(podman_api_t *api, const podman_container_spec_t *spec,
                            char **ret_id, as_error_t **err)
{
    json_gen_t *g = json_gen_new();
    gen_container(g, spec);
    _cleanup_free_ char *what = path_printf("creating container %s", spec->name);
    _cleanup_(json_freep) json_t *doc = NULL;
    int r = post_doc(api, g, API "/containers/create", 201, 200, what, &doc, err);
    if (r < 0)
        return r;
    return copy_str(json_get_str(doc, "Id"), what, "Id", ret_id, err);
}

static int container_post(podman_api_t *api, const char *id, const char *action, const char *query,
                          long ok1, long ok2, long timeout_ms, const char *verb, as_error_t **err)
{
    _cleanup_free_ char *path = path_printf(API "/containers/%s/%s%s", id, action, query);
    _cleanup_free_ char *what = path_printf("%s container %.12s", verb, id);
    if (path == NULL || what == NULL)
        return OOM(err);
    return call(api, "POST", path, NULL, timeout_ms, ok1, ok2, what, NULL, NULL, err);
}

int podman_container_start(podman_api_t *api, const char *id, as_error_t **err)
{
    /* 304: already running, which is what we asked for */
    return container_post(api, id, "start", "", 204, 304, CALL_TIMEOUT_MS, "starting", err);
}

static int attach_with(podman_api_t *api, const char *id, const char *streams, http_stream_t **ret,
                       as_error_t **err)
{
    _cleanup_free_ char *path = path_printf(API "/containers/%s/attach?stream=true&%s", id, streams);
    if (path == NULL)
        return OOM(err);
    _cleanup_free_ char *what = path_printf("attaching to container %.12s", id);
    if (what == NULL)
        return OOM(err);
    http_response_t refusal = {0};
    int r = http_stream_open(api->http, "POST", path, NULL, CALL_TIMEOUT_MS, &refusal, ret, err);
    if (r < 0 && refusal.status != 0) {
        as_error_free(err);       /* libpod's own words say more */
        r = podman_error_from_answer(refusal.status, refusal.body, what, err);
        http_response_clear(&refusal);
        return r;
    }
    if (r < 0)
        return as_error_prefix(err, "%s", what);
    return 0;
}

int podman_container_attach(podman_api_t *api, const char *id, bool with_stdin,
                            http_stream_t **ret, as_error_t **err)
{
    return attach_with(api, id, with_stdin ? "stdout=true&stderr=true&stdin=true"
                                           : "stdout=true&stderr=true&stdin=false", ret, err);
}

int podman_container_attach_input(podman_api_t *api, const char *id, http_stream_t **ret,
                                  as_error_t **err)
{
    return attach_with(api, id, "stdout=false&stderr=false&stdin=true", ret, err);
}

int podman_container_resize(podman_api_t *api, const char *id, unsigned rows, unsigned cols,
                            as_error_t **err)
{
    char query[64];
    snprintf(query, sizeof(query), "?h=%u&w=%u", rows, cols);
    return container_post(api, id, "resize", query, 200, 201, CALL_TIMEOUT_MS, "resizing the terminal of", err);
}

int podman_container_wait(podman_api_t *api, const char *id, int *ret_exit_code, as_error_t **err)
{
    /* libpod polls the exit every `interval` (250 ms by default): called
     * when the agent's output has ended, the exit is there within a poll
     * or two; 10 ms cost a session's `true` 200 ms less (bench/startup.sh) */
    _cleanup_free_ char *path = path_printf(API "/containers/%s/wait?condition=exited&interval=10ms", id);
    _cleanup_free_ char *what = path_printf("waiting for container %.12s", id);
    if (path == NULL || what == NULL)
        return OOM(err);
    _cleanup_(json_freep) json_t *doc = NULL;
    int r = call(api, "POST", path, NULL, 0, 200, 200, what, NULL, &doc, err);
    if (r < 0)
        return r;
    long long code = 0;
    if (!json_as_int(doc, &code))
        return as_error_make(err, EPROTO, "%s: the answer is not an exit code", what);
    if (code < 0 || code > 255)
        return as_error_make(err, EPROTO, "%s: exit code %lld out of range", what, code);
    *ret_exit_code = (int)code;
    return 0;
}

int podman_container_kill(podman_api_t *api, const char *id, int signo, as_error_t **err)
{
    char query[32];
    snprintf(query, sizeof(query), "?signal=%d", signo);
    return container_post(api, id, "kill", query, 204, 200, CALL_TIMEOUT_MS, "signalling", err);
}

int podman_container_remove(podman_api_t *api, const char *id, as_error_t **err)
{
    return remove_named(api, "containers", "?force=true&timeout=0", "container", id, 200, err);
}

int podman_events_died(podman_api_t *api, char *const *containers, http_stream_t **ret,
                       as_error_t **err)
{
    json_gen_t *g = json_gen_new();
    json_obj_open(g);
    json_kv_strv(g, "container", containers, (size_t)-1);
    char *events[] = { "died", NULL };
    json_kv_strv(g, "event", events, (size_t)-1);
    json_obj_close(g);
    _cleanup_free_ char *path = filters_path(api, API "/events?stream=true&", g, err);
    if (path == NULL ||
        http_stream_open(api->http, "GET", path, NULL, CALL_TIMEOUT_MS, NULL, ret, err) < 0)
        return as_error_prefix(err, "watching for stopped containers");
    return 0;
}

int podman_container_running(podman_api_t *api, const char *id, bool *ret, as_error_t **err)
{
    _cleanup_free_ char *path = path_printf(API "/containers/%s/json", id);
    _cleanup_free_ char *what = path_printf("inspecting container %.12s", id);
    if (path == NULL || what == NULL)
        return OOM(err);
    _cleanup_(json_freep) json_t *doc = NULL;
    int r = call(api, "GET", path, NULL, CALL_TIMEOUT_MS, 200, 200, what, NULL, &doc, err);
    if (r < 0)
        return r;
    bool running = false;
    if (!json_get_bool(json_get(doc, "State"), "Running", &running))
        return as_error_make(err, EPROTO, "%s: the answer has no State.Running", what);
    *ret = running;
    return 0;
}

int podman_volume_exists(podman_api_t *api, const char *name, bool *ret, as_error_t **err)
{
    return named_exists(api, "volumes", "volume", name, ret, err);
}

int podman_volume_create(podman_api_t *api, const char *name, const podman_label_t *labels,
                         size_t n_labels, const podman_label_t *options, size_t n_options,
                         as_error_t **err)
{
    json_gen_t *g = json_gen_new();
    json_obj_open(g);
    json_kv_str(g, "Name", name);
    gen_labels(g, "Label", labels, n_labels);
    if (n_options > 0)
        gen_labels(g, "Options", options, n_options);
    json_obj_close(g);
    _cleanup_free_ char *what = path_printf("creating volume %s", name);
    return post_doc(api, g, API "/volumes/create", 201, 200, what, NULL, err);
}

int podman_volume_remove(podman_api_t *api, const char *name, as_error_t **err)
{
    return remove_named(api, "volumes", "?force=true", "volume", name, 204, err);
}

int podman_volume_remove_unused(podman_api_t *api, const char *name, as_error_t **err)
{
    return remove_named(api, "volumes", "", "volume", name, 204, err);
}

int podman_volume_mountpoint(podman_api_t *api, const char *name, char **ret, as_error_t **err)
{
    _cleanup_(json_freep) json_t *doc = NULL;
    int r = inspect(api, "volumes", "volume", name, &doc, err);
    if (r < 0)
        return r;
    const char *mountpoint = json_get_str(doc, "Mountpoint");
    char *copy = strdup(mountpoint != NULL ? mountpoint : "");
    if (copy == NULL)
        return OOM(err);
    *ret = copy;
    return 0;
}

void podman_labelled_free(podman_labelled_t *list, size_t n)
{
    if (list == NULL)
        return;
    for (size_t i = 0; i < n; i++) {
        free(list[i].name);
        free(list[i].label_value);
    }
    free(list);
}

int podman_list_labelled(podman_api_t *api, podman_kind_t kind, const char *label_key,
                         podman_labelled_t **ret, size_t *ret_n, as_error_t **err)
{
    static const struct {
        const char *endpoint, *what, *name_key, *labels_key;
        bool name_is_array;
    } kinds[] = {
        [PODMAN_CONTAINERS] = { "containers/json?all=true&", "containers", "Names", "Labels", true },
        [PODMAN_PODS]       = { "pods/json?", "pods", "Name", "Labels", false },
        [PODMAN_NETWORKS]   = { "networks/json?", "networks", "name", "labels", false },
        [PODMAN_VOLUMES]    = { "volumes/json?", "volumes", "Name", "Labels", false },
    };
    const typeof(kinds[0]) *k = &kinds[kind];

    /* filters={"label":["KEY"]}, built as JSON and then percent-encoded */
    _cleanup_(json_gen_freep) json_gen_t *g = json_gen_new();
    json_obj_open(g);
    char *keys[] = { (char *)label_key, NULL };
    json_kv_strv(g, "label", keys, (size_t)-1);
    json_obj_close(g);
    _cleanup_free_ char *prefix = path_printf(API "/%s", k->endpoint);
    _cleanup_free_ char *what = path_printf("listing %s labelled %s", k->what, label_key);
    if (prefix == NULL || what == NULL)
        return OOM(err);
    _cleanup_free_ char *path = filters_path(api, prefix, steal_pointer(&g), err);
    if (path == NULL)
        return as_error_prefix(err, "%s", what);

    _cleanup_(json_freep) json_t *doc = NULL;
    int r = call(api, "GET", path, NULL, CALL_TIMEOUT_MS, 200, 200, what, NULL, &doc, err);
    if (r < 0)
        return r;
    if (!json_is_array(doc) && !json_is_null(doc))
        return as_error_make(err, EPROTO, "%s: the answer is not a list", what);
    size_t n = json_array_len(doc);
    podman_labelled_t *list = calloc(n + 1, sizeof(*list));
    if (list == NULL)
        return OOM(err);
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *item = json_array_at(doc, i);
        const json_t *name_v = json_get(item, k->name_key);
        const char *name = k->name_is_array ? json_as_str(json_array_at(name_v, 0)) : json_as_str(name_v);
        const json_t *labels = json_get(item, k->labels_key);
        const char *value = json_get_str(labels, label_key);
        bool infra = false;
        if (json_get_bool(item, "IsInfra", &infra) && infra)
            continue;            /* goes with its pod */
        if (name == NULL || value == NULL) {
            podman_labelled_free(list, out);
            return as_error_make(err, EPROTO, "%s: entry %zu has no %s or no label value", what, i, k->name_key);
        }
        list[out].name = strdup(name);
        list[out].label_value = strdup(value);
        out++;
        if (list[out - 1].name == NULL || list[out - 1].label_value == NULL) {
            podman_labelled_free(list, out);
            return OOM(err);
        }
    }
    *ret = list;
    *ret_n = out;
    return 0;
}

int podman_image_inspect(podman_api_t *api, const char *name, const char *label_key, podman_image_info_t *ret,
                         as_error_t **err)
{
    _cleanup_(json_freep) json_t *doc = NULL;
    int r = inspect(api, "images", "image", name, &doc, err);
    if (r < 0)
        return r;
    const json_t *config = json_get(doc, "Config");
    const char *id = json_get_str(doc, "Id"), *user = json_get_str(config, "User");
    const char *label = label_key != NULL ? json_get_str(json_get(config, "Labels"), label_key) : NULL;
    if (id == NULL)
        return as_error_make(err, EPROTO, "inspecting image %s: the answer has no Id", name);
    podman_image_info_t info = {
        .id = strdup(id), .user = strdup(user != NULL ? user : ""),
        .n_entrypoint = json_array_len(json_get(config, "Entrypoint")),
        .label = label != NULL ? strdup(label) : NULL,
    };
    if (info.id == NULL || info.user == NULL || (label != NULL && info.label == NULL)) {
        podman_image_info_clear(&info);
        return OOM(err);
    }
    *ret = info;
    return 0;
}

void podman_image_info_clear(podman_image_info_t *info)
{
    free(info->id);
    free(info->user);
    free(info->label);
    *info = (podman_image_info_t){0};
}

int podman_image_remove(podman_api_t *api, const char *name, as_error_t **err)
{
    return remove_named(api, "images", "", "image", name, 200, err);
}

/* A refusal of a streamed call, in libpod's words. */
static int stream_refused(http_response_t *refusal, const char *what, as_error_t **err)
{
    int r = podman_error_from_answer(refusal->status, refusal->body, what, err);
    http_response_clear(refusal);
    return r;
}

int podman_container_export(podman_api_t *api, const char *id, http_sink_fn sink, void *ctx, as_error_t **err)
{
    _cleanup_free_ char *path = path_printf(API "/containers/%s/export", id);
    _cleanup_free_ char *what = path_printf("exporting container %.12s", id);
    if (path == NULL || what == NULL)
        return OOM(err);
    long status = 0;
    http_response_t refusal = {0};
    int r = http_request_stream(api->http, "GET", path, NULL, 0, NULL, 0, sink, ctx, &status, &refusal, err);
    if (r < 0)
        return as_error_prefix(err, "%s", what);
    if (status != 200)
        return stream_refused(&refusal, what, err);
    http_response_clear(&refusal);
    return 0;
}

typedef struct build_lines {
    podman_build_line_fn on_line;
    void *ctx;
    char *pending;
    size_t len;
    bool failed;
} build_lines_t;

/* One JSON object of the build's answer. */
static int build_line(build_lines_t *b, const char *text, as_error_t **err)
{
    _cleanup_(json_freep) json_t *doc = NULL;
    if (json_parse(text, "the build's progress", &doc, err) < 0)
        return -EPROTO;
    const char *stream = json_get_str(doc, "stream"), *error = json_get_str(doc, "error");
    if (error != NULL)
        b->failed = true;
    if (error != NULL || stream != NULL)
        return b->on_line(error != NULL ? error : stream, error != NULL, b->ctx, err);
    return 0;
}

static int build_sink(const char *data, size_t len, void *ctx, as_error_t **err)
{
    build_lines_t *b = ctx;
    char *p = realloc(b->pending, b->len + len + 1);
    if (p == NULL)
        return OOM(err);
    b->pending = p;
    memcpy(b->pending + b->len, data, len);
    b->len += len;
    b->pending[b->len] = '\0';
    char *nl;
    while ((nl = memchr(b->pending, '\n', b->len)) != NULL) {
        *nl = '\0';
        int r = nl > b->pending ? build_line(b, b->pending, err) : 0;
        size_t used = (size_t)(nl - b->pending) + 1;
        memmove(b->pending, nl + 1, b->len - used + 1);
        b->len -= used;
        if (r < 0)
            return r;
    }
    return 0;
}

static char *build_path(podman_api_t *api, const char *tag, const podman_label_t *labels, size_t n_labels)
{
    json_gen_t *g = json_gen_new();
    json_obj_open(g);
    for (size_t i = 0; i < n_labels; i++)
        json_kv_str(g, labels[i].key, labels[i].value);
    json_obj_close(g);
    _cleanup_free_ char *json = NULL, *esc_labels = NULL, *esc_tag = NULL;
    as_error_t *e = NULL;
    if (json_gen_finish(g, &json, &e) < 0) {
        as_error_free(&e);
        return NULL;
    }
    esc_labels = http_escape(api->http, json);
    esc_tag = http_escape(api->http, tag);
    if (esc_labels == NULL || esc_tag == NULL)
        return NULL;
    /* the Containerfile at the context's top; layers kept and reused; the
     * FROM image is local (never pulled); no network for RUN beyond what
     * the image's build would get from podman's defaults */
    return path_printf(API "/build?dockerfile=Containerfile&t=%s&labels=%s&layers=true&pullpolicy=never"
                       "&rm=true&forcerm=true", esc_tag, esc_labels);
}

int podman_image_build(podman_api_t *api, const void *context, size_t len, const char *tag,
                       const podman_label_t *labels, size_t n_labels, podman_build_line_fn on_line, void *ctx,
                       as_error_t **err)
{
    _cleanup_free_ char *path = build_path(api, tag, labels, n_labels);
    _cleanup_free_ char *what = path_printf("building image %s", tag);
    if (path == NULL || what == NULL)
        return OOM(err);
    build_lines_t b = { .on_line = on_line, .ctx = ctx };
    long status = 0;
    http_response_t refusal = {0};
    int r = http_request_stream(api->http, "POST", path, context, len, "application/x-tar", 0, build_sink, &b,
                                &status, &refusal, err);
    if (r == 0 && status == 200 && b.len > 0)
        r = build_line(&b, b.pending, err);      /* a last line without its newline */
    free(b.pending);
    if (r < 0)
        return as_error_prefix(err, "%s", what);
    if (status != 200)
        return stream_refused(&refusal, what, err);
    http_response_clear(&refusal);
    if (b.failed)
        return as_error_make(err, EIO, "%s failed (the step above)", what);
    return 0;
}
