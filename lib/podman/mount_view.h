/* Rootless podman works in a mount namespace of its own, copied from the
 * host's when it was first set up. A file system mounted on the host after
 * that (a tmpfs or FUSE mount under the home), on a host whose / is not a
 * shared mount, never reaches it: podman then sees the directory under the
 * mount, or nothing, at the launch directory's path, and would mount that
 * into the sandbox instead. */
#ifndef AS_MOUNT_VIEW_H
#define AS_MOUNT_VIEW_H

#include <sys/types.h>

#include "base/error.h"

/* Whether process pid sees path as the very directory this process sees
 * there. 0 when it does; -ENOENT when nothing is there for it; -ESTALE when
 * it sees another directory; another -errno when that cannot be told (no
 * access to its /proc entry). */
int mount_view_same_dir(pid_t pid, const char *path, as_error_t **err);

#endif
