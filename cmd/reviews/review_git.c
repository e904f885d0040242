/* apply's git route (docs/review-apply.md, "Git"): the agent's commits
 * arrive as branch agent-sandbox/<ID>. A short container of the session's
 * image, with no network and no capabilities, sees the launch directory
 * as the review session did (the overlay of the review's upper on the host
 * tree) and writes `git bundle create` into the review's git/; host git,
 * told to run no hook or helper and pointed at the host's own .git (which
 * the agent never wrote: its writes are in the upper), verifies the bundle
 * and fetches its HEAD into a new branch. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/backend.h"
#include "shared/cli.h"
#include "review.h"
#include "base/spawn.h"
#include "base/strv.h"
#include "base/util.h"
#include "review/review_git.h"
#include "session/labels.h"

extern char **environ;

/* Host git: `host_argv` + args, its stdout's first line into *ret_out
 * (may be NULL), its stderr the user's (or none, quiet). The exit status,
 * or -errno (a wait that failed too: never taken for success). */
static int host_git(char *const *host_argv, const char *const *args, bool quiet, char **ret_out)
{
    _cleanup_(strv_freep) char **argv = strv_copy(host_argv), **env = review_git_host_env(environ);
    for (size_t i = 0; argv != NULL && args[i] != NULL; i++)
        if (strv_push(&argv, args[i]) < 0)
            return -ENOMEM;
    if (argv == NULL || env == NULL)
        return -ENOMEM;
    const spawn_io_t io = { .capture = true, .stdin_null = true, .quiet = quiet };
    return spawn_and_wait(argv, env, &io, ret_out);
}

typedef struct bundle_job {
    const review_info_t *r;
    const char *out_dir;      /* the review's git/ */
    const char *host_head;    /* may be NULL */
} bundle_job_t;

/* The bundle's container, run once; its exit code in *ret_exit. */
static int run_container(backend_t *b, const bundle_job_t *j, int *ret_exit, as_error_t **err)
{
    static char *const cap_drop_all[] = { "all", NULL };
    static char *const bind_rw[] = { "rw", "rbind", "rprivate", NULL };
    static char *const env[] = { "HOME=/nonexistent", "GIT_CONFIG_NOSYSTEM=1", NULL };
    _cleanup_free_ char *upper = NULL, *work = NULL, *name = NULL;
    _cleanup_(strv_freep) char **command = review_git_bundle_argv(j->r->root, j->host_head);
    if (command == NULL || asprintf(&upper, "upperdir=%s", j->r->upper) < 0 ||
        asprintf(&work, "workdir=%s/work", j->r->dir) < 0 || asprintf(&name, "agent-sandbox-%s-bundle", b->dir->id) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    char *overlay_opts[] = { upper, work, NULL };
    podman_mount_t mounts[] = {
        { .source = j->r->root, .destination = j->r->root, .type = "overlay", .options = overlay_opts },
        { .source = j->out_dir, .destination = REVIEW_GIT_OUT, .type = "bind", .options = bind_rw },
    };
    podman_label_t labels[] = { { LABEL_SESSION, b->dir->id } };
    podman_container_spec_t spec = {
        .name = name, .image = j->r->image, .command = command, .env = env, .work_dir = "/",
        .read_only = true, .no_new_privileges = true, .cap_drop = cap_drop_all, .mounts = mounts,
        .n_mounts = ARRAY_SIZE(mounts), .no_network = true, .userns_keep_id = true,
        .labels = labels, .n_labels = ARRAY_SIZE(labels),
    };
    return backend_run_once(b, &spec, ret_exit, err);
}

/* The bundle in out_dir: 0, or -1 after reporting. */
static int make_bundle(const bundle_job_t *j)
{
    as_error_t *err = NULL;
    backend_t b = { 0 };
    int exit_code = -1;
    if (backend_start_command(&b) != 0)
        return -1;
    int r = run_container(&b, j, &exit_code, &err);
    backend_stop(&b, &cli_say);
    if (r < 0) {
        as_error_prefix(&err, "apply: making the bundle of the agent's commits in image %s", j->r->image);
        report_error(&err);
        return -1;
    }
    if (exit_code != 0)
        report("apply: the agent's commits are not brought over: `git bundle create` in image %s exited %d "
               "(a HEAD with no commit beyond the host's makes no bundle)", j->r->image, exit_code);
    return exit_code == 0 ? 0 : -1;
}

/* A fresh review git/ directory (a bundle of an earlier apply removed). */
static int fresh_out_dir(const review_info_t *r, char **ret_dir, char **ret_bundle)
{
    if (asprintf(ret_dir, "%s/git", r->dir) < 0 || asprintf(ret_bundle, "%s/" REVIEW_GIT_BUNDLE, *ret_dir) < 0)
        return -ENOMEM;
    if (mkdir(*ret_dir, 0700) < 0 && errno != EEXIST)
        return -errno;
    return unlink(*ret_bundle) < 0 && errno != ENOENT ? -errno : 0;
}

/* The host's checks before any container: a repository of its own at the
 * tree's top, and no branch of that name yet. Its HEAD in *ret_head (NULL
 * when it has no commit). */
static int host_ready(const review_info_t *r, char *const *git, const char *branch, char **ret_head)
{
    const char *const head[] = { "rev-parse", "--verify", "--quiet", "HEAD^{commit}", NULL };
    const char *const exists[] = { "rev-parse", "--verify", "--quiet", branch, NULL };
    _cleanup_free_ char *out = NULL;
    if (host_git(git, exists, true, NULL) == 0) {
        report("apply: branch %s exists in %s already: the agent's commits are not brought over "
               "(delete that branch to bring them)", branch + strlen("refs/heads/"), r->root);
        return -1;
    }
    int rc = host_git(git, head, true, &out);
    if (rc < 0 || (rc == 0 && !review_git_object_name(out)))
        return report("apply: cannot read the HEAD of %s/.git: %s", r->root, rc < 0 ? strerror(-rc) : out), -1;
    *ret_head = rc == 0 ? steal_pointer(&out) : NULL;
    return 0;
}

int review_git_bring(const review_info_t *r)
{
    _cleanup_free_ char *git_dir = NULL, *branch = NULL, *out_dir = NULL, *bundle = NULL, *host_head = NULL;
    struct stat st;
    if (r->image == NULL) {
        report("apply: the agent's commits are not brought over: review %s does not name its image", r->id);
        return -1;
    }
    if (asprintf(&git_dir, "%s/.git", r->root) < 0 || asprintf(&branch, "refs/heads/" REVIEW_GIT_BRANCH "%s", r->id) < 0)
        return -1;
    if (lstat(git_dir, &st) < 0 || !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) {
        report("apply: the agent's commits are not brought over: %s is no git repository of its own", r->root);
        return -1;
    }
    _cleanup_(strv_freep) char **git = review_git_host_argv(git_dir);
    int e = fresh_out_dir(r, &out_dir, &bundle);
    if (git == NULL || e < 0) {
        report("apply: %s/git: %s", r->dir, strerror(e < 0 ? -e : ENOMEM));
        return -1;
    }
    if (host_ready(r, git, branch, &host_head) < 0)
        return -1;
    bundle_job_t job = { .r = r, .out_dir = out_dir, .host_head = host_head };
    if (make_bundle(&job) < 0)
        return -1;
    _cleanup_free_ char *refspec = NULL;
    if (asprintf(&refspec, "HEAD:%s", branch) < 0)
        return -1;
    const char *const verify[] = { "bundle", "verify", "--quiet", bundle, NULL };
    const char *const fetch[] = { "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules",
                                  bundle, refspec, NULL };
    if (host_git(git, verify, false, NULL) != 0 || host_git(git, fetch, false, NULL) != 0) {
        report("apply: the agent's commits are not brought over: host git refused the bundle %s (above)", bundle);
        return -1;
    }
    printf("  branch    %s: the agent's commits (nothing in .git lands as a file)\n", branch + strlen("refs/heads/"));
    return 0;
}
