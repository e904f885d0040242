#include "review_git.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strv.h"
#include "base/util.h"

/* What could run a program or a hook while git reads a repository or
 * fetches: none of it is needed to make or to fetch a bundle. */
static const char *const quiet_settings[] = {
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.sshCommand=false",
    "core.pager=cat",
    "core.editor=false",
    "credential.helper=",
    "fetch.fsckObjects=true",
    "transfer.fsckObjects=true",
    "protocol.allow=never",          /* no transport runs a helper ... */
    "protocol.file.allow=always",    /* ... but the bundle file's */
    "gc.auto=0",
    "maintenance.auto=false",
};

bool review_git_object_name(const char *s)
{
    size_t n = strlen(s);
    return (n == 40 || n == 64) && strspn(s, "0123456789abcdef") == n;
}

static int push_settings(char ***v)
{
    for (size_t i = 0; i < ARRAY_SIZE(quiet_settings); i++)
        if (strv_push(v, "-c") < 0 || strv_push(v, quiet_settings[i]) < 0)
            return -1;
    return 0;
}

char **review_git_bundle_argv(const char *root, const char *host_head)
{
    _cleanup_(strv_freep) char **v = NULL;
    _cleanup_free_ char *exclude = NULL;
    if (host_head != NULL && (!review_git_object_name(host_head) || asprintf(&exclude, "^%s", host_head) < 0))
        return NULL;
    if (strv_push(&v, "git") < 0 || push_settings(&v) < 0 || strv_push(&v, "-C") < 0 || strv_push(&v, root) < 0 ||
        strv_push(&v, "bundle") < 0 || strv_push(&v, "create") < 0 ||
        strv_push(&v, REVIEW_GIT_OUT "/" REVIEW_GIT_BUNDLE) < 0 || strv_push(&v, "HEAD") < 0 ||
        (exclude != NULL && strv_push(&v, exclude) < 0))
        return NULL;
    return steal_pointer(&v);
}

char **review_git_host_argv(const char *git_dir)
{
    _cleanup_(strv_freep) char **v = NULL;
    _cleanup_free_ char *dir = NULL;
    if (asprintf(&dir, "--git-dir=%s", git_dir) < 0)
        return NULL;
    if (strv_push(&v, "git") < 0 || strv_push(&v, dir) < 0 || push_settings(&v) < 0)
        return NULL;
    return steal_pointer(&v);
}

char **review_git_host_env(char *const *env)
{
    _cleanup_(strv_freep) char **v = NULL;
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        if (strncmp(env[i], "GIT_", 4) != 0 && strv_push(&v, env[i]) < 0)
            return NULL;
    if (strv_push(&v, "GIT_TERMINAL_PROMPT=0") < 0 || strv_push(&v, "GIT_CONFIG_NOSYSTEM=1") < 0)
        return NULL;
    return steal_pointer(&v);
}
