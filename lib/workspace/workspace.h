/* Workspace protection. Whatever the agent writes into the launch directory
 * can run later on the host: git hooks and config, direnv's .envrc, editor
 * and agent settings. This module
 *   - builds the set of protected paths: the defaults, the user's
 *     protected-paths in the config directory (global lines plus sections for
 *     one launch directory, which may add and remove) and the project's own
 *     .agent-sandbox/protected-paths (inside the launch directory, so the
 *     agent can write it: it may only add);
 *   - turns the set into mounts: each protected path bind-mounted read-only
 *     over itself; each directory between it and the launch directory
 *     bind-mounted read-write over itself ("pinned": a mount point cannot be
 *     renamed or removed, so `mv .git x; mkdir .git` cannot swap the frozen
 *     files out); an empty placeholder created on the host, for the session,
 *     where a protected path does not exist yet;
 *   - records before and after the session the protected paths, their copies
 *     deeper in the tree and every executable file, so that the CLI can warn
 *     when one changed anyway;
 *   - keeps two sessions from overlapping on one tree (flock(2) on the launch
 *     directory and its ancestors), since the bind sources are host paths a
 *     running agent could otherwise swap for symlinks.
 * Rules, file format, mechanism and side effects: docs/workspace-protection.md. */
#ifndef AS_WORKSPACE_H
#define AS_WORKSPACE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "base/util.h"
#include "podman/podman_mount.h"

#define WORKSPACE_USER_FILE    "protected-paths"                  /* in the config directory */
#define WORKSPACE_PROJECT_FILE ".agent-sandbox/protected-paths"   /* under the launch dir */
#define WORKSPACE_MAX_PATHS    192
#define WORKSPACE_FILE_MAX     (1024 * 1024)

/* Refusals carry these codes: a config file is malformed or unreadable, or
 * another session runs in the same tree. */
#define WORKSPACE_EBADCONFIG EBADMSG
#define WORKSPACE_EBUSY      EBUSY

/* Resolve an absolute path like realpath(3); 0 and a malloc'd path, or a
 * negative errno. */
typedef int (*workspace_resolve_fn)(void *ctx, const char *path, char **ret_resolved);

typedef struct workspace_rule {
    char *path;       /* relative to the launch directory, normalized, no trailing slash */
    bool dir;         /* written with a trailing "/": a missing one becomes a directory */
    bool if_exists;   /* a default frozen only where it exists: no placeholder; created during the
                       * session, it is disabled at the end */
    char *origin;     /* "default", or "FILE:LINE" with FILE as shown to the user */
} workspace_rule_t;

typedef struct workspace_rules {
    workspace_rule_t *v;
    size_t n;
} workspace_rules_t;

/* The inputs of the rules: the files' text, read by the caller (section
 * headers are resolved through `resolve`). */
typedef struct workspace_config {
    const char *launch_dir;      /* required: resolved */
    const char *home;            /* required: $HOME, for ~/ in section headers and messages */
    const char *user_file;       /* the user's file, for messages; required with user_text */
    const char *user_text;       /* its bytes (may hold NULs); NULL: no such file */
    size_t user_len;
    const char *project_file;    /* the project's file, for messages; required with project_text */
    const char *project_text;    /* its bytes; NULL: no such file (when there, it is protected too) */
    size_t project_len;
    workspace_resolve_fn resolve;   /* for section headers; NULL: realpath(3) */
    void *resolve_ctx;
} workspace_config_t;

/* The defaults, then the user's global lines, then the user's sections for
 * this launch directory, then the project's file. A malformed line fails with
 * -WORKSPACE_EBADCONFIG and a message naming FILE:LINE, the rule and what to
 * edit. */
int workspace_rules_build(const workspace_config_t *cfg, workspace_rules_t **ret, as_error_t **err);
void workspace_rules_free(workspace_rules_t *r);
DEFINE_CLEANUP_FUNC(workspace_rules_t, workspace_rules_free)

/* Is rel (relative to a launch directory; a trailing "/" allowed) a path of
 * the default set or inside one? Pure: agents' profiles are checked
 * against it (their project-config lines must all be protected). */
bool workspace_default_covers(const char *rel);

typedef enum workspace_mount_kind {
    WORKSPACE_READ_ONLY,   /* a protected path, bind-mounted read-only over itself */
    WORKSPACE_PIN,         /* a directory above one, bind-mounted read-write over itself */
} workspace_mount_kind_t;

typedef struct workspace_mount {
    workspace_mount_kind_t kind;
    char *path;            /* absolute, no symlink in it: source and destination */
    char *rel;             /* relative to the launch directory */
    bool placeholder;      /* missing: an empty file or directory stands in for the session */
    bool dir;              /* a directory (a placeholder: to be made as one) */
    bool created;          /* workspace_begin() created the placeholder (dev, ino) */
    unsigned long long dev, ino;
} workspace_mount_t;

typedef struct workspace_snapshot workspace_snapshot_t;
typedef struct workspace_pending workspace_pending_t;

/* A symlink on the way to a protected path: re-pointed during the session,
 * it is put back at the end. */
typedef struct workspace_link {
    char *rel;             /* where the link is, relative to the launch directory */
    char *target;          /* what it said when planned */
    char *leads_to;        /* the protected path (rule) it is on the way to */
} workspace_link_t;

typedef struct workspace {
    char *launch_dir;
    char *home;
    workspace_rules_t *rules;
    workspace_mount_t *mounts;   /* parents before children */
    size_t n_mounts;
    char **notes;                /* worth printing at the start (a protected symlink...) */
    size_t n_notes;
    workspace_link_t *links;     /* on the way to protected paths */
    size_t n_links;
    /* set by workspace_begin() */
    int *lock_fds;
    size_t n_lock_fds;
    workspace_snapshot_t *before;
    workspace_pending_t *pending;   /* the before-state, still being taken */
    workspace_pending_t *pending_end;   /* the after-state, ditto */
    char *host_path;             /* the host's PATH, for the end-of-session check (NULL: none) */
} workspace_t;

/* Reads the user's file (user_file, an absolute path, symlinks followed) and
 * the project's (never through a symlink), builds the rules and plans the
 * mounts as the launch directory is now. Changes nothing on disk. */
int workspace_load(const char *launch_dir, const char *home, const char *user_file,
                   workspace_t **ret, as_error_t **err);

/* Plans the mounts for given rules (taken over, also on failure). */
int workspace_plan(const char *launch_dir, const char *home, workspace_rules_t *rules,
                   workspace_t **ret, as_error_t **err);

/* The host's PATH (NULL: none): at the end of the session, what the agent
 * made is judged against the commands on it and the modules of the
 * python3 it finds (a name in an environment's bin/, a module at the top).
 * Copied. */
int workspace_host_path(workspace_t *ws, const char *path, as_error_t **err);

/* Before the sandbox is set up: locks the tree against other sessions
 * (-WORKSPACE_EBUSY), removes the empty placeholders a killed session left,
 * plans again, creates the placeholders and starts taking the before-state
 * on a thread (the tree is only read meanwhile). */
int workspace_begin_start(workspace_t *ws, as_error_t **err);
/* Waits for the before-state: before the agent starts (its error, if the
 * walk failed). Nothing to wait for: 0. */
int workspace_begin_wait(workspace_t *ws, as_error_t **err);
/* Both, in a row. */
int workspace_begin(workspace_t *ws, as_error_t **err);

/* Once the agent's container has exited (nothing of it can write any
 * more), while the rest of the sandbox is torn down: starts taking the
 * after-state that workspace_end() then uses. */
int workspace_end_start(workspace_t *ws, as_error_t **err);

/* The read-only and pin mounts for the agent, parents first, as a plain list
 * (*ret malloc'd, its strings pointing into ws; ws may be NULL: none). */
int workspace_agent_mounts(const workspace_t *ws, podman_mount_t **ret, size_t *ret_n, as_error_t **err);

/* After teardown: removes the placeholders it created (only when
 * remove_placeholders, i.e. the container is gone, and only those still
 * empty), examines the whole tree, disables what host tools would run and
 * what could not be examined, and compares with the before-state.
 * *ret_report is the warning to print (its long lists cut short), or NULL
 * when nothing relevant changed; *ret_whole (when ret_whole is not NULL)
 * the same with every line, for a file. */
int workspace_end(workspace_t *ws, bool remove_placeholders, char **ret_report, char **ret_whole,
                  as_error_t **err);

/* The protected paths and pins, one per line, for --dry-run. */
int workspace_describe(const workspace_t *ws, char **ret, as_error_t **err);

/* The journal (lib/workspace/workspace_journal.c): workspace_begin's record, kept in
 * DIR/ID under a lock for the session's life, so that a later CLI can run the
 * end-of-session check of a session whose CLI was killed. *ret_fd holds the
 * lock; workspace_journal_end removes the journal and closes it. */
int workspace_journal_begin(const workspace_t *ws, const char *user_file, const char *dir,
                            const char *id, int *ret_fd, as_error_t **err);
void workspace_journal_end(int fd, const char *dir, const char *id);

typedef struct workspace_recovery {
    /* Whether the session ID's containers are gone (NULL: assume so). The
     * check runs only then: a running agent could undo what it disables. */
    bool (*is_gone)(void *ctx, const char *id);
    /* Told of each journal checked and removed: its tree (NULL when the
     * journal could not be read) and the report, short and whole (NULL:
     * nothing to say). */
    void (*on_report)(void *ctx, const char *id, const char *launch_dir, const char *report, const char *whole);
    void *ctx;
    const char *host_path;   /* the host's PATH now (workspace_host_path) */
} workspace_recovery_t;

/* Runs the end-of-session check of every journal in DIR whose session is
 * dead and gone. A tree another session holds now is left for later. */
int workspace_journal_recover(const char *dir, const workspace_recovery_t *rc, as_error_t **err);

/* Whether DIR holds a journal whose session's CLI is gone (its lock is
 * free): one workspace_journal_recover would check, or leave until the
 * session's containers are gone. */
bool workspace_journal_pending(const char *dir);

/* Releases the tree's lock (workspace_begin_start; a busy tree: taken
 * again later; a child of the CLI that outlives it once the end-of-session
 * check is done: cmd/run/teardown.c), nothing else. */
void workspace_unlock(workspace_t *ws);

/* Unlocks; removes nothing. */
void workspace_free(workspace_t *ws);
DEFINE_CLEANUP_FUNC(workspace_t, workspace_free)

#endif
