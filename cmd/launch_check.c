/* Applies the launch policy (lib/launch_policy) to the current directory,
 * with the user's allowed-paths file and podman's real storage location. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "paths.h"
#include "graphroot_cache.h"
#include "launch_policy.h"
#include "mount_view.h"
#include "user_dirs.h"
#include "util.h"

/* podman's storage location, from podman; remembered for the next session. */
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

/* podman's storage location: cached while no storage.conf changes. */
static int storage_root(const cli_backend_t *b, char **ret, bool *ret_cached, as_error_t **err)
{
    *ret_cached = graphroot_cache_get(b->dir->base, ret, err) == 0;
    if (*ret_cached)
        return 0;
    as_error_free(err);
    return storage_root_asked(b, ret, err);
}

/* The policy's decision. A refusal as podman's storage that rests on the
 * cached location is checked with podman itself first: a wrong cached path
 * must not refuse a legitimate launch. */
static int decide(const cli_backend_t *b, launch_policy_input_t *in, bool cached,
                  launch_policy_result_t **ret, as_error_t **err)
{
    int r = launch_policy_decide(in, ret, err);
    if (r < 0 || !cached || (*ret)->rule != LAUNCH_POLICY_RULE_PODMAN_STORAGE)
        return r;
    _cleanup_free_ char *asked = NULL;
    if ((r = storage_root_asked(b, &asked, err)) < 0)
        return r;
    if (strcmp(asked, in->graphroot) == 0)
        return 0;
    launch_policy_result_free(ret);
    in->graphroot = asked;
    r = launch_policy_decide(in, ret, err);
    in->graphroot = NULL;
    return r;
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
 * it does not know of (lib/mount_view.h). A check it cannot make is skipped:
 * it guards against a wrong directory, not against the agent. */
static int check_reachable(const cli_backend_t *b, const char *dir)
{
    as_error_t *err = NULL;
    int r = mount_view_same_dir(b->service->pid, dir, &err);
    if (r == 0 || (r != -ENOENT && r != -ESTALE)) {
        as_error_free(&err);
        return 0;
    }
    _cleanup_free_ char *name = path_escaped(dir);
    report("error: cannot launch from %s: podman does not see this directory (%s). It is on a "
           "file system mounted after podman's own mount namespace was set up, and mounts do "
           "not reach that namespace on a host whose / is not a shared mount. Run `podman system "
           "migrate` to set podman's namespace up again (it stops running containers), or launch "
           "from a directory on a file system mounted before.", name != NULL ? name : "here",
           err->msg);
    as_error_free(&err);
    return EXIT_REFUSED;
}

int launch_check(const cli_backend_t *b, char **ret_dir)
{
    as_error_t *err = NULL;
    const char *home = getenv("HOME");
    if (home == NULL || home[0] != '/') {
        report("error: HOME is not set to an absolute path; the launch policy is relative to it");
        return EXIT_REFUSED;
    }
    _cleanup_free_ char *cwd = getcwd(NULL, 0);
    if (cwd == NULL) {
        report("error: cannot read the current directory: %s", strerror(errno));
        return EXIT_SETUP;
    }
    if (strlen(cwd) >= PATH_MAX)
        return refuse_long(cwd);
    _cleanup_free_ char *graphroot = NULL;
    bool cached = false;
    if (storage_root(b, &graphroot, &cached, &err) < 0) {
        report_error(&err);
        return EXIT_SETUP;
    }
    _cleanup_free_ char *config_dir = NULL, *file_path = NULL, *runtime_dir = NULL;
    int r = user_config_dir(&config_dir, &err);
    if (r == 0)
        r = user_config_file("allowed-paths", &file_path, &err);
    if (r == 0)
        r = user_runtime_dir(&runtime_dir, NULL, &err);
    if (r < 0) {
        report_error(&err);
        return r == -ENOMEM ? EXIT_INTERNAL : EXIT_CONFIG;
    }
    launch_policy_file_t *file = NULL;
    if (launch_policy_file_read(file_path, &file, &err) < 0) {
        report_error(&err);
        return EXIT_CONFIG;
    }
    launch_policy_input_t in = {
        .launch_dir = cwd,
        .home = home,
        .xdg_runtime_dir = runtime_dir,
        .path_env = getenv("PATH"),
        .graphroot = graphroot,
        .config_dir = config_dir,
        .allowed_paths_path = file_path,
        .allowed_paths = file,
    };
    launch_policy_result_t *res = NULL;
    r = decide(b, &in, cached, &res, &err);
    launch_policy_file_free(&file);
    if (r < 0) {
        as_error_prefix(&err, "checking the launch directory");
        report_error(&err);
        return EXIT_REFUSED;
    }
    for (size_t i = 0; i < res->n_warnings; i++)
        report("warning: %s", res->warnings[i]);
    int rc = 0;
    if (!launch_policy_allowed(res)) {
        report("%s", res->message);
        rc = res->rule == LAUNCH_POLICY_RULE_BAD_CONFIG ? EXIT_CONFIG : EXIT_REFUSED;
    } else if ((rc = check_reachable(b, res->resolved_dir)) == 0) {
        *ret_dir = steal_pointer(&res->resolved_dir);
    }
    launch_policy_result_free(&res);
    return rc;
}
