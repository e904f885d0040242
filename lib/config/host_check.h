/* What `agent-sandbox doctor` finds on this host: each check is a verdict
 * (OK, WARN, FAIL), what was found, and the exact command that fixes it.
 * The checks that need podman's answers take them as arguments (cmd/ asks
 * the private service); those that read files take their paths, so that
 * tests can point them elsewhere. Nothing here prints. */
#ifndef AS_HOST_CHECK_H
#define AS_HOST_CHECK_H

#include <stdbool.h>
#include <sys/types.h>

#include "resource_limits.h"
#include "base/error.h"

typedef enum check_level {
    CHECK_OK,
    CHECK_WARN,      /* sessions run, but worse than they could */
    CHECK_FAIL,      /* sessions fail, or run with less than they should */
} check_level_t;

typedef struct check {
    check_level_t level;
    char *detail;    /* what was found */
    char *fix;       /* the command that fixes it; NULL when nothing needs fixing */
} check_t;

/* Fills c (which must be clear); -ENOMEM only. */
int check_set(check_t *c, check_level_t level, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void check_clear(check_t *c);

/* Whether `program` is an executable in a directory of path_env (the
 * caller's PATH; NULL or empty: /usr/bin:/bin). */
bool host_on_path(const char *path_env, const char *program);

/* The command that installs a package: apt-get where there is apt-get,
 * dnf where there is dnf (each distribution's name for it). NULL: no memory. */
char *host_install_command(const char *debian_package, const char *fedora_package);

/* The user's subordinate uid and gid ranges (by name or uid, as shadow's
 * tools read them) cover 65536 ids each, and newuidmap and newgidmap are
 * on PATH. The fix adds a range past every one in use. */
int host_check_subids(const char *user, uid_t uid, const char *subuid_file, const char *subgid_file,
                      const char *path_env, check_t *ret);

/* An unprivileged process may create a user namespace (tried in a child). */
int host_check_userns(check_t *ret);

/* `path` (/dev/net/tun) is a device the user can open read-write:
 * rootless networking (slirp4netns, pasta) needs it. */
int host_check_tun(const char *path, check_t *ret);

/* podman's OCI runtime can run on this cgroup set-up: crun refuses a cgroup
 * v1 host whose cgroup2 hierarchy (cgroup_root/unified) holds a controller;
 * runc runs there. `containers_conf` is the user's containers.conf, for
 * the fix. */
int host_check_cgroup_runtime(const char *cgroup_root, const char *cgroup_version, const char *oci_runtime,
                              const char *containers_conf, check_t *ret);

/* The limits a session gets and whether this host enforces them: the note
 * sessions print once per host, until `memory none` (and `cpus none`) in
 * the limits file. */
int host_check_limits(const limits_t *lim, const cgroup_caps_t *caps, const char *limits_file, check_t *ret);

/* The podman versions this tool is tested with (docs/podman-versions.md):
 * OK for those, WARN for a newer major version or a 4.x before 4.3, FAIL
 * before 4.0, whose libpod API this tool does not speak. */
int host_check_podman_version(const char *version, const char *api_version, const char *network_backend,
                              check_t *ret);

/* The tool podman's rootless networks go through, and with them every
 * session's router to its upstream: `rootless_cmd` as podman 5 names it
 * (NULL: podman 4, whose only tool is slirp4netns), with the executable
 * podman found for it ("" or NULL: missing, a FAIL whose fix installs it)
 * and its version text (the first line is shown). */
int host_check_rootless_network(const char *rootless_cmd, const char *executable, const char *version,
                                check_t *ret);

/* vfs copies the whole image for every container: each session starts
 * seconds slower. `storage_conf` is the user's storage.conf, for the fix. */
int host_check_storage(const char *driver, const char *storage_conf, check_t *ret);

#endif
