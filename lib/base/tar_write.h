/* A tar stream written in memory: the one tar writer, for the build context
 * of a derived image (lib/images/build_context.h) and the archives of the
 * unit tests. Deterministic: POSIX ustar headers that hold a name, a mode,
 * a size and a type, with owners and times zero, so the same entries make
 * the same bytes. Names of at most 100 bytes: the build context refuses
 * longer paths, so no pax record for a long name is needed. Pure code;
 * failures are negative errno values (-ENAMETOOLONG, -ENOMEM) for the
 * caller to put into its own words. */
#ifndef AS_TAR_WRITE_H
#define AS_TAR_WRITE_H

#include <stddef.h>

#define TAR_BLOCK 512
#define TAR_NAME_MAX 100

typedef struct tar_write {
    char *data;              /* the stream so far */
    size_t len, cap;
} tar_write_t;

/* One header; `size` bytes of content must follow, given by
 * tar_write_content or filled in through tar_write_space. */
int tar_write_header(tar_write_t *t, const char *name, unsigned mode, size_t size, char type);
/* Room for `size` bytes of content, zero-padded to a whole block: the
 * caller writes them at *ret before the stream grows again. */
int tar_write_space(tar_write_t *t, size_t size, char **ret);
/* An entry whole: its header and `size` bytes of content. */
int tar_write_entry(tar_write_t *t, const char *name, unsigned mode, char type, const void *content,
                    size_t size);
/* The two zero blocks that end an archive. */
int tar_write_end(tar_write_t *t);
/* Sets a header's checksum field from its other 504 bytes (for a header
 * changed after it was written, as tests and the fuzzer do). */
void tar_write_checksum(char header[TAR_BLOCK]);
/* Frees the stream and empties *t for another. */
void tar_write_clear(tar_write_t *t);

#endif
