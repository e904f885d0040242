/* The files host tools read from a project directory that run code or
 * choose where code comes from, one row each with the tool's documentation
 * as its source: compiled in from lib/workspace/tool_configs.table (data,
 * not code: its format is at its top; scripts/gen-tool-configs). The
 * default protected paths, the copies deeper in the tree, a virtual
 * environment's own configs and the top-level names by pattern all come
 * from here, and so does docs/workspace-protection.md's table. Pure. */
#ifndef AS_TOOL_CONFIGS_H
#define AS_TOOL_CONFIGS_H

#include <stdbool.h>
#include <stddef.h>

enum {
    TOOL_FROZEN    = 1u << 0,   /* a default protected path, with a placeholder where missing */
    TOOL_IF_EXISTS = 1u << 1,   /* frozen where it exists; made during the session: disabled */
    TOOL_NESTED    = 1u << 2,   /* copies deeper in the tree: disabled when made or changed */
    TOOL_VENV      = 1u << 3,   /* in a virtual environment's root: disabled when made or changed */
    TOOL_GLOB      = 1u << 4,   /* a top-level name with one '*': disabled when made or changed */
};

typedef struct tool_config {
    const char *path;      /* relative, no trailing slash (a glob row: one name with one '*') */
    bool dir;
    unsigned how;          /* TOOL_* */
    const char *reader;    /* the tool, as the report names it */
    const char *runs;      /* what it can make run */
    const char *source;    /* the tool's documentation of the file */
    const char *doc_row;   /* its row in docs/workspace-protection.md */
} tool_config_t;

/* The rows, in the table's order; *ret_n of them. */
const tool_config_t *tool_configs(size_t *ret_n);

/* The row of `path` (no trailing slash), or NULL. */
const tool_config_t *tool_config_find(const char *path);

/* Is rel ("a/b/c", relative to the launch directory) a copy of a nested
 * row deeper in the tree ("sub/.npmrc", "x/.config/mise/conf.d/a.toml"),
 * or inside one? The row, or NULL. Not a row's own top-level path. */
const tool_config_t *tool_config_nested(const char *rel);

/* Does the top-level name match a glob row ("mise.ci.toml")? The row, or NULL. */
const tool_config_t *tool_config_glob(const char *name);

#endif
