/* The names of a request's query arguments as servers read them, written
 * as nginx regexes over $request_uri: the request target exactly as the
 * agent sent it, which is also what the router passes upstream (its
 * proxy_pass names no URI). The checks of terminated names
 * (router_terminate.c) refuse an argument by its name however it is
 * spelled. Pure renderers, like router_render.
 *
 * Each regex is meant for a case-insensitive map entry ("~*"). */
#ifndef AS_ROUTER_QUERY_H
#define AS_ROUTER_QUERY_H

#include <stdbool.h>
#include <stdio.h>

/* A name the renderer can spell every way: 1 to 32 bytes of lower-case
 * letters, digits, '_' and '-'. */
bool router_query_name_valid(const char *name);

/* Writes a regex that matches a request target whose query (what follows
 * its first '?') holds an argument a server reads as `name`: at any
 * position, after '&' or ';'; each character as itself or %-escaped, in
 * either case; '_' also as what PHP reads as '_' in a name ('.', ' ', '+',
 * '['); blanks ('+', %20, %09) around it; with or without a value, and
 * with an array suffix ("name[]=", "name%5B0%5D="). `name` is valid. */
void router_query_put_name(FILE *f, const char *name);

/* Writes a regex that matches a request target whose query holds an
 * argument name the router cannot read as every server would: a '%' not
 * followed by two hex digits, or a byte outside printable ASCII, raw or
 * %-escaped (a NUL or other control byte ends a name in C; a non-ASCII
 * letter can fold to an ASCII one, as the Kelvin sign U+212A folds to 'k'). */
void router_query_put_unreadable(FILE *f);

#endif
