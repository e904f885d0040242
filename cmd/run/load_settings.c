/* The settings file of the config directory (lib/config/user_settings.h), and
 * the path of any file there. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "shared/cli.h"
#include "shared/cli_env.h"
#include "inputs.h"
#include "base/file_read.h"
#include "base/util.h"
#include "base/user_dirs.h"
#include "config/user_settings.h"

int user_config_path(const char *name, char **ret_path)
{
    as_error_t *err = NULL;
    int r = user_config_file(name, ret_path, &err);
    if (r < 0) {
        report_error(&err);
        return r == -ENOMEM ? EXIT_INTERNAL : EXIT_CONFIG;
    }
    return 0;
}

int settings_config_read(user_settings_t *ret, char **ret_path, as_error_t **err)
{
    _cleanup_free_ char *text = NULL;
    size_t len = 0;
    *ret = USER_SETTINGS_DEFAULTS;
    int r = user_config_file(USER_SETTINGS_FILE, ret_path, err);
    if (r < 0)
        return r;
    r = config_file_read(AT_FDCWD, *ret_path, CONFIG_FOLLOW, USER_SETTINGS_MAX, &text, &len, err);
    if (r < 0) {
        if (r != -ENOENT)
            config_error_name(err, "cannot read ", *ret_path);
        return r;
    }
    /* `in DIR` lines match the launch directory as launch_check takes it */
    _cleanup_free_ char *launch_dir = getcwd(NULL, 0);
    const char *home = cli_env()->home;
    return user_settings_parse_at(*ret_path, text, len, launch_dir, home != NULL && home[0] == '/' ? home : NULL,
                                  ret, err);
}

int load_settings(user_settings_t *ret, char **ret_path)
{
    _cleanup_free_ char *path = NULL;
    as_error_t *err = NULL;
    int r = settings_config_read(ret, &path, &err);
    if (r == -ENOENT) {
        as_error_free(&err);
    } else if (r < 0) {
        report_error(&err);
        return r == -ENOMEM ? EXIT_INTERNAL : EXIT_CONFIG;
    }
    *ret_path = steal_pointer(&path);
    return 0;
}
