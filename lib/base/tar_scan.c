#include "tar_scan.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"

#define BLOCK 512
#define RECORD_MAX (256 * 1024)     /* a pax or long-name record: far more than any path */

struct tar_scan {
    tar_entry_fn fn;
    void *ctx;
    char block[BLOCK];
    size_t have;             /* bytes of the current header block */
    unsigned long long skip; /* content (and padding) still to pass */
    char *record;            /* the `x` or `L` record being read, else NULL */
    size_t record_len, record_want;
    char record_type;
    char *long_path;         /* from the last `L` or `x` record, for the next entry */
    long long pax_size;      /* -1: none */
    bool pax_capability;
    unsigned zero_blocks;
    bool ended;
    size_t entries;
};

int tar_scan_new(tar_entry_fn fn, void *ctx, tar_scan_t **ret, as_error_t **err)
{
    tar_scan_t *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    t->fn = fn, t->ctx = ctx, t->pax_size = -1;
    *ret = t;
    return 0;
}

void tar_scan_free(tar_scan_t *t)
{
    if (t == NULL)
        return;
    free(t->record);
    free(t->long_path);
    free(t);
}

size_t tar_scan_entries(const tar_scan_t *t)
{
    return t->entries;
}

/* An octal field (NUL or blank terminated), or base-256 when its first
 * byte has the high bit set. -1 when malformed. */
static long long number(const char *f, size_t n)
{
    const unsigned char *u = (const unsigned char *)f;
    if (u[0] & 0x80) {
        if (u[0] != 0x80)
            return -1;       /* negative, or larger than we take */
        unsigned long long v = 0;
        for (size_t i = 1; i < n; i++) {
            if (v >> 55)
                return -1;
            v = v << 8 | u[i];
        }
        return (long long)v;
    }
    long long v = 0;
    size_t i = 0;
    while (i < n && f[i] == ' ')
        i++;
    for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
        if (v >> 58)
            return -1;
        v = v * 8 + (f[i] - '0');
    }
    for (; i < n; i++)
        if (f[i] != '\0' && f[i] != ' ')
            return -1;
    return v;
}

static bool checksum_ok(const char *b)
{
    long long want = number(b + 148, 8);
    unsigned long long sum = 0;
    for (size_t i = 0; i < BLOCK; i++)
        sum += (i >= 148 && i < 156) ? ' ' : (unsigned char)b[i];
    return want >= 0 && (unsigned long long)want == sum;
}

/* A pax record's length at rec, of which avail bytes are left: decimal
 * digits only, then a space (strtoul would take blanks, newlines and a
 * sign before them); 0 when malformed or longer than what is left. */
static size_t record_length(const char *rec, size_t avail, size_t *ret_digits)
{
    const char *space = memchr(rec, ' ', avail < 8 ? avail : 8);    /* RECORD_MAX: 6 digits */
    unsigned len = 0;
    if (space == NULL || !decimal_parse(rec, (size_t)(space - rec), (unsigned)avail, &len))
        return 0;
    *ret_digits = (size_t)(space - rec);
    return len;
}

/* pax records, "LEN KEY=VALUE\n" each: the path, the size and the
 * capability attribute. Every pointer stays inside the record: the key
 * starts after the length's space, the value ends at its newline. */
static int pax_parse(tar_scan_t *t, as_error_t **err)
{
    size_t pos = 0;
    while (pos < t->record_len) {
        const char *rec = t->record + pos;
        size_t digits = 0, len = record_length(rec, t->record_len - pos, &digits);
        if (len < digits + 3 || rec[len - 1] != '\n')     /* "N =\n" at the least */
            return as_error_make(err, EBADMSG, "a malformed pax record");
        const char *kv = rec + digits + 1, *nl = rec + len - 1, *eq = memchr(kv, '=', (size_t)(nl - kv));
        if (eq == NULL)
            return as_error_make(err, EBADMSG, "a malformed pax record");
        size_t klen = (size_t)(eq - kv), vlen = (size_t)(nl - eq - 1);
        if (klen == 4 && memcmp(kv, "path", 4) == 0) {
            free(t->long_path);
            if ((t->long_path = strndup(eq + 1, vlen)) == NULL)
                return as_error_make(err, ENOMEM, "out of memory");
        } else if (klen == 4 && memcmp(kv, "size", 4) == 0) {
            char num[24];
            if (vlen == 0 || vlen >= sizeof(num))
                return as_error_make(err, EBADMSG, "a malformed pax size");
            memcpy(num, eq + 1, vlen);
            num[vlen] = '\0';
            char *end = NULL;
            t->pax_size = strtoll(num, &end, 10);
            if (*end != '\0' || t->pax_size < 0)
                return as_error_make(err, EBADMSG, "a malformed pax size");
        } else if (klen == 32 && memcmp(kv, "SCHILY.xattr.security.capability", 32) == 0) {
            t->pax_capability = true;
        }
        pos += len;
    }
    return 0;
}

static int record_done(tar_scan_t *t, as_error_t **err)
{
    int r = 0;
    t->record[t->record_len] = '\0';
    if (t->record_type == 'x') {
        r = pax_parse(t, err);
    } else {
        free(t->long_path);
        t->long_path = strndup(t->record, strnlen(t->record, t->record_len));
        if (t->long_path == NULL)
            r = as_error_make(err, ENOMEM, "out of memory");
    }
    free(t->record);
    t->record = NULL;
    return r;
}

/* Padding of a content of `size` bytes to whole blocks. */
static unsigned long long padded(unsigned long long size)
{
    return (size + BLOCK - 1) / BLOCK * BLOCK;
}

static int entry(tar_scan_t *t, const char *b, unsigned long long size, as_error_t **err)
{
    char path[256 + 1];
    if (t->long_path == NULL) {
        /* only POSIX ustar has the 155-byte prefix; GNU's "ustar  " header
         * has its atime and ctime there */
        bool posix = memcmp(b + 257, "ustar\0" "00", 8) == 0;
        size_t plen = posix ? strnlen(b + 345, 155) : 0, nlen = strnlen(b, 100);
        snprintf(path, sizeof(path), "%.*s%s%.*s", (int)plen, b + 345, plen ? "/" : "", (int)nlen, b);
    }
    long long mode = number(b + 100, 8);
    if (mode < 0)
        return as_error_make(err, EBADMSG, "a malformed mode");
    tar_entry_t e = { .path = t->long_path != NULL ? t->long_path : path, .mode = (unsigned)mode & 07777,
                      .type = b[156] == '\0' ? '0' : b[156], .capability = t->pax_capability };
    t->entries++;
    int r = t->fn(&e, t->ctx, err);
    free(t->long_path);
    t->long_path = NULL;
    t->pax_size = -1;
    t->pax_capability = false;
    /* links, devices, directories and fifos have no content, whatever their size says */
    t->skip = strchr("123456", e.type) != NULL ? 0 : padded(size);
    return r;
}

static int header(tar_scan_t *t, const char *b, as_error_t **err)
{
    static const char zero[BLOCK];
    if (memcmp(b, zero, BLOCK) == 0) {
        if (++t->zero_blocks == 2)
            t->ended = true;
        return 0;
    }
    if (t->zero_blocks > 0 || !checksum_ok(b))
        return as_error_make(err, EBADMSG, "a corrupt tar header after %zu entries", t->entries);
    long long size = number(b + 124, 12);
    if (size < 0)
        return as_error_make(err, EBADMSG, "a malformed size after %zu entries", t->entries);
    char type = b[156];
    if (type == 'x' || type == 'L') {
        if (size > RECORD_MAX)
            return as_error_make(err, EFBIG, "a tar record of %lld bytes", size);
        if ((t->record = malloc((size_t)size + 1)) == NULL)
            return as_error_make(err, ENOMEM, "out of memory");
        t->record_type = type, t->record_len = 0, t->record_want = (size_t)size;
        t->skip = padded((unsigned long long)size);
        return t->record_want == 0 ? record_done(t, err) : 0;
    }
    if (type == 'g' || type == 'K')      /* global pax records, long link names: nothing we need */
        return t->skip = padded((unsigned long long)size), 0;
    return entry(t, b, t->pax_size >= 0 ? (unsigned long long)t->pax_size : (unsigned long long)size, err);
}

int tar_scan_feed(tar_scan_t *t, const char *data, size_t len, as_error_t **err)
{
    while (len > 0 && !t->ended) {
        if (t->skip > 0) {
            size_t n = t->skip < len ? (size_t)t->skip : len;
            if (t->record != NULL) {
                size_t take = t->record_want - t->record_len < n ? t->record_want - t->record_len : n;
                memcpy(t->record + t->record_len, data, take);
                t->record_len += take;
            }
            t->skip -= n, data += n, len -= n;
            if (t->skip == 0 && t->record != NULL) {
                int r = record_done(t, err);
                if (r < 0)
                    return r;
            }
            continue;
        }
        size_t n = BLOCK - t->have < len ? BLOCK - t->have : len;
        memcpy(t->block + t->have, data, n);
        t->have += n, data += n, len -= n;
        if (t->have == BLOCK) {
            t->have = 0;
            int r = header(t, t->block, err);
            if (r < 0)
                return r;
        }
    }
    return 0;
}

int tar_scan_finish(tar_scan_t *t, as_error_t **err)
{
    if (!t->ended)
        return as_error_make(err, EPIPE, "the tar stream ended early (after %zu entries)", t->entries);
    return 0;
}
