/* Typed calls to the libpod REST API (v4) over the private service's socket.
 * Everything above this module speaks these structs; only this file knows
 * the endpoints and their JSON (through json.h; no label names: those are
 * the callers', lib/session/labels.h). A spec holds only what some caller sets. Errors name the call and libpod's cause; a
 * 404 gives -ENOENT and a 409 -EEXIST so callers can tell them apart. */
#ifndef AS_PODMAN_API_H
#define AS_PODMAN_API_H

#include <stdbool.h>
#include <stddef.h>

#include "podman_mount.h"
#include "base/error.h"
#include "base/http.h"
#include "base/util.h"

typedef struct podman_api podman_api_t;

typedef struct podman_label {
    const char *key;
    const char *value;
} podman_label_t;

int podman_api_new(const char *socket_path, podman_api_t **ret, as_error_t **err);
void podman_api_free(podman_api_t *api);
DEFINE_CLEANUP_FUNC(podman_api_t, podman_api_free)
/* Another handle on the same service: one per thread. */
int podman_api_clone(const podman_api_t *api, podman_api_t **ret, as_error_t **err);

/* GET /_ping with a short timeout; fails while the service is not up yet. */
int podman_ping(podman_api_t *api, long timeout_ms, as_error_t **err);
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

/* GET /containers/ID/export: the container's flattened file system as a
 * tar stream, handed to sink piece by piece (http_request_stream). */
int podman_container_export(podman_api_t *api, const char *id, http_sink_fn sink, void *ctx, as_error_t **err);

/* POST /build: the context as a tar body (the Containerfile at its top),
 * tagged `tag`, with labels; layers cached, nothing pulled. The answer's
 * JSON lines ({"stream": ...}, {"error": ...}, ...) go to `on_line` one
 * by one. 0 when the build succeeded; a failure carries the build's
 * error. */
typedef int (*podman_build_line_fn)(const char *text, bool is_error, void *ctx, as_error_t **err);
int podman_image_build(podman_api_t *api, const void *context, size_t len, const char *tag,
                       const podman_label_t *labels, size_t n_labels, podman_build_line_fn on_line, void *ctx,
                       as_error_t **err);

typedef struct podman_network_spec {
    const char *name;
    bool internal;
    bool dns_enabled;
    const podman_label_t *labels;
    size_t n_labels;
} podman_network_spec_t;

/* podman picks a free subnet; ret_subnet (may be NULL) receives it. */
int podman_network_create(podman_api_t *api, const podman_network_spec_t *spec,
                          char **ret_subnet, as_error_t **err);
int podman_network_exists(podman_api_t *api, const char *name, bool *ret, as_error_t **err);
/* Whether the network exists (*ret_exists) and is --internal. */
int podman_network_internal(podman_api_t *api, const char *name, bool *ret_exists, bool *ret_internal,
                            as_error_t **err);
int podman_network_remove(podman_api_t *api, const char *name, as_error_t **err);

/* A port of the pod published on the host (TCP). */
typedef struct podman_port {
    const char *host_ip;                /* the host address podman listens on */
    unsigned host_port;
    unsigned container_port;
} podman_port_t;

typedef struct podman_pod_spec {
    const char *name;
    const char *hostname;               /* NULL: podman's default (the pod's name) */
    const char *network;
    bool userns_keep_id;
    bool no_manage_hosts;
    char *const *dns_servers;           /* NULL-terminated, may be NULL */
    const podman_label_t *sysctls;      /* namespaced sysctls of the pod's namespaces */
    size_t n_sysctls;
    const podman_port_t *ports;
    size_t n_ports;
    const podman_label_t *labels;
    size_t n_labels;
} podman_pod_spec_t;

int podman_pod_create(podman_api_t *api, const podman_pod_spec_t *spec, as_error_t **err);
int podman_pod_remove(podman_api_t *api, const char *name, as_error_t **err);


typedef struct podman_named_volume {
    const char *name;
    const char *destination;
    char *const *options;               /* NULL-terminated, may be NULL */
} podman_named_volume_t;

typedef struct podman_network_attach {
    const char *network;
    const char *static_ip;              /* may be NULL */
} podman_network_attach_t;

typedef struct podman_container_spec {
    const char *name;
    const char *image;
    const char *pod;                    /* may be NULL */
    char *const *command;               /* NULL-terminated */
    char *const *env;                   /* KEY=VALUE, NULL-terminated, may be NULL */
    const char *work_dir;
    const char *user;                   /* may be NULL: the pod's default */
    const char *passwd_entry;           /* the user's /etc/passwd line podman adds; NULL: its own */
    bool stdin_open;
    bool terminal;
    bool read_only;
    bool no_new_privileges;
    bool init;                          /* a minimal init as PID 1: forwards signals, reaps */
    char *const *cap_drop;              /* NULL-terminated, may be NULL */
    char *const *cap_add;
    const podman_mount_t *mounts;
    size_t n_mounts;
    const podman_named_volume_t *volumes;
    size_t n_volumes;
    const podman_label_t *sysctls;      /* namespaced sysctls, key = value */
    size_t n_sysctls;
    long long pids_limit;               /* cgroup pids.max; 0: podman's default */
    long long memory_limit;             /* bytes, 0: none */
    long long cpu_quota_us;             /* per 100 ms period; 0: none */
    long long nproc_rlimit;             /* RLIMIT_NPROC, soft = hard; 0: inherited */
    const podman_network_attach_t *networks; /* outside a pod only */
    size_t n_networks;
    bool no_network;                    /* outside a pod only: a network namespace with only lo */
    bool userns_keep_id;                /* outside a pod only: the caller's ids as they are */
    const podman_label_t *labels;
    size_t n_labels;
} podman_container_spec_t;

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

/* Maps a libpod error answer (status + body) into *err; `what` names the call.
 * Exposed for unit tests. */
int podman_error_from_answer(long status, const char *body, const char *what, as_error_t **err);

#endif
