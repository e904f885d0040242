/* The packaged defaults: the allowlist, the agents' profiles and their
 * allowlists, installed in DATADIR, or in the source tree's config/ next to
 * a development build (build/ or build/sanitize/). */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "inputs.h"
#include "base/util.h"

char *packaged_file(const char *rel)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s", AS_DATADIR, rel) >= 0 && access(path, R_OK) == 0)
        return path;
    free(path);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    const char *dir = dirname(exe);
    static const char *const up[] = { "..", "../.." };
    for (size_t i = 0; i < ARRAY_SIZE(up); i++) {
        if (asprintf(&path, "%s/%s/config/%s", dir, up[i], rel) < 0)
            return NULL;
        char *real = access(path, R_OK) == 0 ? realpath(path, NULL) : NULL;
        free(path);
        if (real != NULL)
            return real;         /* without the "..": it is shown in messages */
    }
    return NULL;
}
