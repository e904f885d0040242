#include "doc_path.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util.h"

#ifndef AS_DOCDIR
#define AS_DOCDIR "/usr/local/share/doc/agent-sandbox"
#endif

char *source_tree_path(const char *rel)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    const char *dir = dirname(exe);
    static const char *const up[] = { "..", "../.." };
    for (size_t i = 0; i < ARRAY_SIZE(up); i++) {
        char *path = NULL;
        if (asprintf(&path, "%s/%s/%s", dir, up[i], rel) < 0)
            return NULL;
        char *real = access(path, R_OK) == 0 ? realpath(path, NULL) : NULL;
        free(path);
        if (real != NULL)
            return real;         /* without the "..": it is shown in messages */
    }
    return NULL;
}

char *doc_path(const char *name)
{
    char *installed = NULL;
    if (asprintf(&installed, "%s/docs/%s", AS_DOCDIR, name) < 0)
        return NULL;
    if (access(installed, R_OK) == 0)
        return installed;
    char *rel = NULL;
    if (asprintf(&rel, "docs/%s", name) < 0) {
        free(installed);
        return NULL;
    }
    char *source = source_tree_path(rel);
    free(rel);
    if (source == NULL)
        return installed;
    free(installed);
    return source;
}
