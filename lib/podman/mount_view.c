#include "mount_view.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int mount_view_same_dir(pid_t pid, const char *path, as_error_t **err)
{
    struct stat ours, theirs;
    if (stat(path, &ours) < 0)
        return as_error_errno(err, errno, "cannot stat %s", path);
    char *there = NULL;
    if (asprintf(&there, "/proc/%ld/root%s", (long)pid, path) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    int r = stat(there, &theirs);
    int e = errno;
    free(there);
    if (r < 0 && e == ENOENT)
        return as_error_make(err, ENOENT, "nothing is there in podman's mount namespace");
    if (r < 0)
        return as_error_errno(err, e, "cannot look into podman's mount namespace");
    if (ours.st_dev != theirs.st_dev || ours.st_ino != theirs.st_ino)
        return as_error_make(err, ESTALE, "podman's mount namespace has another directory there");
    return 0;
}
