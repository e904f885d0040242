/* Applies the launch policy (lib/config/launch_policy.h) to the current directory,
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

/* The service failed to start: an interrupted start is the signal's exit. */
static int service_failed(const cli_backend_t *b, as_error_t **err)
{
    report_error(err);
    int sig = signal_source_terminating(b->signals);
    if (sig == 0)
        report_doctor_hint();
    return sig != 0 ? 128 + sig : EXIT_NO_SERVICE;
}

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

/* podman's storage location: cached while no storage.conf changes, else
 * asked of the service (started for it). 0 or an exit code, reported. */
static int storage_root(cli_backend_t *b, char **ret, bool *ret_cached)
{
    as_error_t *err = NULL;
    *ret_cached = graphroot_cache_get(b->dir->base, ret, &err) == 0;
    if (*ret_cached)
        return 0;
    as_error_free(&err);
    if (backend_service(b, &err) < 0)
        return service_failed(b, &err);
    if (storage_root_asked(b, ret, &err) < 0) {
        report_error(&err);
        return EXIT_SETUP;
    }
    return 0;
}

/* The policy's decision. A refusal as podman's storage that rests on the
 * cached location is checked with podman itself first (its service started
 * for it): a wrong cached path must not refuse a legitimate launch. Any
 * other decision needs no podman. 0 or an exit code, reported. */
static int decide_launch_dir_rechecking_storage(cli_backend_t *b, launch_policy_input_t *in,
                                                bool cached, launch_policy_result_t **ret)
{
    as_error_t *err = NULL;
    _cleanup_(launch_policy_result_freep) launch_policy_result_t *res = NULL;
    int r = launch_policy_decide(in, &res, &err);
    if (r == 0 && cached && res->rule == LAUNCH_POLICY_RULE_PODMAN_STORAGE) {
        _cleanup_free_ char *asked = NULL;
        if (backend_service(b, &err) < 0)
            return service_failed(b, &err);
        if ((r = storage_root_asked(b, &asked, &err)) == 0 && strcmp(asked, in->graphroot) != 0) {
            launch_policy_result_free(&res);        /* decided again, with podman's own answer */
            in->graphroot = asked;
            r = launch_policy_decide(in, &res, &err);
            in->graphroot = NULL;
        }
    }
    if (r < 0) {
        as_error_prefix(&err, "checking the launch directory");
        report_error(&err);
        return EXIT_REFUSED;
    }
    *ret = steal_pointer(&res);
    return 0;
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

int launch_check(cli_backend_t *b, char **ret_dir)
{
    as_error_t *err = NULL;
    const char *home = cli_env()->home;
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
    int rc = storage_root(b, &graphroot, &cached);
    if (rc != 0)
        return rc;
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
    _cleanup_(launch_policy_file_freep) launch_policy_file_t *file = NULL;
    if (launch_policy_file_read(file_path, &file, &err) < 0) {
        report_error(&err);
        return EXIT_CONFIG;
    }
    launch_policy_input_t in = {
        .launch_dir = cwd,
        .home = home,
        .xdg_runtime_dir = runtime_dir,
        .path_env = cli_env()->path,
        .graphroot = graphroot,
        .config_dir = config_dir,
        .allowed_paths_path = file_path,
        .allowed_paths = file,
    };
    _cleanup_(launch_policy_result_freep) launch_policy_result_t *res = NULL;
    rc = decide_launch_dir_rechecking_storage(b, &in, cached, &res);
    if (rc != 0)
        return rc;
    for (size_t i = 0; i < res->n_warnings; i++)
        report("warning: %s", res->warnings[i]);
    if (!launch_policy_allowed(res)) {
        report("%s", res->message);
        rc = res->rule == LAUNCH_POLICY_RULE_BAD_CONFIG ? EXIT_CONFIG : EXIT_REFUSED;
    } else if (backend_service(b, &err) < 0) {
        rc = service_failed(b, &err);
    } else if ((rc = check_reachable(b, res->resolved_dir)) == 0) {
        *ret_dir = steal_pointer(&res->resolved_dir);
    }
    return rc;
}
