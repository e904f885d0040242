/* Inside the workspace module (lib/workspace_*.c): what its files share.
 * Not for the rest of the CLI; workspace.h is the module's contract. */
#ifndef AS_WORKSPACE_INT_H
#define AS_WORKSPACE_INT_H

#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "workspace.h"
#include "base/msg.h"

/* Marks the placeholders we create, so that the next session from the same
 * directory can remove the ones a killed session left (when still empty). */
#define PLACEHOLDER_XATTR "user.agent-sandbox.placeholder"
#define MAX_SYMLINK_HOPS  8
/* The walk has no limit on entries (it keeps only what is of interest).
 * Deeper than this, or where a path would leave no room for a name under
 * PATH_MAX, a directory is not examined: it is disabled whole. */
#define WALK_MAX_DEPTH    256
#define WALK_PATH_ROOM    (PATH_MAX - NAME_MAX - 2)
#define REPORT_MAX_LINES  10

#define RULE_SYNTAX   "protected-paths-syntax"
#define RULE_READ     "protected-paths-unreadable"
#define RULE_PROJECT  "project-file-adds-only"
#define RULE_TOO_MANY "too-many-protected-paths"
#define RULE_BUSY     "one-session-per-tree"

int ws_oom(as_error_t **err);

/* ---- messages (workspace_msg.c) ---- */

/* A path for the user (paths.h, path_put_for_user): "~" for $HOME as given
 * or resolved, everything invisible escaped. */
void ws_put_path(FILE *f, const char *home, const char *path);

/* Opens m (msg.h) with "refusing to launch from DIR: ". */
int ws_refusal_start(msg_t *m, const char *launch_dir, const char *home, as_error_t **err);

/* ---- the plan (workspace_plan.c) ---- */

int ws_plan_all(workspace_t *ws, as_error_t **err);
void ws_mounts_clear(workspace_t *ws);

/* How many levels below the top a path is: its slashes. */
static inline size_t ws_depth(const char *path)
{
    size_t d = 0;
    for (; *path != '\0'; path++)
        d += *path == '/';
    return d;
}

/* ---- lock and placeholders (workspace_guard.c) ---- */

int ws_lock_tree(workspace_t *ws, as_error_t **err);
void ws_remove_stale_placeholders(workspace_t *ws);
int ws_create_placeholder(workspace_mount_t *m, as_error_t **err);
bool ws_remove_placeholder(workspace_mount_t *m);

/* ---- files frozen configs name (workspace_tools.c) ---- */

typedef int (*ws_named_fn)(void *ctx, const char *path);
/* Calls fn with each path (relative to the launch directory, as written)
 * that the launch directory's configs name for their tool to run or read:
 * yarn's yarnPath, yarn-path and plugins, pnpm's pnpmfile, the hgrc of a
 * Mercurial share's store in the tree. */
int ws_tool_named_files(const char *launch_dir, ws_named_fn fn, void *ctx);
/* The same for the configs of the directory dir_rel ("" for the top), the
 * paths still relative to the launch directory. */
int ws_tool_named_files_in(const char *launch_dir, const char *dir_rel, ws_named_fn fn, void *ctx);
/* Is rel one of the configs that name files (".npmrc", "web/pnpm-workspace.yaml")? */
bool ws_naming_config(const char *rel);

/* ---- the snapshot and the walk that takes it (workspace_scan.c) ---- */

enum {
    W_PROTECTED = 1u << 0,   /* a protected path, or inside one */
    W_NESTED    = 1u << 2,   /* a copy of a protected path deeper in the tree */
    W_EXEC      = 1u << 3,   /* an executable regular file */
    W_LINK      = 1u << 4,   /* a symlink */
    W_GIT       = 1u << 5,   /* a name host git reads in a git directory, or in hooks/ */
    W_REPO      = 1u << 6,   /* a directory git could take for a git directory */
    W_OBJSTORE  = 1u << 7,   /* the objects directory of one */
    W_PYTHON    = 1u << 8,   /* what a virtual environment's python runs at start (ws_python_relevant) */
    W_BYTECODE  = 1u << 9,   /* a .pyc: bytecode python would load instead of compiling its source */
    W_TOP       = 1u << 10,  /* a top-level entry, or an __init__ of a top-level directory */
    W_VCS       = 1u << 11,  /* another version-control tool's metadata (vcs_meta.h), an hgrc */
};
/* What the change report is about; the rest is recorded for the checks. */
#define W_REPORTED (W_PROTECTED | W_NESTED | W_EXEC)
/* What the entries of a directory inherit from it. */
#define W_INHERITED (W_PROTECTED | W_NESTED)

typedef struct ws_item {
    char *rel;
    unsigned what;
    mode_t mode;
    off_t size;
    dev_t dev;
    ino_t ino;
    struct timespec ctim;
    struct timespec mtim;   /* not in a journal: only the end's is used */
    char *link;
} ws_item_t;

/* Why a directory was not examined. */
typedef enum ws_unexamined_why {
    UNEX_CLOSED,     /* cannot be opened or searched, and is not ours to open up */
    UNEX_CLOSED_TO_ALL, /* ... nor searchable by us: no host tool of ours goes in either */
    UNEX_DEPTH,      /* deeper than WALK_MAX_DEPTH */
    UNEX_LENGTH,     /* its path leaves no room for a name under PATH_MAX */
} ws_unexamined_why_t;

typedef struct ws_unexamined {
    char *rel;
    ws_unexamined_why_t why;
} ws_unexamined_t;

/* A directory of ours that the walk opened up (u+rwx) to examine it, and
 * the mode to put back. */
typedef struct ws_opened {
    char *rel;
    mode_t mode;
} ws_opened_t;

struct workspace_snapshot {
    ws_item_t *v;
    size_t n, cap;
    size_t visited;
    bool incomplete;               /* n_unexamined > 0 */
    /* At the start: when the walk began, by the coarse clock that file
     * times come from (a change after this reading gets this time or a
     * later one; one in the same tick before it counts as later). A regular file whose name is of no interest is not
     * recorded then (no stat: in a big tree those are nearly all the
     * calls); at the end, one that is executable counts as news only if
     * its ctime, which no program can set back, is this or later. */
    struct timespec started;
    ws_unexamined_t *unexamined;
    size_t n_unexamined;
    ws_opened_t *opened;           /* in the order opened: parents first */
    size_t n_opened;
};

/* Walks the launch directory, every entry of it. A directory of ours that
 * we cannot read, search or write is opened up for the check (u+rwx); at
 * the start (`before` NULL) its mode is put back at once, at the end only
 * by ws_snapshot_restore_modes(), once what it holds was disabled. What
 * cannot be examined is listed in `unexamined`. `before` tells which object
 * stores existed at the start: only their loose objects are skipped. */
int ws_snapshot_take(const workspace_t *ws, const workspace_snapshot_t *before, workspace_snapshot_t **ret,
                     as_error_t **err);
/* The after-state: the one workspace_end_start() took, without the
 * placeholders removed since, or taken now. */
int ws_end_snapshot(workspace_t *ws, workspace_snapshot_t **ret, as_error_t **err);
/* Waits for the walks still running; an after-state no one used has its
 * modes put back. */
void ws_walks_cancel(workspace_t *ws);
/* Puts back the modes of the directories the walk opened up (children
 * first); one disabled meanwhile is left as it is. */
void ws_snapshot_restore_modes(const workspace_t *ws, workspace_snapshot_t *s);

/* ---- the record (workspace_snapshot.c) ---- */

void ws_snapshot_free(workspace_snapshot_t *s);
DEFINE_CLEANUP_FUNC(workspace_snapshot_t, ws_snapshot_free)
/* Sorts the items by path, as ws_snapshot_find() needs them. */
void ws_snapshot_sort(workspace_snapshot_t *s);
/* The item recorded at rel ("." for the launch directory), or NULL. */
const ws_item_t *ws_snapshot_find(const workspace_snapshot_t *s, const char *rel);
/* The same file, unchanged: type, mode, size, inode, ctime, link target. */
bool ws_item_same(const ws_item_t *a, const ws_item_t *b);

/* ---- what the walk records of an entry (workspace_classify.c) ---- */

/* The paths the walk looks for by name: the protected paths (and their
 * copies deeper in the tree) and the read-only mounts' targets at the top. */
typedef struct ws_patterns {
    struct ws_pattern *v;
    size_t n;
} ws_patterns_t;

int ws_patterns_build(const workspace_t *ws, ws_patterns_t *ret, as_error_t **err);
void ws_patterns_clear(ws_patterns_t *pats);
/* Which of the W_* apply to the entry at path ("/a/b", len bytes) by its
 * name, inside a directory that has the W_INHERITED bits `inherited`.
 * Pure and cheap: the walk asks it of every entry, before any stat. */
unsigned ws_classify_name(const ws_patterns_t *pats, const char *path, size_t len, unsigned inherited);
/* What the entry's type and mode add: W_EXEC, W_LINK. */
unsigned ws_classify_type(const struct stat *st);
/* A directory of loose objects by its name (two hex digits), inside an
 * object store. */
bool ws_loose_objects_dir(const char *name);
/* Was the object store at path ("/a/objects") there before the session,
 * the same directory? Without a `before`, every store counts as old. */
bool ws_store_existed(const workspace_snapshot_t *before, const char *path, const struct stat *st);
/* A placeholder made for this session: not part of the user's tree. */
bool ws_placeholder_ours(const workspace_t *ws, const struct stat *st);

/* ---- what the end of the session disables (workspace_neutral.c) ---- */

#define DISABLED_SUFFIX ".agent-sandbox-disabled"

typedef enum ws_action_kind {
    ACT_MOVED,          /* renamed to `moved` */
    ACT_LINK_NOTE,      /* a symlink replaced by a file naming its target */
    ACT_LINK_RESTORED,  /* a link put back to `target`; the session's entry renamed to `moved` */
    ACT_SEALED,         /* not examined: renamed to `moved` and closed (mode 000) */
    ACT_KEPT,           /* could not be disabled: reported only */
} ws_action_kind_t;

typedef struct ws_action {
    ws_action_kind_t kind;
    char *rel;          /* where it was */
    char *moved;        /* where it went (relative), or NULL */
    char *target;       /* a link's target (what it pointed to, or was put back to) */
    char *why;          /* what it is, for the report (agent-controlled text escaped when shown) */
} ws_action_t;

typedef struct ws_actions {
    ws_action_t *v;
    size_t n;
} ws_actions_t;

void ws_actions_clear(ws_actions_t *a);
/* Was rel there at the start, unchanged (by the before-snapshot)? */
bool ws_unchanged(const workspace_t *ws, const char *rel);
/* Is rel there now, and made or changed since the start? */
bool ws_changed(const workspace_t *ws, const char *rel);
/* Renames rel aside to rel + DISABLED_SUFFIX (+ ".N" when taken) and
 * records it; a rename that fails is recorded as ACT_KEPT. */
int ws_disable(const workspace_t *ws, const char *rel, const char *why, ws_actions_t *acts);
/* What the check could not examine: renamed aside like ws_disable, and
 * closed (chmod 000) so that no host tool goes in unasked. */
int ws_seal(const workspace_t *ws, const char *rel, const char *why, ws_actions_t *acts);
/* Replaces the symlink rel by a regular file that says where it pointed. */
int ws_link_to_note(const workspace_t *ws, const char *rel, const char *target, const char *why,
                    ws_actions_t *acts);
/* Puts the link rel back to `target`, the session's entry renamed aside. */
int ws_link_restore(const workspace_t *ws, const char *rel, const char *target, const char *why,
                    ws_actions_t *acts);
/* The report's first part: what was disabled, and how to undo it; the
 * first lines only, unless whole. */
void ws_actions_put(FILE *f, const workspace_t *ws, const ws_actions_t *a, bool whole);

/* ---- the end-of-session checks (workspace_git.c, workspace_links.c) ---- */

/* Repositories host git would use: configs that run commands, live hooks,
 * commondir and .git files leading out of the tree, if new or changed. */
int ws_git_check(const workspace_t *ws, const workspace_snapshot_t *after, ws_actions_t *acts,
                 as_error_t **err);
/* Links on the way to protected paths, re-pointed: put back. */
int ws_chain_check(const workspace_t *ws, ws_actions_t *acts, as_error_t **err);
/* New or re-pointed links leading out of the tree: replaced by a note. */
int ws_outside_links_check(const workspace_t *ws, const workspace_snapshot_t *after, ws_actions_t *acts,
                           as_error_t **err);
/* Is the absolute, normalized path the launch directory or inside it? */
bool ws_in_tree(const workspace_t *ws, const char *abs);
/* The path relative to the launch directory of one in the tree ("." for
 * the top), malloc'd. */
char *ws_rel_in_tree(const workspace_t *ws, const char *abs);

/* ---- python environments and agents' configs (workspace_python.c,
 *      workspace_python_names.c, workspace_configs.c) ---- */

/* Is the entry at path ("/a/b/name", relative to the launch directory) one
 * the python check needs recorded: a pyvenv.cfg, a .pth in a site-packages
 * or dist-packages directory, a sitecustomize or usercustomize, anything in
 * a directory named bin? Pure and cheap: the walk asks it of every entry. */
bool ws_python_relevant(const char *path);
/* The last component of a path; whether s ends in suffix. */
const char *ws_base_name(const char *path);
bool ws_has_suffix(const char *s, const char *suffix);
/* The virtual environments of the tree (the directories holding a
 * pyvenv.cfg, at the start or at the end, "." for the top), into *ret. */
int ws_python_roots(const workspace_t *ws, const workspace_snapshot_t *after, char ***ret);
/* rel below the deepest of the roots holding it, or NULL. */
const char *ws_python_sub(char *const *roots, const char *rel);
/* sitecustomize or usercustomize: the module, a package, a .py, .pyc, .so... */
bool ws_python_customize_name(const char *base);
/* A .pth file in a site-packages or dist-packages directory. */
bool ws_python_pth_path(const char *path);
/* Virtual environments (a directory holding pyvenv.cfg): what their python
 * runs when it starts, if new or changed (.pth lines that run code or name
 * a directory outside their site-packages, sitecustomize, activate scripts,
 * the interpreter links, modules in bin/ that shadow imports): disabled. */
struct host_names;
int ws_python_check(const workspace_t *ws, const workspace_snapshot_t *after, struct host_names *hn,
                    ws_actions_t *acts, as_error_t **err);
/* Modules at the top of the tree that the session made or changed and that
 * have the name of one of the host python's (host_names.h) or of what
 * `python3 -m` commonly runs: disabled (workspace_shadow.c). */
int ws_shadow_check(const workspace_t *ws, const workspace_snapshot_t *after, struct host_names *hn,
                    ws_actions_t *acts, as_error_t **err);
/* Other version-control tools' metadata made during the session, and a
 * Mercurial share's store hgrc (workspace_vcs.c). */
int ws_vcs_check(const workspace_t *ws, const workspace_snapshot_t *after, ws_actions_t *acts, as_error_t **err);
/* Bytecode the session wrote (new or changed .pyc files): removed, a cache
 * python makes again (workspace_caches.c); *ret_n how many. */
int ws_bytecode_drop(const workspace_t *ws, const workspace_snapshot_t *after, ws_actions_t *acts, size_t *ret_n,
                     as_error_t **err);
/* The if_exists rules (outside .git, which ws_git_check owns): a path
 * created during the session, or a file changed, is disabled. */
int ws_configs_check(const workspace_t *ws, const workspace_snapshot_t *after, ws_actions_t *acts,
                     as_error_t **err);
/* Has an earlier check already acted on rel or on a directory above it?
 * Then it is not disabled again (nor listed twice). */
bool ws_acted_on(const ws_actions_t *acts, const char *rel);
/* The tool that obeys the default rule `rel` ("Gemini CLI"), or NULL. */
const char *ws_default_reader(const char *rel);

#endif
