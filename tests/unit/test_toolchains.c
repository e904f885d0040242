/* The toolchains' set and image names (lib/images/toolchains.h): the rule
 * CONTRACTS and `make images` share. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/strv.h"
#include "images/toolchains.h"

static void check_image(const char *agent, char **names, const char *image, const char *command)
{
    as_error_t *err = NULL;
    char **set = NULL, *got = NULL, *cmd = NULL;
    assert_int_equal(toolchain_set(names, &set, &err), 0);
    assert_int_equal(toolchain_image(agent, set, "dev", &got, &err), 0);
    assert_string_equal(got, image);
    assert_int_equal(toolchain_build_command(agent, set, &cmd, &err), 0);
    assert_string_equal(cmd, command);
    free(got);
    free(cmd);
    strv_free(set);
}

static void test_image_names(void **state)
{
    (void)state;
    char *one[] = { "go", NULL };
    char *two[] = { "node", "go", NULL };
    char *repeats[] = { "rust", "node", "rust", "go", "node", NULL };
    check_image("claude", one, "localhost/agent-sandbox-claude-go:dev", "make images AGENTS=claude TOOLCHAINS=\"go\"");
    check_image("claude", two, "localhost/agent-sandbox-claude-go-node:dev",
                "make images AGENTS=claude TOOLCHAINS=\"go node\"");
    check_image("codex", repeats, "localhost/agent-sandbox-codex-go-node-rust:dev",
                "make images AGENTS=codex TOOLCHAINS=\"go node rust\"");
}

/* The compiled-in list is sorted, and each name in it is known. */
static void test_known(void **state)
{
    (void)state;
    for (size_t i = 0; toolchain_names[i] != NULL; i++) {
        assert_true(toolchain_known(toolchain_names[i]));
        if (i > 0)
            assert_true(strcmp(toolchain_names[i - 1], toolchain_names[i]) < 0);
    }
    assert_false(toolchain_known("cobol"));
    assert_false(toolchain_known(""));
    char *list = toolchain_known_list();
    assert_non_null(list);
    if (toolchain_names[0] != NULL)
        assert_non_null(strstr(list, toolchain_names[0]));
    else
        assert_string_equal(list, "none");
    free(list);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_image_names),
        cmocka_unit_test(test_known),
    };
    return cmocka_run_group_tests_name("toolchains", tests, NULL, NULL);
}
