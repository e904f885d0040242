#include "podman_api.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/json.h"
#include "base/util.h"

/* A copy of a string of the answer (`name` says which, for the error). */
static int copy_str(const char *value, const char *what, const char *name, char **ret,
                    as_error_t **err)
{
    char *copy = value != NULL ? strdup(value) : NULL;
    if (value == NULL)
        return as_error_make(err, EPROTO, "%s: the answer has no %s", what, name);
    if (copy == NULL)
        return podman_oom(err);
    *ret = copy;
    return 0;
}

static int read_info(podman_api_t *api, json_t **ret_doc, as_error_t **err)
{
    return podman_request(api, "GET", PODMAN_API "/info", NULL, PODMAN_CALL_TIMEOUT_MS, 200, 200,
                          "reading podman's info", NULL, ret_doc, err);
}

int podman_info_graphroot(podman_api_t *api, char **ret, as_error_t **err)
{
    _cleanup_(json_freep) json_t *doc = NULL;
    int r = read_info(api, &doc, err);
    if (r < 0)
        return r;
    return copy_str(json_get_str(json_get(doc, "store"), "graphRoot"), "reading podman's info",
                    "store.graphRoot", ret, err);
}

/* GET .../exists answers 204 or 404. */
static int exists(podman_api_t *api, const char *path, const char *what, bool *ret, as_error_t **err)
{
    long status = 0;
    int r = podman_request(api, "GET", path, NULL, PODMAN_CALL_TIMEOUT_MS, 204, 404, what, &status, NULL, err);
    if (r < 0)
        return r;
    *ret = status == 204;
    return 0;
}

/* GET /<collection>/<name>/exists */
static int named_exists(podman_api_t *api, const char *collection, const char *kind, const char *name,
                        bool *ret, as_error_t **err)
{
    _cleanup_free_ char *path = podman_printf(PODMAN_API "/%s/%s/exists", collection, name);
    _cleanup_free_ char *what = podman_printf("looking up %s %s", kind, name);
    if (path == NULL || what == NULL)
        return podman_oom(err);
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
    int r = read_info(api, &doc, err);
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
        .rootless_network_cmd = dup_str(host, "rootlessNetworkCmd"),
        .pasta_executable = dup_str(json_get(host, "pasta"), "executable"),
        .pasta_version = dup_str(json_get(host, "pasta"), "version"),
        .slirp4netns_executable = dup_str(json_get(host, "slirp4netns"), "executable"),
        .slirp4netns_version = dup_str(json_get(host, "slirp4netns"), "version"),
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
    free(info->rootless_network_cmd);
    free(info->pasta_executable);
    free(info->pasta_version);
    free(info->slirp4netns_executable);
    free(info->slirp4netns_version);
    *info = (podman_host_info_t){0};
}

int podman_image_exists(podman_api_t *api, const char *name, bool *ret, as_error_t **err)
{
    return named_exists(api, "images", "image", name, ret, err);
}

/* `prefix` and the filters built in g (freed here), percent-encoded. */
static char *filters_path(podman_api_t *api, const char *prefix, json_gen_t *g, as_error_t **err)
{
    _cleanup_free_ char *filters = NULL;
    int r = json_gen_finish(g, &filters, err);
    json_gen_free(g);
    if (r < 0)
        return NULL;
    _cleanup_free_ char *escaped = podman_escape(api, filters);
    char *path = escaped != NULL ? podman_printf("%sfilters=%s", prefix, escaped) : NULL;
    if (path == NULL)
        podman_oom(err);
    return path;
}

/* POSTs a create call's body to `path`; `built` is what its builder
 * returned, so a body that could not be built fails the call named `what`.
 * ret_doc (may be NULL) receives the parsed answer. */
static int post_created(podman_api_t *api, const char *path, int built, const char *body, long ok1,
                        long ok2, const char *what, json_t **ret_doc, as_error_t **err)
{
    if (built < 0)
        return what != NULL ? as_error_prefix(err, "%s", what) : built;
    if (what == NULL)
        return podman_oom(err);
    return podman_request(api, "POST", path, body, PODMAN_CALL_TIMEOUT_MS, ok1, ok2, what, NULL, ret_doc, err);
}

int podman_network_create(podman_api_t *api, const podman_network_spec_t *spec,
                          char **ret_subnet, as_error_t **err)
{
    _cleanup_free_ char *body = NULL, *what = podman_printf("creating network %s", spec->name);
    int built = podman_network_spec_json(spec, &body, err);
    _cleanup_(json_freep) json_t *doc = NULL;
    int r = post_created(api, PODMAN_API "/networks/create", built, body, 200, 201, what,
                         ret_subnet != NULL ? &doc : NULL, err);
    if (r < 0 || ret_subnet == NULL)
        return r;
    return copy_str(json_get_str(json_array_at(json_get(doc, "subnets"), 0), "subnet"), what,
                    "subnets[0].subnet", ret_subnet, err);
}

/* GET /<collection>/<name>/json, parsed. */
static int inspect(podman_api_t *api, const char *collection, const char *kind, const char *name,
                   json_t **ret, as_error_t **err)
{
    _cleanup_free_ char *path = podman_printf(PODMAN_API "/%s/%s/json", collection, name);
    _cleanup_free_ char *what = podman_printf("inspecting %s %s", kind, name);
    if (path == NULL || what == NULL)
        return podman_oom(err);
    return podman_request(api, "GET", path, NULL, PODMAN_CALL_TIMEOUT_MS, 200, 200, what, NULL, ret, err);
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
        return podman_oom(err);
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
    _cleanup_free_ char *path = podman_printf(PODMAN_API "/%s/%s%s", collection, name, query);
    _cleanup_free_ char *what = podman_printf("removing %s %s", kind, name);
    if (path == NULL || what == NULL)
        return podman_oom(err);
    return podman_request(api, "DELETE", path, NULL, PODMAN_CALL_TIMEOUT_MS, ok, 200, what, NULL, NULL, err);
}

int podman_network_remove(podman_api_t *api, const char *name, as_error_t **err)
{
    return remove_named(api, "networks", "?force=true", "network", name, 200, err);
}

int podman_pod_create(podman_api_t *api, const podman_pod_spec_t *spec, as_error_t **err)
{
    _cleanup_free_ char *body = NULL, *what = podman_printf("creating pod %s", spec->name);
    int built = podman_pod_spec_json(spec, &body, err);
    return post_created(api, PODMAN_API "/pods/create", built, body, 201, 200, what, NULL, err);
}

int podman_pod_remove(podman_api_t *api, const char *name, as_error_t **err)
{
    return remove_named(api, "pods", "?force=true&timeout=0", "pod", name, 200, err);
}

int podman_container_create(podman_api_t *api, const podman_container_spec_t *spec,
                            char **ret_id, as_error_t **err)
{
    _cleanup_free_ char *body = NULL, *what = podman_printf("creating container %s", spec->name);
    int built = podman_container_spec_json(spec, &body, err);
    _cleanup_(json_freep) json_t *doc = NULL;
    int r = post_created(api, PODMAN_API "/containers/create", built, body, 201, 200, what, &doc, err);
    if (r < 0)
        return r;
    return copy_str(json_get_str(doc, "Id"), what, "Id", ret_id, err);
}

static int container_post(podman_api_t *api, const char *id, const char *action, const char *query,
                          long ok1, long ok2, long timeout_ms, const char *verb, as_error_t **err)
{
    _cleanup_free_ char *path = podman_printf(PODMAN_API "/containers/%s/%s%s", id, action, query);
    _cleanup_free_ char *what = podman_printf("%s container %.12s", verb, id);
    if (path == NULL || what == NULL)
        return podman_oom(err);
    return podman_request(api, "POST", path, NULL, timeout_ms, ok1, ok2, what, NULL, NULL, err);
}

/* runc now and then loses its init process before anything of the
 * container runs ("runc create failed: unable to start container process:
 * waiting for init preliminary setup: read init-p: connection reset by
 * peer"; seen with podman 5 and runc on cgroup v1, about once in a
 * thousand starts). Podman leaves the container as it was before the
 * call, so the call that runs the runtime (a start, or the attach that
 * prepares a container before its start) is asked once more. Any other
 * failure, and this one twice, is reported. */
static bool runtime_init_lost(const as_error_t *e)
{
    return e != NULL && e->msg != NULL && strstr(e->msg, "waiting for init preliminary setup") != NULL;
}

static void retry_pause(as_error_t **err)
{
    as_error_free(err);
    (void)nanosleep(&(struct timespec){ 0, 100 * 1000000L }, NULL);
}

int podman_container_start(podman_api_t *api, const char *id, as_error_t **err)
{
    /* A 304 says the container is already running, which is what we asked for. */
    int r = container_post(api, id, "start", "", 204, 304, PODMAN_CALL_TIMEOUT_MS, "starting", err);
    if (r < 0 && err != NULL && runtime_init_lost(*err)) {
        retry_pause(err);
        r = container_post(api, id, "start", "", 204, 304, PODMAN_CALL_TIMEOUT_MS, "starting", err);
    }
    return r;
}

static int attach_with(podman_api_t *api, const char *id, const char *streams, http_stream_t **ret,
                       as_error_t **err)
{
    _cleanup_free_ char *path = podman_printf(PODMAN_API "/containers/%s/attach?stream=true&%s", id, streams);
    if (path == NULL)
        return podman_oom(err);
    _cleanup_free_ char *what = podman_printf("attaching to container %.12s", id);
    if (what == NULL)
        return podman_oom(err);
    int r = podman_stream_open(api, "POST", path, what, ret, err);
    if (r < 0 && err != NULL && runtime_init_lost(*err)) {
        retry_pause(err);
        r = podman_stream_open(api, "POST", path, what, ret, err);
    }
    return r;
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
    return container_post(api, id, "resize", query, 200, 201, PODMAN_CALL_TIMEOUT_MS, "resizing the terminal of", err);
}

int podman_container_wait(podman_api_t *api, const char *id, int *ret_exit_code, as_error_t **err)
{
    /* libpod polls the exit every `interval` (250 ms by default). We call
     * this when the agent's output has ended, so the exit is there within a
     * poll or two; polling every 10 ms makes a session's `true` 200 ms
     * faster (bench/startup.sh). */
    _cleanup_free_ char *path = podman_printf(PODMAN_API "/containers/%s/wait?condition=exited&interval=10ms", id);
    _cleanup_free_ char *what = podman_printf("waiting for container %.12s", id);
    if (path == NULL || what == NULL)
        return podman_oom(err);
    _cleanup_(json_freep) json_t *doc = NULL;
    int r = podman_request(api, "POST", path, NULL, 0, 200, 200, what, NULL, &doc, err);
    if (r == -ENODATA) {
        /* podman 5 sends its 200 before it knows the exit code, so a wait
         * whose exit code is lost (its conmon died) is a 200 with no body;
         * podman 4 answers it with HTTP 500 "no such exit code". */
        as_error_free(err);
        return as_error_make(err, ENOENT, "%s: podman has no exit code for it", what);
    }
    if (r < 0)
        return r;
    long long code = 0;
    if (!json_as_int(doc, &code))
        return as_error_make(err, EPROTO, "%s: the answer is not an exit code", what);
    if (code < 0 || code > 255)
        return as_error_make(err, EPROTO, "%s: exit code %lld out of range", what, code);
    /* podman 5 also answers such a wait with 0 while the container still
     * runs: an exit code stands only for a container that runs no more. */
    bool running = false;
    as_error_t *e = NULL;
    r = podman_container_running(api, id, &running, &e);
    as_error_free(&e);           /* gone or unreadable: the code stands */
    if (r == 0 && running)
        return as_error_make(err, ENOENT, "%s: podman has no exit code for it: the container still runs", what);
    *ret_exit_code = (int)code;
    return 0;
}

int podman_container_kill(podman_api_t *api, const char *id, int signo, as_error_t **err)
{
    char query[32];
    snprintf(query, sizeof(query), "?signal=%d", signo);
    return container_post(api, id, "kill", query, 204, 200, PODMAN_CALL_TIMEOUT_MS, "signalling", err);
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
    _cleanup_free_ char *path = filters_path(api, PODMAN_API "/events?stream=true&", g, err);
    if (path == NULL ||
        podman_stream_open(api, "GET", path, NULL, ret, err) < 0)
        return as_error_prefix(err, "watching for stopped containers");
    return 0;
}

int podman_container_running(podman_api_t *api, const char *id, bool *ret, as_error_t **err)
{
    _cleanup_free_ char *path = podman_printf(PODMAN_API "/containers/%s/json", id);
    _cleanup_free_ char *what = podman_printf("inspecting container %.12s", id);
    if (path == NULL || what == NULL)
        return podman_oom(err);
    _cleanup_(json_freep) json_t *doc = NULL;
    int r = podman_request(api, "GET", path, NULL, PODMAN_CALL_TIMEOUT_MS, 200, 200, what, NULL, &doc, err);
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
    const podman_volume_spec_t spec = {
        .name = name, .labels = labels, .n_labels = n_labels, .options = options, .n_options = n_options,
    };
    _cleanup_free_ char *body = NULL, *what = podman_printf("creating volume %s", name);
    int built = podman_volume_spec_json(&spec, &body, err);
    return post_created(api, PODMAN_API "/volumes/create", built, body, 201, 200, what, NULL, err);
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
        return podman_oom(err);
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

/* Podman 4.3 lists by inspecting each object after it collected their
 * names, so an object removed in between (another session ending) fails
 * the whole list with 500 "no such pod" or "no such container", which
 * podman_request makes -ENOENT. A list has nothing to be missing, so that
 * answer only means "listed during a removal": asked again, with a pause
 * for the removal to end. Every lister (the sweep, the end-of-session
 * check's recovery, ps, apply) gets the same answer this way. */
#define LIST_TRIES 5
#define LIST_RETRY_PAUSE_MS 100

static int list_settled(podman_api_t *api, const char *path, const char *what, json_t **ret,
                        as_error_t **err)
{
    int r = -ENOENT;
    for (int i = 0; i < LIST_TRIES && r == -ENOENT; i++) {
        if (i > 0) {
            as_error_free(err);
            (void)nanosleep(&(struct timespec){ 0, LIST_RETRY_PAUSE_MS * 1000000L }, NULL);
        }
        r = podman_request(api, "GET", path, NULL, PODMAN_CALL_TIMEOUT_MS, 200, 200, what, NULL, ret, err);
    }
    return r;
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

    /* The query is filters={"label":["KEY"]}, built as JSON and then percent-encoded. */
    _cleanup_(json_gen_freep) json_gen_t *g = json_gen_new();
    json_obj_open(g);
    char *keys[] = { (char *)label_key, NULL };
    json_kv_strv(g, "label", keys, (size_t)-1);
    json_obj_close(g);
    _cleanup_free_ char *prefix = podman_printf(PODMAN_API "/%s", k->endpoint);
    _cleanup_free_ char *what = podman_printf("listing %s labelled %s", k->what, label_key);
    if (prefix == NULL || what == NULL)
        return podman_oom(err);
    _cleanup_free_ char *path = filters_path(api, prefix, steal_pointer(&g), err);
    if (path == NULL)
        return as_error_prefix(err, "%s", what);

    _cleanup_(json_freep) json_t *doc = NULL;
    int r = list_settled(api, path, what, &doc, err);
    if (r < 0)
        return r;
    if (!json_is_array(doc) && !json_is_null(doc))
        return as_error_make(err, EPROTO, "%s: the answer is not a list", what);
    size_t n = json_array_len(doc);
    podman_labelled_t *list = calloc(n + 1, sizeof(*list));
    if (list == NULL)
        return podman_oom(err);
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *item = json_array_at(doc, i);
        const json_t *name_v = json_get(item, k->name_key);
        const char *name = k->name_is_array ? json_as_str(json_array_at(name_v, 0)) : json_as_str(name_v);
        const json_t *labels = json_get(item, k->labels_key);
        const char *value = json_get_str(labels, label_key);
        bool infra = false;
        /* A pod's infra container is removed with its pod, so it is not listed. */
        if (json_get_bool(item, "IsInfra", &infra) && infra)
            continue;
        if (name == NULL || value == NULL) {
            podman_labelled_free(list, out);
            return as_error_make(err, EPROTO, "%s: entry %zu has no %s or no label value", what, i, k->name_key);
        }
        list[out].name = strdup(name);
        list[out].label_value = strdup(value);
        out++;
        if (list[out - 1].name == NULL || list[out - 1].label_value == NULL) {
            podman_labelled_free(list, out);
            return podman_oom(err);
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
        return podman_oom(err);
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
