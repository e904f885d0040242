/* The request checks of terminated names, run: the rendered nginx.conf's
 * maps are read back and evaluated as nginx evaluates them (each regex
 * entry in order with PCRE2, the library nginx uses, caseless for "~*";
 * the first match wins; else the default), against the request shapes
 * of threats 51 and 54 (docs/secrets.md). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allowlist_of.h"
#include "config/allowlist.h"
#include "egress/router_query.h"
#include "egress/router_render.h"
#include "egress/router_terminate.h"

static char *conf;

/* A quoted nginx string as nginx reads it: \" \' \\ drop their backslash,
 * \t \r \n are those bytes, any other backslash stays. *end: after it. */
static char *unquote(const char *s, const char **end)
{
    assert_int_equal(*s, '"');
    char *out = calloc(strlen(s), 1), *o = out;
    assert_non_null(out);
    for (s++; *s != '"'; s++) {
        assert_int_not_equal(*s, '\0');
        if (*s == '\\' && s[1] != '\0' && strchr("\"'\\", s[1]) != NULL)
            *o++ = *++s;
        else if (*s == '\\' && s[1] != '\0' && strchr("trn", s[1]) != NULL)
            *o++ = *++s == 't' ? '\t' : *s == 'r' ? '\r' : '\n';
        else
            *o++ = *s;
    }
    *end = s + 1;
    return out;
}

static bool regex_matches(const char *key, const char *subject)
{
    bool caseless = strncmp(key, "~*", 2) == 0;
    assert_true(caseless || key[0] == '~');
    int code;
    PCRE2_SIZE at;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)(key + (caseless ? 2 : 1)), PCRE2_ZERO_TERMINATED,
                                   caseless ? PCRE2_CASELESS : 0, &code, &at, NULL);
    if (re == NULL)
        fail_msg("regex %s does not compile at %zu", key, (size_t)at);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    int rc = pcre2_match(re, (PCRE2_SPTR)subject, strlen(subject), 0, 0, md, NULL);
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return rc >= 0;
}

/* The value map `var` gives `subject` (every key a regex or "", as the
 * checks' maps are); "" when nothing refuses. */
static char *map_eval(const char *var, const char *subject)
{
    char head[128];
    snprintf(head, sizeof(head), " %s {\n", var);
    const char *p = strstr(conf, head);
    if (p == NULL)
        fail_msg("no map of %s", var);
    p += strlen(head);
    for (;;) {
        p += strspn(p, " \n");
        if (strncmp(p, "default ", 8) == 0) {
            const char *end;
            return unquote(p + 8, &end);
        }
        const char *end;
        char *key = unquote(p, &end);
        p = end + strspn(end, " \n");
        char *value = unquote(p, &end);
        p = strchr(end, ';') + 1;
        bool hit = key[0] == '\0' ? subject[0] == '\0' : regex_matches(key, subject);
        free(key);
        if (hit)
            return value;
        free(value);
    }
}

static void assert_refused(const char *var, const char *subject, const char *why)
{
    char *v = map_eval(var, subject);
    if (strstr(v, why) == NULL)
        fail_msg("%s of \"%s\": \"%s\", not \"%s\"", var, subject, v, why);
    free(v);
}

static void assert_passes(const char *var, const char *subject)
{
    char *v = map_eval(var, subject);
    if (v[0] != '\0')
        fail_msg("%s of \"%s\": refused: %s", var, subject, v);
    free(v);
}

static int render(void **state)
{
    (void)state;
    static const char *const hosts[] = { "api.example.test", "code.example.test" };
    static const char *const read_only[] = { "code.example.test" };
    static const held_header_t held[] = { { "api.example.test", "TOK", "x-token", "tok-STANDIN0", NULL } };
    router_terminate_t t = { .hosts = hosts, .n_hosts = 2, .held = held, .n_held = 1, .read_only = read_only,
                             .n_read_only = 1, .cert = "/c/cert.pem", .upstream_ca = "/c/ca.pem", .log = "/l/e.log" };
    router_layout_t l = { .router_ip = "10.0.0.2", .resolver_ip = "10.0.0.1", .nginx_run_dir = "/run/n",
                          .nginx_error_log = "/l/e", .nginx_access_log = "/l/a", .terminate = &t };
    allowlist_t *al = allowlist_of("api.example.test\ncode.example.test\n");
    as_error_t *err = NULL;
    assert_int_equal(router_render_nginx(al, &l, &conf, &err), 0);
    allowlist_free(al);
    return 0;
}

static int release(void **state)
{
    (void)state;
    free(conf);
    conf = NULL;
    return 0;
}

/* Threat 51: every spelling of a credential argument a server decodes. */
static void test_credential_arguments(void **state)
{
    (void)state;
    static const char *const refused[] = {
        "/?key=X", "/v1/x?key=&key=X", "/?k%65y=X", "/?K%45Y=X", "/?access%5Ftoken=X", "/?access%5ftoken=X",
        "/?a=1;key=X", "/?a=1&KEY=X", "/?Api_Key=X", "/?api.key=X", "/?api+key=X", "/?api%20key=X",
        "/?api[key=X", "/?key[]=X", "/?key[0]=X", "/?key%5B%5D=X", "/?+key=X", "/?%20key%20=X", "/?key",
        "/?x=1&key", "/?access_token=X#frag", "/p?x=%26&key=X", "/?%6B%65%79=X", "/?api%5fkey=X",
    };
    for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++)
        assert_refused("$sandbox_cred_query", refused[i], "a credential in the query argument");
    static const char *const passing[] = {
        "/", "/key=X", "/path;key=X", "/?monkey=X", "/?keys=X", "/?x=key", "/?x=a%26key=X", "/?key2=X",
        "/?apikey=X", "/?q=a%20b", "/?token=X", "/?x=%E2%84%AA", "/?x=%00", "/?accesstoken=X", "/?x=1&y=key=z",
    };
    for (size_t i = 0; i < sizeof(passing) / sizeof(*passing); i++)
        assert_passes("$sandbox_cred_query", passing[i]);
}

/* A name the router cannot read as every server would is refused; values
 * are not names. */
static void test_unreadable_names(void **state)
{
    (void)state;
    static const char *const refused[] = {
        "/?k%6=X", "/?k%zzy=X", "/?key%=X", "/?%E2%84%AAey=X", "/?key%00=X", "/?a=1&k%0ay=X", "/?k%7fy=X",
        "/?k\xe2\x84\xaay=X", "/?a=b;%C0%Bbey=X",
    };
    for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++)
        assert_refused("$sandbox_cred_query", refused[i], "a query argument whose name the router cannot read");
    assert_passes("$sandbox_cred_query", "/?x=%zz");
    assert_passes("$sandbox_cred_query", "/?x=%E2%84%AA&y=%");
}

/* Threat 54: the rule read-only, as the maps of a read-only name judge. */
static void test_read_only(void **state)
{
    (void)state;
    assert_passes("$sandbox_read_only", "GET /x.git/info/refs?service=git-upload-pack");
    assert_passes("$sandbox_read_only", "HEAD /x");
    assert_passes("$sandbox_read_only", "POST /o/x.git/git-upload-pack");
    static const char *const refused[] = {
        "POST /x.git/git-receive-pack", "POST /x.git/git-receive-pack/../git-upload-pack",
        "POST /x.git/./git-upload-pack", "POST /../git-upload-pack", "POST /x/../../git-upload-pack",
        "POST /x.git/git-upload-pack%2F..%2Fgit-receive-pack", "POST /x.git/git-upload-pack?a=b",
        "POST /x.git/git-upload-pack\n", "PUT /x", "DELETE /x", "PATCH /x", "OPTIONS /x", "POST /x",
    };
    for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++)
        assert_refused("$sandbox_read_only", refused[i], "the rule read-only allows only");
    assert_passes("$sandbox_read_only_body", "GET::");
    assert_passes("$sandbox_read_only_body", "GET:0:");
    assert_passes("$sandbox_read_only_body", "POST:5:");
    assert_refused("$sandbox_read_only_body", "GET:5:", "a GET or HEAD with a body");
    assert_refused("$sandbox_read_only_body", "HEAD::chunked", "a GET or HEAD with a body");
    assert_refused("$sandbox_read_only_body", "GET:0:chunked", "a GET or HEAD with a body");
    assert_passes("$sandbox_override_query", "/x?method=DELETE");
    assert_refused("$sandbox_override_query", "/x?_method=DELETE", "method-override argument _method");
    assert_refused("$sandbox_override_query", "/x?a=1&%5FMETHOD=delete", "method-override argument _method");
}

static void test_name_valid(void **state)
{
    (void)state;
    assert_true(router_query_name_valid("access_token"));
    assert_true(router_query_name_valid("_method"));
    assert_false(router_query_name_valid(""));
    assert_false(router_query_name_valid("Key"));
    assert_false(router_query_name_valid("a.b"));
    assert_false(router_query_name_valid("a\"b"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_credential_arguments, render, release),
        cmocka_unit_test_setup_teardown(test_unreadable_names, render, release),
        cmocka_unit_test_setup_teardown(test_read_only, render, release),
        cmocka_unit_test(test_name_valid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
