/* Request rules for terminated names (docs/secrets.md): the rules file's
 * parser, and the read-only checks in the router's nginx text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allowlist_of.h"
#include "base/error.h"
#include "config/request_rules.h"
#include "egress/held_secrets.h"
#include "egress/router_render.h"
#include "egress/router_terminate.h"

static void test_parse(void **state)
{
    (void)state;
    request_rules_t rules = {0};
    as_error_t *err = NULL;
    const char *text = "# code hosts\ngithub.com read-only\n\ngit.example.test   read-only\n";
    assert_int_equal(request_rules_parse(&rules, "/cfg/rules", text, strlen(text), &err), 0);
    assert_int_equal(rules.n, 2);
    assert_string_equal(rules.rules[0].host, "github.com");
    assert_string_equal(rules.rules[1].host, "git.example.test");
    assert_string_equal(rules.rules[1].origin, "/cfg/rules:4");
    request_rules_clear(&rules);
}

static void test_refused(void **state)
{
    (void)state;
    static const struct { const char *text, *msg; } cases[] = {
        { "github.com\n", "/cfg/rules:1: a request rule is HOST read-only" },
        { "\ngithub.com read-only now\n", "/cfg/rules:2: a request rule is HOST read-only" },
        { "github.com readonly\n", "/cfg/rules:1: \"readonly\" is not a rule (read-only is the only one)" },
        { "github.com read-only-ish\n", "/cfg/rules:1: \"read-only-ish\" is not a rule" },
        { "GitHub.com read-only\n", "/cfg/rules:1: \"GitHub.com\" is not a host name" },
        { "*.github.com read-only\n", "/cfg/rules:1: \"*.github.com\" is not a host name" },
        { "github.com:443 read-only\n", "/cfg/rules:1: \"github.com:443\" is not a host name" },
        { "a.test read-only\na.test read-only\n", "/cfg/rules:2: a.test already has a rule (/cfg/rules:1)" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        request_rules_t rules = {0};
        as_error_t *err = NULL;
        assert_int_equal(request_rules_parse(&rules, "/cfg/rules", cases[i].text, strlen(cases[i].text), &err),
                         -EINVAL);
        if (strncmp(err->msg, cases[i].msg, strlen(cases[i].msg)) != 0)
            fail_msg("case %zu: \"%s\" does not start with \"%s\"", i, err->msg, cases[i].msg);
        as_error_free(&err);
        request_rules_clear(&rules);
    }
}

static const char *no_env(const char *var)
{
    (void)var;
    return NULL;
}

/* A name with a rule and no secret is terminated and checked; the other
 * names stay SNI-routed. */
static void test_render(void **state)
{
    (void)state;
    request_rules_t requests = {0};
    secret_rules_t secrets = {0};
    as_error_t *err = NULL;
    const char *text = "git.example.test read-only\n";
    assert_int_equal(request_rules_parse(&requests, "/cfg/rules", text, strlen(text), &err), 0);
    held_secrets_t *h = NULL;
    assert_int_equal(held_secrets_build(&secrets, &requests, NULL, no_env, &h, &err), 0);
    assert_int_equal(h->n_hosts, 1);
    assert_int_equal(h->n_held, 0);
    assert_int_equal(h->n_read_only, 1);
    assert_non_null(strstr(h->tls.cert_pem, "BEGIN CERTIFICATE"));

    router_terminate_t t = { .hosts = (const char *const *)h->hosts, .n_hosts = h->n_hosts,
                             .read_only = (const char *const *)h->read_only,
                             .n_read_only = h->n_read_only, .cert = "/c/cert.pem",
                             .upstream_ca = "/c/ca.pem", .log = "/l/egress.log" };
    allowlist_t *al = allowlist_of("git.example.test\nother.example.test\n");
    router_layout_t layout = { .router_ip = "10.0.0.2", .resolver_ip = "10.0.0.1",
                               .nginx_run_dir = "/run/n", .nginx_error_log = "/l/e",
                               .nginx_access_log = "/l/a", .terminate = &t };
    char *conf = NULL;
    assert_int_equal(router_render_nginx(al, &layout, &conf, &err), 0);
    assert_non_null(strstr(conf, "git.example.test unix:" ROUTER_TLS_SOCKET ";"));
    assert_non_null(strstr(conf, "other.example.test other.example.test:443;"));
    assert_non_null(strstr(conf, "map \"$request_method $request_uri\" $sandbox_read_only {\n"
                                 "        \"~^(?:GET|HEAD) \" \"\";\n"
                                 "        \"~^POST (?!.*/[.][.]?(?:/|\\z))/[A-Za-z0-9._~/+-]*/git-upload-pack\\z\" \"\";\n"
                                 "        default \"the rule read-only allows only GET"));
    /* the host's refusal has every read-only check, and the 403 is made of the refusal */
    assert_non_null(strstr(conf, "$sandbox_cred_query$sandbox_vendor_query$sandbox_read_only"
                                 "$sandbox_read_only_type$sandbox_read_only_body"
                                 "$sandbox_read_only_override$sandbox_override_query\" $sandbox_refusal_0 {"));
    /* a POST only as git's fetch: one Content-Type, git's own */
    assert_non_null(strstr(conf, "map \"$request_method:$http_content_type\" $sandbox_read_only_type {\n"
                                 "        \"~*^POST:application/x-git-upload-pack-request\\z\" \"\";\n"));
    /* no form check: it holds no secret */
    assert_null(strstr(conf, "$sandbox_form_body"));
    /* the override headers never go upstream, nor an unused credential header */
    assert_non_null(strstr(conf, "proxy_set_header x-http-method-override \"\";"));
    assert_non_null(strstr(conf, "proxy_set_header authorization \"\";"));
    /* plain HTTP to it is refused */
    assert_non_null(strstr(conf, "map $host $sandbox_http_terminated {\n        hostnames;\n"
                                 "        git.example.test 1;\n        default 0;\n    }"));
    assert_non_null(strstr(conf, "if ($sandbox_refusal_0) {"));
    assert_non_null(strstr(conf, "return 403 \"blocked by agent-sandbox: this request to "
                                 "git.example.test: $sandbox_refusal_0\\nYour request rules apply to this name"));
    assert_null(strstr(conf, "holds this name's credentials"));   /* it holds none */
    free(conf);

    /* without the rule: no check */
    t.n_read_only = 0;
    assert_int_equal(router_render_nginx(al, &layout, &conf, &err), 0);
    assert_null(strstr(conf, "$sandbox_read_only"));
    free(conf);

    /* a read-only name that is not terminated is refused */
    const char *stray[] = { "other.example.test" };
    t.read_only = stray;
    t.n_read_only = 1;
    assert_int_equal(router_render_nginx(al, &layout, &conf, &err), -EINVAL);
    as_error_free(&err);
    allowlist_free(al);
    held_secrets_free(h);
    request_rules_clear(&requests);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_render),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
