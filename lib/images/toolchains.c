#include "toolchains.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/msg.h"
#include "base/strv.h"
#include "base/util.h"

const char *const toolchain_names[] = {
#include "toolchains.inc"
    NULL,
};

bool toolchain_known(const char *name)
{
    for (size_t i = 0; toolchain_names[i] != NULL; i++)
        if (strcmp(toolchain_names[i], name) == 0)
            return true;
    return false;
}

/* The words joined by `sep`, or NULL when out of memory. */
static char *joined(const char *const *words, const char *sep, const char *none)
{
    char *text = NULL;
    msg_t m;
    if (msg_open(&m, NULL) < 0)
        return NULL;
    for (size_t i = 0; words[i] != NULL; i++)
        fprintf(m.f, "%s%s", i ? sep : "", words[i]);
    if (words[0] == NULL)
        fputs(none, m.f);
    if (msg_close(&m, &text, NULL) < 0)
        return NULL;
    return text;
}

char *toolchain_known_list(void)
{
    return joined(toolchain_names, ", ", "none");
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int toolchain_set(char *const *names, char ***ret, as_error_t **err)
{
    _cleanup_(strv_freep) char **set = strv_copy(names);
    if (set == NULL && names != NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    size_t n = strv_length(set), kept = 0;
    if (n > 0)
        qsort(set, n, sizeof(char *), by_name);
    for (size_t i = 0; i < n; i++) {
        if (kept > 0 && strcmp(set[kept - 1], set[i]) == 0)
            free(set[i]);
        else
            set[kept++] = set[i];
    }
    if (set != NULL)
        set[kept] = NULL;
    *ret = steal_pointer(&set);
    return 0;
}

int toolchain_image(const char *agent, char *const *set, const char *tag, char **ret, as_error_t **err)
{
    _cleanup_free_ char *names = joined((const char *const *)set, "-", "");
    if (names == NULL || asprintf(ret, "localhost/agent-sandbox-%s-%s:%s", agent, names, tag) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    return 0;
}

int toolchain_build_command(const char *agent, char *const *set, char **ret, as_error_t **err)
{
    _cleanup_free_ char *names = joined((const char *const *)set, " ", "");
    if (names == NULL || asprintf(ret, "make images AGENTS=%s TOOLCHAINS=\"%s\"", agent, names) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    return 0;
}
