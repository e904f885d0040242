#include "host_git.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "git_config.h"
#include "base/file_read.h"
#include "base/strv.h"
#include "base/util.h"

#define GIT_CONFIG_MAX (1024 * 1024)
#define KEY "safe.barerepository"

int host_git_config_files(char ***ret, as_error_t **err)
{
    char **v = NULL;
    const char *sys = getenv("GIT_CONFIG_SYSTEM"), *nosys = getenv("GIT_CONFIG_NOSYSTEM");
    const char *global = getenv("GIT_CONFIG_GLOBAL"), *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    _cleanup_free_ char *xdg_file = NULL, *home_file = NULL;
    int r = 0;
    if (nosys == NULL || nosys[0] == '\0' || strcmp(nosys, "0") == 0 || strcasecmp(nosys, "false") == 0)
        r = strv_push(&v, sys != NULL && sys[0] != '\0' ? sys : "/etc/gitconfig");
    if (r == 0 && global != NULL && global[0] != '\0') {
        r = strv_push(&v, global);
    } else if (r == 0) {
        if ((xdg != NULL && xdg[0] == '/' && asprintf(&xdg_file, "%s/git/config", xdg) < 0) ||
            (home != NULL && home[0] == '/' && xdg_file == NULL &&
             asprintf(&xdg_file, "%s/.config/git/config", home) < 0) ||
            (home != NULL && home[0] == '/' && asprintf(&home_file, "%s/.gitconfig", home) < 0))
            r = -ENOMEM;
        if (r == 0 && xdg_file != NULL)
            r = strv_push(&v, xdg_file);
        if (r == 0 && home_file != NULL)
            r = strv_push(&v, home_file);
    }
    if (r < 0) {
        strv_free(v);
        return as_error_make(err, ENOMEM, "out of memory");
    }
    *ret = v;
    return 0;
}

typedef struct found {
    char *value;            /* the last one seen */
    const char *where;      /* its file, or "GIT_CONFIG_COUNT" */
    const char *file;       /* the file being read */
    bool includes;          /* an include this check did not follow */
} found_t;

static int on_variable(void *ctx, const char *key, const char *value)
{
    found_t *f = ctx;
    if (strcmp(key, "include.path") == 0 || strncmp(key, "includeif.", 10) == 0)
        f->includes = true;
    if (strcmp(key, KEY) != 0)
        return 0;
    free(f->value);
    f->value = strdup(value != NULL ? value : "");
    f->where = f->file;
    return f->value == NULL ? -ENOMEM : 0;
}

/* GIT_CONFIG_COUNT, GIT_CONFIG_KEY_<n>, GIT_CONFIG_VALUE_<n>. */
static int from_environment(found_t *f)
{
    const char *count = getenv("GIT_CONFIG_COUNT");
    long n = count != NULL ? strtol(count, NULL, 10) : 0;
    for (long i = 0; i < n && i < 1000; i++) {
        char name[40];
        snprintf(name, sizeof(name), "GIT_CONFIG_KEY_%ld", i);
        const char *key = getenv(name);
        snprintf(name, sizeof(name), "GIT_CONFIG_VALUE_%ld", i);
        const char *value = getenv(name);
        if (key == NULL || value == NULL || strcasecmp(key, "safe.bareRepository") != 0)
            continue;
        free(f->value);
        if ((f->value = strdup(value)) == NULL)
            return -ENOMEM;
        f->where = "GIT_CONFIG_COUNT";
    }
    return 0;
}

int host_check_git_bare(char *const *files, check_t *ret)
{
    found_t f = {0};
    int r = 0;
    for (size_t i = 0; r >= 0 && files != NULL && files[i] != NULL; i++) {
        char *text = NULL;
        size_t len = 0;
        as_error_t *err = NULL;
        if (config_file_read(AT_FDCWD, files[i], CONFIG_FOLLOW, GIT_CONFIG_MAX, &text, &len, &err) < 0) {
            as_error_free(&err);
            continue;           /* git skips a file it cannot read the same way */
        }
        f.file = files[i];
        r = git_config_parse(text, len, on_variable, &f, NULL);
        free(text);
        if (r == -EBADMSG)
            r = 0;              /* git itself would refuse it; nothing set there */
    }
    if (r >= 0)
        r = from_environment(&f);
    if (r == 0 && f.value != NULL && strcasecmp(f.value, "explicit") == 0)
        r = check_set(ret, CHECK_OK, NULL, "safe.bareRepository is explicit (%s)", f.where);
    else if (r == 0)
        r = check_set(ret, CHECK_WARN, "git config --global safe.bareRepository explicit",
                      "safe.bareRepository is %s%s%s: host git takes any directory that looks like a "
                      "bare repository for one, so one an agent planted in a launch tree runs its "
                      "config when you use git there (docs/workspace-protection.md)%s",
                      f.value != NULL ? f.value : "not set", f.value != NULL ? " in " : "",
                      f.value != NULL ? f.where : "",
                      f.includes ? "; includes were not followed" : "");
    free(f.value);
    return r < 0 ? -ENOMEM : 0;
}
