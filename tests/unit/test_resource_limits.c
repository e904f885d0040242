/* Resource limit values and the limits file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config/resource_limits.h"

static void sizes(void **state)
{
    (void)state;
    long long v = 0;
    as_error_t *err = NULL;
    assert_int_equal(limits_parse_memory("8G", "m", &v, &err), 0);
    assert_int_equal(v, 8LL << 30);
    assert_int_equal(limits_parse_memory("512m", "m", &v, &err), 0);
    assert_int_equal(v, 512LL << 20);
    assert_int_equal(limits_parse_memory("2GiB", "m", &v, &err), 0);
    assert_int_equal(v, 2LL << 30);
    assert_int_equal(limits_parse_memory("none", "m", &v, &err), 0);
    assert_int_equal(v, 0);
    static const char *const bad[] = { "", "-1G", "8X", "G", "8 G", "1k", "99999999999T", "0", NULL };
    for (size_t i = 0; bad[i] != NULL; i++) {
        assert_true(limits_parse_memory(bad[i], "--memory", &v, &err) < 0);
        assert_non_null(strstr(err->msg, "--memory"));
        as_error_free(&err);
    }
}

static void pids_and_cpus(void **state)
{
    (void)state;
    long long v = 0;
    as_error_t *err = NULL;
    assert_int_equal(limits_parse_pids("4096", "p", &v, &err), 0);
    assert_int_equal(v, 4096);
    assert_true(limits_parse_pids("10", "p", &v, &err) < 0);
    as_error_free(&err);
    assert_true(limits_parse_pids("12a", "p", &v, &err) < 0);
    as_error_free(&err);
    assert_int_equal(limits_parse_cpus("1.5", "c", &v, &err), 0);
    assert_int_equal(v, 1500);
    assert_int_equal(limits_parse_cpus("2", "c", &v, &err), 0);
    assert_int_equal(v, 2000);
    assert_int_equal(limits_parse_cpus("0.25", "c", &v, &err), 0);
    assert_int_equal(v, 250);
    static const char *const bad[] = { "", ".5", "1.2345", "0", "x", "-1", "1e3", NULL };
    for (size_t i = 0; bad[i] != NULL; i++) {
        assert_true(limits_parse_cpus(bad[i], "c", &v, &err) < 0);
        as_error_free(&err);
    }
}

static void file_overrides_and_names_lines(void **state)
{
    (void)state;
    limits_t lim = { .memory_bytes = 1, .pids = 2, .cpu_millis = 3 };
    as_error_t *err = NULL;
    const char *text = "# mine\nmemory 4G  # half\n\npids none\r\ncpus 2\n";
    assert_int_equal(limits_parse_file("limits", text, strlen(text), &lim, &err), 0);
    assert_int_equal(lim.memory_bytes, 4LL << 30);
    assert_int_equal(lim.pids, 0);
    assert_int_equal(lim.cpu_millis, 2000);
    static const struct { const char *text, *message; } bad[] = {
        { "memory 4G\nswap 1G\n", "limits:2: unknown limit \"swap\" (memory, pids or cpus)" },
        { "pids 1 2\n", "limits:1: expected \"NAME VALUE\" (memory, pids or cpus)" },
        { "\n\ncpus lots\n", "limits:3: cpus: \"lots\" is not a number of CPUs such as 2 or 0.5, or none" },
        { "memory\n", "limits:1: expected \"NAME VALUE\" (memory, pids or cpus)" },
        { "pids 4096\x1b\n", "limits:1: a control character (0x1b)" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_true(limits_parse_file("limits", bad[i].text, strlen(bad[i].text), &lim, &err) < 0);
        assert_string_equal(err->msg, bad[i].message);
        as_error_free(&err);
    }
    static const char nul[] = "cpus 2\npids 1\0 24\n";
    assert_true(limits_parse_file("limits", nul, sizeof(nul) - 1, &lim, &err) < 0);
    assert_string_equal(err->msg, "limits:2: a NUL byte; a config file is text");
    as_error_free(&err);
}

/* The comment rule of every config file (lib/base/config_lines.h): a # starts a
 * comment at the start of a line or after a blank, nowhere else. */
static void limits_comment_rule(void **state)
{
    (void)state;
    limits_t lim = {0};
    as_error_t *err = NULL;
    const char *text = "#memory 1G\n  # pids 64\ncpus 1.5\t#cpus 3\nmemory 2G # 4G\n";
    assert_int_equal(limits_parse_file("limits", text, strlen(text), &lim, &err), 0);
    assert_int_equal(lim.memory_bytes, 2LL << 30);
    assert_int_equal(lim.cpu_millis, 1500);
    assert_int_equal(lim.pids, 0);
    text = "memory 2G#4G\n";
    assert_true(limits_parse_file("limits", text, strlen(text), &lim, &err) < 0);
    assert_string_equal(err->msg, "limits:1: memory: \"2G#4G\" is not a size such as 512M or 8G, or none");
    as_error_free(&err);
}

static void unapplied_limits_are_named(void **state)
{
    (void)state;
    limits_t lim = { .memory_bytes = 1LL << 30, .pids = 4096, .cpu_millis = 0 };
    cgroup_caps_t none = {0}, all = { .v2 = true, .memory = true, .pids = true, .cpu = true };
    char *note = limits_unapplied(&lim, &none, "/home/a/.config/agent-sandbox/limits");
    assert_non_null(note);
    assert_non_null(strstr(note, "memory limit cannot be applied"));
    assert_non_null(strstr(note, "cgroup v1"));
    assert_non_null(strstr(note, "RLIMIT_NPROC"));
    assert_non_null(strstr(note, "Set `memory none` in /home/a/.config/agent-sandbox/limits to silence"));
    free(note);
    assert_null(limits_unapplied(&lim, &all, "limits"));
    lim.memory_bytes = 0;
    assert_null(limits_unapplied(&lim, &none, "limits"));   /* nothing asked for that cannot be had */
    limits_t d;
    limits_defaults(&d);
    assert_true(d.memory_bytes > 0);
    assert_int_equal(d.pids, 4096);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sizes),
        cmocka_unit_test(pids_and_cpus),
        cmocka_unit_test(file_overrides_and_names_lines),
        cmocka_unit_test(limits_comment_rule),
        cmocka_unit_test(unapplied_limits_are_named),
    };
    return cmocka_run_group_tests_name("resource_limits", tests, NULL, NULL);
}
