#include "git_global.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file_read.h"
#include "base/strv.h"
#include "base/util.h"

const char *git_env_get(char *const *envp, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; envp != NULL && envp[i] != NULL; i++)
        if (strncmp(envp[i], name, len) == 0 && envp[i][len] == '=')
            return envp[i] + len + 1;
    return NULL;
}

static int push_joined(char ***v, const char *dir, const char *rest)
{
    _cleanup_free_ char *path = NULL;
    if (asprintf(&path, "%s%s", dir, rest) < 0)
        return -ENOMEM;
    return strv_push(v, path);
}

int git_global_files(char *const *envp, char ***ret, as_error_t **err)
{
    const char *global = git_env_get(envp, "GIT_CONFIG_GLOBAL");
    const char *xdg = git_env_get(envp, "XDG_CONFIG_HOME"), *home = git_env_get(envp, "HOME");
    char **v = calloc(1, sizeof(char *));
    int r = v != NULL ? 0 : -ENOMEM;
    if (r == 0 && global != NULL) {
        /* git takes "" as the file's name; access("") fails with ENOENT */
        if (global[0] != '\0')
            r = strv_push(&v, global);
    } else if (r == 0) {
        if (xdg != NULL && xdg[0] != '\0')
            r = push_joined(&v, xdg, "/git/config");
        else if (home != NULL)
            r = push_joined(&v, home, "/.config/git/config");
        if (r == 0 && home != NULL)
            r = push_joined(&v, home, "/.gitconfig");
    }
    if (r < 0) {
        strv_free(v);
        return as_error_make(err, ENOMEM, "out of memory");
    }
    *ret = v;
    return 0;
}

int git_config_file_read(const char *path, char **ret_text, size_t *ret_len, as_error_t **err)
{
    if (access(path, R_OK) < 0 && (errno == ENOENT || errno == ENOTDIR || errno == EACCES))
        return 0;
    int r = config_file_read(AT_FDCWD, path, CONFIG_FOLLOW, GIT_CONFIG_FILE_MAX, ret_text, ret_len, err);
    if (r < 0)
        return config_error_name(err, "cannot read ", path);
    return 1;
}
