/* Resolving a path as the kernel does, and saying which symlinks it went
 * through. Component by component: a symlink's target takes its place (from
 * "/" when absolute, else from the link's directory) and the rest of the path
 * follows it, so ".." after a link goes up from where the link led, not from
 * the link. Nothing here creates or changes anything. */
#ifndef AS_LINK_RESOLVE_H
#define AS_LINK_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

#define LINK_RESOLVE_MAX_HOPS 40      /* the kernel's MAXSYMLINKS */

typedef enum link_end {
    LINK_FOUND,      /* the whole path exists: the path is its physical location */
    LINK_MISSING,    /* the path is that of the first missing component, more follow */
    LINK_MISSING_LAST, /* ... and it is the last component */
    LINK_NOTDIR,     /* the path is that of a non-directory with more components after it */
} link_end_t;

typedef struct link_hop {
    char *path;      /* where the link is, physical */
    char *target;    /* what it says */
} link_hop_t;

typedef struct link_chain {
    link_hop_t *v;
    size_t n;
} link_chain_t;

/* Resolves the absolute `path`. Each link met is appended to *chain when
 * not NULL (also on failure; the caller frees it). -ELOOP past
 * LINK_RESOLVE_MAX_HOPS links, -EXDEV when it leads into /proc (its magic
 * links lead wherever the reader is, so no answer here holds for a host
 * tool), -errno when a component cannot be examined. */
int link_resolve(const char *path, link_chain_t *chain, char **ret_path, link_end_t *ret_end,
                 as_error_t **err);

void link_chain_clear(link_chain_t *chain);

/* Is the file at path (followed to its end) one of the system's: owned by
 * root and not writable by us? Such a file is no way out for a host tool
 * that writes, and runs what the system runs. */
bool link_system_file(const char *path);

#endif
