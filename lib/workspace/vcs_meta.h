/* The metadata of the version-control tools other than git, by name: what
 * each tool keeps beside a checkout, holding the configuration it obeys
 * (hooks, extensions, the programs it starts) with its data. Git's own
 * `.git` is judged apart, by git's rules (git_repo.h); these are judged as
 * a whole: one made during a session is disabled whole, and the default
 * mode's configs of each (tool_configs.table) are frozen. Pure. */
#ifndef AS_VCS_META_H
#define AS_VCS_META_H

#include <stdbool.h>

/* The tool whose metadata an entry named `base` is ("Mercurial" for
 * ".hg"), or NULL. */
const char *vcs_meta_tool(const char *base);

/* Is some component of rel (relative, "a/.hg/hgrc") such metadata? */
bool vcs_meta_inside(const char *rel);

#endif
