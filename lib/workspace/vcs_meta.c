/* The metadata of the other version-control tools (vcs_meta.h). */
#include "vcs_meta.h"

#include <string.h>

#include "base/util.h"

static const struct {
    const char *name;
    const char *tool;
} META[] = {
    /* https://www.mercurial-scm.org/doc/hg.1.html#files */
    { ".hg", "Mercurial" },
    /* https://svnbook.red-bean.com/en/1.7/svn.basic.in-action.html#svn.basic.in-action.wc */
    { ".svn", "Subversion" },
    /* https://www.breezy-vcs.org/doc/en/user-guide/core_concepts.html */
    { ".bzr", "Bazaar" },
    /* https://darcs.net/Using/Configuration */
    { "_darcs", "darcs" },
    /* https://jj-vcs.github.io/jj/latest/glossary/#repository */
    { ".jj", "Jujutsu" },
    /* https://pijul.org/manual/ */
    { ".pijul", "Pijul" },
    /* https://fossil-scm.org/home/doc/trunk/www/tech_overview.wiki: the
     * checkout database, by either of its names; the versioned settings */
    { ".fslckout", "Fossil" },
    { "_FOSSIL_", "Fossil" },
    { ".fossil-settings", "Fossil" },
};

const char *vcs_meta_tool(const char *base)
{
    for (size_t i = 0; i < ARRAY_SIZE(META); i++)
        if (strcmp(base, META[i].name) == 0)
            return META[i].tool;
    return NULL;
}

bool vcs_meta_inside(const char *rel)
{
    for (const char *c = rel; *c != '\0';) {
        size_t n = strcspn(c, "/");
        for (size_t i = 0; i < ARRAY_SIZE(META); i++)
            if (strlen(META[i].name) == n && strncmp(c, META[i].name, n) == 0)
                return true;
        c += n;
        if (*c == '/')
            c++;
    }
    return false;
}
