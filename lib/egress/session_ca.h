/* The TLS material of a session's terminated names, made in memory: a CA
 * for this session only (name-constrained to those names), and one server
 * certificate for all of them. The CA's key is dropped as soon as the
 * certificate is signed, so nothing can sign again; the server key leaves
 * this process only through the router's stdin (docs/secrets.md). */
#ifndef AS_SESSION_CA_H
#define AS_SESSION_CA_H

#include <stddef.h>

#include "base/error.h"
#include "base/util.h"

typedef struct session_tls {
    char *ca_pem;            /* the session CA's certificate: the agent trusts it */
    char *cert_pem;          /* the router's certificate for every name */
    char *key_pem;           /* its private key (wiped by session_tls_clear) */
} session_tls_t;

/* names: canonical host names (checked by the caller), at least one. */
int session_tls_make(const char *const *names, size_t n, session_tls_t *ret, as_error_t **err);
void session_tls_clear(session_tls_t *t);

#endif
