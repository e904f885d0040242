#include "agent_spec.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "egress_spec.h"
#include "base/util.h"
#include "workspace/workspace.h"

static char *const cap_drop_all[] = { "all", NULL };
static char *const bind_rw[] = { "rw", "rbind", "rprivate", NULL };
static char *const bind_ro[] = { "ro", "rbind", "rprivate", NULL };
/* Podman copies nothing of the image into the shared volume (nocopy):
 * otherwise one image's files at AGENT_HOME would land in every later
 * session's home, whatever image that session runs. */
static char *const home_options[] = { "rw", "nocopy", NULL };
static char home_env[] = "HOME=" AGENT_HOME;

int agent_spec_add_mount(agent_spec_t *a, const podman_mount_t *m, as_error_t **err)
{
    if (a->n_mounts == AGENT_MAX_MOUNTS)
        return as_error_make(err, ENOSPC, "the agent would need more than %d mounts", AGENT_MAX_MOUNTS);
    a->mounts[a->n_mounts++] = *m;
    a->spec.mounts = a->mounts;
    a->spec.n_mounts = a->n_mounts;
    return 0;
}

/* Sets the agent's environment: the plan's variables, then HOME unless the
 * plan sets it itself, so that the agent's tools find the home it is given. */
static int home_env_add(const session_plan_t *p, agent_spec_t *a, as_error_t **err)
{
    size_t n = 0;
    bool has_home = false;
    for (; p->env != NULL && p->env[n] != NULL; n++) {
        if (n == AGENT_MAX_ENV)
            return as_error_make(err, E2BIG, "too many environment variables for the agent "
                                 "(at most %d, HOME included)", AGENT_MAX_ENV);
        a->env[n] = p->env[n];
        has_home = has_home || strncmp(p->env[n], "HOME=", 5) == 0;
    }
    if (!has_home) {
        if (n == AGENT_MAX_ENV)
            return as_error_make(err, E2BIG, "too many environment variables for the agent "
                                 "(at most %d, HOME included)", AGENT_MAX_ENV);
        a->env[n++] = home_env;
    }
    a->env[n] = NULL;
    a->spec.env = a->env;
    return 0;
}

/* Mounts the agent's home (a volume, or an empty tmpfs of its own) and the
 * login volume. */
static int home_mounts(const session_plan_t *p, agent_spec_t *a, as_error_t **err)
{
    if (p->in.private_home) {
        /* "U" makes the tmpfs the agent's uid's, and no volume is mounted, so
         * that a private home shows nothing any other session wrote. */
        static char *const opts[] = { "rw", "nosuid", "nodev", "mode=0700", "size=64m", "U", NULL };
        podman_mount_t home = { .destination = AGENT_HOME, .type = "tmpfs", .options = opts };
        int r = agent_spec_add_mount(a, &home, err);
        return r < 0 ? r : home_env_add(p, a, err);
    }
    if (p->in.home_volume == NULL)
        return 0;
    /* The home holds Claude's config and transcripts, the shell's files and
     * nested podman's images. It is a volume because nested podman's
     * storage must be on a real file system, where native overlay works
     * for nested containers. */
    a->volumes[a->n_volumes++] = (podman_named_volume_t){
        .name = p->in.home_volume, .destination = AGENT_HOME, .options = home_options,
    };
    if (p->login_volume != NULL)
        a->volumes[a->n_volumes++] = (podman_named_volume_t){
            .name = p->login_volume, .destination = AGENT_LOGIN_DIR, .options = home_options,
        };
    a->spec.volumes = a->volumes;
    a->spec.n_volumes = a->n_volumes;
    return home_env_add(p, a, err);
}

/* Mounts the protected paths of the launch directory and the pins above
 * them. In review mode only the protected paths that exist are mounted,
 * read-only, because the host tree is never written during a review: a pin
 * is the host's directory mounted read-write, and a placeholder is a file
 * made on the host. */
static int workspace_mounts(const session_plan_t *p, agent_spec_t *a, as_error_t **err)
{
    podman_mount_t *v = NULL;
    size_t n = 0;
    bool review = p->review_overlay[0] != NULL;
    int r = workspace_agent_mounts(p->in.workspace, &v, &n, err);
    for (size_t i = 0; r == 0 && i < n; i++) {
        const workspace_mount_t *m = &p->in.workspace->mounts[i];     /* v[i] is its mount */
        if (!review || (m->kind == WORKSPACE_READ_ONLY && !m->placeholder))
            r = agent_spec_add_mount(a, &v[i], err);
    }
    free(v);
    return r;
}

/* Whether `name` is a user name every tool accepts:
 * [A-Za-z0-9_][A-Za-z0-9._-]*, at most 32 bytes. */
static bool user_name_portable(const char *name)
{
    size_t len = strlen(name);
    return len > 0 && len <= 32 && name[0] != '-' && name[0] != '.' &&
           strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == len;
}

/* Builds the agent's passwd entry from the host user's name, its ids
 * (keep-id maps them as they are) and the HOME the agent gets, so that
 * whoami, ~ and HOME agree. The entry is made only when every field can be
 * written as it is, because podman appends it to the image's /etc/passwd
 * and expands $USERNAME and the like in it; otherwise podman's own entry
 * (the uid as the name) stays. */
static void passwd_entry_build(const session_plan_t *p, agent_spec_t *a)
{
    a->passwd_entry[0] = '\0';
    if (p->in.user_name == NULL || !user_name_portable(p->in.user_name))
        return;
    const char *home = p->in.workdir;          /* podman's choice when HOME is not set */
    for (size_t i = 0; a->spec.env != NULL && a->spec.env[i] != NULL; i++)
        if (strncmp(a->spec.env[i], "HOME=", 5) == 0)
            home = a->spec.env[i] + 5;
    if (home[0] != '/' || strpbrk(home, ":\n$") != NULL)
        return;
    int n = snprintf(a->passwd_entry, sizeof(a->passwd_entry), "%s:*:%u:%u:%s:%s:/bin/sh",
                     p->in.user_name, (unsigned)p->in.uid, (unsigned)p->in.gid, p->in.user_name, home);
    if (n < 0 || (size_t)n >= sizeof(a->passwd_entry)) {
        a->passwd_entry[0] = '\0';
        return;
    }
    a->spec.passwd_entry = a->passwd_entry;
}

/* Mounts the git identity (git_identity.h) as git's system config,
 * read-only, so that the agent's own global config and every repository's
 * still override it. */
static int git_config_mount(const session_plan_t *p, agent_spec_t *a, as_error_t **err)
{
    if (p->git_config_path == NULL)
        return 0;
    podman_mount_t m = { .source = p->git_config_path, .destination = AGENT_GIT_CONFIG,
                         .type = "bind", .options = bind_ro };
    return agent_spec_add_mount(a, &m, err);
}

/* Mounts the name files the CLI renders, all read-only so that the agent
 * cannot resolve around the router: a hosts file with only the allowed
 * names and nothing of the host's (no host.containers.internal), a
 * resolv.conf with only the router as resolver, and the allowlist in effect
 * for the agent to read. */
static int egress_mounts(const session_plan_t *p, agent_spec_t *a, as_error_t **err)
{
    if (p->egress == NULL)
        return 0;
    podman_mount_t hosts = { .source = p->egress->hosts_path, .destination = "/etc/hosts",
                             .type = "bind", .options = bind_ro };
    podman_mount_t resolv = { .source = p->egress->resolv_path, .destination = "/etc/resolv.conf",
                              .type = "bind", .options = bind_ro };
    podman_mount_t view = { .source = p->egress->view_dir, .destination = EGRESS_AGENT_VIEW_MOUNT,
                            .type = "bind", .options = bind_ro };
    int r = agent_spec_add_mount(a, &hosts, err);
    if (r == 0)
        r = agent_spec_add_mount(a, &resolv, err);
    return r < 0 ? r : agent_spec_add_mount(a, &view, err);
}

int agent_spec_build(const session_plan_t *p, agent_spec_t *ret, as_error_t **err)
{
    memset(ret, 0, sizeof(*ret));
    ret->spec = (podman_container_spec_t){
        .name = p->agent,
        .image = p->in.image,
        .pod = p->pod,
        .command = p->command,
        .env = p->env,
        .work_dir = p->in.workdir,
        .stdin_open = true,
        .terminal = p->in.tty,
        .no_new_privileges = true,
        .init = true,
        .cap_drop = cap_drop_all,
        .labels = p->labels,
        .n_labels = ARRAY_SIZE(p->labels),
    };
    /* Only the limits the host can enforce are set. The process limit is
     * also set as RLIMIT_NPROC, which the kernel counts per user namespace,
     * so that it holds for nested containers and without cgroup
     * controllers too. */
    if (p->in.limits.pids > 0) {
        ret->spec.nproc_rlimit = p->in.limits.pids;
        if (p->in.cgroups.pids)
            ret->spec.pids_limit = p->in.limits.pids;
    }
    if (p->in.cgroups.memory)
        ret->spec.memory_limit = p->in.limits.memory_bytes;
    if (p->in.cgroups.cpu && p->in.limits.cpu_millis > 0)
        ret->spec.cpu_quota_us = p->in.limits.cpu_millis * 100;   /* microseconds per 100 ms period */
    int r;
    if ((r = home_mounts(p, ret, err)) < 0)
        return r;
    passwd_entry_build(p, ret);
    /* The launch directory is the one host path the agent sees, at the
     * same place as on the host so paths in its output mean the same. */
    podman_mount_t workdir = {
        .source = p->in.workdir, .destination = p->in.workdir, .type = "bind", .options = bind_rw,
    };
    /* In review mode the agent sees the same view, but its writes are kept
     * in the review's upper layer (docs/review.md). */
    if (p->review_overlay[0] != NULL)
        workdir = (podman_mount_t){ .source = p->in.workdir, .destination = p->in.workdir, .type = "overlay",
                                    .options = p->review_overlay };
    /* The agent gets a /tmp of its own, empty at the start and gone with the
     * container, so that nothing of the host's /tmp is shared. */
    static char *const tmp_opts[] = { "rw", "nosuid", "nodev", "mode=1777", "size=1g", NULL };
    podman_mount_t tmp = { .destination = "/tmp", .type = "tmpfs", .options = tmp_opts };
    if ((r = agent_spec_add_mount(ret, &workdir, err)) < 0 || (r = agent_spec_add_mount(ret, &tmp, err)) < 0 ||
        (r = workspace_mounts(p, ret, err)) < 0 || (r = git_config_mount(p, ret, err)) < 0)
        return r;
    return egress_mounts(p, ret, err);
}
