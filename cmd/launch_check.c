/* Applies the launch policy (lib/launch_policy) to the current directory,
 * with the user's allowed-paths file and podman's real storage location. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "graphroot_cache.h"
#include "launch_policy.h"
#include "user_dirs.h"
#include "util.h"

/* podman's storage location: cached while no storage.conf changes. */
static int storage_root(podman_api_t *api, const char *base_dir, char **ret, as_error_t **err)
{
    if (graphroot_cache_get(base_dir, ret, err) == 0)
        return 0;
    as_error_free(err);
    int r = podman_info_graphroot(api, ret, err);
    if (r < 0)
        return r;
    as_error_t *put_err = NULL;
    graphroot_cache_put(base_dir, *ret, &put_err);   /* a failed cache costs only time */
    as_error_free(&put_err);
    return 0;
}

int launch_check(podman_api_t *api, const char *base_dir, char **ret_dir)
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
    _cleanup_free_ char *graphroot = NULL;
    if (storage_root(api, base_dir, &graphroot, &err) < 0) {
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
    r = launch_policy_decide(&in, &res, &err);
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
    } else {
        *ret_dir = steal_pointer(&res->resolved_dir);
    }
    launch_policy_result_free(&res);
    return rc;
}
