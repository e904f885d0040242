/* Held secrets (docs/secrets.md): where each secret the router holds goes
 * (a name and a request header), parsed from lines of the `secrets` file
 * and of the agents' profiles, one rule a line:
 *     VAR HOST authorization-bearer
 *     VAR HOST authorization-basic USER
 *     VAR HOST header:NAME
 * and the stand-in the agent gets in the value's place. Pure code. */
#ifndef AS_SECRET_RULES_H
#define AS_SECRET_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "base/util.h"

typedef enum secret_place {
    SECRET_BEARER,           /* Authorization: Bearer VALUE */
    SECRET_BASIC,            /* Authorization: Basic base64(USER:VALUE) */
    SECRET_HEADER,           /* NAME: VALUE */
} secret_place_t;

typedef struct secret_rule {
    char *var;               /* the environment variable that names it */
    char *host;              /* canonical host name: terminated by the router */
    secret_place_t place;
    char *header;            /* lower-case header name ("authorization" for the first two) */
    char *user;              /* SECRET_BASIC only */
    char *origin;            /* "FILE:LINE", for messages and the 403 */
} secret_rule_t;

typedef struct secret_rules {
    secret_rule_t *rules;
    size_t n;
} secret_rules_t;

/* Adds the rules of `text` (a secrets file, `file` names it in errors:
 * "FILE:LINE: ..."). A VAR already placed on the same host and header is
 * refused; the same VAR on other hosts or headers is allowed. */
int secret_rules_parse(secret_rules_t *rules, const char *file, const char *text, size_t len,
                       as_error_t **err);
/* One rule from the words after a profile's `secret` keyword. */
int secret_rule_add(secret_rules_t *rules, const char *origin, const char *const *words, size_t n,
                    as_error_t **err);
/* Adds a copy of each rule of `from` (their origins kept), refused as a
 * line of `rules` would be when its VAR is already placed there. */
int secret_rules_append(secret_rules_t *rules, const secret_rules_t *from, as_error_t **err);
void secret_rules_clear(secret_rules_t *rules);

/* A value the router can hold: 8 to 4096 bytes of letters, digits and
 * -._+/= (what API keys and tokens are made of); anything else could not
 * go into its configuration safely and is refused. */
bool secret_value_valid(const char *value);

/* A stand-in of the same shape: the same length, the vendor's prefix kept
 * (short lower-case segments ending in '-' or '_' within the first 16
 * bytes: "sk-ant-api03-", "ghp_"; or Google's "AIza"; never a part that
 * could be the key's own, secret_rules.c), every other letter and digit
 * replaced by a random one of the same kind, other bytes kept. Never equal
 * to the value. */
int secret_standin(const char *value, char **ret, as_error_t **err);

/* The vendors' token prefixes (docs/secrets.md, "Stand-ins": each with its
 * source): what a stand-in keeps, and what the router refuses in any other
 * credential place of a terminated name (router_credentials.h). */
const char *const *secret_vendor_prefixes(size_t *ret_n);

/* The header value a rule puts on the wire for a secret value (or for its
 * stand-in): "Bearer V", "Basic base64(USER:V)" or V. */
int secret_header_value(const secret_rule_t *rule, const char *value, char **ret, as_error_t **err);

#endif
