#include "host_check.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/file_read.h"
#include "base/util.h"

#define SUBIDS_NEEDED 65536UL
/* A subuid file of a host with many users is long, but not this long. */
#define SUBIDS_FILE_MAX (16 * 1024 * 1024)

int check_set(check_t *c, check_level_t level, const char *fix, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *detail = NULL;
    int n = vasprintf(&detail, fmt, ap);
    va_end(ap);
    char *fix_copy = fix != NULL ? strdup(fix) : NULL;
    if (n < 0 || (fix != NULL && fix_copy == NULL)) {
        free(n < 0 ? NULL : detail);
        free(fix_copy);
        return -ENOMEM;
    }
    *c = (check_t){ .level = level, .detail = detail, .fix = fix_copy };
    return 0;
}

void check_clear(check_t *c)
{
    free(c->detail);
    free(c->fix);
    *c = (check_t){0};
}

bool host_on_path(const char *path_env, const char *program)
{
    _cleanup_free_ char *copy = strdup(path_env != NULL && path_env[0] != '\0' ? path_env : "/usr/bin:/bin");
    for (char *save = NULL, *dir = copy != NULL ? strtok_r(copy, ":", &save) : NULL; dir != NULL;
         dir = strtok_r(NULL, ":", &save)) {
        _cleanup_free_ char *p = NULL;
        if (asprintf(&p, "%s/%s", dir, program) >= 0 && access(p, X_OK) == 0)
            return true;
    }
    return false;
}

char *host_install_command(const char *debian_package, const char *fedora_package)
{
    char *cmd = NULL;
    int n;
    if (access("/usr/bin/apt-get", X_OK) == 0)
        n = asprintf(&cmd, "sudo apt-get install %s", debian_package);
    else if (access("/usr/bin/dnf", X_OK) == 0)
        n = asprintf(&cmd, "sudo dnf install %s", fedora_package);
    else
        n = asprintf(&cmd, "install %s (Debian's name; Fedora's: %s)", debian_package, fedora_package);
    return n < 0 ? NULL : cmd;
}

/* ---- subordinate ids --------------------------------------------------- */

typedef struct subids {
    unsigned long count;       /* the user's ids */
    unsigned long next_free;   /* past every range in the file */
} subids_t;

/* Reads a subuid/subgid file: "name-or-uid:start:count" lines. One that
 * cannot be read counts as empty, as a missing one does. */
static void subids_read(const char *file, const char *user, uid_t uid, subids_t *ret)
{
    *ret = (subids_t){ .next_free = 100000 };
    _cleanup_free_ char *text = NULL;
    _cleanup_(as_error_freep) as_error_t *err = NULL;
    size_t len = 0;
    if (config_file_read(AT_FDCWD, file, CONFIG_FOLLOW, SUBIDS_FILE_MAX, &text, &len, &err) < 0)
        return;
    char uid_text[24], *save = NULL;
    snprintf(uid_text, sizeof(uid_text), "%lu", (unsigned long)uid);
    for (char *line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        char *first = strchr(line, ':');
        char *second = first != NULL ? strchr(first + 1, ':') : NULL;
        if (second == NULL)
            continue;
        *first = '\0';
        unsigned long start = strtoul(first + 1, NULL, 10), count = strtoul(second + 1, NULL, 10);
        if (start + count > ret->next_free)
            ret->next_free = start + count;
        if (strcmp(line, user) == 0 || strcmp(line, uid_text) == 0)
            ret->count += count;
    }
}

int host_check_subids(const char *user, uid_t uid, const char *subuid_file, const char *subgid_file,
                      const char *path_env, check_t *ret)
{
    subids_t u, g;
    subids_read(subuid_file, user, uid, &u);
    subids_read(subgid_file, user, uid, &g);
    if (!host_on_path(path_env, "newuidmap") || !host_on_path(path_env, "newgidmap")) {
        _cleanup_free_ char *fix = host_install_command("uidmap", "shadow-utils");
        return check_set(ret, CHECK_FAIL, fix, "newuidmap or newgidmap is not on PATH: rootless podman "
                         "needs both to map %s's subordinate ids", user);
    }
    if (u.count >= SUBIDS_NEEDED && g.count >= SUBIDS_NEEDED)
        return check_set(ret, CHECK_OK, NULL, "%s has %lu subordinate uids (%s) and %lu gids (%s)", user,
                         u.count, subuid_file, g.count, subgid_file);
    unsigned long start = u.next_free > g.next_free ? u.next_free : g.next_free;
    _cleanup_free_ char *fix = NULL;
    if (asprintf(&fix, "sudo usermod --add-subuids %lu-%lu --add-subgids %lu-%lu %s && podman system migrate",
                 start, start + SUBIDS_NEEDED - 1, start, start + SUBIDS_NEEDED - 1, user) < 0)
        return -ENOMEM;
    return check_set(ret, CHECK_FAIL, fix, "%s has %lu subordinate uids (%s) and %lu gids (%s); "
                     "rootless podman needs %lu of each", user, u.count, subuid_file, g.count, subgid_file,
                     SUBIDS_NEEDED);
}

/* ---- user namespaces --------------------------------------------------- */

static long read_sysctl(const char *path)
{
    _cleanup_fclose_ FILE *f = fopen(path, "re");
    long v = -1;
    if (f == NULL || fscanf(f, "%ld", &v) != 1)
        return -1;
    return v;
}

int host_check_userns(check_t *ret)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(unshare(CLONE_NEWUSER) == 0 ? 0 : 1);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return check_set(ret, CHECK_WARN, NULL, "could not be tried: %s", strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return check_set(ret, CHECK_OK, NULL, "an unprivileged process can create one");
    if (read_sysctl("/proc/sys/kernel/unprivileged_userns_clone") == 0)
        return check_set(ret, CHECK_FAIL, "sudo sysctl -w kernel.unprivileged_userns_clone=1",
                         "unprivileged user namespaces are off (kernel.unprivileged_userns_clone=0)");
    if (read_sysctl("/proc/sys/user/max_user_namespaces") == 0)
        return check_set(ret, CHECK_FAIL, "sudo sysctl -w user.max_user_namespaces=15000",
                         "user namespaces are off (user.max_user_namespaces=0)");
    if (read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1)
        return check_set(ret, CHECK_OK, NULL, "restricted by AppArmor to programs with a profile, "
                         "which podman has");
    return check_set(ret, CHECK_FAIL, NULL, "an unprivileged process cannot create one (unshare: "
                     "permission denied); rootless podman needs them");
}

/* ---- /dev/net/tun ------------------------------------------------------ */

int host_check_tun(const char *path, check_t *ret)
{
    struct stat st;
    if (stat(path, &st) < 0 || !S_ISCHR(st.st_mode))
        return check_set(ret, CHECK_FAIL, "sudo modprobe tun",
                         "%s is missing: rootless networking (slirp4netns, pasta) needs it", path);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd >= 0) {
        close(fd);
        return check_set(ret, CHECK_OK, NULL, "%s opens read-write", path);
    }
    _cleanup_free_ char *fix = NULL;
    if (asprintf(&fix, "sudo chmod 0666 %s", path) < 0)
        return -ENOMEM;
    return check_set(ret, CHECK_FAIL, fix, "%s has mode %04o and cannot be opened by you (%s): "
                     "rootless networking needs it; 0666 is its normal mode", path,
                     (unsigned)(st.st_mode & 07777), strerror(errno));
}

/* ---- cgroups and the OCI runtime --------------------------------------- */

/* A cgroup v1 host whose cgroup2 hierarchy holds a controller. */
static bool hybrid_with_controllers(const char *cgroup_root)
{
    _cleanup_free_ char *path = NULL;
    if (asprintf(&path, "%s/unified/cgroup.controllers", cgroup_root) < 0)
        return false;
    _cleanup_fclose_ FILE *f = fopen(path, "re");
    char buf[256] = "";
    return f != NULL && fgets(buf, sizeof(buf), f) != NULL && strspn(buf, " \n") < strlen(buf);
}

/* Appends a table with one key to a TOML file of the user's, or says where
 * to set it when the file has content already (a second table of the same
 * name would make it invalid). */
static char *toml_fix(const char *file, const char *table, const char *line, const char *then)
{
    struct stat st;
    _cleanup_free_ char *dir = strdup(file);
    char *slash = dir != NULL ? strrchr(dir, '/') : NULL;
    char *fix = NULL;
    int n;
    if (slash == NULL)
        return NULL;
    *slash = '\0';
    if (stat(file, &st) == 0 && st.st_size > 0)
        n = asprintf(&fix, "set %s under [%s] in %s%s", line, table, file, then);
    else
        n = asprintf(&fix, "mkdir -p %s && printf '[%s]\\n%s\\n' >>%s%s", dir, table, line, file, then);
    return n < 0 ? NULL : fix;
}

int host_check_cgroup_runtime(const char *cgroup_root, const char *cgroup_version, const char *oci_runtime,
                              const char *containers_conf, check_t *ret)
{
    const char *v = cgroup_version != NULL ? cgroup_version : "?";
    const char *rt = oci_runtime != NULL ? oci_runtime : "?";
    if (strcmp(v, "v1") == 0 && strcmp(rt, "crun") == 0 && hybrid_with_controllers(cgroup_root)) {
        _cleanup_free_ char *fix = toml_fix(containers_conf, "engine", "runtime = \"runc\"", "");
        return check_set(ret, CHECK_FAIL, fix, "cgroup v1 with controllers in its cgroup2 hierarchy "
                         "(hybrid), and podman's OCI runtime is crun, which refuses it (\"cgroups in "
                         "hybrid mode not supported\"): runc runs there");
    }
    return check_set(ret, CHECK_OK, NULL, "cgroup %s, OCI runtime %s", v, rt);
}

int host_check_limits(const limits_t *lim, const cgroup_caps_t *caps, const char *limits_file, check_t *ret)
{
    _cleanup_free_ char *note = limits_unapplied(lim, caps, limits_file);
    if (note == NULL)
        return check_set(ret, CHECK_OK, NULL, "every limit set applies (memory %s, processes %lld, CPU %s)",
                         lim->memory_bytes > 0 ? "limited" : "none", lim->pids,
                         lim->cpu_millis > 0 ? "limited" : "none");
    _cleanup_free_ char *fix = NULL;
    bool memory = lim->memory_bytes > 0 && !caps->memory, cpu = lim->cpu_millis > 0 && !caps->cpu;
    if (asprintf(&fix, "printf '%s%s' >>%s", memory ? "memory none\\n" : "", cpu ? "cpus none\\n" : "",
                 limits_file) < 0)
        return -ENOMEM;
    return check_set(ret, CHECK_WARN, fix, "%s", note);
}

/* ---- storage ----------------------------------------------------------- */

/* Native overlay in a user namespace: Linux 5.13 and later. */
static bool native_overlay(void)
{
    struct utsname u;
    unsigned major = 0, minor = 0;
    return uname(&u) == 0 && sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
           (major > 5 || (major == 5 && minor >= 13));
}

int host_check_storage(const char *driver, const char *storage_conf, check_t *ret)
{
    const char *d = driver != NULL ? driver : "?";
    if (strcmp(d, "vfs") != 0)
        return check_set(ret, CHECK_OK, NULL, "podman's storage driver is %s", d);
    const char *reset = " && podman system reset -f   "
                        "(the reset removes all your podman images and containers: make images again)";
    _cleanup_free_ char *fix = native_overlay()
        ? toml_fix(storage_conf, "storage", "driver = \"overlay\"", reset)
        : toml_fix(storage_conf, "storage", "driver = \"overlay\"\\n[storage.options.overlay]\\n"
                   "mount_program = \"/usr/bin/fuse-overlayfs\"", reset);
    return check_set(ret, CHECK_WARN, fix, "podman's storage driver is vfs, which copies the whole image "
                     "for every container: each session starts seconds slower than with overlay");
}

int host_check_podman_version(const char *version, const char *api_version, const char *network_backend,
                              check_t *ret)
{
    const char *v = version != NULL ? version : "?";
    unsigned major = 0, minor = 0;
    _cleanup_free_ char *install = host_install_command("podman", "podman");
    if (sscanf(v, "%u.%u", &major, &minor) != 2 || major < 4)
        return check_set(ret, CHECK_FAIL, install, "podman %s: its libpod API is older than the 4.0 this tool "
                         "speaks", v);
    if (major > 5 || (major == 4 && minor < 3))
        return check_set(ret, CHECK_WARN, NULL, "podman %s: this tool is tested with podman 4.3 and 5.4 "
                         "(docs/podman-versions.md)", v);
    return check_set(ret, CHECK_OK, NULL, "podman %s (API %s, network backend %s), its private service answers",
                     v, api_version != NULL ? api_version : "?", network_backend != NULL ? network_backend : "?");
}

int host_check_rootless_network(const char *rootless_cmd, const char *executable, const char *version,
                                check_t *ret)
{
    /* podman 4 names no tool: slirp4netns is then its only one. */
    const char *tool = rootless_cmd != NULL && rootless_cmd[0] != '\0' ? rootless_cmd : "slirp4netns";
    bool pasta = strcmp(tool, "pasta") == 0;
    if (!pasta && strcmp(tool, "slirp4netns") != 0)
        return check_set(ret, CHECK_WARN, NULL, "podman's rootless networks go through %s, which this tool is "
                         "not tested with (pasta, slirp4netns)", tool);
    if (executable == NULL || executable[0] == '\0') {
        _cleanup_free_ char *install = host_install_command(pasta ? "passt" : "slirp4netns",
                                                            pasta ? "passt" : "slirp4netns");
        return check_set(ret, CHECK_FAIL, install, "podman's rootless networks go through %s, which is not "
                         "installed: no session's router can reach its upstream", tool);
    }
    const char *v = version != NULL ? version : "";
    int len = (int)strcspn(v, "\n");
    return check_set(ret, CHECK_OK, NULL, "%s (%s%s%.*s): podman's rootless networks, the routers' way to "
                     "their upstream, go through it", tool, executable, len > 0 ? ", " : "", len, v);
}
