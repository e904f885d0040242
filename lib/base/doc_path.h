/* Where a message finds one of the project's documents (docs/NAME in the
 * source tree): `make install` and the RPM put them in AS_DOCDIR/docs/
 * (/usr/share/doc/agent-sandbox/docs/ in the RPM, where the README's links
 * find them); a development build runs next to the source tree's docs/. */
#ifndef AS_DOC_PATH_H
#define AS_DOC_PATH_H

/* The installed AS_DOCDIR/docs/NAME when it is there; else the source tree's
 * docs/NAME when the running binary is a development build (build/ or
 * build/sanitize/ of that tree); else AS_DOCDIR/docs/NAME anyway, where the
 * installation puts it. NULL only when out of memory. */
char *doc_path(const char *name);

/* REL ("docs/x.md", "config/allowed-hosts") in the source tree a
 * development build of the running binary sits in (its build/ or
 * build/sanitize/), resolved; NULL when there is none (an installed
 * binary) or out of memory. */
char *source_tree_path(const char *rel);

#endif
