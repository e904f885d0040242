/* Inside the workspace module (lib/workspace_*.c): what its files share.
 * Not for the rest of the CLI; workspace.h is the module's contract. */
#ifndef AS_WORKSPACE_INT_H
#define AS_WORKSPACE_INT_H

#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "workspace.h"

/* Marks the placeholders we create, so that the next session from the same
 * directory can remove the ones a killed session left (when still empty). */
#define PLACEHOLDER_XATTR "user.agent-sandbox.placeholder"
#define MAX_SYMLINK_HOPS  8
#define WALK_MAX_ENTRIES  300000
#define WALK_MAX_DEPTH    64
#define REPORT_MAX_LINES  10

#define RULE_SYNTAX   "protected-paths-syntax"
#define RULE_READ     "protected-paths-unreadable"
#define RULE_PROJECT  "project-file-adds-only"
#define RULE_TOO_MANY "too-many-protected-paths"
#define RULE_BUSY     "one-session-per-tree"

int ws_oom(as_error_t **err);

/* ---- messages (workspace_msg.c) ---- */

/* A path for the user: "~" for $HOME, control bytes escaped. */
void ws_put_path(FILE *f, const char *home, const char *path);

typedef struct ws_msg {
    FILE *f;
    char *buf;
    size_t len;
} ws_msg_t;

int ws_msg_open(ws_msg_t *m, as_error_t **err);
/* Closes the stream; *ret is the text. */
int ws_msg_close(ws_msg_t *m, char **ret, as_error_t **err);
/* Closes the stream into an error with `code`. */
int ws_msg_fail(ws_msg_t *m, int code, as_error_t **err);
/* Opens m with "refusing to launch from DIR: ". */
int ws_refusal_start(ws_msg_t *m, const char *launch_dir, const char *home, as_error_t **err);

/* ---- the plan (workspace_plan.c) ---- */

int ws_plan_all(workspace_t *ws, as_error_t **err);
void ws_mounts_clear(workspace_t *ws);
size_t ws_depth(const char *path);

/* ---- lock and placeholders (workspace_guard.c) ---- */

int ws_lock_tree(workspace_t *ws, as_error_t **err);
void ws_remove_stale_placeholders(workspace_t *ws);
int ws_create_placeholder(workspace_mount_t *m, as_error_t **err);
bool ws_remove_placeholder(workspace_mount_t *m);

/* ---- the snapshot (workspace_scan.c) ---- */

enum {
    W_PROTECTED = 1u << 0,   /* a protected path, or inside one */
    W_WATCHED   = 1u << 1,   /* watched only (.git/commondir) */
    W_NESTED    = 1u << 2,   /* a copy of a protected or watched path deeper in the tree */
    W_EXEC      = 1u << 3,   /* an executable regular file */
};

typedef struct ws_item {
    char *rel;
    unsigned what;
    mode_t mode;
    off_t size;
    dev_t dev;
    ino_t ino;
    struct timespec ctim;
    char *link;
} ws_item_t;

struct workspace_snapshot {
    ws_item_t *v;
    size_t n, cap;
    size_t visited;
    bool incomplete;
};

int ws_snapshot_take(const workspace_t *ws, workspace_snapshot_t **ret, as_error_t **err);
void ws_snapshot_free(workspace_snapshot_t *s);

#endif
