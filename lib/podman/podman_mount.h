/* One mount of a container spec, as libpod's SpecGenerator takes it. On
 * its own so that code that only lists mounts (the workspace's) needs
 * nothing else of the API. */
#ifndef AS_PODMAN_MOUNT_H
#define AS_PODMAN_MOUNT_H

typedef struct podman_mount {
    const char *source;
    const char *destination;
    const char *type;                   /* "bind", "volume", "tmpfs", or "overlay": the source
                                         * as the lower layer, options upperdir=, workdir=
                                         * (libpod's overlay volume) */
    char *const *options;               /* NULL-terminated, may be NULL */
} podman_mount_t;

#endif
