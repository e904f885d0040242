#include "user_dirs.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#define APP_NAME "agent-sandbox"

static int oom(as_error_t **err)
{
    return as_error_make(err, ENOMEM, "out of memory");
}

static bool absolute(const char *path)
{
    return path != NULL && path[0] == '/';
}

user_env_t user_env(void)
{
    return (user_env_t){
        .home = secure_getenv("HOME"),
        .config_home = secure_getenv("XDG_CONFIG_HOME"),
        .state_home = secure_getenv("XDG_STATE_HOME"),
        .data_home = secure_getenv("XDG_DATA_HOME"),
        .runtime_dir = secure_getenv("XDG_RUNTIME_DIR"),
    };
}

char *user_podman_config_file(const char *rel)
{
    user_env_t env = user_env();
    char *path = NULL;
    if (env.config_home != NULL && env.config_home[0] != '\0')
        return asprintf(&path, "%s/%s", env.config_home, rel) < 0 ? NULL : path;
    const char *home = env.home;
    if (home == NULL || home[0] == '\0') {
        const struct passwd *pw = getpwuid(getuid());
        home = pw != NULL ? pw->pw_dir : NULL;
    }
    if (home == NULL || home[0] == '\0')
        return NULL;
    return asprintf(&path, "%s/.config/%s", home, rel) < 0 ? NULL : path;
}

/* $<var>/agent-sandbox, else $HOME/<home_rel>/agent-sandbox. */
static int xdg_app_dir(const char *var, const char *base, const char *home_rel, char **ret_dir,
                       as_error_t **err)
{
    const char *home = user_env().home;
    char *dir = NULL;
    int r;
    if (absolute(base))
        r = asprintf(&dir, "%s/" APP_NAME, base);
    else if (absolute(home))
        r = asprintf(&dir, "%s/%s/" APP_NAME, home, home_rel);
    else
        return as_error_make(err, ENOENT, "neither %s nor HOME is set to an absolute path: "
                             "no place for agent-sandbox's files", var);
    if (r < 0)
        return oom(err);
    *ret_dir = dir;
    return 0;
}

int user_config_dir(char **ret_dir, as_error_t **err)
{
    return xdg_app_dir("XDG_CONFIG_HOME", user_env().config_home, ".config", ret_dir, err);
}

int user_config_file(const char *name, char **ret_path, as_error_t **err)
{
    _cleanup_free_ char *dir = NULL;
    int r = user_config_dir(&dir, err);
    if (r < 0)
        return r;
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, name) < 0)
        return oom(err);
    *ret_path = path;
    return 0;
}

int user_state_dir(char **ret_dir, as_error_t **err)
{
    return xdg_app_dir("XDG_STATE_HOME", user_env().state_home, ".local/state", ret_dir, err);
}

int user_runtime_dir_check(const char *path, uid_t uid, as_error_t **err)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return errno == ENOENT ? as_error_make(err, ENOENT, "it does not exist")
                               : as_error_errno(err, errno, "it cannot be read");
    if (!S_ISDIR(st.st_mode))
        return as_error_make(err, ENOTDIR, "it is not a directory");
    if (st.st_uid != uid)
        return as_error_make(err, EPERM, "it belongs to uid %u, not to you (uid %u)",
                             (unsigned)st.st_uid, (unsigned)uid);
    if ((st.st_mode & 0722) != 0700)
        return as_error_make(err, EPERM, "it has mode %04o, not 0700", (unsigned)(st.st_mode & 07777));
    return 0;
}

/* A set XDG_RUNTIME_DIR is used as it is (podman does so too), but only
 * when it is a directory of ours: a shell from `su` without `-` keeps the
 * other user's. */
static int check_set(const char *value, as_error_t **err)
{
    as_error_t *why = NULL;
    struct stat st;
    int r = 0;
    if (!absolute(value))
        r = as_error_make(&why, EINVAL, "is not an absolute path");
    else if (stat(value, &st) < 0)
        r = as_error_errno(&why, errno, "cannot be used");
    else if (!S_ISDIR(st.st_mode))
        r = as_error_make(&why, ENOTDIR, "is not a directory");
    else if (st.st_uid != geteuid())
        r = as_error_make(&why, EPERM, "belongs to uid %u, not to you (uid %u)",
                          (unsigned)st.st_uid, (unsigned)geteuid());
    if (r == 0)
        return 0;
    if (why == NULL)
        return oom(err);
    r = as_error_make(err, why->code,
                      "XDG_RUNTIME_DIR=%s %s. agent-sandbox and podman keep their sockets "
                      "there: point it at a directory of yours (mode 0700), or unset it to "
                      "use /run/user/%u", value, why->msg, (unsigned)geteuid());
    as_error_free(&why);
    return r;
}

int user_runtime_dir(char **ret_dir, bool *ret_fallback, as_error_t **err)
{
    const char *value = user_env().runtime_dir;
    char *dir = NULL;
    if (value != NULL && value[0] != '\0') {
        int r = check_set(value, err);
        if (r < 0)
            return r;
        if ((dir = strdup(value)) == NULL)
            return oom(err);
        *ret_dir = dir;
        if (ret_fallback != NULL)
            *ret_fallback = false;
        return 0;
    }
    uid_t uid = geteuid();
    if (asprintf(&dir, "/run/user/%u", (unsigned)uid) < 0)
        return oom(err);
    as_error_t *why = NULL;
    int r = user_runtime_dir_check(dir, uid, &why);
    if (r < 0 && why == NULL) {
        free(dir);
        return oom(err);
    }
    if (r < 0) {
        r = as_error_make(err, why->code,
                          "XDG_RUNTIME_DIR is not set, and %s cannot stand in for it: %s. "
                          "agent-sandbox and podman keep their sockets there. Log in so that "
                          "it is set (a desktop, or ssh with pam_systemd; `su -`, `sudo -i` and "
                          "`runuser -l` do not set it), or have root make the directory once "
                          "per boot: sudo install -d -m 0700 -o %u -g %u %s",
                          dir, why->msg, (unsigned)uid, (unsigned)getegid(), dir);
        as_error_free(&why);
        free(dir);
        return r;
    }
    *ret_dir = dir;
    if (ret_fallback != NULL)
        *ret_fallback = true;
    return 0;
}

int user_dir_create(const char *path, as_error_t **err)
{
    if (!absolute(path))
        return as_error_make(err, EINVAL, "not an absolute path: %s", path ? path : "(null)");
    _cleanup_free_ char *copy = strdup(path);
    if (copy == NULL)
        return oom(err);
    for (char *p = copy + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(copy, 0700) < 0 && errno != EEXIST)
            return as_error_errno(err, errno, "creating %s", copy);
        if (c == '\0')
            break;
        *p = c;
    }
    return 0;
}
