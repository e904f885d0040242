#include "home_volume.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

int home_volume_check_owner(const char *name, const char *mountpoint, uid_t uid, as_error_t **err)
{
    struct stat st;
    if (stat(mountpoint, &st) < 0)
        return as_error_errno(err, errno, "home volume %s: %s", name, mountpoint);
    if (!S_ISDIR(st.st_mode))
        return as_error_make(err, ENOTDIR, "home volume %s: %s is not a directory", name, mountpoint);
    if (st.st_uid != uid)
        return as_error_make(err, EPERM,
                             "home volume %s belongs to uid %lu on the host, not to you (%lu), so the "
                             "agent could not write its home; `podman unshare chown 0:0 %s` gives "
                             "it back (or `podman volume rm %s` starts afresh)",
                             name, (unsigned long)st.st_uid, (unsigned long)uid, mountpoint, name);
    return 0;
}

int home_volume_ensure(podman_api_t *api, const char *name, as_error_t **err)
{
    bool present = false;
    int r = podman_volume_exists(api, name, &present, err);
    if (r < 0)
        return r;
    if (!present) {
        /* uid 0 of podman's rootless user namespace is the caller, whom
         * keep-id maps to the same uid inside. Setting it also stops podman
         * from chowning the volume to whichever container mounts it first. */
        static const podman_label_t labels[] = { { HOME_VOLUME_LABEL, "1" } };
        static const podman_label_t options[] = { { "o", "uid=0,gid=0" } };
        r = podman_volume_create(api, name, labels, ARRAY_SIZE(labels), options, ARRAY_SIZE(options), err);
        if (r < 0) {
            /* Another session may have made it in the meantime. */
            as_error_t *e = NULL;
            if (podman_volume_exists(api, name, &present, &e) < 0 || !present) {
                as_error_free(&e);
                return r;
            }
            as_error_free(err);
        }
    }
    _cleanup_free_ char *mountpoint = NULL;
    if ((r = podman_volume_mountpoint(api, name, &mountpoint, err)) < 0)
        return r;
    if (mountpoint[0] == '\0')
        return 0;           /* a driver that keeps its data elsewhere: nothing to check */
    return home_volume_check_owner(name, mountpoint, getuid(), err);
}
