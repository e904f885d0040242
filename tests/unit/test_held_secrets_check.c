/* The held secrets against the session's other inputs
 * (lib/egress/held_secrets_check.h): a terminated name outside the
 * allowlist, or with a port of its own, and a held variable also given
 * with --env, each refused with the option or line at fault. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "allowlist_of.h"
#include "base/strv.h"
#include "config/secret_rules.h"
#include "egress/held_secrets_check.h"

static const char *fake_env(const char *var)
{
    return strcmp(var, "TOK") == 0 ? "tok-Real0Value0123456789" : NULL;
}

static held_secrets_t *held_on_api(void)
{
    secret_rules_t rules = {0};
    as_error_t *err = NULL;
    const char *text = "TOK api.example.test header:x-token\n";
    assert_int_equal(secret_rules_parse(&rules, "/cfg/secrets", text, strlen(text), &err), 0);
    char *vars[] = { "TOK", NULL };
    held_secrets_t *h = NULL;
    assert_int_equal(held_secrets_build(&rules, NULL, vars, fake_env, &h, &err), 0);
    secret_rules_clear(&rules);
    return h;
}

/* The allowlist `text` against the held TOK: NULL when it is taken, else
 * the refusal's message. */
static char *judged(const char *text)
{
    held_secrets_t *h = held_on_api();
    allowlist_t *al = allowlist_of(text);
    request_rules_t none = {0};
    as_error_t *err = NULL;
    int r = held_secrets_check_allowlist(h, &none, al, &err);
    char *msg = err != NULL ? strdup(err->msg) : NULL;
    assert_int_equal(r, msg != NULL ? -EINVAL : 0);
    as_error_free(&err);
    allowlist_free(al);
    held_secrets_free(h);
    return msg;
}

static void test_the_name_must_be_allowed(void **state)
{
    (void)state;
    assert_null(judged("api.example.test\n"));
    assert_null(judged(".example.test\n"));
    char *msg = judged("other.test\n");
    assert_string_equal(msg, "--secret TOK: its name api.example.test is not in the allowlist (agent-sandbox "
                             "allow api.example.test --save)");
    free(msg);
}

static void test_no_port_of_its_own(void **state)
{
    (void)state;
    char *msg = judged("api.example.test\napi.example.test:8443\n");
    assert_non_null(msg);
    assert_non_null(strstr(msg, "api.example.test:8443: the router checks every request to api.example.test "
                                "(it holds --secret TOK) on HTTPS only"));
    free(msg);
}

static void test_held_or_inside_not_both(void **state)
{
    (void)state;
    char *names[] = { "TOK", NULL };
    char *other[] = { "TOKEN=1", "A=TOK", NULL };
    char *both[] = { "A=1", "TOK=mine", NULL };
    as_error_t *err = NULL;
    assert_int_equal(held_secrets_check_env(names, other, &err), 0);
    assert_int_equal(held_secrets_check_env(NULL, both, &err), 0);
    assert_int_equal(held_secrets_check_env(names, both, &err), -EINVAL);
    assert_string_equal(err->msg, "--secret TOK and --env TOK: the router holds it, or the sandbox has it, not both");
    as_error_free(&err);
}

/* The agent's environment keeps the launch's own variables first (verify's
 * fixed PATH among them), then the stand-ins, then the CA variables. */
static void test_the_agents_environment(void **state)
{
    (void)state;
    held_secrets_t *h = held_on_api();
    char *env[] = { "PATH=/usr/bin:/bin", NULL };
    char **out = NULL;
    as_error_t *err = NULL;
    assert_int_equal(held_secrets_agent_env(h, env, &out, &err), 0);
    assert_string_equal(out[0], "PATH=/usr/bin:/bin");
    assert_memory_equal(out[1], "TOK=", 4);
    assert_null(strstr(out[1], "Real0Value"));
    assert_memory_equal(out[2], "NODE_EXTRA_CA_CERTS=/etc/agent-sandbox/", 39);
    assert_string_equal(out[6] + strlen("GIT_SSL_CAINFO="), out[3] + strlen("SSL_CERT_FILE="));
    assert_null(out[7]);
    strv_free(out);
    held_secrets_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_name_must_be_allowed),
        cmocka_unit_test(test_no_port_of_its_own),
        cmocka_unit_test(test_held_or_inside_not_both),
        cmocka_unit_test(test_the_agents_environment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
