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

/* The module a top-level entry of the tree is to python run from the top,
 * malloc'd, or NULL: rel "json.py", "json.pyc" or "json.cpython-311-
 * x86_64-linux-gnu.so" (by the host python's own import suffixes once
 * host_names_python answered, else by those every CPython on Linux has:
 * .py, .pyc, .so); "json/__init__.py" (a package); "pip" a directory,
 * only for what `python3 -m` commonly runs (a namespace package loses to
 * an installed module, but wins where the host has none). */
char *host_names_top_module(const host_names_t *h, const char *rel, bool dir);

/* Would NAME at the top stand in for the host's: one of the host python's
 * modules (its sys.stdlib_module_names and every module on its sys.path)
 * or what `python3 -m` commonly runs? */
bool host_names_shadows(const host_names_t *h, const char *name);

/* Parses the answer of the host python (lines "S .suffix", "M name") into
 * h; -EBADMSG on anything else. Pure; for the tests. */
int host_names_parse(host_names_t *h, const char *text, size_t len);

#endif
