/* Held secrets (docs/secrets.md): the rules' parser, the stand-ins, the
 * header values, the termination's renderers and the session CA. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allowlist_of.h"
#include "base/error.h"
#include "config/secret_rules.h"
#include "egress/held_secrets.h"
#include "egress/router_render.h"
#include "egress/router_terminate.h"
#include "egress/session_ca.h"

static int parse(secret_rules_t *rules, const char *text, char **ret_msg)
{
    as_error_t *err = NULL;
    int r = secret_rules_parse(rules, "/cfg/secrets", text, strlen(text), &err);
    *ret_msg = err != NULL ? strdup(err->msg) : NULL;
    as_error_free(&err);
    return r;
}

static void test_rules_parse(void **state)
{
    (void)state;
    secret_rules_t rules = {0};
    char *msg = NULL;
    assert_int_equal(parse(&rules, "# comment\n"
                                   "GITHUB_TOKEN github.com authorization-basic x-access-token\n"
                                   "MY_TOKEN api.example.com header:x-token   # trailing\n"
                                   "KEY api.example.com authorization-bearer\n", &msg), 0);
    assert_int_equal(rules.n, 3);
    assert_int_equal(rules.rules[0].place, SECRET_BASIC);
    assert_string_equal(rules.rules[0].user, "x-access-token");
    assert_string_equal(rules.rules[0].header, "authorization");
    assert_string_equal(rules.rules[1].header, "x-token");
    assert_string_equal(rules.rules[1].origin, "/cfg/secrets:3");
    assert_int_equal(rules.rules[2].place, SECRET_BEARER);
    secret_rules_clear(&rules);
}

static void test_rules_refused(void **state)
{
    (void)state;
    static const struct { const char *text, *msg; } bad[] = {
        { "A host.example.com\n", "/cfg/secrets:1: a secret rule is VAR HOST PLACEMENT [USER]" },
        { "\n1A host.example.com authorization-bearer\n", "/cfg/secrets:2: \"1A\" is not an environment" },
        { "A Host.example.com authorization-bearer\n", "/cfg/secrets:1: \"Host.example.com\" is not a host name" },
        { "A *.example.com authorization-bearer\n", "is not a host name" },
        { "A h.example.com authorization-basic\n", "authorization-basic needs a user name" },
        { "A h.example.com authorization-bearer x\n", "authorization-bearer takes nothing after it" },
        { "A h.example.com header:X-Key\n", "header:NAME takes a lower-case header name" },
        { "A h.example.com header:host\n", "header:host: use authorization-bearer" },
        { "A h.example.com cookie\n", "\"cookie\" is not a placement" },
        { "A h.example.com authorization-basic a:b\n", "the user name must be" },
        { "A h.example.com header:k\nA h.example.com header:k\n", "/cfg/secrets:2: A is already placed in k on h.example.com (/cfg/secrets:1)" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        secret_rules_t rules = {0};
        char *msg = NULL;
        assert_int_equal(parse(&rules, bad[i].text, &msg), -EINVAL);
        if (strstr(msg, bad[i].msg) == NULL)
            fail_msg("%s: got \"%s\", want \"%s\"", bad[i].text, msg, bad[i].msg);
        free(msg);
        secret_rules_clear(&rules);
    }
}

/* The session's placements: the agent's profile's first (copied, their
 * origins kept), then the secrets file's; the file placing the same VAR
 * in the same header on the same host is refused, naming both lines. */
static void test_rules_append(void **state)
{
    (void)state;
    secret_rules_t agent = {0}, rules = {0};
    char *msg = NULL;
    const char *const w[] = { "K", "api.example.com", "authorization-basic", "u" };
    as_error_t *err = NULL;
    assert_int_equal(secret_rule_add(&agent, "/agents/x:7", w, 4, &err), 0);
    assert_int_equal(secret_rules_append(&rules, &agent, &err), 0);
    assert_int_equal(rules.n, 1);
    assert_string_equal(rules.rules[0].origin, "/agents/x:7");
    assert_string_equal(rules.rules[0].user, "u");
    assert_int_equal(rules.rules[0].place, SECRET_BASIC);
    assert_int_equal(parse(&rules, "K other.example.com header:k\nK api.example.com header:k\n", &msg), 0);
    assert_int_equal(rules.n, 3);
    assert_int_equal(parse(&rules, "\nK api.example.com authorization-bearer\n", &msg), -EINVAL);
    assert_string_equal(msg, "/cfg/secrets:2: K is already placed in authorization on api.example.com (/agents/x:7)");
    free(msg);
    assert_int_equal(rules.n, 3);
    assert_int_equal(secret_rules_append(&rules, &agent, &err), -EINVAL);
    as_error_free(&err);
    secret_rules_clear(&rules);
    secret_rules_clear(&agent);
}

static void test_standin_shape(void **state)
{
    (void)state;
    static const char *const values[] = {
        "sk-ant-api03-AbCdEf0123456789xyzXYZ-_aa", "ghp_0123456789abcdefABCDEF0123456789abcd",
        "AIzaSyA0123456789abcdefghijklmnopqrstu", "12345678",
    };
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        char *s = NULL;
        as_error_t *err = NULL;
        assert_int_equal(secret_standin(values[i], &s, &err), 0);
        assert_int_equal(strlen(s), strlen(values[i]));
        assert_string_not_equal(s, values[i]);
        for (size_t j = 0; s[j] != '\0'; j++) {
            char a = values[i][j], b = s[j];
            assert_true((islower(a) && islower(b)) || (isupper(a) && isupper(b)) ||
                        (isdigit(a) && isdigit(b)) || a == b);
        }
        free(s);
    }
    char *s = NULL;
    as_error_t *err = NULL;
    assert_int_equal(secret_standin("sk-ant-api03-AAAA", &s, &err), 0);
    assert_memory_equal(s, "sk-ant-api03-", 13);          /* the prefix kept */
    free(s);
    /* nothing of the key's own part kept, however its '-' and '_' fall */
    static const char *const prefixes[][2] = {
        { "AIzaSyAb_cdEFgh-ijklmnop0123456789ABCDE", "AIza" }, { "ghp_ab-CD_ef0123456789", "ghp_" },
        { "github_pat_11AB_cd", "github_pat_" }, { "xoxb-1234-5678-abcdef", "xoxb-" }, { "sk_live_51Hab", "sk_live_" },
        { "3f9a2c1b-1d2e-4f5a-9b8c-7d6e5f4a3b2c", "" }, { "abcdefghijk-xyz", "" }, { "Ab_cdefghij", "" },
        /* short lower-case segments that are no vendor's are the key's own (threat 53) */
        { "glpat-k3x9_Zq8LmN0pQwErT", "glpat-" }, { "tok-abcd_efgh12345678", "" }, { "ab-cd-ef-0123456789", "" },
        { "sk-ant-api99-abcdefghij", "sk-" }, { "sk-proj-abcdefghijkl", "sk-proj-" }, { "hf_abcdefghijklmn", "hf_" },
        { "npm_abcdefghijklmn", "npm_" }, { "sk-ant-oat01-abcdefghij", "sk-ant-oat01-" },
    };
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        assert_int_equal(secret_standin(prefixes[i][0], &s, &err), 0);
        size_t keep = strlen(prefixes[i][1]);
        assert_memory_equal(s, prefixes[i][1], keep);
        /* past the prefix, each letter or digit is random: a run of 8 equal is not */
        assert_true(strncmp(s + keep, prefixes[i][0] + keep, 8) != 0);
        free(s);
    }
    assert_false(secret_value_valid("short"));
    assert_false(secret_value_valid("has space in it"));
    assert_false(secret_value_valid("quote\"in-it-x"));
    assert_false(secret_value_valid("dollar$in-it-x"));
    assert_false(secret_value_valid("~tilde-start-x"));
    assert_true(secret_value_valid("a.b_c-d+e/f=g"));
    assert_int_equal(secret_standin("-_-_-_-_-_", &s, &err), -EINVAL);
    as_error_free(&err);
}

static void test_header_values(void **state)
{
    (void)state;
    secret_rules_t rules = {0};
    char *msg = NULL, *v = NULL;
    as_error_t *err = NULL;
    assert_int_equal(parse(&rules, "G github.com authorization-basic x-access-token\n"
                                   "K h.example.com authorization-bearer\nH h.example.com header:x-k\n", &msg), 0);
    assert_int_equal(secret_header_value(&rules.rules[0], "ghp_abc", &v, &err), 0);
    assert_string_equal(v, "Basic eC1hY2Nlc3MtdG9rZW46Z2hwX2FiYw==");  /* x-access-token:ghp_abc */
    free(v);
    assert_int_equal(secret_header_value(&rules.rules[1], "tok123", &v, &err), 0);
    assert_string_equal(v, "Bearer tok123");
    free(v);
    assert_int_equal(secret_header_value(&rules.rules[2], "tok123", &v, &err), 0);
    assert_string_equal(v, "tok123");
    free(v);
    secret_rules_clear(&rules);
}

static const char *fake_env(const char *var)
{
    return strcmp(var, "TOK") == 0 ? "tok-Real0Value0123456789" : strcmp(var, "TOK2") == 0 ? "second0Value0abc" : NULL;
}

/* The held set, the two renderers and the session CA, together. */
static void test_held_render(void **state)
{
    (void)state;
    secret_rules_t rules = {0};
    char *msg = NULL;
    assert_int_equal(parse(&rules, "TOK api.example.com header:x-token\n"
                                   "TOK2 api.example.com header:x-token\n", &msg), 0);
    char *vars[] = { "TOK", "TOK2", NULL };
    held_secrets_t *h = NULL;
    as_error_t *err = NULL;
    assert_int_equal(held_secrets_build(&rules, NULL, vars, fake_env, &h, &err), 0);
    assert_int_equal(h->n_hosts, 1);
    assert_int_equal(h->n_held, 2);
    assert_non_null(strstr(h->tls.ca_pem, "BEGIN CERTIFICATE"));
    assert_non_null(strstr(h->tls.key_pem, "PRIVATE KEY"));
    /* no vendor's prefix: nothing of the value is kept */
    assert_memory_equal(h->standin_env[0], "TOK=", 4);
    assert_true(strncmp(h->standin_env[0] + 4, "tok-Real", 8) != 0);

    router_terminate_t t = { .hosts = (const char *const *)h->hosts, .n_hosts = h->n_hosts,
                             .held = h->held, .n_held = h->n_held, .cert = "/c/cert.pem",
                             .upstream_ca = "/c/ca.pem", .log = "/l/egress.log" };
    char *values = NULL;
    assert_int_equal(router_render_held_values(&t, &values, &err), 0);
    /* one map for the two secrets of one header: each stand-in to its value */
    assert_non_null(strstr(values, "map \"h:$http_x_token\" $sandbox_held_0 {"));
    assert_null(strstr(values, "$sandbox_held_1"));
    assert_non_null(strstr(values, "\" \"tok-Real0Value0123456789\";"));
    assert_non_null(strstr(values, "\" \"second0Value0abc\";"));
    free(values);

    allowlist_t *al = allowlist_of("api.example.com\n.wild.example\n");
    router_layout_t layout = { .router_ip = "10.0.0.2", .resolver_ip = "10.0.0.1",
                               .nginx_run_dir = "/run/n", .nginx_error_log = "/l/e",
                               .nginx_access_log = "/l/a", .terminate = &t };
    char *conf = NULL;
    assert_int_equal(router_render_nginx(al, &layout, &conf, &err), 0);
    assert_null(strstr(conf, "Real0Value"));            /* no value in the file */
    assert_non_null(strstr(conf, "api.example.com unix:" ROUTER_TLS_SOCKET ";"));
    assert_null(strstr(conf, "api.example.com api.example.com:443;"));
    assert_non_null(strstr(conf, "proxy_ssl_verify on;"));
    assert_non_null(strstr(conf, "proxy_ssl_name api.example.com;"));
    /* kept alive through its own upstream{} block and relay (router_terminate.h) */
    assert_non_null(strstr(conf, "proxy_pass https://sandbox_terminated_0;"));
    assert_non_null(strstr(conf, "set $sandbox_relay_upstream api.example.com:443;"));
    assert_non_null(strstr(conf, "proxy_set_header x-token $sandbox_held_0;"));
    assert_non_null(strstr(conf, "include " ROUTER_HELD_VALUES ";"));
    assert_non_null(strstr(conf, "\\nThe router holds this name's credentials (docs/secrets.md)"));
    free(conf);

    /* a value that could break out of the map is refused */
    held_header_t bad = h->held[0];
    bad.value = "x\"; }";
    t.held = &bad;
    t.n_held = 1;
    assert_int_equal(router_render_held_values(&t, &values, &err), -EINVAL);
    as_error_free(&err);
    allowlist_free(al);
    held_secrets_free(h);
    secret_rules_clear(&rules);
}

static void test_held_refused(void **state)
{
    (void)state;
    secret_rules_t rules = {0};
    char *msg = NULL;
    assert_int_equal(parse(&rules, "TOK api.example.com header:x-token\n", &msg), 0);
    held_secrets_t *h = NULL;
    as_error_t *err = NULL;
    char *unset[] = { "NOPE", NULL };
    assert_int_equal(held_secrets_build(&rules, NULL, unset, fake_env, &h, &err), -EINVAL);
    assert_string_equal(err->msg, "--secret NOPE: not set in your environment");
    as_error_free(&err);
    char *twice[] = { "TOK", "TOK", NULL };
    assert_int_equal(held_secrets_build(&rules, NULL, twice, fake_env, &h, &err), -EINVAL);
    as_error_free(&err);
    char *unplaced[] = { "TOK2", NULL };
    assert_int_equal(held_secrets_build(&rules, NULL, unplaced, fake_env, &h, &err), -EINVAL);
    assert_non_null(strstr(err->msg, "no rule says where it goes"));
    assert_null(strstr(err->msg, "second0Value"));
    as_error_free(&err);
    secret_rules_clear(&rules);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules_parse),
        cmocka_unit_test(test_rules_refused),
        cmocka_unit_test(test_rules_append),
        cmocka_unit_test(test_standin_shape),
        cmocka_unit_test(test_header_values),
        cmocka_unit_test(test_held_render),
        cmocka_unit_test(test_held_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
