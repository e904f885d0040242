/* The settings file of the config directory (lib/user_settings.h): a
 * broken one refuses the session, as every config file does; a missing one
 * is the defaults. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "file_read.h"
#include "user_dirs.h"
#include "util.h"

int settings_config_load(user_settings_t *ret, char **ret_path)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *path = NULL, *text = NULL;
    size_t len = 0;
    user_settings_t s = { .notifications = true };
    int r = user_config_file(USER_SETTINGS_FILE, &path, &err);
    if (r == 0)
        r = config_file_read(AT_FDCWD, path, CONFIG_FOLLOW, USER_SETTINGS_MAX, &text, &len, &err);
    if (r == -ENOENT) {
        as_error_free(&err);
    } else if (r < 0) {
        if (path != NULL)
            config_error_name(&err, "cannot read ", path);
        report_error(&err);
        return r == -ENOMEM ? EXIT_INTERNAL : EXIT_CONFIG;
    } else if (user_settings_parse(path, text, len, &s, &err) < 0) {
        report_error(&err);
        return EXIT_CONFIG;
    }
    *ret = s;
    if (ret_path != NULL)
        *ret_path = steal_pointer(&path);
    return 0;
}
