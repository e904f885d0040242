#include "router_credentials.h"

#include "base/util.h"
#include "config/secret_rules.h"

/* The headers vendors read a credential from. docs/secrets.md lists them
 * with these sources; a name added here needs its row there. */
static const cred_name_t cred_headers[] = {
    { "authorization", "RFC 9110, 11.6.2 (every bearer, basic or token scheme)" },
    { "proxy-authorization", "RFC 9110, 11.7.2" },
    { "x-api-key", "docs.anthropic.com/en/api/overview (Anthropic API keys)" },
    { "x-goog-api-key", "cloud.google.com/docs/authentication/api-keys-use (Google API keys)" },
    { "api-key", "learn.microsoft.com/azure/ai-services/openai/reference (Azure OpenAI)" },
    { "x-auth-token", "docs.openstack.org/api-ref/identity/v3 (OpenStack tokens)" },
    { "private-token", "docs.gitlab.com/api/rest/authentication (personal, project, group tokens)" },
    { "job-token", "docs.gitlab.com/api/rest/authentication (CI/CD job tokens)" },
    { "x-auth-key", "developers.cloudflare.com/fundamentals/api/get-started/keys (Global API key)" },
    { "x-vault-token", "developer.hashicorp.com/vault/api-docs (Vault tokens)" },
    { "apikey", "supabase.com/docs/guides/api/api-keys (Supabase keys)" },
};

/* The query arguments vendors read a credential from (router_query.h
 * spells each as servers decode it); docs/secrets.md lists them. */
static const cred_name_t cred_args[] = {
    { "key", "cloud.google.com/docs/authentication/api-keys-use (?key=)" },
    { "api_key", "developer.themoviedb.org/docs/authentication-application (?api_key=)" },
    { "access_token", "RFC 6750, 2.3; docs.gitlab.com/api/rest/authentication; docs.gitea.com/development/api-usage" },
    { "private_token", "docs.gitlab.com/api/rest/authentication" },
    { "job_token", "docs.gitlab.com/api/rest/authentication" },
    { "token", "docs.gitea.com/development/api-usage (?token=)" },
    { "oauth_token", "RFC 5849, 3.5.3 (OAuth 1.0 parameters in the query)" },
    { "apikey", "supabase.com/docs/guides/realtime/protocol (?apikey=)" },
};

/* The words a header's name carries when its value is a credential: every
 * header of the table above has one, and so do the places of vendors it
 * does not name (X-Access-Token, X-Shopify-Access-Token, DD-API-KEY,
 * Ocp-Apim-Subscription-Key, X-Amz-Security-Token, X-Figma-Token,
 * Circle-Token, X-Sentry-Auth). A client's own IDs (a session, a request,
 * a trace: opencode's x-session-affinity) are named otherwise, and may
 * look as random as a key. Cookies are a credential place too. */
static const char *const cred_words[] = { "auth", "token", "key", "secret", "pass", "cred", "sign" };

const cred_name_t *router_cred_headers(size_t *ret_n)
{
    *ret_n = ARRAY_SIZE(cred_headers);
    return cred_headers;
}

const cred_name_t *router_cred_args(size_t *ret_n)
{
    *ret_n = ARRAY_SIZE(cred_args);
    return cred_args;
}

const char *const *router_cred_words(size_t *ret_n)
{
    *ret_n = ARRAY_SIZE(cred_words);
    return cred_words;
}

/* One hex digit of an escape, in either case. */
static void put_hex_digit(FILE *f, unsigned d)
{
    if (d < 10)
        fputc((int)('0' + d), f);
    else
        fprintf(f, "[%c%c]", 'A' + (d - 10), 'a' + (d - 10));
}

/* One character of a prefix: itself (case-sensitive: a vendor's prefix is
 * exact) or %-escaped. Prefixes are letters, digits, '-' and '_', none of
 * them special in a regex outside a class. */
static void put_prefix_char(FILE *f, char c)
{
    unsigned u = (unsigned char)c;
    fprintf(f, "(?:%c|%%", c);
    put_hex_digit(f, u >> 4);
    put_hex_digit(f, u & 15);
    fputc(')', f);
}

void router_cred_put_vendor_token(FILE *f)
{
    size_t n;
    const char *const *prefixes = secret_vendor_prefixes(&n);
    /* a token starts a word: no letter or digit right before it, or a
     * %-escape (a server reads "%20ghp_..." as " ghp_...") */
    fputs("(?:(?<![A-Za-z0-9])|(?<=%[0-9A-Fa-f]{2}))(?:", f);
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            fputc('|', f);
        for (const char *c = prefixes[i]; *c != '\0'; c++)
            put_prefix_char(f, *c);
    }
    fprintf(f, ")(?:[A-Za-z0-9_-]|%%[0-9A-Fa-f]{2}){%d}", ROUTER_TOKEN_MIN_BODY);
}

void router_cred_put_shaped(FILE *f)
{
    /* at the start of a run: the lookaheads stay inside it (their class is
     * the run's), so each run is read a few times at most */
    fprintf(f, "(?:(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]{%d})(?=[A-Za-z0-9_-]*[A-Z])"
            "(?=[A-Za-z0-9_-]*[a-z])(?=[A-Za-z0-9_-]*[0-9])"
            "|(?<![A-Za-z0-9])[0-9A-Fa-f]{%d,}(?![A-Za-z0-9]))", ROUTER_SHAPED_MIN, ROUTER_SHAPED_HEX_MIN);
}
