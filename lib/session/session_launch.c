/* The launch policy (lib/config/launch_policy) on the current directory,
 * with the user's allowed-paths file and podman's real storage location
 * (session_launch.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session_launch.h"
#include "base/escape.h"
#include "base/util.h"
#include "config/launch_policy.h"
#include "base/user_dirs.h"
#include "podman/graphroot_cache.h"
#include "podman/mount_view.h"

/* podman's storage location as the service tells it, remembered for the
 * next session's launch_decide. */
static int storage_root_asked(const backend_t *b, char **ret, as_error_t **err)
{
    int r = podman_info_graphroot(b->api, ret, err);
    if (r < 0)
        return r;
    as_error_t *put_err = NULL;
    graphroot_cache_put(b->dir->base, *ret, &put_err);   /* a failed cache costs only time */
    as_error_free(&put_err);
    return 0;
}

/* The policy's decision on `in`: SESSION_OK with *ret, or
 * SESSION_FAULT_REFUSED when the policy itself failed, said. */
static session_fault_t launch_policy_apply(launch_policy_input_t *in, launch_policy_result_t **ret,
                                           const session_say_t *to)
{
    as_error_t *err = NULL;
    if (launch_policy_decide(in, ret, &err) < 0) {
        as_error_prefix(&err, "checking the launch directory");
        say_error(to, &err);
        return SESSION_FAULT_REFUSED;
    }
    return SESSION_OK;
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
static session_fault_t launch_verdict(const launch_t *l, const session_say_t *to)
{
    for (size_t i = 0; i < l->result->n_warnings; i++)
        say(to, SAY_WARNING, "%s", l->result->warnings[i]);
    if (launch_policy_allowed(l->result))
        return SESSION_OK;
    say(to, SAY_PLAIN, "%s", l->result->message);
    return l->result->rule == LAUNCH_POLICY_RULE_BAD_CONFIG ? SESSION_FAULT_CONFIG : SESSION_FAULT_REFUSED;
}

/* Longer than PATH_MAX, a path cannot be mounted (nor resolved). */
static session_fault_t refuse_long(const char *cwd, const session_say_t *to)
{
    _cleanup_free_ char *name = path_escaped(cwd);
    say(to, SAY_ERROR, "cannot launch from %s: its path is %zu bytes long, and the kernel takes paths "
           "of at most %d bytes, so podman cannot mount it. Launch from a directory with a "
           "shorter path.", name != NULL ? name : "this directory", strlen(cwd), PATH_MAX - 1);
    return SESSION_FAULT_REFUSED;
}

/* Podman must see the launch directory itself, not what lies under a mount
 * it does not know of (lib/podman/mount_view.h). A check it cannot make is skipped:
 * it guards against a wrong directory, not against the agent. */
static session_fault_t check_reachable(const backend_t *b, const char *dir, const session_say_t *to)
{
    _cleanup_(as_error_freep) as_error_t *err = NULL;
    int r = mount_view_same_dir(b->service->pid, dir, &err);
    if (r == 0 || (r != -ENOENT && r != -ESTALE))
        return SESSION_OK;
    _cleanup_free_ char *name = path_escaped(dir);
    say(to, SAY_ERROR, "cannot launch from %s: podman does not see this directory (%s). It is on a "
           "file system mounted after podman's own mount namespace was set up, and mounts do "
           "not reach that namespace on a host whose / is not a shared mount. Run `podman system "
           "migrate` to set podman's namespace up again (it stops running containers), or launch "
           "from a directory on a file system mounted before.", name != NULL ? name : "here",
           err->msg);
    return SESSION_FAULT_REFUSED;
}

/* The paths the policy reads besides the launch directory. */
static session_fault_t launch_paths(launch_t *l, const session_say_t *to)
{
    as_error_t *err = NULL;
    int r = user_config_dir(&l->config_dir, &err);
    if (r == 0)
        r = user_config_file("allowed-paths", &l->file_path, &err);
    if (r == 0)
        r = user_runtime_dir(&l->runtime_dir, NULL, &err);
    if (r < 0) {
        say_error(to, &err);
        return r == -ENOMEM ? SESSION_FAULT_INTERNAL : SESSION_FAULT_CONFIG;
    }
    if (launch_policy_file_read(l->file_path, &l->file, &err) < 0) {
        say_error(to, &err);
        return SESSION_FAULT_CONFIG;
    }
    return SESSION_OK;
}

static launch_policy_input_t launch_input(const launch_t *l, const char *graphroot)
{
    return (launch_policy_input_t){
        .launch_dir = l->cwd,
        .home = l->vars->home,
        .xdg_runtime_dir = l->runtime_dir,
        .path_env = l->vars->path,
        .graphroot = graphroot,
        .config_dir = l->config_dir,
        .allowed_paths_path = l->file_path,
        .allowed_paths = l->file,
    };
}

session_fault_t launch_decide(const backend_t *b, const session_env_t *vars, const session_say_t *to, launch_t *l)
{
    as_error_t *err = NULL;
    l->vars = vars;
    if (vars->home == NULL || vars->home[0] != '/') {
        say(to, SAY_ERROR, "HOME is not set to an absolute path; the launch policy is relative to it");
        return SESSION_FAULT_REFUSED;
    }
    if ((l->cwd = getcwd(NULL, 0)) == NULL) {
        say(to, SAY_ERROR, "cannot read the current directory: %s", strerror(errno));
        return SESSION_FAULT_SETUP;
    }
    if (strlen(l->cwd) >= PATH_MAX)
        return refuse_long(l->cwd, to);
    session_fault_t rc = launch_paths(l, to);
    if (rc != SESSION_OK)
        return rc;
    _cleanup_free_ char *cached = NULL;
    l->storage_cached = graphroot_cache_get(b->dir->base, &cached, &err) == 0;
    as_error_free(&err);
    launch_policy_input_t in = launch_input(l, cached);
    if ((rc = launch_policy_apply(&in, &l->result, to)) != SESSION_OK)
        return rc;
    return needs_podman(l) ? SESSION_OK : launch_verdict(l, to);
}

session_fault_t launch_confirm(const backend_t *b, const session_say_t *to, launch_t *l, char **ret_dir)
{
    as_error_t *err = NULL;
    session_fault_t rc;
    if (needs_podman(l)) {
        _cleanup_free_ char *asked = NULL;
        if (storage_root_asked(b, &asked, &err) < 0) {
            say_error(to, &err);
            return SESSION_FAULT_SETUP;
        }
        launch_policy_result_free(&l->result);     /* decided again, with podman's own answer */
        launch_policy_input_t in = launch_input(l, asked);
        if ((rc = launch_policy_apply(&in, &l->result, to)) != SESSION_OK || (rc = launch_verdict(l, to)) != SESSION_OK)
            return rc;
    }
    rc = check_reachable(b, l->result->resolved_dir, to);
    if (rc == SESSION_OK)
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
