/* The request checks of terminated names, run: the rendered nginx.conf's
 * maps are read back and evaluated as nginx evaluates them (each regex
 * entry in order with PCRE2, the library nginx uses, caseless for "~*";
 * the first match wins; else the default), against the request shapes
 * of threats 51, 54 and 60 (docs/secrets.md). The header lines are given
 * as header-lines.js makes them ("\nname:value\n" each). */
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
#include "../fuzz/nginx_map.h"
#include "base/util.h"
#include "config/allowlist.h"
#include "egress/router_query.h"
#include "egress/router_render.h"
#include "egress/router_terminate.h"

static char *conf;

/* nginx_unquote, failing the test on what is no quoted string. */
static char *unquote(const char *s, const char **end)
{
    char *out = nginx_unquote(s, end);
    if (out == NULL)
        fail_msg("no quoted string at: %.40s", s);
    return out;
}

/* Does regex map key `key` match subject? Its first capture, if any, into
 * ret_capture (a map value's $1). */
static bool regex_matches(const char *key, const char *subject, char *ret_capture, size_t size)
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
    PCRE2_SIZE n = size;
    ret_capture[0] = '\0';
    if (rc > 1 && pcre2_substring_copy_bynumber(md, 1, (PCRE2_UCHAR *)ret_capture, &n) != 0)
        ret_capture[0] = '\0';
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return rc >= 0;
}

/* A map's value as nginx makes it: $1 replaced by the capture. */
static char *with_capture(char *value, const char *capture)
{
    const char *at = strstr(value, "$1");
    if (at == NULL)
        return value;
    char *out = NULL;
    assert_true(asprintf(&out, "%.*s%s%s", (int)(at - value), value, capture, at + 2) > 0);
    free(value);
    return out;
}

/* The value map `var` gives `subject` (every key a regex or "", as the
 * checks' maps are); "" when nothing refuses. */
static char *map_eval(const char *var, const char *subject)
{
    const char *p = nginx_map_entries(conf, var);
    if (p == NULL)
        fail_msg("no map of %s", var);
    for (;;) {
        p += strspn(p, " \n");
        const char *end = NULL;
        if (strncmp(p, "default ", 8) == 0)
            return unquote(p + 8, &end);
        char *key = unquote(p, &end);
        p = end + strspn(end, " \n");
        char *value = unquote(p, &end);
        p = strchr(end, ';') + 1;
        char capture[256] = "";
        bool hit = key[0] == '\0' ? subject[0] == '\0' : regex_matches(key, subject, capture, sizeof(capture));
        free(key);
        if (hit)
            return with_capture(value, capture);
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
        /* threat 60: the places GitLab, Gitea, OAuth 1.0 and Supabase document */
        "/?private_token=X", "/?PRIVATE.TOKEN=X", "/?a=1;job_token=X", "/?token=X", "/?%74oken=X",
        "/?oauth_token=X", "/?apikey=X", "/?APIKEY[]=X", "/?x=1&job%5Ftoken=X",
    };
    for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++)
        assert_refused("$sandbox_cred_query", refused[i], "a credential in the query argument");
    static const char *const passing[] = {
        "/", "/key=X", "/path;key=X", "/?monkey=X", "/?keys=X", "/?x=key", "/?x=a%26key=X", "/?key2=X",
        "/?api-key=X", "/?q=a%20b", "/?tokens=X", "/?x=%E2%84%AA", "/?x=%00", "/?accesstoken=X", "/?x=1&y=key=z",
        "/?mytoken=X", "/?x=token", "/?page_token=X",
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
    /* threat 60: a POST passes only as git's fetch, whatever its path */
    assert_passes("$sandbox_read_only_type", "POST:application/x-git-upload-pack-request");
    assert_passes("$sandbox_read_only_type", "POST:Application/X-Git-Upload-Pack-Request");
    assert_passes("$sandbox_read_only_type", "GET:");
    static const char *const not_git[] = {
        "POST:application/json", "POST:", "POST:application/x-www-form-urlencoded",
        "POST:application/x-git-upload-pack-request, application/json",
        "POST:application/x-git-upload-pack-request; charset=utf-8", "POST:application/x-git-receive-pack-request",
        "POST:multipart/form-data; boundary=x",
    };
    for (size_t i = 0; i < ARRAY_SIZE(not_git); i++)
        assert_refused("$sandbox_read_only_type", not_git[i], "takes a POST only as git's fetch");
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

/* Threat 60: a known vendor's token in a query value, as a server decodes
 * it; the rest of a query is data. */
static void test_vendor_tokens_in_query(void **state)
{
    (void)state;
    static const char *const refused[] = {
        "/?q=glpat-k3x9Zq8LmN0pQwErTyUi", "/?a=1&b=ghp_0123456789abcdefghijABCDEFGHIJklmnop",
        "/x?q=x%20hf_abcdefghijklmnopQRSTUV", "/?q=%67lpat-k3x9Zq8LmN0pQwErTyUi",
        "/?q=gl%70at%2Dk3x9Zq8LmN0pQwErTyUi", "/?q=AIzaSyA0123456789abcdefghijklmnop",
        "/?q=npm_%41bcdefghijklmnopqrstu", "/?q=xoxb-1234567890-0987654321-abc", "/?q=pypi-AgEIcHlwaS5vcmcCJDUy",
        "/?q=sk-ant-api03-AAAAAAAAAAAAAAAAAAAAA", "/?q=%22sk_live_0123456789abcdefABCD",
    };
    for (size_t i = 0; i < ARRAY_SIZE(refused); i++)
        assert_refused("$sandbox_vendor_query", refused[i], "a known vendor's token in the query");
    static const char *const passing[] = {
        "/glpat-k3x9Zq8LmN0pQwErTyUi", "/?q=glpat-short", "/?q=xglpat-k3x9Zq8LmN0pQwErTyUi",
        "/?q=GLPAT-k3x9Zq8LmN0pQwErTyUi", "/?q=aiza0123456789abcdefghijklmno", "/?q=task-0123456789abcdefghij",
        "/?q=scikit-learn", "/?q=sk-learn", "/?ref=4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    };
    for (size_t i = 0; i < ARRAY_SIZE(passing); i++)
        assert_passes("$sandbox_vendor_query", passing[i]);
}

/* Threat 60: a known vendor's token in any header line but the held
 * secret's own (host 0 holds x-token), whatever the header is called. */
static void test_vendor_tokens_in_headers(void **state)
{
    (void)state;
    static const char *const refused[] = {
        "\nhost:api.example.test\nx-whatever:glpat-k3x9Zq8LmN0pQwErTyUi\n",
        "\nx-auth-key:xoxp-1234567890-1234567890-abcdef\n", "\ncookie:a=1; t=hf_abcdefghijklmnopQRSTUV\n",
        "\ncookie:t=gl%70at-k3x9Zq8LmN0pQwErTyUi\n", "\nuser-agent:x ghs_0123456789abcdefghijABCD\n",
        "\nx-token:tok-STANDIN0\nx-token-2:github_pat_11AAAAAAA0123456789_abcdefgh\n",
        "\nauthorization:Bearer sk-proj-0123456789abcdefABCDEFGH\n", "\nx-note:my-ghp_0123456789abcdefghijABCD\n",
    };
    for (size_t i = 0; i < ARRAY_SIZE(refused); i++)
        assert_refused("$sandbox_vendor_header_0", refused[i], "a known vendor's token in the header");
    static const char *const passing[] = {
        "\n", "\nhost:api.example.test\nuser-agent:claude-cli/2.1.332 (external, cli)\n",
        "\nx-token:sk-ant-api03-STANDIN0123456789abcdefgh\n", "\nx-note:glpat-short\n",
        "\nx-note:myghp_0123456789abcdefghijABCD\n",
    };
    for (size_t i = 0; i < ARRAY_SIZE(passing); i++)
        assert_passes("$sandbox_vendor_header_0", passing[i]);
    /* a name without a held header judges every line, the held one's name too */
    assert_refused("$sandbox_vendor_header_1", "\nx-token:sk-ant-api03-STANDIN0123456789abcdefgh\n",
                   "the header x-token");
}

/* Threat 60: a credential-shaped value in a header whose name says it is a
 * credential place, or in a cookie; the agents' clients' own headers, IDs
 * as random as a key among them, pass. */
static void test_shaped_values(void **state)
{
    (void)state;
    static const char *const refused[] = {
        "\nx-access-token:aB3dE5fG7hI9jK1lM3nO5pQ7\n", "\ntoken:4b825dc642cb6eb9a060e54bf8d69288fbee4904\n",
        "\nx-custom-auth:Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIn0.sig\n",
        "\ncookie:_gitlab_session=0123456789abcdef0123456789abcdef\n", "\ndd-api-key:aB3dE5fG7hI9jK1lM3nO5pQ7\n",
        "\nx-shopify-access-token:shpat_0123456789abcdef0123456789abcdef\n",
        "\nocp-apim-subscription-key:0123456789abcdef0123456789ABCDEF\n",
        "\nx-client-secret:k3x9_Zq8LmN0pQwErT-yUi0\n", "\nx-token:aB3dE5fG7hI9jK1lM3nO5pQ7\n",
        "\nx-password:Xk3x9Zq8LmN0pQwErTyUi0a\n", "\nx-signature:aB3dE5fG7hI9jK1lM3nO5pQ7\n",
    };
    for (size_t i = 0; i < ARRAY_SIZE(refused); i++)
        assert_refused("$sandbox_shaped_header_1", refused[i], "a credential-shaped value in the header");
    static const char *const passing[] = {
        "\nhost:code.example.test\nuser-agent:git/2.47.2\naccept:*/*\ngit-protocol:version=2\n"
        "content-type:application/x-git-upload-pack-request\n",
        "\nanthropic-version:2023-06-01\nanthropic-beta:interleaved-thinking-2025-05-14,claude-code-20250219\n"
        "x-stainless-lang:js\nx-stainless-package-version:0.60.0\nx-stainless-os:Linux\n"
        "x-stainless-runtime-version:v24.3.0\nx-stainless-retry-count:0\nx-stainless-timeout:600\n"
        "x-app:cli\nx-claude-code-session-id:550e8400-e29b-41d4-a716-446655440000\n",
        "\nx-goog-api-client:google-genai-sdk/1.30.0 gl-node/v24.3.0\n"
        "idempotency-key:stainless-node-retry-550e8400-e29b-41d4-a716-446655440000\n",
        "\nx-session-affinity:ses_6b1f0e1c4ffeXyZaB3dE5fG7hI9jK1\nx-request-id:0123456789abcdef0123456789abcdef\n",
        "\nif-none-match:\"4b825dc642cb6eb9a060e54bf8d69288fbee4904\"\n",
        "\ntraceparent:00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\n",
        "\nx-token:prompt-caching-2024-07-31\nx-key:abcdefghijklmnopqrstuvwxyz\nx-auth:12345678901234567890\n",
        "\ncookie:theme=dark; lang=en-US\n",
    };
    for (size_t i = 0; i < ARRAY_SIZE(passing); i++)
        assert_passes("$sandbox_shaped_header_1", passing[i]);
    /* the held header (host 0's x-token) is judged by its stand-in alone */
    assert_passes("$sandbox_shaped_header_0", "\nx-token:aB3dE5fG7hI9jK1lM3nO5pQ7\n");
    assert_refused("$sandbox_shaped_header_0", "\nx-token-2:aB3dE5fG7hI9jK1lM3nO5pQ7\n", "the header x-token-2");
    /* no header lines at all (njs did not run): refused */
    assert_refused("$sandbox_lines_unread", "", "could not read this request's header lines");
    assert_passes("$sandbox_lines_unread", "\nhost:x\n");
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
        cmocka_unit_test_setup_teardown(test_vendor_tokens_in_query, render, release),
        cmocka_unit_test_setup_teardown(test_vendor_tokens_in_headers, render, release),
        cmocka_unit_test_setup_teardown(test_shaped_values, render, release),
        cmocka_unit_test(test_name_valid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
