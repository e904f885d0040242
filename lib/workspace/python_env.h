/* What a Python virtual environment's python runs when it starts, judged by
 * an entry's path and type alone: the default mode's end-of-session check
 * (workspace_python.c) and apply's filter (lib/review/review_filter.c) ask
 * the same question of what the agent wrote. Rules and reasons: "Python
 * environments" in docs/workspace-protection.md. Pure. */
#ifndef AS_PYTHON_ENV_H
#define AS_PYTHON_ENV_H

#include <stdbool.h>
#include <sys/types.h>

/* The verdict for a .pth file of a site-packages: its lines decide (site.py
 * runs the ones starting with "import"), which the caller reads, or refuses
 * it whole. */
extern const char PYTHON_ENV_PTH[];

/* Why the entry at rel (relative to the tree) would run when the python of
 * the environment holding it starts, `sub` being its path below the
 * environment's root (the directory of its pyvenv.cfg) and `mode` its
 * st_mode; PYTHON_ENV_PTH for a .pth; NULL when it is harmless (what a
 * plain `pip install` of a wheel writes: a package, its dist-info, console
 * scripts without a suffix). */
const char *python_env_verdict(const char *rel, const char *sub, mode_t mode);

#endif
