/* What of the host a name in the tree could stand in for, computed on the
 * host when the end-of-session check runs (never typed in): the commands on
 * the host's PATH (a virtual environment's bin/, once activated, comes
 * before them) and the modules of the host's python3 (python run from a
 * directory imports that directory's modules first). Host python is run
 * as `python3 -I` (no PYTHON* variables, no user site, no script
 * directory on sys.path), found on PATH by its absolute path, with "/" as
 * its working directory: never with the tree as cwd or on its sys.path.
 * Entries of PATH that are relative or inside the tree are skipped: they
 * are the tree's, not the host's. */
#ifndef AS_HOST_NAMES_H
#define AS_HOST_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "base/util.h"

typedef struct host_names host_names_t;

/* For the host's PATH (NULL: none) and the tree (absolute, normalized).
 * Nothing is run yet. */
int host_names_new(const char *path, const char *tree, host_names_t **ret, as_error_t **err);
void host_names_free(host_names_t *h);
DEFINE_CLEANUP_FUNC(host_names_t, host_names_free)

/* Where NAME is a command on the host's PATH (an executable that is no
 * directory), as *ret_where (malloc'd), or NULL when it is none. */
int host_names_command(const host_names_t *h, const char *name, char **ret_where);

/* Runs the host python once (later calls reuse its answer). 0 and
 * *ret_found: whether PATH has a python3 at all; -errno with err when it
 * has one whose answer could not be had (the caller fails closed). */
int host_names_python(host_names_t *h, bool *ret_found, as_error_t **err);

/* After host_names_python found one: the module name of a top-level entry
 * that python would import ("json" of "json.py", of "json.cpython-311-
 * x86_64-linux-gnu.so" or of "json.pyc"), by the host python's own import
 * suffixes; a directory is a module by its name. NULL (and nothing kept)
 * when the name has no such suffix. Malloc'd. */
char *host_names_module_of(const host_names_t *h, const char *base, bool dir);

/* Is NAME one of the host python's modules: its sys.stdlib_module_names
 * and every top-level module on its sys.path? */
bool host_names_is_module(const host_names_t *h, const char *name);

/* The host python's import suffixes, for one that names an __init__ file. */
bool host_names_init_file(const host_names_t *h, const char *base);

/* Parses the answer of the host python (lines "S .suffix", "M name") into
 * h; -EBADMSG on anything else. Pure; for the tests. */
int host_names_parse(host_names_t *h, const char *text, size_t len);

#endif
