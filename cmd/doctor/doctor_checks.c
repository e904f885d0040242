/* `agent-sandbox doctor`, its second half: the limits this host enforces,
 * the config files (each parsed as a session would, a FAIL naming the file
 * and line), and the home volumes' owner. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/cli_env.h"
#include "shared/backend.h"
#include "doctor.h"
#include "session/session_load.h"
#include "base/file_read.h"
#include "base/util.h"
#include "config/allowlist.h"
#include "config/launch_policy.h"
#include "config/resource_limits.h"
#include "base/user_dirs.h"
#include "config/user_settings.h"
#include "session/home_volume.h"
#include "workspace/workspace.h"

#define LIMITS_FILE_MAX (64 * 1024)

static char *edit_command(const char *path)
{
    char *cmd = NULL;
    return asprintf(&cmd, "${EDITOR:-vi} %s", path) < 0 ? NULL : cmd;
}

/* The text of a config file: 0, -ENOENT when there is none, or an error. */
static int read_config(const char *path, char **ret_text, size_t *ret_len, as_error_t **err)
{
    int r = config_file_read(AT_FDCWD, path, CONFIG_FOLLOW, WORKSPACE_FILE_MAX, ret_text, ret_len, err);
    if (r < 0 && r != -ENOENT)
        config_error_name(err, "cannot read ", path);
    return r;
}

/* The limits file applied on the defaults; an error is left for the
 * config check to show. */
static void limits_of(const char *path, limits_t *ret)
{
    limits_defaults(ret);
    _cleanup_free_ char *text = NULL;
    size_t len = 0;
    as_error_t *err = NULL;
    if (read_config(path, &text, &len, &err) == 0)
        limits_parse_file(path, text, len, ret, &err);
    as_error_free(&err);
}

void doctor_check_limits(doctor_t *d)
{
    _cleanup_free_ char *path = NULL;
    as_error_t *err = NULL;
    if (user_config_file("limits", &path, &err) < 0) {
        doctor_error(d, "resource limits", CHECK_FAIL, NULL, &err);
        return;
    }
    limits_t lim;
    cgroup_caps_t caps;
    limits_of(path, &lim);
    cgroup_caps_detect(&caps);
    check_t c = {0};
    doctor_show(d, "resource limits", &c, host_check_limits(&lim, &caps, path, &c));
}

/* One config file: OK when absent, `level` when parsed (WARN for its
 * warnings, `parsed` saying what), FAIL with the parser's FILE:LINE
 * message; the fix of both opens the file. */
static void show_config(doctor_t *d, const char *name, const char *path, int r, as_error_t **err,
                        const char *absent, check_level_t level, const char *parsed)
{
    check_t c = {0};
    _cleanup_free_ char *edit = edit_command(path);
    if (r == -ENOENT) {
        as_error_free(err);
        doctor_show(d, name, &c, check_set(&c, CHECK_OK, NULL, "%s: %s", path, absent));
    } else if (r < 0) {
        doctor_error(d, name, CHECK_FAIL, edit, err);
    } else {
        doctor_show(d, name, &c, check_set(&c, level, edit, "%s: %s", path, parsed));
    }
}

static void check_allowlist(doctor_t *d)
{
    _cleanup_free_ char *path = NULL, *parsed = NULL;
    session_env_t vars = cli_env()->vars;
    if (allowlist_config_path(&vars, &cli_say, &path) != SESSION_OK)
        return;
    as_error_t *err = NULL;
    _cleanup_(allowlist_freep) allowlist_t *al = NULL;
    int r = allowlist_load(path, &al, &err);
    check_level_t level = r == 0 && al->n_warnings > 0 ? CHECK_WARN : CHECK_OK;
    if (r == 0 && asprintf(&parsed, "%zu entries%s%s", al->n_entries, level == CHECK_WARN ? "; " : "",
                           level == CHECK_WARN ? al->warnings[0] : "") < 0)
        r = as_error_make(&err, ENOMEM, "out of memory");
    show_config(d, "config allowed-hosts", path, r, &err, "not there yet: the first session copies the "
                "packaged default", level, parsed);
}

static int identity(void *ctx, const char *path, char **ret)
{
    (void)ctx;
    return (*ret = strdup(path)) != NULL ? 0 : -ENOMEM;
}

/* allowed-paths, as the launch policy reads it, for a directory no rule
 * but the file's own would refuse. */
static void check_allowed_paths(doctor_t *d, const char *home)
{
    _cleanup_free_ char *path = NULL, *config_dir = NULL, *probe = NULL;
    as_error_t *err = NULL;
    if (user_config_dir(&config_dir, &err) < 0 || user_config_file("allowed-paths", &path, &err) < 0) {
        doctor_error(d, "config allowed-paths", CHECK_FAIL, NULL, &err);
        return;
    }
    _cleanup_(launch_policy_file_freep) launch_policy_file_t *file = NULL;
    if (asprintf(&probe, "%s/agent-sandbox-doctor/project", home) < 0 ||
        launch_policy_file_read(path, &file, &err) < 0) {
        doctor_error(d, "config allowed-paths", CHECK_FAIL, NULL, &err);
        return;
    }
    launch_policy_input_t in = {
        .launch_dir = probe, .home = home, .config_dir = config_dir, .allowed_paths_path = path,
        .allowed_paths = file, .resolve = identity,
    };
    _cleanup_(launch_policy_result_freep) launch_policy_result_t *res = NULL;
    int r = launch_policy_decide(&in, &res, &err);
    bool absent = file->state == LAUNCH_POLICY_FILE_ABSENT;
    if (r == 0 && res->rule == LAUNCH_POLICY_RULE_BAD_CONFIG)
        r = as_error_make(&err, EBADMSG, "%s", res->message);
    show_config(d, "config allowed-paths", path, r == 0 && absent ? -ENOENT : r, &err,
                "none: launch directories anywhere under your home, but for the hard rules", CHECK_OK, "parsed");
}

static void check_protected_paths(doctor_t *d, const char *home)
{
    _cleanup_free_ char *path = NULL, *text = NULL, *cwd = realpath(".", NULL);
    size_t len = 0;
    as_error_t *err = NULL;
    if (user_config_file(WORKSPACE_USER_FILE, &path, &err) < 0) {
        doctor_error(d, "config protected-paths", CHECK_FAIL, NULL, &err);
        return;
    }
    int r = read_config(path, &text, &len, &err);
    if (r == 0) {
        workspace_config_t cfg = {
            .launch_dir = cwd != NULL ? cwd : home, .home = home, .user_file = path,
            .user_text = text, .user_len = len,
        };
        _cleanup_(workspace_rules_freep) workspace_rules_t *rules = NULL;
        r = workspace_rules_build(&cfg, &rules, &err);
    }
    show_config(d, "config protected-paths", path, r, &err, "none: the defaults alone", CHECK_OK, "parsed");
}

static void check_limits_file(doctor_t *d)
{
    _cleanup_free_ char *path = NULL, *text = NULL;
    size_t len = 0;
    as_error_t *err = NULL;
    if (user_config_file("limits", &path, &err) < 0) {
        doctor_error(d, "config limits", CHECK_FAIL, NULL, &err);
        return;
    }
    limits_t lim;
    limits_defaults(&lim);
    int r = read_config(path, &text, &len, &err);
    if (r == 0 && len > LIMITS_FILE_MAX)
        r = as_error_make(&err, EFBIG, "%s: over %d bytes", path, LIMITS_FILE_MAX);
    if (r == 0)
        r = limits_parse_file(path, text, len, &lim, &err);
    show_config(d, "config limits", path, r, &err, "none: the defaults", CHECK_OK, "parsed");
}

/* The settings file parsed, its path in *ret_path: 0, -ENOENT when there
 * is none, or an error naming the file and line. */
char *doctor_settings_agent(void)
{
    _cleanup_free_ char *path = NULL;
    user_settings_t set = {0};
    as_error_t *err = NULL;
    char *agent = NULL;
    if (settings_config_read(cli_env()->vars.home, &set, &path, &err) == 0)
        agent = steal_pointer(&set.agent);
    as_error_free(&err);       /* check_settings says what is wrong */
    user_settings_clear(&set);
    return agent;
}

/* The settings file, parsed as a session would; the agent it names must
 * be one this installation has a profile for. */
static void check_settings(doctor_t *d)
{
    _cleanup_free_ char *path = NULL, *parsed = NULL, *profile = NULL, *rel = NULL;
    as_error_t *err = NULL;
    user_settings_t set = {0};
    int r = settings_config_read(cli_env()->vars.home, &set, &path, &err);
    if (r < 0 && path == NULL) {
        doctor_error(d, "config settings", CHECK_FAIL, NULL, &err);
        return;
    }
    if (r == 0 && set.agent != NULL && asprintf(&rel, "agents/%s", set.agent) >= 0 &&
        (profile = packaged_file(rel)) == NULL)
        r = as_error_make(&err, EINVAL, "%s:%u: agent %s: no such agent in this installation", path,
                          set.agent_line, set.agent);
    if (r == 0 && asprintf(&parsed, "agent %s", set.agent != NULL ? set.agent : "claude (the default)") < 0)
        r = as_error_make(&err, ENOMEM, "out of memory");
    user_settings_clear(&set);
    show_config(d, "config settings", path, r, &err, "none: Claude Code unless --agent says another",
                CHECK_OK, parsed);
}

void doctor_check_config(doctor_t *d)
{
    const char *home = cli_env()->vars.home;
    check_allowlist(d);
    if (home == NULL || home[0] != '/') {
        check_t c = {0};
        doctor_show(d, "config", &c, check_set(&c, CHECK_FAIL, NULL, "HOME is not an absolute path"));
        return;
    }
    check_allowed_paths(d, home);
    check_protected_paths(d, home);
    check_limits_file(d);
    check_settings(d);
}

/* ---- the home volumes -------------------------------------------------- */

static void check_home(doctor_t *d, backend_t *b, const char *what, const char *volume)
{
    as_error_t *err = NULL;
    bool exists = false;
    _cleanup_free_ char *mountpoint = NULL, *name = NULL, *fix = NULL;
    check_t c = {0};
    if (asprintf(&name, "home volume (%s)", what) < 0)
        return;
    if (podman_volume_exists(b->api, volume, &exists, &err) < 0 ||
        (exists && podman_volume_mountpoint(b->api, volume, &mountpoint, &err) < 0)) {
        doctor_error(d, name, CHECK_FAIL, NULL, &err);
        return;
    }
    if (!exists) {
        doctor_show(d, name, &c, check_set(&c, CHECK_OK, NULL, "%s does not exist yet: the first session "
                                           "creates it", volume));
        return;
    }
    if (mountpoint[0] != '\0' && home_volume_check_owner(volume, mountpoint, getuid(), &err) < 0) {
        if (err->code == EPERM && asprintf(&fix, "podman unshare chown 0:0 %s", mountpoint) < 0)
            fix = NULL;
        doctor_error(d, name, CHECK_FAIL, fix, &err);
        return;
    }
    doctor_show(d, name, &c, check_set(&c, CHECK_OK, NULL, "%s is yours", volume));
}

void doctor_check_homes(doctor_t *d, backend_t *b)
{
    const char *named = cli_env()->vars.home_volume;
    if (named != NULL) {
        check_home(d, b, "AGENT_SANDBOX_HOME_VOLUME", named);
        return;
    }
    const char *prefix = cli_env_or(cli_env()->vars.volume_prefix, VOLUME_PREFIX_DEFAULT);
    _cleanup_free_ char *cwd = realpath(".", NULL), *project = NULL, *login = NULL;
    as_error_t *err = NULL;
    if (cwd != NULL && home_volume_project_name(prefix, cwd, &project, &err) == 0)
        check_home(d, b, "this directory", project);
    as_error_free(&err);
    if (asprintf(&login, "%s-login", prefix) >= 0)
        check_home(d, b, "login", login);
}
