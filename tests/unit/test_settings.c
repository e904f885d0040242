/* The settings file's `git-identity`, `notifications` and `autonomy` switches (lib/config/user_settings.h; its
 * `agent` key: test_agent_profile.c), its errors with file:line, and the
 * comment rule of every config file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "config/user_settings.h"

/* The switches of a settings text: bit 0 notifications, bit 1 git-identity, bit 2 autonomy. */
static unsigned switches_of(const char *text)
{
    user_settings_t s;
    as_error_t *err = NULL;
    if (user_settings_parse("settings", text, strlen(text), &s, &err) < 0)
        fail_msg("%s", err->msg);
    unsigned on = (s.notifications ? 1u : 0u) | (s.git_identity ? 2u : 0u) | (s.autonomy ? 4u : 0u);
    user_settings_clear(&s);
    return on;
}

static bool notifications_of(const char *text)
{
    return switches_of(text) & 1u;
}

static bool git_identity_of(const char *text)
{
    return switches_of(text) & 2u;
}

static void test_switches(void **state)
{
    (void)state;
    assert_true(notifications_of(""));                                       /* the default */
    assert_false(notifications_of("# my settings\nnotifications off   # quiet, please\n"));
    assert_true(notifications_of("notifications off\n\n  notifications\ton\r\n"));   /* a later line wins */
    assert_false(notifications_of("agent codex\nnotifications off\n"));     /* with the agent */
}

static void test_git_identity(void **state)
{
    (void)state;
    assert_true(git_identity_of(""));                                        /* the default */
    assert_false(git_identity_of("# comment\n\ngit-identity off   # mine stays out\r\nagent codex\n"));
    assert_true(git_identity_of("git-identity off\ngit-identity on\n"));      /* a later line wins */
    assert_true(git_identity_of("notifications off\n"));                     /* independent switches */
}

static bool autonomy_of(const char *text)
{
    return switches_of(text) & 4u;
}

static void test_autonomy(void **state)
{
    (void)state;
    assert_true(autonomy_of(""));                                            /* the default */
    assert_false(autonomy_of("autonomy off\n"));
    assert_true(autonomy_of("autonomy off\nautonomy on\n"));                  /* a later line wins */
    assert_false(autonomy_of("agent codex\nautonomy off\nnotifications off\n"));
    assert_true(autonomy_of("notifications off\ngit-identity off\n"));        /* independent switches */
}

static void test_errors(void **state)
{
    (void)state;
    const struct { const char *text, *msg; } bad[] = {
        { "notifications\n", "settings:1: expected \"KEY VALUE\"" },
        { "\nnotifications maybe\n", "settings:2: notifications is on or off" },
        { "notify off\n", "settings:1: unknown setting `notify` (the settings: agent, autonomy, git-identity, notifications)" },
        { "autonomy yes\n", "settings:1: autonomy is on or off" },
        { "autonomy\n", "settings:1: expected \"KEY VALUE\" (agent NAME, autonomy on|off," },
        { "\ngit-identity no\n", "settings:2: git-identity is on or off" },
        { "notifications off#x\n", "settings:1: notifications is on or off" },
        { "notifications off extra\n", "settings:1: expected \"KEY VALUE\"" },
        { "notifications \033off\n", "settings:1: a control character (0x1b)" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        user_settings_t s;
        as_error_t *err = NULL;
        assert_int_equal(user_settings_parse("settings", bad[i].text, strlen(bad[i].text), &s, &err), -EINVAL);
        if (strncmp(err->msg, bad[i].msg, strlen(bad[i].msg)) != 0)
            fail_msg("for `%s`: `%s`, not `%s`", bad[i].text, err->msg, bad[i].msg);
        as_error_free(&err);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_switches),
        cmocka_unit_test(test_git_identity),
        cmocka_unit_test(test_autonomy),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests_name("settings", tests, NULL, NULL);
}
