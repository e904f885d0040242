/* The held secrets of a session (docs/secrets.md): rules, values, CAs. */
#include "inputs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "shared/cli.h"
#include "shared/cli_env.h"
#include "base/file_read.h"
#include "base/strv.h"
#include "config/allowlist.h"
#include "config/request_rules.h"
#include "config/secret_rules.h"
#include "egress/egress_state.h"
#include "egress/held_secrets.h"
#include "egress/held_secrets_check.h"

#define SECRETS_FILE "secrets"
#define RULES_FILE "rules"
#define CA_MAX (8u << 20)

/* The system's CA bundle, where the distributions keep it. */
static const char *const system_bundles[] = {
    "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/ssl/ca-bundle.pem", "/etc/ssl/cert.pem",
};

static const char *value_of(const char *var)
{
    return getenv(var);
}

/* A file of the config directory, if there is one (*ret_text NULL when
 * not); 0 or an exit code, reported. */
static int read_optional(const char *name, char **ret_path, char **ret_text, size_t *ret_len)
{
    as_error_t *err = NULL;
    int rc = user_config_path(name, ret_path);
    if (rc != 0)
        return rc;
    if (config_file_read(AT_FDCWD, *ret_path, CONFIG_FOLLOW, 1u << 20, ret_text, ret_len, &err) < 0) {
        *ret_text = NULL;
        if (as_error_rc(err) == -ENOENT) {
            as_error_free(&err);
            return 0;
        }
        config_error_name(&err, "", *ret_path);
        report_error(&err);
        return EXIT_USAGE;
    }
    return 0;
}

/* The agent's profile's placements, then the `secrets` file's: a VAR
 * placed in the same header on the same host by both is refused (never
 * silently one of them; docs/secrets.md). */
static int load_rules(const secret_rules_t *agent_rules, secret_rules_t *rules)
{
    as_error_t *err = NULL;
    if (secret_rules_append(rules, agent_rules, &err) < 0) {
        report_error(&err);
        return EXIT_INTERNAL;
    }
    _cleanup_free_ char *path = NULL;
    _cleanup_free_ char *text = NULL;
    size_t len = 0;
    int rc = read_optional(SECRETS_FILE, &path, &text, &len);
    if (rc != 0 || text == NULL)
        return rc;
    if (secret_rules_parse(rules, path, text, len, &err) < 0) {
        report_error(&err);
        return EXIT_USAGE;
    }
    return 0;
}

/* The request rules (docs/secrets.md): the `rules` file, if there is one. */
static int load_requests(request_rules_t *requests)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *path = NULL;
    _cleanup_free_ char *text = NULL;
    size_t len = 0;
    int rc = read_optional(RULES_FILE, &path, &text, &len);
    if (rc != 0 || text == NULL)
        return rc;
    if (request_rules_parse(requests, path, text, len, &err) < 0) {
        report_error(&err);
        return EXIT_USAGE;
    }
    return 0;
}

static int read_ca(const char *path, char **ret)
{
    as_error_t *err = NULL;
    size_t len = 0;
    if (config_file_read(AT_FDCWD, path, CONFIG_FOLLOW, CA_MAX, ret, &len, &err) < 0) {
        config_error_name(&err, "", path);
        report_error(&err);
        return EXIT_USAGE;
    }
    if (strstr(*ret, "-----BEGIN CERTIFICATE-----") == NULL) {
        report("error: %s holds no PEM certificate", path);
        return EXIT_USAGE;
    }
    return 0;
}

/* The upstreams' CAs and the agent's bundle. Fail closed: no CA, no
 * termination (never a fallback that puts the value inside). */
static int bundles(held_secrets_t *h)
{
    _cleanup_free_ char *system = NULL;
    _cleanup_free_ char *extra = NULL;
    int rc;
    for (size_t i = 0; system == NULL && i < ARRAY_SIZE(system_bundles); i++)
        if (access(system_bundles[i], R_OK) == 0 && (rc = read_ca(system_bundles[i], &system)) != 0)
            return rc;
    const char *named = cli_env()->upstream_ca;
    if (named != NULL && (rc = read_ca(named, &extra)) != 0)
        return rc;
    if (system == NULL && extra == NULL) {
        report("error: held secrets and request rules: no CA bundle to verify the real servers with (none of the "
               "system's, no AGENT_SANDBOX_UPSTREAM_CA): nothing is held");
        return EXIT_USAGE;
    }
    if (asprintf(&h->upstream_ca, "%s%s", system != NULL ? system : "", extra != NULL ? extra : "") < 0 ||
        asprintf(&h->agent_bundle, "%s%s", system != NULL ? system : "", h->tls.ca_pem) < 0)
        return EXIT_INTERNAL;
    return 0;
}


int load_secrets(char *const *names, char *const *env, const secret_rules_t *agent_rules,
                        const allowlist_t *al, held_secrets_t **ret)
{
    *ret = NULL;
    _cleanup_(request_rules_clear) request_rules_t requests = {0};
    int rc = load_requests(&requests);
    if (rc != 0 || ((names == NULL || names[0] == NULL) && requests.n == 0))
        return rc;
    _cleanup_(secret_rules_clear) secret_rules_t rules = {0};
    _cleanup_(held_secrets_freep) held_secrets_t *h = NULL;
    as_error_t *err = NULL;
    if (held_secrets_check_env(names, env, &err) < 0) {
        report_error(&err);
        return EXIT_USAGE;
    }
    if ((rc = load_rules(agent_rules, &rules)) != 0)
        return rc;
    if (held_secrets_build(&rules, &requests, names, value_of, &h, &err) < 0 ||
        held_secrets_check_allowlist(h, &requests, al, &err) < 0) {
        report_error(&err);
        return EXIT_USAGE;
    }
    if ((rc = bundles(h)) != 0)
        return rc;
    *ret = steal_pointer(&h);
    return 0;
}
