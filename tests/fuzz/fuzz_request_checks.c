/* libFuzzer target for the router's checks of a request's credentials by
 * value (lib/egress/router_credentials.c, router_terminate_checks.c): the
 * request is the agent's bytes, read by the rendered nginx.conf's regexes
 * (PCRE2, as nginx runs them). Each regex is checked against what it
 * stands for, written out plainly here: a known vendor's token (a prefix of
 * secret_vendor_prefixes at a word's start, each character itself or
 * %-escaped, then 16 letters, digits, '-', '_' or escapes) in a header
 * line's value or in the query, and a credential-shaped run in the value
 * of a header named as a credential place or a cookie; the held header
 * (x-token) passed over. The input's first line is the request target,
 * the others header lines ("name:value", as header-lines.js makes them). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "nginx_map.h"
#include "config/allowlist.h"
#include "config/secret_rules.h"
#include "egress/router_credentials.h"
#include "egress/router_render.h"
#include "egress/router_terminate.h"

enum { VENDOR_HEADER, SHAPED_HEADER, VENDOR_QUERY, N_CHECKS };
static const char *const check_vars[N_CHECKS] = {
    "$sandbox_vendor_header_0", "$sandbox_shaped_header_0", "$sandbox_vendor_query",
};
static pcre2_code *checks[N_CHECKS];

/* The regex of the first entry of each check's map, from nginx.conf as the
 * renderer writes it for a name that holds a secret in x-token. */
static void compile_checks(void)
{
    static const char *const hosts[] = { "api.example.test" };
    static const held_header_t held[] = { { "api.example.test", "TOK", "x-token", "tok-STANDIN0", NULL } };
    router_terminate_t t = { .hosts = hosts, .n_hosts = 1, .held = held, .n_held = 1, .cert = "/c/cert.pem",
                             .upstream_ca = "/c/ca.pem", .log = "/l/e.log" };
    router_layout_t l = { .router_ip = "10.0.0.2", .resolver_ip = "10.0.0.1", .nginx_run_dir = "/run/n",
                          .nginx_error_log = "/l/e", .nginx_access_log = "/l/a", .terminate = &t };
    allowlist_t *al = NULL;
    as_error_t *err = NULL;
    char *conf = NULL;
    CHECK(allowlist_parse("fuzz", "api.example.test\n", 17, &al, &err) == 0);
    CHECK(router_render_nginx(al, &l, &conf, &err) == 0);
    for (size_t i = 0; i < N_CHECKS; i++) {
        const char *p = nginx_map_entries(conf, check_vars[i]), *end;
        CHECK(p != NULL);
        char *key = nginx_unquote(p + strspn(p, " "), &end);
        CHECK(key != NULL && key[0] == '~' && key[1] != '*');
        int code;
        PCRE2_SIZE at;
        checks[i] = pcre2_compile((PCRE2_SPTR)(key + 1), PCRE2_ZERO_TERMINATED, 0, &code, &at, NULL);
        CHECK(checks[i] != NULL);
        free(key);
    }
    free(conf);
    allowlist_free(al);
}

__attribute__((destructor)) static void free_checks(void)
{
    for (size_t i = 0; i < N_CHECKS; i++)
        pcre2_code_free(checks[i]);
}

static bool matches(pcre2_code *re, const char *s, size_t n)
{
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    CHECK(md != NULL);
    int rc = pcre2_match(re, (PCRE2_SPTR)s, n, 0, 0, md, NULL);
    pcre2_match_data_free(md);
    CHECK(rc >= 0 || rc == PCRE2_ERROR_NOMATCH);
    return rc >= 0;
}

/* ---- what the regexes stand for ------------------------------------------ */

static bool alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool token_char(char c)
{
    return alnum(c) || c == '-' || c == '_';
}

static int hex(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A %-escape (two hex digits) at p. */
static bool escape_at(const char *s, size_t n, size_t p)
{
    return p + 2 < n && s[p] == '%' && hex(s[p + 1]) >= 0 && hex(s[p + 2]) >= 0;
}

/* A word starts at p: no letter or digit before it, or a %-escape. */
static bool word_start(const char *s, size_t n, size_t p)
{
    return p == 0 || !alnum(s[p - 1]) || (p >= 3 && escape_at(s, n, p - 3));
}

/* Does prefix, each character itself or %-escaped, then 16 letters,
 * digits, '-', '_' or escapes, start at p? */
static bool token_at(const char *s, size_t n, size_t p, const char *prefix)
{
    for (const char *c = prefix; *c != '\0'; c++) {
        if (p < n && s[p] == *c)
            p++;
        else if (escape_at(s, n, p) && hex(s[p + 1]) * 16 + hex(s[p + 2]) == (unsigned char)*c)
            p += 3;
        else
            return false;
    }
    for (int k = 0; k < ROUTER_TOKEN_MIN_BODY; k++) {
        if (p < n && token_char(s[p]))
            p++;
        else if (escape_at(s, n, p))
            p += 3;
        else
            return false;
    }
    return true;
}

static bool vendor_token_in(const char *s, size_t n, size_t from)
{
    size_t np;
    const char *const *prefixes = secret_vendor_prefixes(&np);
    for (size_t p = from; p < n; p++)
        for (size_t i = 0; word_start(s, n, p) && i < np; i++)
            if (token_at(s, n, p, prefixes[i]))
                return true;
    return false;
}

/* A run of 20 token characters with an upper-case letter, a lower-case
 * letter and a digit, or of 32 hex digits not followed by a letter or
 * digit, starting at a word's start. */
static bool shaped_in(const char *s, size_t n, size_t from)
{
    for (size_t p = from; p < n; p++) {
        size_t run = 0, hexes = 0;
        bool upper = false, lower = false, digit = false;
        while (p + run < n && token_char(s[p + run])) {
            char c = s[p + run++];
            upper |= c >= 'A' && c <= 'Z';
            lower |= c >= 'a' && c <= 'z';
            digit |= c >= '0' && c <= '9';
        }
        while (p + hexes < n && hex(s[p + hexes]) >= 0)
            hexes++;
        if ((p == 0 || !token_char(s[p - 1])) && run >= ROUTER_SHAPED_MIN && upper && lower && digit)
            return true;
        if ((p == 0 || !alnum(s[p - 1])) && hexes >= ROUTER_SHAPED_HEX_MIN && (p + hexes == n || !alnum(s[p + hexes])))
            return true;
    }
    return false;
}

static bool names_credential(const char *name, size_t len)
{
    if (len == 6 && memcmp(name, "cookie", 6) == 0)
        return true;
    size_t nw;
    const char *const *words = router_cred_words(&nw);
    for (size_t i = 0; i < nw; i++)
        if (memmem(name, len, words[i], strlen(words[i])) != NULL)
            return true;
    return false;
}

/* ---- the target ------------------------------------------------------------ */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (checks[0] == NULL)
        compile_checks();
    /* the header lines, after the first line: "\n", then each line and
     * "\n"; no NUL (nginx refuses one in a request) */
    const char *in = (const char *)data, *nl = memchr(in, '\n', size);
    size_t target = nl != NULL ? (size_t)(nl - in) : size;
    char *lines = malloc(size + 2);
    CHECK(lines != NULL);
    size_t n = 0;
    lines[n++] = '\n';
    for (size_t i = target + 1; i < size; i++)
        if (data[i] != '\0')
            lines[n++] = (char)data[i];
    if (lines[n - 1] != '\n')
        lines[n++] = '\n';
    bool vendor = false, shaped = false;
    for (size_t start = 1; start < n;) {
        size_t end = start;
        while (lines[end] != '\n')
            end++;
        const char *line = lines + start, *colon = memchr(line, ':', end - start);
        bool held = end - start >= 8 && memcmp(line, "x-token:", 8) == 0;
        if (colon != NULL && !held) {
            size_t value = (size_t)(colon - line) + 1;
            vendor |= vendor_token_in(line, end - start, value);
            shaped |= names_credential(line, value - 1) && shaped_in(line, end - start, value);
        }
        start = end + 1;
    }
    CHECK(matches(checks[VENDOR_HEADER], lines, n) == vendor);
    CHECK(matches(checks[SHAPED_HEADER], lines, n) == shaped);
    free(lines);
    /* the request target, without its NUL bytes */
    char *uri = malloc(target + 1);
    CHECK(uri != NULL);
    size_t m = 0;
    for (size_t i = 0; i < target; i++)
        if (in[i] != '\0')
            uri[m++] = in[i];
    const char *q = memchr(uri, '?', m);
    CHECK(matches(checks[VENDOR_QUERY], uri, m) == (q != NULL && vendor_token_in(uri, m, (size_t)(q - uri) + 1)));
    free(uri);
    return 0;
}
