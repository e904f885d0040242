#include "strv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

size_t strv_length(char *const *v)
{
    size_t n = 0;
    while (v != NULL && v[n] != NULL)
        n++;
    return n;
}

bool strv_contains(char *const *v, const char *s)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        if (strcmp(v[i], s) == 0)
            return true;
    return false;
}

char **strv_copy(char *const *v)
{
    size_t n = strv_length(v);
    _cleanup_(strv_freep) char **copy = calloc(n + 1, sizeof(char *));
    if (copy == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if ((copy[i] = strdup(v[i])) == NULL)
            return NULL;
    return steal_pointer(&copy);
}

int strv_push(char ***v, const char *s)
{
    size_t n = strv_length(*v);
    char *item = strdup(s);
    if (item == NULL)
        return -ENOMEM;
    char **grown = realloc(*v, (n + 2) * sizeof(char *));
    if (grown == NULL) {
        free(item);
        return -ENOMEM;
    }
    grown[n] = item;
    grown[n + 1] = NULL;
    *v = grown;
    return 0;
}

void strv_free(char **v)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        free(v[i]);
    free(v);
}
