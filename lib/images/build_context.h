/* The build context of a derived image (user_image.h): its folder of the
 * config directory packed as a tar stream for libpod's build, the same
 * bytes for the same content (names sorted; no times, owners or modes but
 * the executable bit), and its hash. Bounded and closed: at most
 * BUILD_CONTEXT_MAX bytes of files and BUILD_CONTEXT_ENTRIES entries;
 * files and directories only (a symbolic link, a hard-linked file, which
 * could be one of a file elsewhere, or a special file refuses the context,
 * naming it); paths of at most 100 bytes. */
#ifndef AS_BUILD_CONTEXT_H
#define AS_BUILD_CONTEXT_H

#include <stddef.h>

#include "base/error.h"

#define BUILD_CONTEXT_MAX (64u * 1024 * 1024)
#define BUILD_CONTEXT_ENTRIES 4096

typedef struct build_context {
    char *tar;
    size_t len;
    char hash[65];           /* SHA-256 of the stream and the salt */
} build_context_t;

/* `salt` goes into the hash only (the FROM image's ID: a new base makes
 * a new hash). */
int build_context_pack(const char *dir, const char *salt, build_context_t *ret, as_error_t **err);
void build_context_clear(build_context_t *c);
/* The hash of a stream and its salt: SHA-256 (OpenSSL's) of the two one
 * after the other, as 64 lower-case hex digits and a NUL. */
int build_context_hash(const void *data, size_t len, const char *salt, char ret[65], as_error_t **err);

#endif
