#include "secret_rules.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/evp.h>

#include "base/config_lines.h"
#include "base/hostname.h"

#define VALUE_MIN 8
#define VALUE_MAX 4096

static bool var_valid(const char *s)
{
    if (s[0] == '\0' || (s[0] >= '0' && s[0] <= '9') || strlen(s) > 128)
        return false;
    for (const char *c = s; *c != '\0'; c++)
        if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
            return false;
    return true;
}

/* An HTTP token in lower case (RFC 9110), as nginx's $http_ names take it. */
static bool header_valid(const char *s)
{
    if (s[0] == '\0' || strlen(s) > 64)
        return false;
    for (const char *c = s; *c != '\0'; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-'))
            return false;
    return true;
}

static bool user_valid(const char *s)
{
    if (s[0] == '\0' || strlen(s) > 128)
        return false;
    for (const char *c = s; *c != '\0'; c++)
        if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
              *c == '-' || *c == '_' || *c == '.'))
            return false;
    return true;
}

bool secret_value_valid(const char *v)
{
    size_t n = v != NULL ? strlen(v) : 0;
    if (n < VALUE_MIN || n > VALUE_MAX)
        return false;
    for (const char *c = v; *c != '\0'; c++)
        if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
              strchr("-._+/=", *c) != NULL))
            return false;
    return true;
}

static void rule_clear(secret_rule_t *r)
{
    free(r->var);
    free(r->host);
    free(r->header);
    free(r->user);
    free(r->origin);
}

void secret_rules_clear(secret_rules_t *rules)
{
    for (size_t i = 0; rules != NULL && i < rules->n; i++)
        rule_clear(&rules->rules[i]);
    if (rules != NULL)
        free(rules->rules);
    if (rules != NULL)
        *rules = (secret_rules_t){0};
}

/* The placement word (and the user of authorization-basic). */
static int parse_place(secret_rule_t *r, const char *place, const char *user, size_t n_words,
                       char *why, size_t why_len)
{
    if (strcmp(place, "authorization-bearer") == 0 || strcmp(place, "authorization-basic") == 0) {
        bool basic = place[14] == 'b' && place[15] == 'a';
        if (n_words != (basic ? 4u : 3u)) {
            snprintf(why, why_len, basic ? "authorization-basic needs a user name after it"
                                         : "authorization-bearer takes nothing after it");
            return -1;
        }
        if (basic && !user_valid(user)) {
            snprintf(why, why_len, "the user name must be letters, digits and -_.");
            return -1;
        }
        r->place = basic ? SECRET_BASIC : SECRET_BEARER;
        r->header = strdup("authorization");
        r->user = basic ? strdup(user) : NULL;
        return r->header == NULL || (basic && r->user == NULL) ? -2 : 0;
    }
    if (strncmp(place, "header:", 7) == 0) {
        if (n_words != 3 || !header_valid(place + 7)) {
            snprintf(why, why_len, "header:NAME takes a lower-case header name (letters, digits, -) "
                     "and nothing after it");
            return -1;
        }
        if (strcmp(place + 7, "authorization") == 0 || strcmp(place + 7, "host") == 0) {
            snprintf(why, why_len, "header:%s: use authorization-bearer or authorization-basic",
                     place + 7);
            return -1;
        }
        r->place = SECRET_HEADER;
        r->header = strdup(place + 7);
        return r->header == NULL ? -2 : 0;
    }
    snprintf(why, why_len, "\"%s\" is not a placement (authorization-bearer, "
             "authorization-basic USER, header:NAME)", place);
    return -1;
}

/* Takes r (p: 0, or -1 with why filled, or -2 out of memory) into rules
 * unless its VAR is already placed in the same header on the same host:
 * a second placement of the same header would be ambiguous. */
static int rule_insert(secret_rules_t *rules, secret_rule_t *r, int p, char *why, size_t why_len,
                       as_error_t **err)
{
    for (size_t i = 0; p == 0 && i < rules->n; i++)
        if (strcmp(rules->rules[i].var, r->var) == 0 && strcmp(rules->rules[i].host, r->host) == 0 &&
            strcmp(rules->rules[i].header, r->header) == 0) {
            snprintf(why, why_len, "%s is already placed in %s on %s (%s)", r->var, r->header,
                     r->host, rules->rules[i].origin);
            p = -1;
        }
    secret_rule_t *more = p == 0 ? reallocarray(rules->rules, rules->n + 1, sizeof(*more)) : NULL;
    if (p == 0 && more == NULL)
        p = -2;
    if (p < 0) {
        int r2 = p == -2 ? as_error_make(err, ENOMEM, "out of memory")
                         : as_error_make(err, EINVAL, "%s: %s", r->origin != NULL ? r->origin : "", why);
        rule_clear(r);
        return r2;
    }
    rules->rules = more;
    rules->rules[rules->n++] = *r;
    return 0;
}

int secret_rule_add(secret_rules_t *rules, const char *origin, const char *const *w, size_t n,
                    as_error_t **err)
{
    if (n < 3 || n > 4)
        return as_error_make(err, EINVAL, "%s: a secret rule is VAR HOST PLACEMENT [USER]", origin);
    if (!var_valid(w[0]))
        return as_error_make(err, EINVAL, "%s: \"%s\" is not an environment variable name", origin, w[0]);
    if (!hostname_is_canonical(w[1]))
        return as_error_make(err, EINVAL, "%s: \"%s\" is not a host name (lower case, no port, "
                             "no wildcard)", origin, w[1]);
    secret_rule_t r = { .var = strdup(w[0]), .host = strdup(w[1]), .origin = strdup(origin) };
    char why[160];
    int p = r.var == NULL || r.host == NULL || r.origin == NULL
                ? -2 : parse_place(&r, w[2], n == 4 ? w[3] : NULL, n, why, sizeof(why));
    return rule_insert(rules, &r, p, why, sizeof(why), err);
}

int secret_rules_append(secret_rules_t *rules, const secret_rules_t *from, as_error_t **err)
{
    for (size_t i = 0; i < from->n; i++) {
        const secret_rule_t *f = &from->rules[i];
        secret_rule_t r = {
            .var = strdup(f->var), .host = strdup(f->host), .place = f->place, .header = strdup(f->header),
            .user = f->user != NULL ? strdup(f->user) : NULL, .origin = strdup(f->origin),
        };
        char why[160];
        int p = r.var == NULL || r.host == NULL || r.header == NULL || r.origin == NULL ||
                (f->user != NULL && r.user == NULL) ? -2 : 0;
        int ri = rule_insert(rules, &r, p, why, sizeof(why), err);
        if (ri < 0)
            return ri;
    }
    return 0;
}

typedef struct parse_ctx {
    secret_rules_t *rules;
} parse_ctx_t;

static int parse_line(const config_lines_t *it, const config_line_t *line, void *ctx, as_error_t **err)
{
    parse_ctx_t *c = ctx;
    if (line->problem != NULL)
        return config_line_error(it, line, err, "%s", line->problem);
    config_word_t words[5];
    size_t n = config_line_words(line, words, 5);
    if (n < 3 || n > 4)
        return config_line_error(it, line, err, "a secret rule is VAR HOST PLACEMENT [USER] "
                                 "(docs/secrets.md)");
    char *w[4] = {0};
    _cleanup_free_ char *origin = NULL;
    int r = asprintf(&origin, "%s:%u", it->file, line->number) < 0 ? -ENOMEM : 0;
    for (size_t i = 0; r == 0 && i < n; i++)
        if ((w[i] = strndup(words[i].text, words[i].len)) == NULL)
            r = -ENOMEM;
    if (r == 0)
        r = secret_rule_add(c->rules, origin, (const char *const *)w, n, err);
    else
        r = as_error_make(err, ENOMEM, "out of memory");
    for (size_t i = 0; i < 4; i++)
        free(w[i]);
    return r;
}

int secret_rules_parse(secret_rules_t *rules, const char *file, const char *text, size_t len,
                       as_error_t **err)
{
    parse_ctx_t c = { rules };
    return config_lines_each(file, text, len, parse_line, &c, err);
}

/* ---- stand-ins ------------------------------------------------------------ */

/* The vendors' prefixes a stand-in keeps, so that a client's format check
 * passes; docs/secrets.md lists each with its vendor's source. The longest
 * one the value starts with is kept, and nothing else of the value: a
 * prefix that is not on this list is the key's own. */
static const char *const vendor_prefixes[] = {
    /* Anthropic: API keys, `claude setup-token`'s OAuth tokens, Admin API keys */
    "sk-ant-api03-", "sk-ant-oat01-", "sk-ant-admin01-",
    /* OpenAI: project, service-account and admin keys; "sk-" for the older ones */
    "sk-proj-", "sk-svcacct-", "sk-admin-", "sk-",
    /* Google Cloud API keys */
    "AIza",
    /* GitHub: personal, OAuth, app user-to-server, app server-to-server,
     * refresh tokens; fine-grained personal tokens */
    "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_",
    /* GitLab's token prefixes */
    "glpat-", "gloas-", "gldt-", "glrt-", "glcbt-", "glptt-", "glft-", "glimt-", "glagent-", "glsoat-", "glffct-",
    /* Stripe: secret and restricted keys */
    "sk_live_", "sk_test_", "rk_live_", "rk_test_",
    /* Slack: bot, user, app-level and refresh tokens */
    "xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxe-", "xapp-",
    /* Hugging Face, npm, PyPI */
    "hf_", "npm_", "pypi-",
};

const char *const *secret_vendor_prefixes(size_t *ret_n)
{
    *ret_n = ARRAY_SIZE(vendor_prefixes);
    return vendor_prefixes;
}

static size_t kept_prefix(const char *v)
{
    size_t keep = 0;
    for (size_t i = 0; i < ARRAY_SIZE(vendor_prefixes); i++) {
        size_t n = strlen(vendor_prefixes[i]);
        if (n > keep && strncmp(v, vendor_prefixes[i], n) == 0)
            keep = n;
    }
    return keep;
}

static char random_like(char c, unsigned char rnd)
{
    if (c >= 'a' && c <= 'z')
        return (char)('a' + rnd % 26);
    if (c >= 'A' && c <= 'Z')
        return (char)('A' + rnd % 26);
    if (c >= '0' && c <= '9')
        return (char)('0' + rnd % 10);
    return c;
}

int secret_standin(const char *value, char **ret, as_error_t **err)
{
    if (!secret_value_valid(value))
        return as_error_make(err, EINVAL, "a held secret must be 8 to 4096 letters, digits or -._+/=");
    size_t n = strlen(value), keep = kept_prefix(value);
    _cleanup_wipe_ char *s = strdup(value);      /* the value itself until replaced */
    _cleanup_free_ unsigned char *rnd = malloc(n);
    if (s == NULL || rnd == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    for (int tries = 0; tries < 8; tries++) {
        if (getrandom(rnd, n, 0) != (ssize_t)n)
            return as_error_errno(err, errno, "random bytes for a stand-in");
        for (size_t i = keep; i < n; i++)
            s[i] = random_like(value[i], rnd[i]);
        if (strcmp(s, value) != 0) {
            *ret = steal_pointer(&s);
            return 0;
        }
    }
    /* only a value with (almost) nothing but its prefix and punctuation gets here */
    return as_error_make(err, EINVAL, "a held secret needs letters or digits past its prefix");
}

/* ---- header values -------------------------------------------------------- */

/* Base64 by OpenSSL's encoder (libcrypto is linked for the session CA). */
static char *base64(const char *in)
{
    size_t n = strlen(in);
    if (n > INT_MAX / 4 * 3 - 3)
        return NULL;
    unsigned char *out = malloc((n + 2) / 3 * 4 + 1);
    if (out == NULL)
        return NULL;
    EVP_EncodeBlock(out, (const unsigned char *)in, (int)n);
    return (char *)out;
}

int secret_header_value(const secret_rule_t *rule, const char *value, char **ret, as_error_t **err)
{
    char *text = NULL;
    int r = 0;
    if (rule->place == SECRET_BEARER) {
        r = asprintf(&text, "Bearer %s", value);
    } else if (rule->place == SECRET_BASIC) {
        _cleanup_wipe_ char *pair = NULL;    /* the secret, and its encoding */
        _cleanup_wipe_ char *enc = NULL;
        r = asprintf(&pair, "%s:%s", rule->user, value);
        if (r >= 0 && (enc = base64(pair)) == NULL)
            r = -1;
        if (r >= 0)
            r = asprintf(&text, "Basic %s", enc);
    } else {
        text = strdup(value);
        r = text == NULL ? -1 : 0;
    }
    if (r < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    *ret = text;
    return 0;
}
