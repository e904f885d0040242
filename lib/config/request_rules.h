/* Request rules for terminated names (docs/secrets.md): a name limited to
 * some requests, from the `rules` file of the config directory, one rule a
 * line:
 *     HOST read-only
 * read-only: GET and HEAD anywhere, POST only to .../git-upload-pack (git
 * fetch and clone over HTTPS); everything else, push included, refused.
 * A name with a rule is terminated by the router. Pure code. */
#ifndef AS_REQUEST_RULES_H
#define AS_REQUEST_RULES_H

#include <stddef.h>

#include "base/error.h"
#include "base/util.h"

typedef struct request_rule {
    char *host;              /* canonical host name */
    char *origin;            /* "FILE:LINE", for messages */
} request_rule_t;

typedef struct request_rules {
    request_rule_t *rules;   /* every one read-only: the only rule there is */
    size_t n;
} request_rules_t;

/* Adds the rules of `text` (`file` names it in errors: "FILE:LINE: ...").
 * A name given twice is refused. */
int request_rules_parse(request_rules_t *rules, const char *file, const char *text, size_t len,
                        as_error_t **err);
void request_rules_clear(request_rules_t *rules);

#endif
