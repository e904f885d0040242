/* doctor's checks that read files (lib/host_check, lib/host_git) against
 * files the test writes, and the once-per-host note (lib/host_note). The
 * checks that need podman or the real host run in tests/e2e/015-doctor.bats. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/strv.h"
#include "config/host_check.h"
#include "config/host_git.h"
#include "config/host_note.h"

static char dir[] = "/tmp/test-host-check-XXXXXX";

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static char *file_with(const char *name, const char *text)
{
    char *path = NULL;
    assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

#define assert_contains(s, sub) do { \
        if ((s) == NULL || strstr((s), (sub)) == NULL) fail_msg("\"%s\" does not contain \"%s\"", (s), (sub)); \
    } while (0)

static void subids_by_name_or_uid_and_a_fix_past_every_range(void **state)
{
    (void)state;
    /* newuidmap and newgidmap: any executable of that name on PATH */
    char bin[256];
    snprintf(bin, sizeof(bin), "%s/bin", dir);
    mkdir(bin, 0755);
    free(file_with("bin/newuidmap", ""));
    free(file_with("bin/newgidmap", ""));
    char p1[300], p2[300];
    snprintf(p1, sizeof(p1), "%s/newuidmap", bin);
    snprintf(p2, sizeof(p2), "%s/newgidmap", bin);
    chmod(p1, 0755);
    chmod(p2, 0755);

    char *uid = file_with("subuid", "other:100000:65536\nalice:165536:65536\n");
    char *gid = file_with("subgid", "other:100000:65536\n1001:300000:65536\n");
    check_t c = {0};
    assert_int_equal(host_check_subids("alice", 1001, uid, gid, bin, &c), 0);
    assert_int_equal(c.level, CHECK_OK);
    check_clear(&c);

    /* bob has none: the fix adds a range past the last one in either file */
    assert_int_equal(host_check_subids("bob", 1002, uid, gid, bin, &c), 0);
    assert_int_equal(c.level, CHECK_FAIL);
    assert_string_equal(c.fix, "sudo usermod --add-subuids 365536-431071 --add-subgids 365536-431071 bob "
                               "&& podman system migrate");
    check_clear(&c);

    /* without newuidmap the ranges are no use */
    unlink(p1);
    assert_int_equal(host_check_subids("alice", 1001, uid, gid, bin, &c), 0);
    assert_int_equal(c.level, CHECK_FAIL);
    assert_contains(c.detail, "newuidmap");
    check_clear(&c);
    free(uid);
    free(gid);
}

static void tun_that_cannot_be_opened_or_is_missing_fails(void **state)
{
    (void)state;
    check_t c = {0};
    char path[300];
    snprintf(path, sizeof(path), "%s/no-tun", dir);
    assert_int_equal(host_check_tun(path, &c), 0);
    assert_int_equal(c.level, CHECK_FAIL);
    assert_string_equal(c.fix, "sudo modprobe tun");
    check_clear(&c);
    /* a regular file is not the device */
    char *plain = file_with("tun", "");
    assert_int_equal(host_check_tun(plain, &c), 0);
    assert_int_equal(c.level, CHECK_FAIL);
    check_clear(&c);
    free(plain);
    /* a character device you may open */
    assert_int_equal(host_check_tun("/dev/null", &c), 0);
    assert_int_equal(c.level, CHECK_OK);
    check_clear(&c);
}

static void crun_on_a_hybrid_cgroup_v1_host_fails_with_runc_as_the_fix(void **state)
{
    (void)state;
    char root[300], unified[350], conf[350];
    snprintf(root, sizeof(root), "%s/cgroup", dir);
    snprintf(unified, sizeof(unified), "%s/unified", root);
    snprintf(conf, sizeof(conf), "%s/containers/containers.conf", dir);
    mkdir(root, 0755);
    mkdir(unified, 0755);
    free(file_with("cgroup/unified/cgroup.controllers", "hugetlb\n"));
    check_t c = {0};
    assert_int_equal(host_check_cgroup_runtime(root, "v1", "crun", conf, &c), 0);
    assert_int_equal(c.level, CHECK_FAIL);
    char want[1024];
    snprintf(want, sizeof(want), "mkdir -p %s/containers && printf '[engine]\\nruntime = \"runc\"\\n' >>%s", dir, conf);
    assert_string_equal(c.fix, want);
    check_clear(&c);
    /* runc there, or crun on a pure v1 or on v2: fine */
    assert_int_equal(host_check_cgroup_runtime(root, "v1", "runc", conf, &c), 0);
    assert_int_equal(c.level, CHECK_OK);
    check_clear(&c);
    assert_int_equal(host_check_cgroup_runtime(root, "v2", "crun", conf, &c), 0);
    assert_int_equal(c.level, CHECK_OK);
    check_clear(&c);
    free(file_with("cgroup/unified/cgroup.controllers", "\n"));
    assert_int_equal(host_check_cgroup_runtime(root, "v1", "crun", conf, &c), 0);
    assert_int_equal(c.level, CHECK_OK);
    check_clear(&c);
}

static void vfs_storage_warns_and_says_how_to_move(void **state)
{
    (void)state;
    check_t c = {0};
    assert_int_equal(host_check_storage("overlay", "/nonexistent/storage.conf", &c), 0);
    assert_int_equal(c.level, CHECK_OK);
    check_clear(&c);
    char *conf = file_with("storage.conf", "[storage]\ndriver = \"vfs\"\n");
    assert_int_equal(host_check_storage("vfs", conf, &c), 0);
    assert_int_equal(c.level, CHECK_WARN);
    /* a file with content gets the key, not a second [storage] table */
    assert_contains(c.fix, "under [storage] in");
    assert_contains(c.fix, "podman system reset -f");
    check_clear(&c);
    free(conf);
}

static void podman_versions_tested_pass_older_fail_newer_warn(void **state)
{
    (void)state;
    check_t c = {0};
    assert_int_equal(host_check_podman_version("4.3.1", "4.3.1", "netavark", &c), 0);
    assert_int_equal(c.level, CHECK_OK);
    assert_contains(c.detail, "podman 4.3.1 (API 4.3.1, network backend netavark)");
    check_clear(&c);
    assert_int_equal(host_check_podman_version("5.4.2", "5.4.2", "netavark", &c), 0);
    assert_int_equal(c.level, CHECK_OK);
    check_clear(&c);
    assert_int_equal(host_check_podman_version("4.2.0", NULL, NULL, &c), 0);
    assert_int_equal(c.level, CHECK_WARN);
    assert_contains(c.detail, "tested with podman 4.3 and 5.4");
    check_clear(&c);
    assert_int_equal(host_check_podman_version("6.0.0-dev", NULL, NULL, &c), 0);
    assert_int_equal(c.level, CHECK_WARN);
    check_clear(&c);
    assert_int_equal(host_check_podman_version("3.4.4", NULL, NULL, &c), 0);
    assert_int_equal(c.level, CHECK_FAIL);
    assert_non_null(c.fix);
    check_clear(&c);
    assert_int_equal(host_check_podman_version(NULL, NULL, NULL, &c), 0);
    assert_int_equal(c.level, CHECK_FAIL);
    check_clear(&c);
}

static void rootless_network_tool_named_and_required(void **state)
{
    (void)state;
    check_t c = {0};
    /* podman 4 names no tool: slirp4netns */
    assert_int_equal(host_check_rootless_network(NULL, "/usr/bin/slirp4netns",
                                                 "slirp4netns version 1.2.0\ncommit: 656041d", &c), 0);
    assert_int_equal(c.level, CHECK_OK);
    assert_contains(c.detail, "slirp4netns (/usr/bin/slirp4netns, slirp4netns version 1.2.0)");
    check_clear(&c);
    assert_int_equal(host_check_rootless_network("pasta", "/usr/bin/pasta", "pasta 2025_03_20.32f6212-1\n", &c), 0);
    assert_int_equal(c.level, CHECK_OK);
    assert_contains(c.detail, "pasta (/usr/bin/pasta, pasta 2025_03_20.32f6212-1)");
    check_clear(&c);
    /* the tool podman asks for is missing: no router reaches upstream */
    assert_int_equal(host_check_rootless_network("pasta", "", "", &c), 0);
    assert_int_equal(c.level, CHECK_FAIL);
    assert_contains(c.fix, "passt");
    check_clear(&c);
    assert_int_equal(host_check_rootless_network(NULL, NULL, NULL, &c), 0);
    assert_int_equal(c.level, CHECK_FAIL);
    assert_contains(c.fix, "slirp4netns");
    check_clear(&c);
    assert_int_equal(host_check_rootless_network("vpnkit", "/x", NULL, &c), 0);
    assert_int_equal(c.level, CHECK_WARN);
    check_clear(&c);
}

static void unenforced_limits_warn_until_set_to_none(void **state)
{
    (void)state;
    limits_t lim = { .memory_bytes = 1LL << 30, .pids = 4096, .cpu_millis = 0 };
    cgroup_caps_t v1 = {0}, delegated = { .v2 = true, .memory = true, .pids = true, .cpu = true };
    check_t c = {0};
    assert_int_equal(host_check_limits(&lim, &v1, "/home/u/.config/agent-sandbox/limits", &c), 0);
    assert_int_equal(c.level, CHECK_WARN);
    assert_string_equal(c.fix, "printf 'memory none\\n' >>/home/u/.config/agent-sandbox/limits");
    check_clear(&c);
    assert_int_equal(host_check_limits(&lim, &delegated, "/x/limits", &c), 0);
    assert_int_equal(c.level, CHECK_OK);
    check_clear(&c);
    lim.memory_bytes = 0;
    assert_int_equal(host_check_limits(&lim, &v1, "/x/limits", &c), 0);
    assert_int_equal(c.level, CHECK_OK);
    check_clear(&c);
}

static void git_bare_repository_setting_last_protected_value_wins(void **state)
{
    (void)state;
    char *system = file_with("gitconfig", "[safe]\n\tbareRepository = explicit\n");
    char *global = file_with("global", "[user]\n\tname = x\n[safe]\n\tbarerepository = all\n");
    char *files[] = { system, global, NULL };
    check_t c = {0};
    assert_int_equal(host_check_git_bare(files, NULL, &c), 0);
    assert_int_equal(c.level, CHECK_WARN);
    assert_contains(c.detail, "is all in");
    assert_string_equal(c.fix, "git config --global safe.bareRepository explicit");
    check_clear(&c);
    /* the command line's variables come last */
    char *cmdline[] = { "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=safe.bareRepository",
                        "GIT_CONFIG_VALUE_0=Explicit", NULL };
    assert_int_equal(host_check_git_bare(files, cmdline, &c), 0);
    assert_int_equal(c.level, CHECK_OK);
    check_clear(&c);
    /* the system file alone; a missing file is skipped, as git does */
    char *only_system[] = { system, "/nonexistent/gitconfig", NULL };
    assert_int_equal(host_check_git_bare(only_system, NULL, &c), 0);
    assert_int_equal(c.level, CHECK_OK);
    check_clear(&c);
    /* unset, with an include this check does not follow */
    char *with_include = file_with("inc", "[include]\n\tpath = other\n");
    char *include_only[] = { with_include, NULL };
    assert_int_equal(host_check_git_bare(include_only, NULL, &c), 0);
    assert_int_equal(c.level, CHECK_WARN);
    assert_contains(c.detail, "not set");
    assert_contains(c.detail, "includes were not followed");
    check_clear(&c);
    free(system);
    free(global);
    free(with_include);
}

static void expect_files(char *const *envp, const char *want)
{
    char **files = NULL;
    as_error_t *err = NULL;
    assert_int_equal(host_git_config_files(envp, &files, &err), 0);
    char got[1024] = "";
    for (size_t i = 0; files[i] != NULL; i++)
        snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? " " : "", files[i]);
    assert_string_equal(got, want);
    strv_free(files);
}

/* The system file, then git_global_files (test_git_global.c checks those
 * against real git). */
static void git_config_files_follow_gits_environment(void **state)
{
    (void)state;
    char *plain[] = { "HOME=/home/u", NULL };
    expect_files(plain, "/etc/gitconfig /home/u/.config/git/config /home/u/.gitconfig");
    char *elsewhere[] = { "HOME=/home/u", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/elsewhere/config", NULL };
    expect_files(elsewhere, "/elsewhere/config");
    char *no_global[] = { "HOME=/home/u", "GIT_CONFIG_SYSTEM=/s", "GIT_CONFIG_GLOBAL=", NULL };
    expect_files(no_global, "/s");
    /* git's boolean: "no" and "0" keep the system file, "yes" and "2" drop it */
    char *keep[] = { "GIT_CONFIG_NOSYSTEM=no", "GIT_CONFIG_GLOBAL=", NULL };
    expect_files(keep, "/etc/gitconfig");
    char *keep0[] = { "GIT_CONFIG_NOSYSTEM=0", "GIT_CONFIG_GLOBAL=", NULL };
    expect_files(keep0, "/etc/gitconfig");
    char *drop[] = { "GIT_CONFIG_NOSYSTEM=Yes", "GIT_CONFIG_GLOBAL=/g", NULL };
    expect_files(drop, "/g");
    char *drop2[] = { "GIT_CONFIG_NOSYSTEM=2", "GIT_CONFIG_GLOBAL=/g", NULL };
    expect_files(drop2, "/g");
}

static void a_note_is_new_once_per_text(void **state)
{
    (void)state;
    char state_dir[300];
    snprintf(state_dir, sizeof(state_dir), "%s/state", dir);
    as_error_t *err = NULL;
    bool first = false;
    assert_int_equal(host_note_first(state_dir, "limits", "the memory limit cannot be applied", &first, &err), 0);
    assert_true(first);
    assert_int_equal(host_note_first(state_dir, "limits", "the memory limit cannot be applied", &first, &err), 0);
    assert_false(first);
    /* another text is news again */
    assert_int_equal(host_note_first(state_dir, "limits", "the CPU limit cannot be applied", &first, &err), 0);
    assert_true(first);
    /* an unwritable state directory: the note is shown, the error says why */
    assert_int_equal(host_note_first("/proc/nonexistent", "limits", "x", &first, &err) < 0, 1);
    assert_true(first);
    as_error_free(&err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(subids_by_name_or_uid_and_a_fix_past_every_range),
        cmocka_unit_test(tun_that_cannot_be_opened_or_is_missing_fails),
        cmocka_unit_test(crun_on_a_hybrid_cgroup_v1_host_fails_with_runc_as_the_fix),
        cmocka_unit_test(vfs_storage_warns_and_says_how_to_move),
        cmocka_unit_test(podman_versions_tested_pass_older_fail_newer_warn),
        cmocka_unit_test(rootless_network_tool_named_and_required),
        cmocka_unit_test(unenforced_limits_warn_until_set_to_none),
        cmocka_unit_test(git_bare_repository_setting_last_protected_value_wins),
        cmocka_unit_test(git_config_files_follow_gits_environment),
        cmocka_unit_test(a_note_is_new_once_per_text),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
