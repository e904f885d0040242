/* Typed calls to the libpod REST API (v4) over the private service's socket.
 * Everything above lib/podman/ speaks these calls and the specs of
 * podman_spec_json.h. The endpoints are known here and, for the calls
 * whose answer is a stream, in podman_api_stream.h; the create calls'
 * bodies are podman_spec_json's; the handle, the requests and the error
 * mapping are podman_api_transport's. No label names are known here: those
 * are the callers' (lib/session/labels.h). Errors name the call and
 * libpod's cause; a 404 gives -ENOENT and a 409 -EEXIST so callers can
 * tell them apart. */
#ifndef AS_PODMAN_API_H
#define AS_PODMAN_API_H

#include <stdbool.h>
#include <stddef.h>

#include "podman_api_stream.h"
#include "podman_api_transport.h"
#include "podman_spec_json.h"
#include "base/error.h"
#include "base/http.h"
#include "base/util.h"

/* Where podman keeps its storage (`store.graphRoot` of /info). */
int podman_info_graphroot(podman_api_t *api, char **ret, as_error_t **err);

/* What `doctor` asks of /info: every string may be NULL when podman does
 * not say. */
typedef struct podman_host_info {
    char *version, *api_version;
    char *graph_driver;          /* store.graphDriverName: overlay, vfs, ... */
    char *oci_runtime;           /* host.ociRuntime.name: crun, runc */
    char *cgroup_version;        /* host.cgroupVersion: v1, v2 */
    char *network_backend;       /* host.networkBackend: netavark, cni */
    /* host.rootlessNetworkCmd (podman 5: pasta or slirp4netns; podman 4 has
     * no such field, slirp4netns being its only tool for rootless networks),
     * and the executables podman found for each tool ("" when missing). */
    char *rootless_network_cmd;
    char *pasta_executable, *pasta_version;
    char *slirp4netns_executable, *slirp4netns_version;
} podman_host_info_t;
int podman_info_host(podman_api_t *api, podman_host_info_t *ret, as_error_t **err);
void podman_host_info_clear(podman_host_info_t *info);

int podman_image_exists(podman_api_t *api, const char *name, bool *ret, as_error_t **err);
/* The value of one label of an image; *ret is NULL when it has none. */
int podman_image_label(podman_api_t *api, const char *name, const char *key, char **ret,
                       as_error_t **err);

/* What the image check reads of an image's config (GET /images/NAME/json). */
typedef struct podman_image_info {
    char *id;                /* the image ID (content-addressed) */
    char *user;              /* Config.User, "" when none */
    size_t n_entrypoint;     /* words of Config.Entrypoint */
    char *label;             /* the value of the label asked for, or NULL */
} podman_image_info_t;
/* -ENOENT when there is no such image. label_key may be NULL. */
int podman_image_inspect(podman_api_t *api, const char *name, const char *label_key, podman_image_info_t *ret,
                         as_error_t **err);
void podman_image_info_clear(podman_image_info_t *info);
/* Removes an image by name (not the images other names share). */
int podman_image_remove(podman_api_t *api, const char *name, as_error_t **err);

/* podman picks a free subnet; ret_subnet (may be NULL) receives it. */
int podman_network_create(podman_api_t *api, const podman_network_spec_t *spec,
                          char **ret_subnet, as_error_t **err);
int podman_network_exists(podman_api_t *api, const char *name, bool *ret, as_error_t **err);
/* Whether the network exists (*ret_exists) and is --internal. */
int podman_network_internal(podman_api_t *api, const char *name, bool *ret_exists, bool *ret_internal,
                            as_error_t **err);
int podman_network_remove(podman_api_t *api, const char *name, as_error_t **err);

int podman_pod_create(podman_api_t *api, const podman_pod_spec_t *spec, as_error_t **err);
int podman_pod_remove(podman_api_t *api, const char *name, as_error_t **err);

int podman_container_create(podman_api_t *api, const podman_container_spec_t *spec,
                            char **ret_id, as_error_t **err);
int podman_container_start(podman_api_t *api, const char *id, as_error_t **err);
/* Must be called before start to see all output. */
int podman_container_attach(podman_api_t *api, const char *id, bool with_stdin,
                            http_stream_t **ret, as_error_t **err);
/* stdin only, on a connection of its own: when the container stops reading
 * it, podman resets this connection alone, and its output and exit status
 * stay whole (without a TTY; with one, podman ends an attach without output). */
int podman_container_attach_input(podman_api_t *api, const char *id, http_stream_t **ret,
                                  as_error_t **err);
int podman_container_resize(podman_api_t *api, const char *id, unsigned rows, unsigned cols,
                            as_error_t **err);
/* Blocks until the container has exited; ret_exit_code is its status.
 * -ENOENT when there is none: the container was removed and its exit code
 * forgotten, or its conmon died without writing one. */
int podman_container_wait(podman_api_t *api, const char *id, int *ret_exit_code, as_error_t **err);
int podman_container_kill(podman_api_t *api, const char *id, int signo, as_error_t **err);
/* Force-removes (kills first if running); a missing container is -ENOENT. */
int podman_container_remove(podman_api_t *api, const char *id, as_error_t **err);
/* A stream that delivers an event when any of the named containers dies. */
int podman_events_died(podman_api_t *api, char *const *containers, http_stream_t **ret,
                       as_error_t **err);
int podman_container_running(podman_api_t *api, const char *id, bool *ret, as_error_t **err);

int podman_volume_exists(podman_api_t *api, const char *name, bool *ret, as_error_t **err);
/* options: the volume driver's, key = value (the local driver's "o" takes
 * "uid=N,gid=N": the owner of the new directory, in podman's user namespace,
 * and no chown to the first container's user); may be NULL. */
int podman_volume_create(podman_api_t *api, const char *name, const podman_label_t *labels,
                         size_t n_labels, const podman_label_t *options, size_t n_options,
                         as_error_t **err);
int podman_volume_remove(podman_api_t *api, const char *name, as_error_t **err);
/* Removes the volume unless a container uses it (then -EEXIST: 409). */
int podman_volume_remove_unused(podman_api_t *api, const char *name, as_error_t **err);
/* The value of one label of a volume; *ret is NULL when it has none. */
int podman_volume_label(podman_api_t *api, const char *name, const char *key, char **ret,
                        as_error_t **err);
/* Where the volume's data lives on the host; "" when its driver does not say. */
int podman_volume_mountpoint(podman_api_t *api, const char *name, char **ret, as_error_t **err);

typedef enum podman_kind {
    PODMAN_CONTAINERS,
    PODMAN_PODS,
    PODMAN_NETWORKS,
    PODMAN_VOLUMES,
} podman_kind_t;

typedef struct podman_labelled {
    char *name;
    char *label_value;                  /* value of the label asked for */
} podman_labelled_t;

/* Every resource of `kind` carrying `label_key`, with that label's value. */
int podman_list_labelled(podman_api_t *api, podman_kind_t kind, const char *label_key,
                         podman_labelled_t **ret, size_t *ret_n, as_error_t **err);
void podman_labelled_free(podman_labelled_t *list, size_t n);

#endif
