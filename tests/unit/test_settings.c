/* settings: the settings file's switches, its errors with file:line, and
 * the comment rule of every config file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "settings.h"

static void test_switches(void **state)
{
    (void)state;
    settings_t s;
    settings_defaults(&s);
    assert_true(s.notifications);
    as_error_t *err = NULL;
    const char *text = "# my settings\nnotifications off   # quiet, please\n";
    assert_int_equal(settings_parse("settings", text, strlen(text), &s, &err), 0);
    assert_false(s.notifications);
    text = "notifications off\n\n  notifications\ton\r\n";       /* a later line wins; blanks */
    assert_int_equal(settings_parse("settings", text, strlen(text), &s, &err), 0);
    assert_true(s.notifications);
}

static void test_errors(void **state)
{
    (void)state;
    const struct { const char *text, *msg; } bad[] = {
        { "notifications\n", "settings:1: expected a setting and its value" },
        { "\nnotifications maybe\n", "settings:2: notifications is on or off" },
        { "notify off\n", "settings:1: `notify` is not a setting (known: notifications)" },
        { "notifications off#x\n", "settings:1: notifications is on or off" },
        { "notifications off extra\n", "settings:1: expected a setting and its value" },
        { "notifications \033off\n", "settings:1: a control character (0x1b)" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        settings_t s;
        settings_defaults(&s);
        as_error_t *err = NULL;
        assert_int_equal(settings_parse("settings", bad[i].text, strlen(bad[i].text), &s, &err), -EINVAL);
        if (strcmp(err->msg, bad[i].msg) != 0 && strncmp(err->msg, bad[i].msg, strlen(bad[i].msg)) != 0)
            fail_msg("for `%s`: `%s`, not `%s`", bad[i].text, err->msg, bad[i].msg);
        as_error_free(&err);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_switches),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests_name("settings", tests, NULL, NULL);
}
