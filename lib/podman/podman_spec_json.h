/* What we ask libpod to create, as typed specs, and the JSON bodies of the
 * create calls built from them (libpod's SpecGenerator and its pod,
 * network and volume counterparts). Pure: a spec in, a document out, no
 * I/O, so the bodies are tested against golden files
 * (tests/unit/test_podman_spec_json.c). A spec holds only what some caller
 * sets. The calls that send these bodies are podman_api.h's. */
#ifndef AS_PODMAN_SPEC_JSON_H
#define AS_PODMAN_SPEC_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "podman_mount.h"
#include "base/error.h"

typedef struct podman_label {
    const char *key;
    const char *value;
} podman_label_t;

typedef struct podman_network_spec {
    const char *name;
    bool internal;
    bool dns_enabled;
    const podman_label_t *labels;
    size_t n_labels;
} podman_network_spec_t;

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

typedef struct podman_volume_spec {
    const char *name;
    const podman_label_t *labels;
    size_t n_labels;
    const podman_label_t *options;      /* the volume driver's, key = value; may be NULL */
    size_t n_options;
} podman_volume_spec_t;

/* Each builder returns the body of its create call as a new string in
 * *ret, or the generator's first error (invalid UTF-8, out of memory). */
int podman_container_spec_json(const podman_container_spec_t *spec, char **ret, as_error_t **err);
int podman_pod_spec_json(const podman_pod_spec_t *spec, char **ret, as_error_t **err);
int podman_network_spec_json(const podman_network_spec_t *spec, char **ret, as_error_t **err);
int podman_volume_spec_json(const podman_volume_spec_t *spec, char **ret, as_error_t **err);

#endif
