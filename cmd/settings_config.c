/* The config directory's small files, read by one helper: the settings
 * (lib/user_settings.h) here, the limits in limits_config.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#include "cli.h"
#include "file_read.h"
#include "user_settings.h"
#include "user_dirs.h"
#include "util.h"

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

int user_config_text(const char *name, size_t max, char **ret_path, char **ret_text, size_t *ret_len)
{
    _cleanup_free_ char *path = NULL;
    int rc = user_config_path(name, &path);
    if (rc != 0)
        return rc;
    as_error_t *err = NULL;
    char *text = NULL;
    size_t len = 0;
    int r = config_file_read(AT_FDCWD, path, CONFIG_FOLLOW, max, &text, &len, &err);
    if (r < 0 && r != -ENOENT) {
        config_error_name(&err, "cannot read ", path);
        report_error(&err);
        return EXIT_CONFIG;
    }
    as_error_free(&err);
    *ret_path = steal_pointer(&path);
    *ret_text = text;
    *ret_len = len;
    return 0;
}

int settings_config_load(user_settings_t *ret, char **ret_path)
{
    _cleanup_free_ char *path = NULL, *text = NULL;
    size_t len = 0;
    int rc = user_config_text(USER_SETTINGS_FILE, USER_SETTINGS_MAX, &path, &text, &len);
    if (rc != 0)
        return rc;
    as_error_t *err = NULL;
    user_settings_t s = { .git_identity = true, .notifications = true };
    if (text != NULL && user_settings_parse(path, text, len, &s, &err) < 0) {
        report_error(&err);
        return EXIT_CONFIG;
    }
    *ret = s;
    if (ret_path != NULL)
        *ret_path = steal_pointer(&path);
    return 0;
}
