/* The settings file's git-identity switch (lib/user_settings.h; its agent
 * key is in test_agent_profile): on or off, a later line wins, errors name
 * the file and line. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "user_settings.h"

static int parse(const char *text, user_settings_t *s, char **ret_msg)
{
    as_error_t *err = NULL;
    int r = user_settings_parse("cfg", text, strlen(text), s, &err);
    *ret_msg = err != NULL ? strdup(err->msg) : NULL;
    as_error_free(&err);
    return r;
}

static void git_identity_switch(void **state)
{
    (void)state;
    user_settings_t s;
    char *msg = NULL;
    assert_int_equal(parse("", &s, &msg), 0);
    assert_false(s.git_identity_off);       /* on by default */
    assert_int_equal(parse("# comment\n\ngit-identity off   # mine stays out\r\nagent codex\n", &s, &msg), 0);
    assert_true(s.git_identity_off);
    assert_string_equal(s.agent, "codex");
    user_settings_clear(&s);
    assert_int_equal(parse("git-identity off\ngit-identity on\n", &s, &msg), 0);
    assert_false(s.git_identity_off);       /* a later line wins */
    user_settings_clear(&s);
}

static void errors_name_the_line(void **state)
{
    (void)state;
    static const struct { const char *text, *want; } bad[] = {
        { "git-identity\n", "cfg:1: expected \"KEY VALUE\"" },
        { "\ngit-identity no\n", "cfg:2: git-identity takes on or off, not `no`" },
        { "git-identity off extra\n", "cfg:1: expected" },
        { "git-identity off#x\n", "cfg:1: git-identity takes on or off" },
        { "git-identity\x01 off\n", "cfg:1:" },
        { "Git-identity off\n", "cfg:1: unknown setting `Git-identity` (the settings: agent, git-identity)" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        user_settings_t s;
        char *msg = NULL;
        assert_int_equal(parse(bad[i].text, &s, &msg), -EINVAL);
        if (strstr(msg, bad[i].want) == NULL)
            fail_msg("\"%s\" lacks \"%s\"", msg, bad[i].want);
        free(msg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(git_identity_switch),
        cmocka_unit_test(errors_name_the_line),
    };
    return cmocka_run_group_tests_name("settings", tests, NULL, NULL);
}
