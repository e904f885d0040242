#include "host_git.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "git_config.h"
#include "git_global.h"
#include "base/doc_path.h"
#include "base/file_read.h"
#include "base/strv.h"
#include "base/util.h"

#define KEY "safe.barerepository"

/* git_config_system(): GIT_CONFIG_NOSYSTEM read as git's boolean (an integer
 * too). A value git rejects stops every git command; the file is read then. */
static bool system_wanted(const char *nosys)
{
    if (nosys == NULL || nosys[0] == '\0' || strcasecmp(nosys, "false") == 0 ||
        strcasecmp(nosys, "no") == 0 || strcasecmp(nosys, "off") == 0)
        return true;
    if (strcasecmp(nosys, "true") == 0 || strcasecmp(nosys, "yes") == 0 || strcasecmp(nosys, "on") == 0)
        return false;
    char *end = NULL;
    errno = 0;
    long n = strtol(nosys, &end, 0);
    bool number = errno == 0 && end != nosys &&
                  (end[0] == '\0' || (strchr("kKmMgG", end[0]) != NULL && end[1] == '\0'));
    return !number || n == 0;
}

int host_git_config_files(char *const *envp, char ***ret, as_error_t **err)
{
    const char *sys = git_env_get(envp, "GIT_CONFIG_SYSTEM");
    char **v = NULL;
    /* git_system_config(): GIT_CONFIG_SYSTEM set, even empty, replaces it */
    if (system_wanted(git_env_get(envp, "GIT_CONFIG_NOSYSTEM")) &&
        strv_push(&v, sys != NULL ? sys : "/etc/gitconfig") < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    char **global = NULL;
    if (git_global_files(envp, &global, err) < 0) {
        strv_free(v);
        return -ENOMEM;
    }
    for (size_t i = 0; global[i] != NULL; i++)
        if (strv_push(&v, global[i]) < 0) {
            strv_free(v);
            strv_free(global);
            return as_error_make(err, ENOMEM, "out of memory");
        }
    strv_free(global);
    if (v == NULL && (v = calloc(1, sizeof(char *))) == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
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
static int from_environment(found_t *f, char *const *envp)
{
    const char *count = git_env_get(envp, "GIT_CONFIG_COUNT");
    long n = count != NULL ? strtol(count, NULL, 10) : 0;
    for (long i = 0; i < n && i < 1000; i++) {
        char name[40];
        snprintf(name, sizeof(name), "GIT_CONFIG_KEY_%ld", i);
        const char *key = git_env_get(envp, name);
        snprintf(name, sizeof(name), "GIT_CONFIG_VALUE_%ld", i);
        const char *value = git_env_get(envp, name);
        if (key == NULL || value == NULL || strcasecmp(key, "safe.bareRepository") != 0)
            continue;
        free(f->value);
        if ((f->value = strdup(value)) == NULL)
            return -ENOMEM;
        f->where = "GIT_CONFIG_COUNT";
    }
    return 0;
}

int host_check_git_bare(char *const *files, char *const *envp, check_t *ret)
{
    found_t f = {0};
    int r = 0;
    for (size_t i = 0; r >= 0 && files != NULL && files[i] != NULL; i++) {
        char *text = NULL;
        size_t len = 0;
        as_error_t *err = NULL;
        if (git_config_file_read(files[i], &text, &len, &err) <= 0) {
            as_error_free(&err);
            continue;           /* not there, or git would stop at it: nothing set there */
        }
        f.file = files[i];
        r = git_config_parse(text, len, on_variable, &f, NULL);
        free(text);
        if (r == -EBADMSG)
            r = 0;              /* git itself would refuse it; nothing set there */
    }
    if (r >= 0)
        r = from_environment(&f, envp);
    if (r == 0 && f.value != NULL && strcasecmp(f.value, "explicit") == 0)
        r = check_set(ret, CHECK_OK, NULL, "safe.bareRepository is explicit (%s)", f.where);
    else if (r == 0) {
        _cleanup_free_ char *doc = doc_path("workspace-protection.md");
        r = check_set(ret, CHECK_WARN, "git config --global safe.bareRepository explicit",
                      "safe.bareRepository is %s%s%s: host git takes any directory that looks like a "
                      "bare repository for one, so one an agent planted in a launch tree runs its "
                      "config when you use git there (%s)%s",
                      f.value != NULL ? f.value : "not set", f.value != NULL ? " in " : "",
                      f.value != NULL ? f.where : "", doc != NULL ? doc : "docs/workspace-protection.md",
                      f.includes ? "; includes were not followed" : "");
    }
    free(f.value);
    return r < 0 ? -ENOMEM : 0;
}
