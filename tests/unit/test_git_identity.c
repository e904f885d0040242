/* The git identity for the sandbox: only user.name and user.email out of
 * the global config files (which files: test_git_global.c, against real
 * git), and the system config the sandbox gets (escaped, or refused). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/strv.h"
#include "config/git_config.h"
#include "config/git_identity.h"

static git_identity_t parsed(const char *text, int want_rc)
{
    git_identity_t id = { NULL, NULL };
    as_error_t *err = NULL;
    int r = git_identity_parse("cfg", text, strlen(text), &id, &err);
    if (r != want_rc)
        fail_msg("parse returned %d (%s)", r, err ? err->msg : "");
    as_error_free(&err);
    return id;
}

static void only_the_two_keys(void **state)
{
    (void)state;
    git_identity_t id = parsed(
        "[include]\n\tpath = /elsewhere\n"
        "[alias]\n\tx = !touch /tmp/pwned\n"
        "[credential]\n\thelper = store\n"
        "[User]\n\tName = First\n"
        "[user \"sub\"]\n\tname = not this one\n"
        "[user]\n\tname = \"Ada \\\"L\\\" \\\\o/\" ; a comment\n\temail = ada@example.test\n", 0);
    assert_string_equal(id.name, "Ada \"L\" \\o/");
    assert_string_equal(id.email, "ada@example.test");
    git_identity_clear(&id);

    /* a key without a value unsets it, as git's boolean form does */
    id = parsed("[user]\n\tname = A\n\tname\n", 0);
    assert_null(id.name);
    git_identity_clear(&id);
}

static void bad_text_names_the_line(void **state)
{
    (void)state;
    git_identity_t id = { strdup("Kept"), NULL };
    as_error_t *err = NULL;
    const char *text = "[user]\n\tname = B\n\temail = \"a\\q\"\n";   /* an escape git refuses */
    assert_int_equal(git_identity_parse("~/.gitconfig", text, strlen(text), &id, &err), -EINVAL);
    assert_non_null(strstr(err->msg, "~/.gitconfig:3:"));
    assert_string_equal(id.name, "Kept");          /* nothing of a bad file is taken */
    as_error_free(&err);
    git_identity_clear(&id);
}

/* Later files win; a missing one is skipped; a bad one fails naming it. */
static void read_in_order(void **state)
{
    (void)state;
    char dir[] = "/tmp/as-test-gitid-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char xdg[sizeof(dir) + 16], home[sizeof(dir) + 16], missing[sizeof(dir) + 16];
    snprintf(xdg, sizeof(xdg), "%s/xdg", dir);
    snprintf(home, sizeof(home), "%s/home", dir);
    snprintf(missing, sizeof(missing), "%s/missing", dir);
    FILE *f = fopen(xdg, "w");
    fputs("[user]\n\tname = From XDG\n\temail = xdg@example.test\n", f);
    fclose(f);
    f = fopen(home, "w");
    fputs("[user]\n\tname = From Home\n", f);
    fclose(f);
    char *paths[] = { xdg, missing, home, NULL };
    git_identity_t id = { NULL, NULL };
    as_error_t *err = NULL;
    assert_int_equal(git_identity_read(paths, &id, &err), 0);
    assert_string_equal(id.name, "From Home");
    assert_string_equal(id.email, "xdg@example.test");
    git_identity_clear(&id);

    f = fopen(home, "w");
    fputs("[user]\n\tname = \"unterminated\n", f);
    fclose(f);
    assert_int_equal(git_identity_read(paths, &id, &err), -EINVAL);
    assert_non_null(strstr(err->msg, home));
    assert_null(id.name);
    as_error_free(&err);
    unlink(xdg);
    unlink(home);
    rmdir(dir);
}

static int find(void *ctx, const char *key, const char *value)
{
    git_identity_t *id = ctx;
    if (strcmp(key, "user.name") == 0)
        id->name = strdup(value);
    else if (strcmp(key, "user.email") == 0)
        id->email = strdup(value);
    else
        fail_msg("a key besides user.name and user.email: %s", key);
    return 0;
}

/* What the sandbox gets reads back, with git's syntax, as what went in. */
static void rendered_round_trip(void **state)
{
    (void)state;
    git_identity_t id = { "Ada \"L\" \\o/ # ; x", "a@b.test" };
    char *text = NULL;
    as_error_t *err = NULL;
    assert_int_equal(git_identity_render(&id, &text, &err), 0);
    git_identity_t back = { NULL, NULL };
    assert_int_equal(git_config_parse(text, strlen(text), find, &back, NULL), 0);
    assert_string_equal(back.name, id.name);
    assert_string_equal(back.email, id.email);
    git_identity_clear(&back);
    free(text);

    git_identity_t none = { NULL, NULL };
    assert_int_equal(git_identity_render(&none, &text, &err), 0);
    assert_null(text);

    git_identity_t only_email = { NULL, "a@b.test" };
    assert_int_equal(git_identity_render(&only_email, &text, &err), 0);
    assert_null(strstr(text, "name ="));
    free(text);

    static const char *const bad[] = { "a\nb", "a\rb", "tab\there", "del\x7f" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        git_identity_t b = { (char *)bad[i], NULL };
        assert_int_equal(git_identity_render(&b, &text, &err), -EINVAL);
        assert_non_null(strstr(err->msg, "user.name"));
        as_error_free(&err);
    }
    char long_email[GIT_IDENTITY_VALUE_MAX + 2];
    memset(long_email, 'e', sizeof(long_email) - 1);
    long_email[sizeof(long_email) - 1] = '\0';
    git_identity_t l = { "ok", long_email };
    assert_int_equal(git_identity_render(&l, &text, &err), -EINVAL);
    assert_non_null(strstr(err->msg, "user.email"));
    as_error_free(&err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(only_the_two_keys),
        cmocka_unit_test(bad_text_names_the_line),
        cmocka_unit_test(read_in_order),
        cmocka_unit_test(rendered_round_trip),
    };
    return cmocka_run_group_tests_name("git_identity", tests, NULL, NULL);
}
