/* Which resolver the router uses for upstream names by default: the host's,
 * as podman would hand them to a container on the egress network. */
#ifndef AS_RESOLV_CONF_H
#define AS_RESOLV_CONF_H

#include <stddef.h>

#include "base/error.h"

/* First IPv4 `nameserver` in resolv.conf text that a container can reach
 * (not loopback, which is the host's own stub); -ENOENT when none. */
int resolv_conf_first_ipv4(const char *text, char ret[16], as_error_t **err);

/* The same from the file at `path`, read whole (file_read.h's policy, a
 * symlink followed, as /etc/resolv.conf often is one): -ENOENT when it has
 * none, or when it is missing; another error when it cannot be read. */
int resolv_conf_file_ipv4(const char *path, char ret[16], as_error_t **err);

/* The same, from /etc/resolv.conf, falling back to systemd-resolved's list
 * of upstreams when the host only points at its local stub. */
int resolv_conf_host_resolver(char ret[16], as_error_t **err);

#endif
