/* The allowed-hosts file: which names (and which extra TCP ports of which
 * hosts) the sandbox may reach, and which private upstream networks the
 * router may connect to. Syntax and semantics: docs/allowlist.md.
 *
 * Everything stored here has been validated: a name is an RFC 1123 host name
 * in canonical form (lower case, no trailing dot, at least two labels, not an
 * IP address in any spelling), so it can be written into a dnsmasq or nginx
 * config without quoting. Any error refuses the whole file. */
#ifndef AS_ALLOWLIST_H
#define AS_ALLOWLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ipv4_net.h"
#include "base/error.h"
#include "base/hostname.h"
#include "base/util.h"

#define ALLOWLIST_NAME_MAX HOSTNAME_MAX
#define ALLOWLIST_FILE_MAX (1024 * 1024) /* allowlist_read_file refuses bigger files */

#define ALLOWLIST_MAX_ENTRIES 4096
#define ALLOWLIST_MAX_NETS 256

/* The directive of a line that allows a private upstream network. */
#define ALLOWLIST_UPSTREAM_NET "allow-upstream-net"

typedef struct allowlist_port {
    uint16_t port;     /* 1..65535, never 80 or 443 (always allowed) */
    unsigned line;
    const char *file;  /* the file of that line, one of the list's `files`; NULL
                        * for an entry from the command line (line 0) */
} allowlist_port_t;

typedef struct allowlist_entry {
    char *name;        /* canonical host name; for a wildcard, the apex without the dot */
    bool wildcard;     /* ".name": the name itself and every subdomain */
    allowlist_port_t *ports;   /* extra TCP ports, in file order; exact names only */
    size_t n_ports;
    unsigned line;     /* line of the entry's first appearance */
} allowlist_entry_t;

typedef struct allowlist_net {
    ipv4_net_t net;    /* host bits zero */
    unsigned line;
} allowlist_net_t;

typedef struct allowlist {
    allowlist_entry_t *entries;   /* one per distinct (name, wildcard), in file order */
    size_t n_entries;
    allowlist_net_t *nets;        /* allow-upstream-net directives, in file order */
    size_t n_nets;
    char **warnings;              /* "file:line: ..." for duplicates and overlaps */
    size_t n_warnings;
    char **files;                 /* the files its ports came from (NULL-terminated; may be NULL) */
    struct allowlist_index *index; /* allowlist.c's own: the entries by name, or NULL */
} allowlist_t;

/* A hash table of a list's entries by (name, wildcard), for a check of a
 * whole list in one pass (a list may have thousands of entries): it holds
 * entry numbers, so it stays valid while the list grows. */
typedef struct allowlist_index allowlist_index_t;

allowlist_index_t *allowlist_index_new(void);
void allowlist_index_free(allowlist_index_t *ix);
/* Adds entry i of `al`; when an entry with its name and kind is in the
 * table already, *ret_earlier is that one and i is not added, else NULL.
 * -ENOMEM when out of memory. */
int allowlist_index_add(allowlist_index_t *ix, const allowlist_t *al, size_t i,
                        const allowlist_entry_t **ret_earlier);
/* The entry (name, wildcard) among those added, or NULL. */
const allowlist_entry_t *allowlist_index_find(const allowlist_index_t *ix, const allowlist_t *al,
                                              const char *name, bool wildcard);

/* Parse the text of an allowed-hosts file. `filename` is used only in
 * messages ("filename:line: what is wrong"). `text` need not be
 * NUL-terminated; a NUL byte inside it is an error. Any error refuses the
 * whole list; the message names every one found, one per line (at most 50,
 * then how many more), so that they can all be fixed at once. */
int allowlist_parse(const char *filename, const char *text, size_t len,
                    allowlist_t **ret, as_error_t **err);

/* One entry as a user gives it on the command line (`name`, `.domain` or
 * `name:port`), through the same checks as a line of the file; the error
 * names no file or line. *ret holds exactly that entry (and a warning for a
 * redundant :80 or :443). */
int allowlist_parse_entry(const char *text, allowlist_t **ret, as_error_t **err);

/* The entry (name, wildcard), or NULL. */
const allowlist_entry_t *allowlist_find(const allowlist_t *al, const char *name, bool wildcard);
/* The wildcard that covers `name` (it or a name below it), the longest; or NULL. */
const allowlist_entry_t *allowlist_covering(const allowlist_t *al, const char *name);
/* Appends a copy of `e`, a name not listed yet (EEXIST otherwise), with its ports. */
int allowlist_append(allowlist_t *al, const allowlist_entry_t *e, as_error_t **err);
/* Removes the entry (name, wildcard); false when there is none. */
bool allowlist_remove(allowlist_t *al, const char *name, bool wildcard);

/* The list as the text of a file that parses back to it: one line per
 * entry (`name`, `.domain`, or one `name:port` per extra port), then the
 * allow-upstream-net lines. */
int allowlist_format(const allowlist_t *al, char **ret_text, as_error_t **err);
/* One entry's line(s), as allowlist_format writes them. */
void allowlist_put_entry(FILE *f, const allowlist_entry_t *e);

/* Read an allowlist by the config-file policy (lib/base/file_read.h: a regular
 * file of at most ALLOWLIST_FILE_MAX bytes, text only; a dangling symlink is
 * an error). *ret_text is NUL-terminated; *ret_len excludes the NUL. Errors
 * name the path; -ENOENT only when there is no file at all. */
int allowlist_read_file(const char *path, char **ret_text, size_t *ret_len, as_error_t **err);

/* allowlist_read_file + allowlist_parse. */
int allowlist_load(const char *path, allowlist_t **ret, as_error_t **err);

void allowlist_free(allowlist_t *al);
DEFINE_CLEANUP_FUNC(allowlist_t, allowlist_free)

#endif
