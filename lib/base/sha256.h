/* SHA-256 (FIPS 180-4), for the hash of a derived image's build context:
 * the libraries we link (libcurl, yajl, libsystemd) export none. */
#ifndef AS_SHA256_H
#define AS_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct sha256 {
    uint32_t h[8];
    uint64_t len;            /* bytes hashed */
    unsigned char buf[64];
    size_t used;
} sha256_t;

void sha256_init(sha256_t *s);
void sha256_update(sha256_t *s, const void *data, size_t len);
/* The digest as 64 lower-case hex digits and a NUL. */
void sha256_hex(sha256_t *s, char ret[65]);

#endif
