/* apply's git route, its pure half: the bundle's command in the container,
 * host git's settings (nothing planted runs) and environment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/strv.h"
#include "review/review_git.h"

#define HEAD40 "0123456789abcdef0123456789abcdef01234567"

/* The value of `-c KEY=...` in v, or NULL. */
static const char *setting(char **v, const char *key)
{
    size_t n = strlen(key);
    for (size_t i = 0; v[i] != NULL && v[i + 1] != NULL; i++)
        if (strcmp(v[i], "-c") == 0 && strncmp(v[i + 1], key, n) == 0 && v[i + 1][n] == '=')
            return v[i + 1] + n + 1;
    return NULL;
}

static void bundle_command_excludes_the_host_head(void **state)
{
    (void)state;
    char **v = review_git_bundle_argv("/home/u/my tree", HEAD40);
    assert_non_null(v);
    size_t n = strv_length(v);
    assert_string_equal(v[0], "git");
    assert_string_equal(v[n - 7], "-C");
    assert_string_equal(v[n - 6], "/home/u/my tree");
    assert_string_equal(v[n - 5], "bundle");
    assert_string_equal(v[n - 2], "HEAD");
    assert_string_equal(v[n - 1], "^" HEAD40);
    assert_string_equal(setting(v, "core.hooksPath"), "/dev/null");
    strv_free(v);
    v = review_git_bundle_argv("/t", NULL);
    assert_string_equal(v[strv_length(v) - 1], "HEAD");
    assert_string_equal(v[strv_length(v) - 2], "/out/agent.bundle");
    strv_free(v);
    /* a host HEAD that is no object name never reaches the command line */
    assert_null(review_git_bundle_argv("/t", "--upload-pack=x"));
    assert_null(review_git_bundle_argv("/t", "0123"));
}

static void host_git_runs_no_hook_or_helper(void **state)
{
    (void)state;
    char **v = review_git_host_argv("/home/u/tree/.git");
    assert_non_null(v);
    assert_string_equal(v[0], "git");
    assert_string_equal(v[1], "--git-dir=/home/u/tree/.git");
    assert_string_equal(setting(v, "core.hooksPath"), "/dev/null");
    assert_string_equal(setting(v, "core.fsmonitor"), "false");
    assert_string_equal(setting(v, "protocol.allow"), "never");
    assert_string_equal(setting(v, "protocol.file.allow"), "always");
    assert_string_equal(setting(v, "transfer.fsckObjects"), "true");
    assert_string_equal(setting(v, "credential.helper"), "");
    strv_free(v);
}

static void host_env_drops_git_variables(void **state)
{
    (void)state;
    char *env[] = { "HOME=/h", "GIT_DIR=/elsewhere", "GIT_CONFIG_PARAMETERS='core.hooksPath'='/x'", "PATH=/bin",
                    "GIT_CONFIG_COUNT=1", NULL };
    char **v = review_git_host_env(env);
    assert_non_null(v);
    assert_int_equal(strv_length(v), 4);
    assert_string_equal(v[0], "HOME=/h");
    assert_string_equal(v[1], "PATH=/bin");
    assert_string_equal(v[2], "GIT_TERMINAL_PROMPT=0");
    assert_string_equal(v[3], "GIT_CONFIG_NOSYSTEM=1");
    strv_free(v);
}

static void object_names(void **state)
{
    (void)state;
    assert_true(review_git_object_name(HEAD40));
    assert_true(review_git_object_name(HEAD40 "012345678901234567890123"));
    assert_false(review_git_object_name(HEAD40 HEAD40));
    assert_false(review_git_object_name("0123456789ABCDEF0123456789abcdef01234567"));
    assert_false(review_git_object_name(""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bundle_command_excludes_the_host_head),
        cmocka_unit_test(host_git_runs_no_hook_or_helper),
        cmocka_unit_test(host_env_drops_git_variables),
        cmocka_unit_test(object_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
