/* The held secrets of a session (docs/secrets.md, session_load.h): rules,
 * values, CAs. */
#include "session_load.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/file_read.h"
#include "config/agent_profile.h"
#include "base/util.h"
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

/* A held variable's value, from the CLI's environment (the one place it
 * is, and stays: never a file, a spec or the agent's environment). */
static const char *value_of(const char *var)
{
    return getenv(var);
}

/* A file of the config directory, if there is one (*ret_text NULL when
 * not); 0 or an exit code, reported. */
static session_fault_t read_optional(const session_say_t *to, const char *name, char **ret_path, char **ret_text,
                                     size_t *ret_len)
{
    as_error_t *err = NULL;
    session_fault_t rc = user_config_path(to, name, ret_path);
    if (rc != SESSION_OK)
        return rc;
    if (config_file_read(AT_FDCWD, *ret_path, CONFIG_FOLLOW, 1u << 20, ret_text, ret_len, &err) < 0) {
        *ret_text = NULL;
        if (as_error_rc(err) == -ENOENT) {
            as_error_free(&err);
            return SESSION_OK;
        }
        config_error_name(&err, "", *ret_path);
        say_error(to, &err);
        return SESSION_FAULT_USAGE;
    }
    return SESSION_OK;
}

/* The agent's profile's placements, then the `secrets` file's: a VAR
 * placed in the same header on the same host by both is refused (never
 * silently one of them; docs/secrets.md). */
static session_fault_t load_rules(const session_say_t *to, const secret_rules_t *agent_rules, secret_rules_t *rules)
{
    as_error_t *err = NULL;
    if (secret_rules_append(rules, agent_rules, &err) < 0) {
        say_error(to, &err);
        return SESSION_FAULT_INTERNAL;
    }
    _cleanup_free_ char *path = NULL;
    _cleanup_free_ char *text = NULL;
    size_t len = 0;
    session_fault_t rc = read_optional(to, SECRETS_FILE, &path, &text, &len);
    if (rc != SESSION_OK || text == NULL)
        return rc;
    if (secret_rules_parse(rules, path, text, len, &err) < 0) {
        say_error(to, &err);
        return SESSION_FAULT_USAGE;
    }
    return SESSION_OK;
}

/* The request rules (docs/secrets.md): the `rules` file, if there is one. */
static session_fault_t load_requests(const session_say_t *to, request_rules_t *requests)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *path = NULL;
    _cleanup_free_ char *text = NULL;
    size_t len = 0;
    session_fault_t rc = read_optional(to, RULES_FILE, &path, &text, &len);
    if (rc != SESSION_OK || text == NULL)
        return rc;
    if (request_rules_parse(requests, path, text, len, &err) < 0) {
        say_error(to, &err);
        return SESSION_FAULT_USAGE;
    }
    return SESSION_OK;
}

static session_fault_t read_ca(const session_say_t *to, const char *path, char **ret)
{
    as_error_t *err = NULL;
    size_t len = 0;
    if (config_file_read(AT_FDCWD, path, CONFIG_FOLLOW, CA_MAX, ret, &len, &err) < 0) {
        config_error_name(&err, "", path);
        say_error(to, &err);
        return SESSION_FAULT_USAGE;
    }
    if (strstr(*ret, "-----BEGIN CERTIFICATE-----") == NULL) {
        say(to, SAY_ERROR, "%s holds no PEM certificate", path);
        return SESSION_FAULT_USAGE;
    }
    return SESSION_OK;
}

/* The upstreams' CAs and the agent's bundle. Fail closed: no CA, no
 * termination (never a fallback that puts the value inside). */
static session_fault_t bundles(const session_say_t *to, const char *named, held_secrets_t *h)
{
    _cleanup_free_ char *system = NULL;
    _cleanup_free_ char *extra = NULL;
    session_fault_t rc;
    for (size_t i = 0; system == NULL && i < ARRAY_SIZE(system_bundles); i++)
        if (access(system_bundles[i], R_OK) == 0 && (rc = read_ca(to, system_bundles[i], &system)) != SESSION_OK)
            return rc;
    if (named != NULL && (rc = read_ca(to, named, &extra)) != SESSION_OK)
        return rc;
    if (system == NULL && extra == NULL) {
        say(to, SAY_ERROR, "held secrets and request rules: no CA bundle to verify the real servers with (none of the "
               "system's, no AGENT_SANDBOX_UPSTREAM_CA): nothing is held");
        return SESSION_FAULT_USAGE;
    }
    if (asprintf(&h->upstream_ca, "%s%s", system != NULL ? system : "", extra != NULL ? extra : "") < 0 ||
        asprintf(&h->agent_bundle, "%s%s", system != NULL ? system : "", h->tls.ca_pem) < 0)
        return SESSION_FAULT_INTERNAL;
    return SESSION_OK;
}


session_fault_t load_secrets(const session_request_t *req, const session_say_t *to, session_inputs_t *in)
{
    char *const *names = req->secrets;
    _cleanup_(request_rules_clear) request_rules_t requests = {0};
    session_fault_t rc = load_requests(to, &requests);
    if (rc != SESSION_OK || ((names == NULL || names[0] == NULL) && requests.n == 0))
        return rc;
    _cleanup_(secret_rules_clear) secret_rules_t rules = {0};
    _cleanup_(held_secrets_freep) held_secrets_t *h = NULL;
    as_error_t *err = NULL;
    if (held_secrets_check_env(names, req->env, &err) < 0) {
        say_error(to, &err);
        return SESSION_FAULT_USAGE;
    }
    if ((rc = load_rules(to, &in->agent->secrets, &rules)) != SESSION_OK)
        return rc;
    if (held_secrets_build(&rules, &requests, names, value_of, &h, &err) < 0 ||
        held_secrets_check_allowlist(h, &requests, in->allowlist, &err) < 0) {
        say_error(to, &err);
        return SESSION_FAULT_USAGE;
    }
    if ((rc = bundles(to, req->vars.upstream_ca, h)) != SESSION_OK)
        return rc;
    in->held = steal_pointer(&h);
    return SESSION_OK;
}
