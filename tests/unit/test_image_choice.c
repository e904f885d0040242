/* The session's image choice (lib/config/image_choice.h): its order, the
 * reason shown, what builds a missing image, and which refusals are the
 * request's fault. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/image_choice.h"

static const image_request_t base = {
    .agent = "claude",
    .agent_image = "localhost/agent-sandbox-claude",
    .tag = "dev",
    .settings_path = "/home/u/.config/agent-sandbox/settings",
};

/* The settings of `text` as a session in /src/web would see them. */
static user_settings_t settings_of(const char *text)
{
    user_settings_t s = USER_SETTINGS_DEFAULTS;
    as_error_t *err = NULL;
    assert_int_equal(user_settings_parse_at("settings", text, strlen(text), "/src/web", NULL, &s, &err), 0);
    return s;
}

static void expect(const image_request_t *req, image_kind_t kind, const char *ref, const char *reason,
                   const char *build)
{
    image_choice_t c;
    as_error_t *err = NULL;
    assert_int_equal(image_choose(req, &c, &err), 0);
    assert_null(err);
    assert_int_equal(c.kind, kind);
    assert_string_equal(c.ref, ref);
    assert_string_equal(c.reason, reason);
    if (build == NULL)
        assert_null(c.build);
    else
        assert_string_equal(c.build, build);
    image_choice_clear(&c);
}

static void expect_refused(const image_request_t *req, image_refusal_t refusal, const char *message)
{
    image_choice_t c;
    as_error_t *err = NULL;
    assert_true(image_choose(req, &c, &err) < 0);
    assert_int_equal(c.refusal, refusal);
    assert_non_null(err);
    assert_string_equal(err->msg, message);
    as_error_free(&err);
    image_choice_clear(&c);
}

static void test_the_agents_own_image_by_default(void **state)
{
    (void)state;
    expect(&base, IMAGE_AGENT, "localhost/agent-sandbox-claude:dev", "the image of the agent claude", NULL);
}

static void test_options_come_first(void **state)
{
    (void)state;
    user_settings_t s = settings_of("toolchain rust\n");
    char *tc[] = { "node", "go", NULL };
    image_request_t req = base;
    req.settings = &s;
    req.env_image = "example.test/any:1";
    req.option_toolchains = tc;
    expect(&req, IMAGE_TOOLCHAIN, "localhost/agent-sandbox-claude-go-node:dev", "--toolchain node --toolchain go",
           "make images AGENTS=claude TOOLCHAINS=\"go node\"");
    req.option_toolchains = NULL;
    req.option_image = "web";
    expect(&req, IMAGE_DERIVED, "localhost/agent-sandbox-user/web:dev", "--image web",
           "agent-sandbox image build web");
    user_settings_clear(&s);
}

static void test_the_variable_before_the_settings(void **state)
{
    (void)state;
    user_settings_t s = settings_of("image web\n");
    image_request_t req = base;
    req.settings = &s;
    req.env_image = "example.test/any:1";
    expect(&req, IMAGE_ENV, "example.test/any:1", "AGENT_SANDBOX_IMAGE", NULL);
    user_settings_clear(&s);
}

/* The more specific line wins; of two as specific, the later. */
static void test_the_settings_line_that_wins(void **state)
{
    (void)state;
    image_request_t req = base;
    user_settings_t s = settings_of("in /src/web toolchain go\nimage web\n");
    req.settings = &s;
    expect(&req, IMAGE_TOOLCHAIN, "localhost/agent-sandbox-claude-go:dev",
           "/home/u/.config/agent-sandbox/settings:1: toolchain", "make images AGENTS=claude TOOLCHAINS=\"go\"");
    user_settings_clear(&s);
    s = settings_of("toolchain go\nimage web\n");
    expect(&req, IMAGE_DERIVED, "localhost/agent-sandbox-user/web:dev",
           "/home/u/.config/agent-sandbox/settings:2: image", "agent-sandbox image build web");
    user_settings_clear(&s);
    s = settings_of("image web\ntoolchain none\n");
    expect(&req, IMAGE_AGENT, "localhost/agent-sandbox-claude:dev",
           "/home/u/.config/agent-sandbox/settings:2: toolchain: the agent's own image", NULL);
    user_settings_clear(&s);
}

static void test_refusals_name_their_cause(void **state)
{
    (void)state;
    image_request_t req = base;
    req.option_image = "Not/A/Name";
    expect_refused(&req, IMAGE_REFUSED_NAME,
                   "--image Not/A/Name: `Not/A/Name` is not an image's name (lower-case letters, digits, - and _)");
    user_settings_t s = settings_of("toolchain go cobol\n");
    req = base;
    req.settings = &s;
    expect_refused(&req, IMAGE_REFUSED_SETTINGS,
                   "/home/u/.config/agent-sandbox/settings:1: toolchain cobol: no such toolchain "
                   "(the toolchains: go, java, node, python, rust)");
    user_settings_clear(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_agents_own_image_by_default),
        cmocka_unit_test(test_options_come_first),
        cmocka_unit_test(test_the_variable_before_the_settings),
        cmocka_unit_test(test_the_settings_line_that_wins),
        cmocka_unit_test(test_refusals_name_their_cause),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
