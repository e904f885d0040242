/* What a credential looks like in a request to a terminated name
 * (docs/secrets.md, "Credentials: by value, by name, the rest"), for the
 * router's request checks (router_terminate_checks.c). Judged first as
 * classes, by value: a known vendor's token anywhere in a header or the
 * query, and a credential-shaped value in a header whose name says it is
 * a credential (router_cred_words) or in a cookie; then by name, where no class can be computed: the places the
 * vendors document, each with its source. Pure data and regex writers,
 * like router_query. */
#ifndef AS_ROUTER_CREDENTIALS_H
#define AS_ROUTER_CREDENTIALS_H

#include <stddef.h>
#include <stdio.h>

/* A name with the document that says what it is. */
typedef struct cred_name {
    const char *name;        /* lower case */
    const char *source;
} cred_name_t;

/* Headers that carry a credential wherever they are present (refused on a
 * terminated name unless a held secret of that name goes there). */
const cred_name_t *router_cred_headers(size_t *ret_n);
/* Query arguments that carry a credential (refused by name, however it is
 * spelled: router_query.h). */
const cred_name_t *router_cred_args(size_t *ret_n);
/* The words that make a header's name a credential place (lower case):
 * a credential-shaped value in such a header, or in a cookie, is refused;
 * elsewhere a random-looking value is a client's ID, not judged. */
const char *const *router_cred_words(size_t *ret_n);

/* Writes a case-sensitive PCRE (no anchor) that matches a known vendor's
 * token (secret_vendor_prefixes) starting a word: the prefix, then at least
 * ROUTER_TOKEN_MIN_BODY letters, digits, '-' or '_'; each character itself
 * or %-escaped (hex digits in either case), as a server that decodes the
 * value reads it. */
#define ROUTER_TOKEN_MIN_BODY 16
void router_cred_put_vendor_token(FILE *f);

/* Writes a case-sensitive PCRE (no anchor) that matches a credential-shaped
 * run in a value: at least ROUTER_SHAPED_MIN letters, digits, '-'
 * and '_' with an upper-case letter, a lower-case letter and a digit among
 * them (a random key, a JWT's parts), or at least ROUTER_SHAPED_HEX_MIN hex
 * digits (a hex token). A word, a version, a date or a UUID is not one. */
#define ROUTER_SHAPED_MIN 20
#define ROUTER_SHAPED_HEX_MIN 32
void router_cred_put_shaped(FILE *f);

#endif
