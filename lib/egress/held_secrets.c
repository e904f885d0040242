#include "held_secrets.h"

#include <errno.h>
#include <string.h>

#include "egress_state.h"
#include "base/strv.h"
#include "base/util.h"

void held_secrets_free(held_secrets_t *h)
{
    if (h == NULL)
        return;
    strv_free(h->hosts);
    strv_free(h->read_only);
    for (size_t i = 0; i < h->n_held; i++) {
        free((char *)h->held[i].host);
        free((char *)h->held[i].var);
        free((char *)h->held[i].header);
        free((char *)h->held[i].standin);
        free_wiped((char *)h->held[i].value);
    }
    free(h->held);
    strv_free(h->standin_env);
    strv_free(h->vars);
    for (size_t i = 0; h->values != NULL && h->values[i] != NULL; i++)
        free_wiped(h->values[i]);
    free(h->values);
    session_tls_clear(&h->tls);
    free(h->upstream_ca);
    free(h->agent_bundle);
    free(h);
}

static int add_host(held_secrets_t *h, const char *host)
{
    for (size_t i = 0; i < h->n_hosts; i++)
        if (strcmp(h->hosts[i], host) == 0)
            return 0;
    if (strv_push(&h->hosts, host) < 0)
        return -ENOMEM;
    h->n_hosts++;
    return 0;
}

/* One variable: its stand-in, and a held header per rule that names it. */
static int add_var(held_secrets_t *h, const secret_rules_t *rules, const char *var, const char *value,
                   size_t nth, as_error_t **err)
{
    _cleanup_free_ char *standin = NULL;
    _cleanup_free_ char *entry = NULL;
    int r = secret_standin(value, &standin, err);
    if (r < 0)
        return as_error_prefix(err, "--secret %s", var);
    if (asprintf(&entry, "%s=%s", var, standin) < 0 || strv_push(&h->standin_env, entry) < 0 ||
        strv_push(&h->vars, var) < 0 || (h->values[nth] = strdup(value)) == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    size_t placed = 0;
    for (size_t i = 0; i < rules->n; i++) {
        const secret_rule_t *rule = &rules->rules[i];
        if (strcmp(rule->var, var) != 0)
            continue;
        held_header_t *more = reallocarray(h->held, h->n_held + 1, sizeof(*more));
        if (more == NULL)
            return as_error_make(err, ENOMEM, "out of memory");
        h->held = more;
        held_header_t *hh = &h->held[h->n_held];
        *hh = (held_header_t){ .host = strdup(rule->host), .var = strdup(var), .header = strdup(rule->header) };
        h->n_held++;
        char *s = NULL, *v = NULL;
        if ((r = secret_header_value(rule, standin, &s, err)) < 0)
            return r;
        hh->standin = s;
        if ((r = secret_header_value(rule, value, &v, err)) < 0)
            return r;
        hh->value = v;
        if (hh->host == NULL || hh->var == NULL || hh->header == NULL || add_host(h, rule->host) < 0)
            return as_error_make(err, ENOMEM, "out of memory");
        placed++;
    }
    if (placed == 0)
        return as_error_make(err, EINVAL, "--secret %s: no rule says where it goes (a line "
                             "\"%s HOST PLACEMENT\" in the secrets file, docs/secrets.md)", var, var);
    return 0;
}

int held_secrets_build(const secret_rules_t *rules, const request_rules_t *requests, char *const *vars,
                       const char *(*value_of)(const char *var), held_secrets_t **ret,
                       as_error_t **err)
{
    _cleanup_(held_secrets_freep) held_secrets_t *h = calloc(1, sizeof(*h));
    size_t n = 0;
    while (vars != NULL && vars[n] != NULL)
        n++;
    if (h == NULL || (h->values = calloc(n + 1, sizeof(char *))) == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < i; j++)
            if (strcmp(vars[i], vars[j]) == 0)
                return as_error_make(err, EINVAL, "--secret %s is given twice", vars[i]);
        const char *value = value_of(vars[i]);
        if (value == NULL)
            return as_error_make(err, EINVAL, "--secret %s: not set in your environment", vars[i]);
        if (!secret_value_valid(value))
            return as_error_make(err, EINVAL, "--secret %s: its value is not one the router can "
                                 "hold (8 to 4096 letters, digits or -._+/=)", vars[i]);
        int r = add_var(h, rules, vars[i], value, i, err);
        if (r < 0)
            return r;
    }
    for (size_t i = 0; requests != NULL && i < requests->n; i++) {
        if (strv_push(&h->read_only, requests->rules[i].host) < 0 ||
            add_host(h, requests->rules[i].host) < 0)
            return as_error_make(err, ENOMEM, "out of memory");
        h->n_read_only++;
    }
    if (h->n_hosts > 0) {
        int r = session_tls_make((const char *const *)h->hosts, h->n_hosts, &h->tls, err);
        if (r < 0)
            return r;
    }
    *ret = steal_pointer(&h);
    return 0;
}

int held_secrets_agent_env(const held_secrets_t *h, char *const *env, char ***ret, as_error_t **err)
{
#define AGENT_VIEW EGRESS_AGENT_VIEW_MOUNT "/"
    static const char *const ca_vars[] = {
        "NODE_EXTRA_CA_CERTS=" AGENT_VIEW EGRESS_AGENT_SESSION_CA,
        "SSL_CERT_FILE=" AGENT_VIEW EGRESS_AGENT_CA_BUNDLE,
        "REQUESTS_CA_BUNDLE=" AGENT_VIEW EGRESS_AGENT_CA_BUNDLE,
        "CURL_CA_BUNDLE=" AGENT_VIEW EGRESS_AGENT_CA_BUNDLE,
        "GIT_SSL_CAINFO=" AGENT_VIEW EGRESS_AGENT_CA_BUNDLE,
    };
#undef AGENT_VIEW
    _cleanup_(strv_freep) char **out = NULL;
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        if (strv_push(&out, env[i]) < 0)
            return as_error_make(err, ENOMEM, "out of memory");
    for (size_t i = 0; h->standin_env != NULL && h->standin_env[i] != NULL; i++)
        if (strv_push(&out, h->standin_env[i]) < 0)
            return as_error_make(err, ENOMEM, "out of memory");
    for (size_t i = 0; i < ARRAY_SIZE(ca_vars); i++)
        if (strv_push(&out, ca_vars[i]) < 0)
            return as_error_make(err, ENOMEM, "out of memory");
    *ret = steal_pointer(&out);
    return 0;
}
