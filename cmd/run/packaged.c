/* The packaged defaults: the allowlist, the agents' profiles and their
 * allowlists, installed in DATADIR, or in the source tree's config/ next to
 * a development build (build/ or build/sanitize/). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "inputs.h"
#include "base/doc_path.h"

char *packaged_file(const char *rel)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s", AS_DATADIR, rel) >= 0 && access(path, R_OK) == 0)
        return path;
    free(path);
    if (asprintf(&path, "config/%s", rel) < 0)
        return NULL;
    char *source = source_tree_path(path);
    free(path);
    return source;
}
