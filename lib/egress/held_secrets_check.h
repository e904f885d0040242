/* The held secrets against the session's other inputs (docs/secrets.md):
 * every terminated name one the allowlist lets through, none with a port
 * of its own (which would relay its bytes past every check), and no held
 * variable also handed to the sandbox with --env. Pure: each refusal is an
 * error naming the option, or the file and line, at fault. */
#ifndef AS_HELD_SECRETS_CHECK_H
#define AS_HELD_SECRETS_CHECK_H

#include "held_secrets.h"
#include "base/error.h"
#include "config/allowlist.h"
#include "config/request_rules.h"

/* 0, or -EINVAL with *err naming the first name that the allowlist does
 * not let through or that has a NAME:PORT entry. */
int held_secrets_check_allowlist(const held_secrets_t *h, const request_rules_t *requests, const allowlist_t *al,
                                 as_error_t **err);
/* 0, or -EINVAL when a --secret VAR is also set with --env VAR=... */
int held_secrets_check_env(char *const *names, char *const *env, as_error_t **err);

#endif
