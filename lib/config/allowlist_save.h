/* `allow --save`: adding entries to the end of the user's allowlist file,
 * never losing a byte of it. The file must parse (every error is named
 * otherwise, and nothing is written); the new text must parse too; it is
 * written to a temporary file beside the real one (a symlink's target, so
 * the link stays) and renamed over it, with the file's mode kept. Comments,
 * blank lines and the order of the lines stay as they were. */
#ifndef AS_ALLOWLIST_SAVE_H
#define AS_ALLOWLIST_SAVE_H

#include <stdbool.h>
#include <stddef.h>

#include "allowlist.h"
#include "base/error.h"

typedef struct allowlist_save_result {
    size_t added;            /* entries appended */
    size_t present;          /* entries the file allowed already (not appended) */
} allowlist_save_result_t;

/* Appends each entry of `add` that the file at `path` does not allow yet,
 * one line each, followed by "  # `comment`" when comment is not NULL
 * (one line, no control characters). Changes of one file are made one at
 * a time (a lock on its directory). */
int allowlist_save(const char *path, const allowlist_t *add, const char *comment,
                   allowlist_save_result_t *ret, as_error_t **err);

/* Whether list `al` allows entry e already: the same name with every one
 * of e's ports, or (for a name without ports) a wildcard over it. */
bool allowlist_allows(const allowlist_t *al, const allowlist_entry_t *e);

#endif
