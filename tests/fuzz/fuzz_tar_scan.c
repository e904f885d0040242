/* libFuzzer target for the tar scanner (lib/base/tar_scan.c), which reads
 * the file system of an untrusted image's export. The same bytes are fed
 * whole and in pieces of several sizes (one byte, odd sizes, a block and a
 * byte): the scanner must see the same entries and reach the same verdict
 * with the same message whatever the pieces, hand out only well-formed
 * entries, and stop at the first error its callback returns. A block that
 * carries the ustar magic gets its checksum made right first: random bytes
 * almost never sum up, and the parsers behind the checksum are the point. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "base/tar_scan.h"
#include "base/tar_write.h"

#define PATH_LIMIT (256 * 1024)      /* tar_scan's RECORD_MAX: no path is longer */

typedef struct seen {
    size_t entries;
    uint64_t digest;         /* FNV-1a over every entry's fields, in order */
    size_t stop_at;          /* the callback fails at this entry (0: never) */
    bool stopped;
} seen_t;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const unsigned char *)p)[i]) * 0x100000001b3ULL;
    return h;
}

static int on_entry(const tar_entry_t *e, void *ctx, as_error_t **err)
{
    seen_t *s = ctx;
    CHECK(!s->stopped);                       /* nothing after the callback's error */
    CHECK(e->path != NULL && strnlen(e->path, PATH_LIMIT + 1) <= PATH_LIMIT);
    CHECK((e->mode & ~07777u) == 0);
    CHECK(e->type != '\0');
    s->digest = fnv(s->digest, e->path, strlen(e->path) + 1);
    s->digest = fnv(s->digest, &e->mode, sizeof(e->mode));
    s->digest = fnv(s->digest, &e->type, 1);
    s->digest = fnv(s->digest, &e->capability, sizeof(e->capability));
    if (++s->entries == s->stop_at) {
        s->stopped = true;
        return as_error_make(err, ECANCELED, "stopped by the callback");
    }
    return 0;
}

typedef struct outcome {
    int r;
    char *msg;
    seen_t seen;
} outcome_t;

/* The whole scan, `chunk` bytes a feed (0: all at once). */
static outcome_t scan(const uint8_t *data, size_t size, size_t chunk, size_t stop_at)
{
    outcome_t o = { .seen = { .digest = 0xcbf29ce484222325ULL, .stop_at = stop_at } };
    tar_scan_t *t = NULL;
    as_error_t *err = NULL;
    CHECK(tar_scan_new(on_entry, &o.seen, &t, &err) == 0);
    size_t step = chunk > 0 ? chunk : size;
    for (size_t pos = 0; o.r == 0 && pos < size; pos += step) {
        size_t n = size - pos < step ? size - pos : step;
        o.r = tar_scan_feed(t, (const char *)data + pos, n, &err);
    }
    if (o.r == 0)
        o.r = tar_scan_finish(t, &err);
    CHECK(tar_scan_entries(t) == o.seen.entries);
    tar_scan_free(t);
    if (o.r < 0) {
        CHECK(err != NULL && err->msg != NULL && err->msg[0] != '\0');
        CHECK(err->code == -o.r);
        o.msg = strdup(err->msg);
        CHECK(o.msg != NULL);
        as_error_free(&err);
    } else {
        CHECK(o.r == 0 && err == NULL);
    }
    return o;
}

/* The checksum of each block with the ustar magic at offset 257, made right. */
static uint8_t *fix_checksums(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size > 0 ? size : 1);
    CHECK(copy != NULL);
    memcpy(copy, data, size);
    for (size_t b = 0; b + 512 <= size; b += 512) {
        uint8_t *h = copy + b;
        if (memcmp(h + 257, "ustar", 5) == 0)
            tar_write_checksum((char *)h);
    }
    return copy;
}

int LLVMFuzzerTestOneInput(const uint8_t *input, size_t size)
{
    static const size_t chunks[] = { 1, 7, 100, 512, 513, 4096 };
    uint8_t *data = fix_checksums(input, size);
    outcome_t whole = scan(data, size, 0, 0);
    CHECK(whole.r == 0 || whole.r == -EBADMSG || whole.r == -EFBIG || whole.r == -EPIPE);
    for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
        outcome_t o = scan(data, size, chunks[i], 0);
        CHECK(o.r == whole.r);
        CHECK(o.seen.entries == whole.seen.entries && o.seen.digest == whole.seen.digest);
        CHECK((o.msg == NULL) == (whole.msg == NULL) && (o.msg == NULL || strcmp(o.msg, whole.msg) == 0));
        free(o.msg);
    }
    /* a callback that fails at the last entry ends the scan with its error */
    if (whole.seen.entries > 0) {
        outcome_t o = scan(data, size, 7, whole.seen.entries);
        CHECK(o.r == -ECANCELED && o.seen.entries == whole.seen.entries);
        CHECK(strcmp(o.msg, "stopped by the callback") == 0);
        free(o.msg);
    }
    free(whole.msg);
    free(data);
    return 0;
}
