/* The XDG rules of lib/user_dirs: config and state from XDG_* or HOME, the
 * runtime directory and its /run/user/UID fallback, and directory creation;
 * podman's rule for its own files, which the storage cache's key follows.
 * Each test sets the variables it reads. */
#include <setjmp.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <limits.h>
#include <pwd.h>

#include "base/user_dirs.h"
#include "podman/graphroot_cache.h"

#define assert_contains(s, sub) do { \
        if (strstr((s), (sub)) == NULL) fail_msg("\"%s\" does not contain \"%s\"", (s), (sub)); \
    } while (0)

static void set(const char *name, const char *value)
{
    if (value == NULL)
        unsetenv(name);
    else
        setenv(name, value, 1);
}

/* What user_config_dir or user_state_dir answers (or the storage cache's
 * key, graphroot_cache_key); fails the test on error. */
static char *dir_of(int (*fn)(char **, as_error_t **))
{
    char *dir = NULL;
    as_error_t *err = NULL;
    if (fn(&dir, &err) < 0)
        fail_msg("%s", err->msg);
    return dir;
}

static void config_and_state_follow_xdg_then_home(void **state)
{
    (void)state;
    static const struct {
        const char *xdg_config, *xdg_state, *config, *state;
    } cases[] = {
        { NULL, NULL, "/home/u/.config/agent-sandbox", "/home/u/.local/state/agent-sandbox" },
        { "/elsewhere/cfg", "/elsewhere/state", "/elsewhere/cfg/agent-sandbox", "/elsewhere/state/agent-sandbox" },
        /* relative or empty values are ignored, as the specification says */
        { "relative/cfg", "", "/home/u/.config/agent-sandbox", "/home/u/.local/state/agent-sandbox" },
        { "", "~/state", "/home/u/.config/agent-sandbox", "/home/u/.local/state/agent-sandbox" },
    };
    set("HOME", "/home/u");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        set("XDG_CONFIG_HOME", cases[i].xdg_config);
        set("XDG_STATE_HOME", cases[i].xdg_state);
        char *c = dir_of(user_config_dir), *s = dir_of(user_state_dir);
        assert_string_equal(c, cases[i].config);
        assert_string_equal(s, cases[i].state);
        free(c);
        free(s);
    }

    char *path = NULL;
    as_error_t *err = NULL;
    assert_int_equal(user_config_file("limits", &path, &err), 0);
    assert_string_equal(path, "/home/u/.config/agent-sandbox/limits");
    free(path);
}

static void no_home_no_xdg_is_an_error(void **state)
{
    (void)state;
    set("XDG_CONFIG_HOME", NULL);
    set("XDG_STATE_HOME", "state");
    set("HOME", NULL);
    char *dir = NULL;
    as_error_t *err = NULL;
    assert_int_equal(user_config_dir(&dir, &err), -ENOENT);
    assert_null(dir);
    assert_contains(err->msg, "neither XDG_CONFIG_HOME nor HOME");
    as_error_free(&err);
    set("HOME", "relative");
    assert_int_equal(user_state_dir(&dir, &err), -ENOENT);
    assert_contains(err->msg, "neither XDG_STATE_HOME nor HOME");
    as_error_free(&err);
    /* the XDG variable alone is enough */
    set("XDG_CONFIG_HOME", "/cfg");
    assert_int_equal(user_config_file("allowed-hosts", &dir, &err), 0);
    assert_string_equal(dir, "/cfg/agent-sandbox/allowed-hosts");
    free(dir);
}

/* A private temporary directory, removed by the caller. */
static char *temp_dir(void)
{
    char *dir = strdup("/tmp/as-user-dirs-XXXXXX");
    assert_non_null(dir);
    assert_non_null(mkdtemp(dir));
    return dir;
}

static void check_says(const char *path, uid_t uid, int code, const char *why)
{
    as_error_t *err = NULL;
    assert_int_equal(user_runtime_dir_check(path, uid, &err), -code);
    assert_non_null(err);
    assert_contains(err->msg, why);
    as_error_free(&err);
}

static void fallback_rule_is_podmans(void **state)
{
    (void)state;
    char *dir = temp_dir(), path[256];
    as_error_t *err = NULL;
    /* owner rwx and nobody else writes, as in podman 4.3 and later */
    static const mode_t good[] = { 0700, 0711, 0750, 0755 };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        assert_int_equal(chmod(dir, good[i]), 0);
        assert_int_equal(user_runtime_dir_check(dir, geteuid(), &err), 0);
        assert_null(err);
    }
    assert_int_equal(chmod(dir, 0770), 0);
    check_says(dir, geteuid(), EPERM, "it has mode 0770, not 0700");
    assert_int_equal(chmod(dir, 0757), 0);
    check_says(dir, geteuid(), EPERM, "it has mode 0757");
    assert_int_equal(chmod(dir, 0500), 0);
    check_says(dir, geteuid(), EPERM, "it has mode 0500");
    assert_int_equal(chmod(dir, 0700), 0);
    check_says(dir, geteuid() + 1, EPERM, "it belongs to uid");

    snprintf(path, sizeof(path), "%s/missing", dir);
    check_says(path, geteuid(), ENOENT, "it does not exist");
    snprintf(path, sizeof(path), "%s/file", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    check_says(path, geteuid(), ENOTDIR, "it is not a directory");
    unlink(path);
    /* a symlink to a good directory is followed, as podman's stat(2) does */
    snprintf(path, sizeof(path), "%s/link", dir);
    assert_int_equal(symlink(dir, path), 0);
    assert_int_equal(user_runtime_dir_check(path, geteuid(), &err), 0);
    unlink(path);
    rmdir(dir);
    free(dir);
}

static void set_runtime_dir_must_be_ours(void **state)
{
    (void)state;
    char *dir = temp_dir(), *got = NULL, path[256];
    bool fallback = true;
    as_error_t *err = NULL;
    set("XDG_RUNTIME_DIR", dir);
    assert_int_equal(user_runtime_dir(&got, &fallback, &err), 0);
    assert_string_equal(got, dir);
    assert_false(fallback);
    free(got);
    got = NULL;

    set("XDG_RUNTIME_DIR", "run/user/1000");
    assert_int_equal(user_runtime_dir(&got, NULL, &err), -EINVAL);
    assert_contains(err->msg, "XDG_RUNTIME_DIR=run/user/1000 is not an absolute path");
    assert_contains(err->msg, "point it at a directory of yours");
    as_error_free(&err);

    snprintf(path, sizeof(path), "%s/gone", dir);
    set("XDG_RUNTIME_DIR", path);
    assert_int_equal(user_runtime_dir(&got, NULL, &err), -ENOENT);
    assert_contains(err->msg, "cannot be used: No such file or directory");
    as_error_free(&err);

    if (geteuid() != 0) {
        /* another user's, as after `su` without `-` */
        set("XDG_RUNTIME_DIR", "/");
        assert_int_equal(user_runtime_dir(&got, NULL, &err), -EPERM);
        assert_contains(err->msg, "XDG_RUNTIME_DIR=/ belongs to uid 0, not to you");
        as_error_free(&err);
    }
    assert_null(got);
    rmdir(dir);
    free(dir);
}

/* Unset: /run/user/UID when podman's rule accepts it, else the error that
 * names the variable and the fix. Which one depends on this machine; the
 * answer must agree with user_runtime_dir_check() either way. */
static void unset_runtime_dir_falls_back_or_says_how(void **state)
{
    (void)state;
    char expected[64], *got = NULL;
    snprintf(expected, sizeof(expected), "/run/user/%u", (unsigned)geteuid());
    as_error_t *err = NULL, *why = NULL;
    bool usable = user_runtime_dir_check(expected, geteuid(), &why) == 0;
    bool fallback = false;
    static const char *const unset[] = { NULL, "" };
    for (size_t i = 0; i < 2; i++) {
        set("XDG_RUNTIME_DIR", unset[i]);
        int r = user_runtime_dir(&got, &fallback, &err);
        if (usable) {
            assert_int_equal(r, 0);
            assert_string_equal(got, expected);
            assert_true(fallback);
            free(got);
            got = NULL;
        } else {
            assert_true(r < 0);
            assert_null(got);
            assert_contains(err->msg, "XDG_RUNTIME_DIR is not set, and ");
            assert_contains(err->msg, why->msg);
            assert_contains(err->msg, "sudo install -d -m 0700 -o ");
            as_error_free(&err);
        }
    }
    as_error_free(&why);
}

static void create_makes_missing_parents_private(void **state)
{
    (void)state;
    char *dir = temp_dir(), path[256], deep[256];
    as_error_t *err = NULL;
    struct stat st;
    assert_int_equal(chmod(dir, 0755), 0);
    snprintf(path, sizeof(path), "%s/a/b/", dir);
    snprintf(deep, sizeof(deep), "%s/a/b/c", dir);
    assert_int_equal(user_dir_create(deep, &err), 0);
    assert_int_equal(stat(deep, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0700);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0700);
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0755);   /* an existing one is left alone */
    assert_int_equal(user_dir_create(deep, &err), 0);   /* and again: nothing to do */

    assert_int_equal(user_dir_create("relative/x", &err), -EINVAL);
    as_error_free(&err);
    snprintf(path, sizeof(path), "%s/file", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(deep, sizeof(deep), "%s/file/x", dir);
    assert_int_equal(user_dir_create(deep, &err), -ENOTDIR);
    assert_contains(err->msg, "/file/x");
    as_error_free(&err);

    unlink(path);
    snprintf(path, sizeof(path), "%s/a/b/c", dir);
    rmdir(path);
    snprintf(path, sizeof(path), "%s/a/b", dir);
    rmdir(path);
    snprintf(path, sizeof(path), "%s/a", dir);
    rmdir(path);
    rmdir(dir);
    free(dir);
}

/* podman reads its storage.conf under any XDG_CONFIG_HOME that is set, a
 * relative one too, and under the password database's home when HOME is
 * empty: the cache's key follows podman's rule, so that a cached storage
 * location is never one podman would not use now. */
static void the_storage_cache_follows_podmans_rule(void **state)
{
    (void)state;
    set("HOME", "/home/u");
    set("XDG_CONFIG_HOME", "relative/a");
    char *a = dir_of(graphroot_cache_key);
    set("XDG_CONFIG_HOME", "relative/b");
    char *b = dir_of(graphroot_cache_key);
    if (strcmp(a, b) == 0)
        fail_msg("two storage.conf files podman would read, one key:\n%s", a);
    set("XDG_CONFIG_HOME", NULL);
    set("HOME", "");
    char *empty = dir_of(graphroot_cache_key), want[PATH_MAX + 64];
    const struct passwd *pw = getpwuid(getuid());
    assert_non_null(pw);
    snprintf(want, sizeof(want), "\n%s/.config/containers/storage.conf ", pw->pw_dir);
    assert_contains(empty, want);
    free(a);
    free(b);
    free(empty);
}

static void podmans_own_files_by_its_rule(void **state)
{
    (void)state;
    set("HOME", "/home/u");
    set("XDG_CONFIG_HOME", "relative/cfg");
    char *p = user_podman_config_file("containers/storage.conf");
    assert_string_equal(p, "relative/cfg/containers/storage.conf");
    free(p);
    set("XDG_CONFIG_HOME", "");
    p = user_podman_config_file("containers/containers.conf");
    assert_string_equal(p, "/home/u/.config/containers/containers.conf");
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(config_and_state_follow_xdg_then_home),
        cmocka_unit_test(no_home_no_xdg_is_an_error),
        cmocka_unit_test(fallback_rule_is_podmans),
        cmocka_unit_test(set_runtime_dir_must_be_ours),
        cmocka_unit_test(unset_runtime_dir_falls_back_or_says_how),
        cmocka_unit_test(create_makes_missing_parents_private),
        cmocka_unit_test(the_storage_cache_follows_podmans_rule),
        cmocka_unit_test(podmans_own_files_by_its_rule),
    };
    return cmocka_run_group_tests_name("user_dirs", tests, NULL, NULL);
}
