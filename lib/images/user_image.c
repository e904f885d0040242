#include "user_image.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "agent_pins.h"
#include "toolchains.h"
#include "base/util.h"

#ifndef AS_IMAGE_TAG
#define AS_IMAGE_TAG "dev"
#endif

bool user_image_name_valid(const char *name)
{
    size_t len = strlen(name);
    return len > 0 && len <= 64 && name[0] != '-' && name[0] != '_' &&
           strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-_") == len;
}

int user_image_ref(const char *name, const char *tag, char **ret, as_error_t **err)
{
    if (!user_image_name_valid(name))
        return as_error_make(err, EINVAL, "`%s` is not an image's name (lower-case letters, digits, - and _)", name);
    if (asprintf(ret, "%s%s:%s", USER_IMAGE_REPO, name, tag) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    return 0;
}

/* "T1-T2-...": known toolchains in strictly increasing order. */
static bool toolchain_suffix(const char *s, size_t len)
{
    char prev[33] = "";
    while (len > 0) {
        const char *dash = memchr(s, '-', len);
        size_t n = dash != NULL ? (size_t)(dash - s) : len;
        char name[33];
        if (n == 0 || n >= sizeof(name))
            return false;
        memcpy(name, s, n);
        name[n] = '\0';
        if (!toolchain_known(name) || strcmp(prev, name) >= 0)
            return false;
        memcpy(prev, name, n + 1);
        s += n, len -= n;
        if (dash != NULL) {
            s++, len--;
            if (len == 0)
                return false;
        }
    }
    return true;
}

const char *shipped_image_agent(const char *ref)
{
    static const char prefix[] = "localhost/agent-sandbox-", tag[] = ":" AS_IMAGE_TAG;
    size_t len = strlen(ref);
    for (size_t i = 0; i < agent_pins_n; i++) {
        const agent_pin_t *a = &agent_pins[i];
        if (strcmp(ref, a->image) == 0)
            return a->name;
        size_t alen = strlen(a->name), plen = sizeof(prefix) - 1, tlen = sizeof(tag) - 1;
        if (len > plen + alen + 1 + tlen && strncmp(ref, prefix, plen) == 0 &&
            strncmp(ref + plen, a->name, alen) == 0 && ref[plen + alen] == '-' &&
            strcmp(ref + len - tlen, tag) == 0 &&
            toolchain_suffix(ref + plen + alen + 1, len - tlen - plen - alen - 1))
            return a->name;
    }
    return NULL;
}

/* The instruction's keyword and its first argument. */
typedef struct instr {
    const char *word, *arg;
    size_t word_len, arg_len;
    bool more;               /* words after the argument */
} instr_t;

static void split(const char *line, size_t len, instr_t *in)
{
    size_t i = 0;
    *in = (instr_t){0};
    while (i < len && isspace((unsigned char)line[i]))
        i++;
    in->word = line + i;
    while (i < len && !isspace((unsigned char)line[i]))
        i++, in->word_len++;
    while (i < len && isspace((unsigned char)line[i]))
        i++;
    in->arg = line + i;
    while (i < len && !isspace((unsigned char)line[i]))
        i++, in->arg_len++;
    while (i < len && isspace((unsigned char)line[i]))
        i++;
    in->more = i < len;
}

/* "FILE:LINE: [WHAT: ]the first instruction must be ..."; what shows at
 * most 200 bytes. */
static int refuse(const char *file, unsigned line, as_error_t **err, const char *what, size_t what_len)
{
    return as_error_make(err, EINVAL, "%s:%u: %.*s%sthe first instruction must be FROM one of the shipped "
                         "images (an agent's image, e.g. localhost/agent-sandbox:" AS_IMAGE_TAG ", or one with "
                         "toolchains, e.g. localhost/agent-sandbox-claude-go:" AS_IMAGE_TAG "), and the only FROM",
                         file, line, (int)(what_len < 200 ? what_len : 200), what, what_len ? ": " : "");
}

/* One FROM: a shipped image, nothing else on the line (no --platform, no
 * AS: a build has one stage). */
static int check_from(const char *file, unsigned number, const instr_t *in, char **ret_from, as_error_t **err)
{
    _cleanup_free_ char *ref = strndup(in->arg, in->arg_len);
    if (ref == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    if (in->arg_len == 0 || in->more || shipped_image_agent(ref) == NULL)
        return refuse(file, number, err, in->word, (size_t)(in->arg + in->arg_len - in->word));
    if (*ret_from == NULL)
        *ret_from = steal_pointer(&ref);
    return 0;
}

int user_image_from_check(const char *file, const char *text, size_t len, char **ret_from, as_error_t **err)
{
    _cleanup_free_ char *from = NULL;
    bool continued = false, seen_instruction = false;
    unsigned number = 0;
    for (size_t pos = 0; pos < len;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl != NULL ? (size_t)(nl - (text + pos)) : len - pos;
        const char *line = text + pos;
        pos += n + (nl != NULL);
        number++;
        if (memchr(line, '\0', n) != NULL)
            return as_error_make(err, EINVAL, "%s:%u: a NUL byte", file, number);
        instr_t in;
        split(line, n, &in);
        bool comment = in.word_len > 0 && in.word[0] == '#';
        if (comment && !seen_instruction && strncasecmp(in.word, "#escape", 7) == 0)
            return as_error_make(err, EINVAL, "%s:%u: the escape directive is not taken", file, number);
        if (comment && !seen_instruction && in.word_len == 1 && strncasecmp(in.arg, "escape", 6) == 0)
            return as_error_make(err, EINVAL, "%s:%u: the escape directive is not taken", file, number);
        if (in.word_len == 0 || comment)
            continue;            /* blank lines and comments, also inside a continued instruction */
        size_t end = n;
        while (end > 0 && isspace((unsigned char)line[end - 1]))
            end--;
        bool continues = end > 0 && line[end - 1] == '\\';
        if (!continued) {
            bool is_from = in.word_len == 4 && strncasecmp(in.word, "FROM", 4) == 0;
            if (!seen_instruction && !is_from)
                return refuse(file, number, err, "", 0);
            if (is_from) {
                if (continues)
                    return refuse(file, number, err, "FROM continued on the next line", 31);
                int r = check_from(file, number, &in, &from, err);
                if (r < 0)
                    return r;
            }
            seen_instruction = true;
        }
        continued = continues;
    }
    if (from == NULL)
        return as_error_make(err, EINVAL, "%s: no FROM instruction", file);
    *ret_from = steal_pointer(&from);
    return 0;
}
