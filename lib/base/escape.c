#include "escape.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"

/* Length of the valid UTF-8 sequence at s (at most n bytes) and its code
 * point; 0 when it is not one (overlong, surrogate, beyond U+10FFFF, cut). */
static size_t utf8_decode(const unsigned char *s, size_t n, unsigned *ret_cp)
{
    static const unsigned min[] = { 0, 0, 0x80, 0x800, 0x10000 };
    size_t len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (s[0] >= 0xf5 || len == 0 || len > n)
        return 0;
    unsigned cp = s[0] & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    *ret_cp = cp;
    return len;
}

/* Code points a terminal or a reader would not show as what they are. */
static bool invisible(unsigned cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0xad || cp == 0x61c || cp == 0x180e ||
           (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
           (cp >= 0x2060 && cp <= 0x206f) || cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb) ||
           (cp >= 0xe0000 && cp <= 0xe007f);
}

static void put_escaped(FILE *f, const char *s, size_t n, bool keep_newlines)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned cp = 0;
        size_t len = u[i] < 0x80 ? 1 : utf8_decode(u + i, n - i, &cp);
        if (len == 1) {
            if ((u[i] < 0x20 && !(keep_newlines && u[i] == '\n')) || u[i] == 0x7f)
                fprintf(f, "\\x%02x", u[i]);
            else
                fputc(u[i], f);
        } else if (len == 0) {
            fprintf(f, "\\x%02x", u[i]);
            len = 1;
        } else if (invisible(cp)) {
            fprintf(f, "\\u{%04X}", cp);
        } else {
            fwrite(u + i, 1, len, f);
        }
        i += len;
    }
}

void path_put_escaped(FILE *f, const char *s, size_t n)
{
    put_escaped(f, s, n, false);
}

void text_put_escaped(FILE *f, const char *s, size_t n)
{
    put_escaped(f, s, n, true);
}

char *path_escaped(const char *s)
{
    msg_t m;
    char *text = NULL;
    if (msg_open(&m, NULL) < 0)
        return NULL;
    path_put_escaped(m.f, s, strlen(s));
    return msg_close(&m, &text, NULL) == 0 ? text : NULL;
}
