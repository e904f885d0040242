/* podman's storage location (graphroot), remembered between sessions.
 * Asking the service (/info) costs about 250 ms, a quarter of a session's
 * start; the answer only changes when a storage.conf does. The cache lives
 * in the private runtime directory (tmpfs, gone at logout) and is keyed on
 * the identity (inode, size, mtime) of every storage.conf podman reads and
 * on the variables its default location depends on. */
#ifndef AS_GRAPHROOT_CACHE_H
#define AS_GRAPHROOT_CACHE_H

#include "base/error.h"

/* The cached graphroot when the key still matches and the directory is
 * still the one stored (device and inode); -ENOENT otherwise. A decision
 * that a cached value turns against the user is checked with podman again
 * (lib/session/session_launch.c): a wrong path must not refuse a launch. */
int graphroot_cache_get(const char *base_dir, char **ret, as_error_t **err);
int graphroot_cache_put(const char *base_dir, const char *graphroot, as_error_t **err);

/* The key: one line per storage.conf candidate ("path ino size mtime" or
 * "path -" when absent). Exposed for tests. */
int graphroot_cache_key(char **ret, as_error_t **err);

#endif
