/* The settings file's `git-identity`, `notifications` and `autonomy` switches (lib/config/user_settings.h; its
 * `agent` key: test_agent_profile.c), its errors with file:line, and the
 * comment rule of every config file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config/user_settings.h"

/* The switches of a settings text: bit 0 notifications, bit 1 git-identity, bit 2 autonomy,
 * bit 3 review. */
static unsigned switches_of(const char *text)
{
    user_settings_t s;
    as_error_t *err = NULL;
    if (user_settings_parse("settings", text, strlen(text), &s, &err) < 0)
        fail_msg("%s", err->msg);
    unsigned on = (s.notifications ? 1u : 0u) | (s.git_identity ? 2u : 0u) | (s.autonomy ? 4u : 0u) |
                 (s.review ? 8u : 0u);
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

/* review mode: off unless the settings say on (docs/review.md) */
static void test_review(void **state)
{
    (void)state;
    assert_int_equal(switches_of("") & 8u, 0);
    assert_int_equal(switches_of("review on\n") & 8u, 8u);
    assert_int_equal(switches_of("review on\nreview off\n") & 8u, 0);
    user_settings_t s;
    as_error_t *err = NULL;
    const char *text = "in /a review on\n";
    assert_int_equal(user_settings_parse_at("settings", text, strlen(text), "/a/b", NULL, &s, &err), 0);
    assert_true(s.review);
    user_settings_clear(&s);
    assert_int_equal(user_settings_parse_at("settings", text, strlen(text), "/b", NULL, &s, &err), 0);
    assert_false(s.review);
    user_settings_clear(&s);
}

static void test_errors(void **state)
{
    (void)state;
    const struct { const char *text, *msg; } bad[] = {
        { "notifications\n", "settings:1: expected \"KEY VALUE\"" },
        { "\nnotifications maybe\n", "settings:2: notifications is on or off" },
        { "notify off\n", "settings:1: unknown setting `notify` (the settings: agent, autonomy, git-identity, image, notifications, review, toolchain)" },
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

/* The image a settings text gives in launch directory `dir` ("-" when none). */
static char image_buf[128];
static const char *image_in(const char *text, const char *dir)
{
    user_settings_t s;
    as_error_t *err = NULL;
    if (user_settings_parse_at("settings", text, strlen(text), dir, "/home/me", &s, &err) < 0)
        fail_msg("%s", err->msg);
    snprintf(image_buf, sizeof(image_buf), "%s", s.image != NULL ? s.image : "-");
    user_settings_clear(&s);
    return image_buf;
}

static void test_in_dir(void **state)
{
    (void)state;
    const char *text = "image global\n"
                       "in /src image src\n"
                       "in /src/web image web\n"
                       "in \"/src/My Projects\" image quoted\n"
                       "in ~/work/ image tilde\n"
                       "in /src/web image web2\n";
    assert_string_equal(image_in(text, "/elsewhere"), "global");
    assert_string_equal(image_in(text, "/src"), "src");
    assert_string_equal(image_in(text, "/src/web"), "web2");           /* later among equals */
    assert_string_equal(image_in(text, "/src/web/app/x"), "web2");     /* below DIR */
    assert_string_equal(image_in(text, "/src/website"), "src");        /* a prefix string, not a parent */
    assert_string_equal(image_in(text, "/src/My Projects/a"), "quoted");
    assert_string_equal(image_in(text, "/home/me/work"), "tilde");     /* ~/ and a trailing slash */
    assert_string_equal(image_in(text, "/home/me/workshop"), "global");
    assert_string_equal(image_in(text, NULL), "global");
    /* the longest DIR wins whatever the order; no `in` is the shortest */
    assert_string_equal(image_in("in /src/web image web\nin /src image src\nimage global\n", "/src/web"), "web");
    assert_string_equal(image_in("in / image root\nimage global\n", "/x"), "root");
    assert_string_equal(image_in("", "/x"), "-");
}

/* Every key works under `in`, with no code of its own: the switches too. */
static void test_in_any_key(void **state)
{
    (void)state;
    const char *text = "notifications off\nin /a notifications on\nin /a/b git-identity off\n"
                       "toolchain go\nin /a toolchain node go\nin /b toolchain none\n";
    user_settings_t s;
    as_error_t *err = NULL;
    assert_int_equal(user_settings_parse_at("settings", text, strlen(text), "/a/b", NULL, &s, &err), 0);
    assert_true(s.notifications);
    assert_false(s.git_identity);
    assert_string_equal(s.toolchains[0], "node");
    assert_string_equal(s.toolchains[1], "go");
    assert_null(s.toolchains[2]);
    assert_int_equal(user_settings_origin(&s, "toolchain")->line, 5);
    assert_int_equal(user_settings_origin(&s, "toolchain")->rank, 3);
    assert_int_equal(user_settings_origin(&s, "notifications")->rank, 3);
    assert_null(user_settings_origin(&s, "image"));
    user_settings_clear(&s);
    assert_int_equal(user_settings_parse_at("settings", text, strlen(text), "/b", NULL, &s, &err), 0);
    assert_non_null(s.toolchains);
    assert_null(s.toolchains[0]);                                      /* none */
    assert_false(s.notifications);
    user_settings_clear(&s);
}

static void test_in_errors(void **state)
{
    (void)state;
    const struct { const char *text, *msg; } bad[] = {
        { "in src image x\n", "settings:1: in: DIR must be an absolute path or start with ~/" },
        { "\nin ./src image x\n", "settings:2: in: DIR must be an absolute path" },
        { "in ~ image x\n", "settings:1: in: DIR must be an absolute path" },
        { "in \"/a b image x\n", "settings:1: in: the quote of DIR is not closed" },
        { "in /a\n", "settings:1: in DIR: a setting must follow" },
        { "in ~/x image y\n", "settings:1: in: ~/ cannot be expanded" },
        /* a line that does not apply here is checked all the same */
        { "in /nowhere image Bad\n", "settings:1: image `Bad` is not an image's name" },
        { "in /nowhere notify on\n", "settings:1: unknown setting `notify`" },
        { "toolchain go none\n", "settings:1: toolchain `none` is not a toolchain's name" },
        { "toolchain Go\n", "settings:1: toolchain `Go` is not a toolchain's name" },
        { "image a b\n", "settings:1: expected \"KEY VALUE\"" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        user_settings_t s;
        as_error_t *err = NULL;
        assert_int_equal(user_settings_parse_at("settings", bad[i].text, strlen(bad[i].text), "/a", NULL, &s, &err),
                         -EINVAL);
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
        cmocka_unit_test(test_review),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_in_dir),
        cmocka_unit_test(test_in_any_key),
        cmocka_unit_test(test_in_errors),
    };
    return cmocka_run_group_tests_name("settings", tests, NULL, NULL);
}
