#include "router_query.h"

#include <string.h>

#define NAME_MAX_LEN 32

/* Up to the query: everything before the first '?'. Then any number of
 * arguments before the one that matters, each ended by '&' or ';' (both
 * separate arguments for some servers). nginx keeps the backslashes of a
 * quoted string that escape anything but a quote, a backslash, t, r or n. */
#define QUERY_ARG_START "^[^?]*\\?(?:.*[&;])?"
/* Blanks a server may trim from a name: '+' and %20 are spaces in a query. */
#define BLANKS "(?:\\+|%20|%09)*"

bool router_query_name_valid(const char *name)
{
    size_t n = name != NULL ? strlen(name) : 0;
    if (n == 0 || n > NAME_MAX_LEN)
        return false;
    return strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_-") == n;
}

/* One character of a name: itself (either case, as the regex is
 * case-insensitive) or its %-escape in either case of the letter and of
 * the hex digits. PHP reads '.', ' ', '+' and '[' in a name as '_'. */
static void put_name_char(FILE *f, char c)
{
    if (c == '_') {
        fputs("(?:[_. +\\[]|%5f|%2e|%20|%5b)", f);
        return;
    }
    unsigned lower = (unsigned char)c;
    if (c >= 'a' && c <= 'z')
        fprintf(f, "(?:%c|%%%02x|%%%02x)", c, lower, lower - 0x20);
    else
        fprintf(f, "(?:%c|%%%02x)", c, lower);
}

void router_query_put_name(FILE *f, const char *name)
{
    fputs("~*" QUERY_ARG_START BLANKS, f);
    for (const char *c = name; *c != '\0'; c++)
        put_name_char(f, *c);
    /* the name ends: a value, the next argument, an array suffix or the end */
    fputs(BLANKS "(?:[=&;\\[]|%5b|\\z)", f);
}

void router_query_put_unreadable(FILE *f)
{
    /* [^&;=]* stays inside one argument's name */
    fputs("~*" QUERY_ARG_START "[^&;=]*(?:%(?![0-9a-f]{2})|%[01][0-9a-f]|%7f|%[89a-f][0-9a-f]|[^\\x21-\\x7e])",
          f);
}
