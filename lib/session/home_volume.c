#include "home_volume.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"

#define CREDENTIALS_FILE ".credentials.json"

/* FNV-1a, 64 bits, names a tree's home. It need not resist a clash on
 * purpose: the label check (home_volume_ensure) catches one. */
static uint64_t fnv1a64(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s != '\0'; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    return h;
}

int home_volume_project_name(const char *prefix, const char *workdir, char **ret,
                             as_error_t **err)
{
    if (workdir == NULL || workdir[0] != '/')
        return as_error_make(err, EINVAL, "the launch directory must be an absolute path");
    const char *base = strrchr(workdir, '/') + 1;
    char readable[33];
    size_t n = 0;
    for (const char *c = base; *c != '\0' && n < sizeof(readable) - 1; c++) {
        char ch = *c >= 'A' && *c <= 'Z' ? (char)(*c - 'A' + 'a') : *c;
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.';
        if (ok || (n > 0 && readable[n - 1] != '_'))
            readable[n++] = ok ? ch : '_';
    }
    readable[n] = '\0';
    if (asprintf(ret, "%s-home-%s%s%016llx", prefix, readable, n > 0 ? "-" : "",
                 (unsigned long long)fnv1a64(workdir)) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    return 0;
}

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

/* Creates `name` unless it exists; *ret_created says whether this call did. */
static int volume_create_owned(podman_api_t *api, const char *name, const podman_label_t *labels,
                               size_t n_labels, bool *ret_created, as_error_t **err)
{
    bool present = false;
    int r = podman_volume_exists(api, name, &present, err);
    if (r < 0)
        return r;
    *ret_created = false;
    if (present)
        return 0;
    /* uid 0 of podman's rootless user namespace is the caller, whom keep-id
     * maps to the same uid inside. Setting it also stops podman from
     * chowning the volume to whichever container mounts it first. */
    static const podman_label_t options[] = { { "o", "uid=0,gid=0" } };
    r = podman_volume_create(api, name, labels, n_labels, options, ARRAY_SIZE(options), err);
    if (r < 0) {
        /* Another session may have made it in the meantime. */
        as_error_t *e = NULL;
        if (podman_volume_exists(api, name, &present, &e) < 0 || !present) {
            as_error_free(&e);
            return r;
        }
        as_error_free(err);
        return 0;
    }
    *ret_created = true;
    return 0;
}

static int check_owner(podman_api_t *api, const char *name, as_error_t **err)
{
    _cleanup_free_ char *mountpoint = NULL;
    int r = podman_volume_mountpoint(api, name, &mountpoint, err);
    if (r < 0)
        return r;
    if (mountpoint[0] == '\0')
        return 0;           /* A driver that keeps its data elsewhere leaves nothing to check. */
    return home_volume_check_owner(name, mountpoint, getuid(), err);
}

int home_volume_ensure(podman_api_t *api, const char *name, const char *project, as_error_t **err)
{
    const podman_label_t labels[] = { { HOME_VOLUME_LABEL, "1" }, { HOME_FOR_LABEL, project } };
    bool created = false;
    int r = volume_create_owned(api, name, labels, project != NULL ? 2 : 1, &created, err);
    if (r < 0)
        return r;
    if (project != NULL && !created) {
        _cleanup_free_ char *owner = NULL;
        if ((r = podman_volume_label(api, name, HOME_FOR_LABEL, &owner, err)) < 0)
            return r;
        if (owner == NULL || strcmp(owner, project) != 0)
            return as_error_make(err, EEXIST, "home volume %s belongs to %s, not to %s; remove it "
                                 "(`podman volume rm %s`) or name a home with AGENT_SANDBOX_HOME_VOLUME",
                                 name, owner != NULL ? owner : "no launch directory", project, name);
    }
    return check_owner(api, name, err);
}

/* Copies the credentials file of the legacy home into the new login volume.
 * The copy runs in a container of its own with no network and no
 * capabilities, so that a symlink the old home holds resolves inside that
 * container, never on the host. */
static int migrate_login(podman_api_t *api, const char *login, const login_migration_t *m,
                         as_error_t **err)
{
    static char *const cap_drop_all[] = { "all", NULL };
    static char *const ro[] = { "ro", "nocopy", NULL }, *const rw[] = { "rw", "nocopy", NULL };
    static char *const command[] = {
        "sh", "-ec",
        "f=/old/.claude/" CREDENTIALS_FILE "; "
        "if [ -f \"$f\" ] && [ ! -L \"$f\" ]; then "
        "cp \"$f\" /login/.migrating && chmod 600 /login/.migrating && "
        "mv /login/.migrating /login/" CREDENTIALS_FILE "; fi", NULL };
    const podman_named_volume_t volumes[] = {
        { .name = m->legacy_home, .destination = "/old", .options = ro },
        { .name = login, .destination = "/login", .options = rw },
    };
    podman_container_spec_t spec = {
        .name = m->container, .image = m->image, .command = command, .no_network = true,
        .no_new_privileges = true, .cap_drop = cap_drop_all, .volumes = volumes,
        .n_volumes = ARRAY_SIZE(volumes), .labels = m->labels, .n_labels = m->n_labels,
    };
    _cleanup_free_ char *id = NULL;
    int code = -1;
    if (m->on_copy != NULL)
        m->on_copy(m->on_copy_ctx);
    int r = podman_container_create(api, &spec, &id, err);
    if (r == 0 && (r = podman_container_start(api, id, err)) == 0)
        r = podman_container_wait(api, id, &code, err);
    as_error_t *e = NULL;
    if (id != NULL && podman_container_remove(api, id, &e) < 0 && r == 0) {
        *err = e;
        return -EIO;
    }
    as_error_free(&e);
    if (r < 0)
        return r;
    if (code != 0)
        return as_error_make(err, EIO, "copying Claude's login from %s: the copy exited with %d",
                             m->legacy_home, code);
    return 0;
}

int login_volume_ensure(podman_api_t *api, const char *name, const login_migration_t *m,
                        as_error_t **err)
{
    static const podman_label_t labels[] = { { LOGIN_VOLUME_LABEL, "1" } };
    bool created = false;
    int r = volume_create_owned(api, name, labels, ARRAY_SIZE(labels), &created, err);
    if (r < 0)
        return r;
    bool legacy = false;
    if (created && m != NULL && m->legacy_home != NULL &&
        (r = podman_volume_exists(api, m->legacy_home, &legacy, err)) == 0 && legacy)
        r = migrate_login(api, name, m, err);
    if (r < 0) {
        as_error_t *e = NULL;
        if (created && podman_volume_remove(api, name, &e) < 0)
            as_error_free(&e);
        return as_error_prefix(err, "preparing the login volume %s", name);
    }
    return check_owner(api, name, err);
}
