/* Applies the launch policy (lib/config/launch_policy) to the current directory,
 * with the user's allowed-paths file and podman's real storage location. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/cli.h"
#include "shared/cli_env.h"
#include "inputs.h"
#include "base/escape.h"
#include "base/util.h"
#include "config/launch_policy.h"
#include "base/user_dirs.h"
#include "podman/graphroot_cache.h"
#include "podman/mount_view.h"

/* podman's storage location as the service tells it, remembered for the
 * next session's launch_decide. */
static int storage_root_asked(const cli_backend_t *b, char **ret, as_error_t **err)
{
    int r = podman_info_graphroot(b->api, ret, err);
    if (r < 0)
        return r;
    as_error_t *put_err = NULL;
    graphroot_cache_put(b->dir->base, *ret, &put_err);   /* a failed cache costs only time */
    as_error_free(&put_err);
    return 0;
}

/* The policy's decision on `in`: 0 with *ret, or EXIT_REFUSED when the
 * policy itself failed, reported. */
static int launch_policy_apply(launch_policy_input_t *in, launch_policy_result_t **ret)
{
    as_error_t *err = NULL;
    if (launch_policy_decide(in, ret, &err) < 0) {
        as_error_prefix(&err, "checking the launch directory");
        report_error(&err);
        return EXIT_REFUSED;
    }
    return 0;
}

/* A decision is final without podman unless it rests on a storage
 * location podman has not confirmed: none was cached (the storage rule
 * could not be applied, and it may be the one that decides), or the
 * refusal is the storage rule on the cached one (a stale cache must not
 * refuse a legitimate launch). */
static bool needs_podman(const launch_t *l)
{
    return !l->storage_cached || l->result->rule == LAUNCH_POLICY_RULE_PODMAN_STORAGE;
}

/* Tells the warnings and, for a refusal, the refusal: 0 when allowed. */
static int launch_verdict(const launch_t *l)
{
    for (size_t i = 0; i < l->result->n_warnings; i++)
        report("warning: %s", l->result->warnings[i]);
    if (launch_policy_allowed(l->result))
        return 0;
    report("%s", l->result->message);
    return l->result->rule == LAUNCH_POLICY_RULE_BAD_CONFIG ? EXIT_CONFIG : EXIT_REFUSED;
}

/* Longer than PATH_MAX, a path cannot be mounted (nor resolved). */
static int refuse_long(const char *cwd)
{
    _cleanup_free_ char *name = path_escaped(cwd);
    report("error: cannot launch from %s: its path is %zu bytes long, and the kernel takes paths "
           "of at most %d bytes, so podman cannot mount it. Launch from a directory with a "
           "shorter path.", name != NULL ? name : "this directory", strlen(cwd), PATH_MAX - 1);
    return EXIT_REFUSED;
}

/* Podman must see the launch directory itself, not what lies under a mount
 * it does not know of (lib/podman/mount_view.h). A check it cannot make is skipped:
 * it guards against a wrong directory, not against the agent. */
static int check_reachable(const cli_backend_t *b, const char *dir)
{
    _cleanup_(as_error_freep) as_error_t *err = NULL;
    int r = mount_view_same_dir(b->service->pid, dir, &err);
    if (r == 0 || (r != -ENOENT && r != -ESTALE))
        return 0;
    _cleanup_free_ char *name = path_escaped(dir);
    report("error: cannot launch from %s: podman does not see this directory (%s). It is on a "
           "file system mounted after podman's own mount namespace was set up, and mounts do "
           "not reach that namespace on a host whose / is not a shared mount. Run `podman system "
           "migrate` to set podman's namespace up again (it stops running containers), or launch "
           "from a directory on a file system mounted before.", name != NULL ? name : "here",
           err->msg);
    return EXIT_REFUSED;
}

/* The paths the policy reads besides the launch directory: 0 or an exit
 * code, reported. */
static int launch_paths(launch_t *l)
{
    as_error_t *err = NULL;
    int r = user_config_dir(&l->config_dir, &err);
    if (r == 0)
        r = user_config_file("allowed-paths", &l->file_path, &err);
    if (r == 0)
        r = user_runtime_dir(&l->runtime_dir, NULL, &err);
    if (r < 0) {
        report_error(&err);
        return r == -ENOMEM ? EXIT_INTERNAL : EXIT_CONFIG;
    }
    if (launch_policy_file_read(l->file_path, &l->file, &err) < 0) {
        report_error(&err);
        return EXIT_CONFIG;
    }
    return 0;
}

static launch_policy_input_t launch_input(const launch_t *l, const char *graphroot)
{
    return (launch_policy_input_t){
        .launch_dir = l->cwd,
        .home = cli_env()->home,
        .xdg_runtime_dir = l->runtime_dir,
        .path_env = cli_env()->path,
        .graphroot = graphroot,
        .config_dir = l->config_dir,
        .allowed_paths_path = l->file_path,
        .allowed_paths = l->file,
    };
}

int launch_decide(const cli_backend_t *b, launch_t *l)
{
    as_error_t *err = NULL;
    const char *home = cli_env()->home;
    if (home == NULL || home[0] != '/') {
        report("error: HOME is not set to an absolute path; the launch policy is relative to it");
        return EXIT_REFUSED;
    }
    if ((l->cwd = getcwd(NULL, 0)) == NULL) {
        report("error: cannot read the current directory: %s", strerror(errno));
        return EXIT_SETUP;
    }
    if (strlen(l->cwd) >= PATH_MAX)
        return refuse_long(l->cwd);
    int rc = launch_paths(l);
    if (rc != 0)
        return rc;
    _cleanup_free_ char *cached = NULL;
    l->storage_cached = graphroot_cache_get(b->dir->base, &cached, &err) == 0;
    as_error_free(&err);
    launch_policy_input_t in = launch_input(l, cached);
    if ((rc = launch_policy_apply(&in, &l->result)) != 0)
        return rc;
    return needs_podman(l) ? 0 : launch_verdict(l);
}

int launch_confirm(const cli_backend_t *b, launch_t *l, char **ret_dir)
{
    as_error_t *err = NULL;
    if (needs_podman(l)) {
        _cleanup_free_ char *asked = NULL;
        if (storage_root_asked(b, &asked, &err) < 0) {
            report_error(&err);
            return EXIT_SETUP;
        }
        launch_policy_result_free(&l->result);     /* decided again, with podman's own answer */
        launch_policy_input_t in = launch_input(l, asked);
        int rc = launch_policy_apply(&in, &l->result);
        if (rc != 0 || (rc = launch_verdict(l)) != 0)
            return rc;
    }
    int rc = check_reachable(b, l->result->resolved_dir);
    if (rc == 0)
        *ret_dir = steal_pointer(&l->result->resolved_dir);
    return rc;
}

void launch_clear(launch_t *l)
{
    free(l->cwd);
    free(l->config_dir);
    free(l->file_path);
    free(l->runtime_dir);
    launch_policy_file_free(&l->file);
    launch_policy_result_free(&l->result);
    *l = (launch_t){ 0 };
}
