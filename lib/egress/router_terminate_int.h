/* Inside the termination's renderers: router_terminate.c renders the
 * servers and the upstream path, router_terminate_checks.c every request
 * check (nginx maps, each "" when the request is fine, else why it is
 * refused). Not for the rest of the CLI; router_terminate.h is the
 * module's contract. */
#ifndef AS_ROUTER_TERMINATE_INT_H
#define AS_ROUTER_TERMINATE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "router_terminate.h"

/* Is name (a terminated one) read-only? */
bool terminate_read_only(const router_terminate_t *t, const char *name);
/* Does the router hold a secret for name (else only request rules
 * terminate it)? */
bool terminate_holds_secrets(const router_terminate_t *t, const char *name);
/* Is held header k the first of its name and header? Two secrets in one
 * header of one name (two tokens of one account) share one map. */
bool terminate_first_in_place(const router_terminate_t *t, size_t k);
/* Does host i hold a secret in header? */
bool terminate_host_places(const router_terminate_t *t, size_t i, const char *header);
/* nginx's variable for a header: $http_x_api_key */
void terminate_put_header_var(FILE *f, const char *header);

/* The http{} maps of every check (before the servers). */
void terminate_put_checks(FILE *f, const router_terminate_t *t);
/* In host i's server: the 421 of a Host other than the connection's name
 * and the 403 of everything the checks refuse. */
void terminate_put_refusals(FILE *f, const router_terminate_t *t, size_t i);
/* In host i's location: what of the request never goes upstream. */
void terminate_put_dropped_headers(FILE *f, const router_terminate_t *t, size_t i);

#endif
