/* What a Python virtual environment's python runs when it starts, judged by
 * an entry's path, type and link target alone: the default mode's
 * end-of-session check (workspace_python.c) and apply's filter
 * (lib/review/review_filter.c) ask the same question of what the agent
 * wrote. Rules and reasons: "Python environments" in
 * docs/workspace-protection.md. Pure. */
#ifndef AS_PYTHON_ENV_H
#define AS_PYTHON_ENV_H

#include <stdbool.h>
#include <sys/types.h>

/* The verdict for a .pth file of a site-packages: its lines decide (site.py
 * runs the ones starting with "import"), which the caller reads, or refuses
 * it whole. */
extern const char PYTHON_ENV_PTH[];
/* The verdict for a pyvenv.cfg: refused, unless the caller reads it and
 * finds the shape venv writes (python_env_cfg_key() for each key, `home`
 * a directory of the system). */
extern const char PYTHON_ENV_CFG[];
/* The verdict for an interpreter link to an absolute path named python*
 * (the shape venv makes: bin/python3 -> /usr/bin/python3): harmless only
 * where it leads to a file of the system (root's, not writable), which the
 * caller checks; else refused with this reason. */
extern const char PYTHON_ENV_SYSTEM_PYTHON[];

/* Why the entry at rel (relative to the tree) would run when the python of
 * the environment holding it starts, `sub` being its path below the
 * environment's root (the directory of its pyvenv.cfg), `mode` its st_mode
 * and `target` a link's target (NULL for anything else); one of the
 * markers above; NULL when it is harmless (what a plain `pip install` of a
 * wheel writes: a package, its dist-info, console scripts without a
 * suffix; the links venv itself makes: bin/python -> python3, lib64 -> lib). */
const char *python_env_verdict(const char *rel, const char *sub, mode_t mode, const char *target);

/* Is `sub` a name the environment itself makes in bin/ (venv, ensurepip:
 * python*, pip*, activate*, Activate.ps1), which the user means when the
 * environment is activated? */
bool python_env_own_bin_name(const char *name);

/* Is the link at `sub` below an environment one of the shapes venv makes
 * that may leave the tree (bin/python* -> an absolute path named python*,
 * or -> python* beside it, which leads there in turn)? The caller checks
 * that where it leads is a python of the system. */
bool python_env_link_shape(const char *sub, const char *target);

/* Is `key` one that venv or virtualenv writes in a pyvenv.cfg; and does its
 * value name a path python uses (home, the base prefixes and executables),
 * which must then lead to the system? 0: unknown key; 1: a plain value; 2:
 * a path. */
int python_env_cfg_key(const char *key);

#endif
