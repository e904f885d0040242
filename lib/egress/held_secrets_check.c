/* The held secrets against the session's other inputs
 * (held_secrets_check.h). */
#include "held_secrets_check.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static bool allowed(const allowlist_t *al, const char *host)
{
    return al != NULL && (allowlist_find(al, host, false) != NULL || allowlist_covering(al, host) != NULL);
}

/* Why the router terminates `host`: a held secret or a request rule. */
static void why_terminated(const held_secrets_t *h, const request_rules_t *requests, const char *host,
                           char *buf, size_t len)
{
    for (size_t i = 0; i < h->n_held; i++)
        if (strcmp(h->held[i].host, host) == 0) {
            snprintf(buf, len, "it holds --secret %s", h->held[i].var);
            return;
        }
    for (size_t i = 0; i < requests->n; i++)
        if (strcmp(requests->rules[i].host, host) == 0) {
            snprintf(buf, len, "it has the rule of %s", requests->rules[i].origin);
            return;
        }
    snprintf(buf, len, "it holds a secret");
}

/* A port of its own (NAME:PORT) would relay a terminated name's bytes as
 * they are, past every check its HTTPS requests get: refused, naming the
 * line where the allowlist has one. */
static int check_ports(const held_secrets_t *h, const request_rules_t *requests, const allowlist_t *al,
                       as_error_t **err)
{
    for (size_t i = 0; al != NULL && i < h->n_hosts; i++) {
        const allowlist_entry_t *e = allowlist_find(al, h->hosts[i], false);
        if (e == NULL || e->n_ports == 0)
            continue;
        char why[256];
        why_terminated(h, requests, h->hosts[i], why, sizeof(why));
        const allowlist_port_t *p = &e->ports[0];
        if (p->file != NULL)
            return as_error_make(err, EINVAL,
                                 "%s:%u: %s:%u: the router checks every request to %s (%s) on HTTPS only; "
                                 "a port of its own would relay it unchecked: remove the line (docs/secrets.md)",
                                 p->file, p->line, e->name, p->port, e->name, why);
        return as_error_make(err, EINVAL,
                             "%s:%u: the router checks every request to %s (%s) on HTTPS only; a port of "
                             "its own would relay it unchecked (docs/secrets.md)", e->name, p->port, e->name, why);
    }
    return 0;
}

/* Every terminated name must be one the allowlist lets through. */
static int check_names(const held_secrets_t *h, const request_rules_t *requests, const allowlist_t *al,
                       as_error_t **err)
{
    for (size_t i = 0; i < h->n_held; i++)
        if (!allowed(al, h->held[i].host))
            return as_error_make(err, EINVAL, "--secret %s: its name %s is not in the allowlist (agent-sandbox "
                                 "allow %s --save)", h->held[i].var, h->held[i].host, h->held[i].host);
    for (size_t i = 0; i < requests->n; i++)
        if (!allowed(al, requests->rules[i].host))
            return as_error_make(err, EINVAL, "%s: the rule's name %s is not in the allowlist (agent-sandbox "
                                 "allow %s --save)", requests->rules[i].origin, requests->rules[i].host,
                                 requests->rules[i].host);
    return 0;
}

int held_secrets_check_allowlist(const held_secrets_t *h, const request_rules_t *requests, const allowlist_t *al,
                                 as_error_t **err)
{
    int r = check_names(h, requests, al, err);
    return r < 0 ? r : check_ports(h, requests, al, err);
}

int held_secrets_check_env(char *const *names, char *const *env, as_error_t **err)
{
    for (size_t i = 0; names != NULL && names[i] != NULL; i++)
        for (size_t j = 0; env != NULL && env[j] != NULL; j++) {
            size_t n = strlen(names[i]);
            if (strncmp(env[j], names[i], n) == 0 && env[j][n] == '=')
                return as_error_make(err, EINVAL, "--secret %s and --env %s: the router holds it, or the "
                                     "sandbox has it, not both", names[i], names[i]);
        }
    return 0;
}
