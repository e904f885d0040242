/* A tar stream read as it comes, header by header, its file contents
 * skipped: what the image check needs of a container's file system (the
 * path, mode and type of every entry, and whether it carries file
 * capabilities). ustar with GNU long names (`L`) and pax records (`x`:
 * path, size, SCHILY.xattr.security.capability) as Go's archive/tar
 * writes them. Complete or an error: a bad checksum, an unknown size
 * encoding, an oversized record, or a stream that ends before the
 * end-of-archive blocks. Pure code. */
#ifndef AS_TAR_SCAN_H
#define AS_TAR_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "util.h"

typedef struct tar_entry {
    const char *path;        /* as in the archive ("./usr/bin/x", "usr/bin/x") */
    unsigned mode;           /* the permission bits with setuid, setgid, sticky */
    char type;               /* '0' file, '5' directory, '2' symlink, '3'/'4' devices, ... */
    bool capability;         /* a security.capability extended attribute */
} tar_entry_t;

/* Called for each entry; a negative return stops the scan and is returned. */
typedef int (*tar_entry_fn)(const tar_entry_t *e, void *ctx, as_error_t **err);

typedef struct tar_scan tar_scan_t;

int tar_scan_new(tar_entry_fn fn, void *ctx, tar_scan_t **ret, as_error_t **err);
void tar_scan_free(tar_scan_t *t);
DEFINE_CLEANUP_FUNC(tar_scan_t, tar_scan_free)
/* The next bytes of the stream, in any pieces. */
int tar_scan_feed(tar_scan_t *t, const char *data, size_t len, as_error_t **err);
/* The stream is over: 0 when it ended with the end-of-archive blocks. */
int tar_scan_finish(tar_scan_t *t, as_error_t **err);
/* How many entries were seen. */
size_t tar_scan_entries(const tar_scan_t *t);

#endif
