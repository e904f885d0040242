/* The secrets a session's router holds (docs/secrets.md), put together
 * from the rules (secret_rules), the variables named with --secret and
 * their values: the terminated names, each held header with its stand-in
 * and real value, the agent's stand-in environment, and the session's TLS
 * material. Values live only here and in what router_render_held_values
 * makes of them; held_secrets_free wipes them. */
#ifndef AS_HELD_SECRETS_H
#define AS_HELD_SECRETS_H

#include <stddef.h>

#include "router_terminate.h"
#include "session_ca.h"
#include "base/error.h"
#include "base/util.h"
#include "config/request_rules.h"
#include "config/secret_rules.h"

typedef struct held_secrets {
    char **hosts;            /* terminated names, each once */
    size_t n_hosts;
    held_header_t *held;     /* every string owned */
    size_t n_held;
    char **read_only;        /* names with the request rule read-only (also in hosts) */
    size_t n_read_only;
    char **standin_env;      /* VAR=<stand-in>, NULL-terminated */
    char **vars;             /* the held variables, NULL-terminated (for --dry-run, verify) */
    char **values;           /* their values, in vars' order (verify looks for them) */
    session_tls_t tls;
    char *upstream_ca;       /* the CAs the router verifies upstreams with (set by the caller) */
    char *agent_bundle;      /* the agent's CA bundle: the system's and the session CA (caller) */
} held_secrets_t;

/* vars: the --secret names; value_of(VAR) their values (NULL: unset).
 * Every VAR needs at least one rule; every value must be one
 * secret_value_valid takes. The names of the request rules are terminated
 * too, with or without a secret. Makes the TLS material when any name is
 * terminated. */
int held_secrets_build(const secret_rules_t *rules, const request_rules_t *requests, char *const *vars,
                       const char *(*value_of)(const char *var), held_secrets_t **ret,
                       as_error_t **err);
/* The agent's environment: env (the session's own variables), then each
 * held variable's stand-in, then the variables that point TLS clients at
 * the session CA (the agent view's bundle). A new vector; -ENOMEM. */
int held_secrets_agent_env(const held_secrets_t *h, char *const *env, char ***ret, as_error_t **err);
void held_secrets_free(held_secrets_t *h);
DEFINE_CLEANUP_FUNC(held_secrets_t, held_secrets_free)

#endif
