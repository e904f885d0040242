#include "tar_write.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t padded(size_t size)
{
    return (size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
}

static int grow(tar_write_t *t, size_t more)
{
    if (more > SIZE_MAX / 2 - t->len)
        return -ENOMEM;
    if (t->len + more <= t->cap)
        return 0;
    size_t cap = t->cap ? t->cap : 64 * 1024;
    while (cap < t->len + more)
        cap *= 2;
    char *bigger = realloc(t->data, cap);
    if (bigger == NULL)
        return -ENOMEM;
    t->data = bigger;
    t->cap = cap;
    return 0;
}

void tar_write_checksum(char header[TAR_BLOCK])
{
    memset(header + 148, ' ', 8);
    unsigned sum = 0;
    for (size_t i = 0; i < TAR_BLOCK; i++)
        sum += (unsigned char)header[i];
    /* six octal digits and a NUL; the field's eighth byte stays a space */
    snprintf(header + 148, 8, "%06o", sum);
}

int tar_write_header(tar_write_t *t, const char *name, unsigned mode, size_t size, char type)
{
    size_t name_len = strlen(name);
    if (name_len > TAR_NAME_MAX)
        return -ENAMETOOLONG;
    int r = grow(t, TAR_BLOCK);
    if (r < 0)
        return r;
    char *h = t->data + t->len;
    memset(h, 0, TAR_BLOCK);
    memcpy(h, name, name_len);
    snprintf(h + 100, 8, "%07o", mode & 07777);
    snprintf(h + 108, 8, "%07o", 0u);                         /* uid */
    snprintf(h + 116, 8, "%07o", 0u);                         /* gid */
    snprintf(h + 124, 12, "%011llo", (unsigned long long)size);
    snprintf(h + 136, 12, "%011o", 0u);                       /* mtime */
    h[156] = type;
    memcpy(h + 257, "ustar\0" "00", 8);
    tar_write_checksum(h);
    t->len += TAR_BLOCK;
    return 0;
}

int tar_write_space(tar_write_t *t, size_t size, char **ret)
{
    *ret = NULL;
    if (size == 0)
        return 0;
    int r = grow(t, padded(size));
    if (r < 0)
        return r;
    *ret = t->data + t->len;
    memset(t->data + t->len + size, 0, padded(size) - size);
    t->len += padded(size);
    return 0;
}

int tar_write_entry(tar_write_t *t, const char *name, unsigned mode, char type, const void *content,
                    size_t size)
{
    char *at = NULL;
    int r = tar_write_header(t, name, mode, size, type);
    if (r == 0)
        r = tar_write_space(t, size, &at);
    if (r == 0 && size > 0)
        memcpy(at, content, size);
    return r;
}

int tar_write_end(tar_write_t *t)
{
    char *at = NULL;
    int r = tar_write_space(t, 2 * TAR_BLOCK, &at);
    if (r == 0)
        memset(at, 0, 2 * TAR_BLOCK);
    return r;
}

void tar_write_clear(tar_write_t *t)
{
    free(t->data);
    *t = (tar_write_t){0};
}
