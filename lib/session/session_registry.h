/* The registry of running sessions: a small file (REGISTRY_FILE, JSON) in
 * each session directory (lib/session/session_dir.h), written by the session's CLI
 * when it starts, before it takes the workspace lock, and gone with the
 * directory. `ps`, `stop` and the "another session is running in this
 * tree" refusal read it. A session is running while its directory's lock is
 * held, so an entry is trusted only then: a live lock means the CLI that
 * wrote the file is alive, and its PID is still its own.
 *
 * Text in an entry comes from the user and the launch tree (a directory's
 * name may be the agent's choice): print it through path_put_escaped. */
#ifndef AS_SESSION_REGISTRY_H
#define AS_SESSION_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "session_dir.h"
#include "base/error.h"
#include "base/util.h"

#define REGISTRY_FILE "session.json"
/* The entry of a session whose agent has ended and whose removals still
 * run (after the prompt, lib/session/session_finish.c). Such a session is neither
 * listed nor signalled, and a new session in its tree waits for its
 * workspace lock instead of refusing. */
#define REGISTRY_ENDED_FILE "session.ended"

typedef struct session_entry {
    char id[SESSION_ID_LEN + 1];
    pid_t pid;                 /* the session's CLI */
    char *launch_dir;          /* resolved */
    long long started;         /* seconds since the epoch */
    char **command;            /* NULL-terminated: the agent's command, or what stands for it */
    char *agent;               /* NULL: --exec */
    char *image;
    char *allowlist_path;
    long long allowlist_entries;   /* at the session's start */
    char *dir;                 /* the session directory (filled by the readers) */
} session_entry_t;

/* Writes dir/REGISTRY_FILE (0600) through a temporary file and rename. */
int session_registry_write(const char *dir, const session_entry_t *e, as_error_t **err);

/* Renames dir/REGISTRY_FILE to REGISTRY_ENDED_FILE. */
int session_registry_end(const char *dir, as_error_t **err);

/* Reads dir/REGISTRY_FILE; -ENOENT when there is none. */
int session_registry_read(const char *dir, session_entry_t **ret, as_error_t **err);

/* The running sessions under `base` (<runtime dir>/agent-sandbox) that have
 * an entry, oldest first. Directories without one (a session still
 * starting, or cleanup's and doctor's own) are not sessions to list. */
int session_registry_list(const char *base, session_entry_t ***ret, size_t *ret_n, as_error_t **err);

/* Whether the session is still running (its lock held). */
bool session_entry_live(const session_entry_t *e);

/* Sends `signo` to the session's CLI, only while it is running: through a
 * pidfd taken before the lock is checked, so a PID reused after the CLI's
 * end is never signalled. -ESRCH when the session is no longer running.
 * The signal carries SESSION_STOP_SIGNAL_VALUE (as sigqueue(3) does), so
 * the session can say it was `agent-sandbox stop` that ended it. */
#define SESSION_STOP_SIGNAL_VALUE 0x5354   /* "ST" */
int session_entry_signal(const session_entry_t *e, int signo, as_error_t **err);

/* Whether `signo` sent to the session's CLI is still pending, not yet taken:
 * a standard signal sent while one of its kind is pending merges with it
 * (signal(7)), so a second one must wait until the first was taken. False
 * when the process is gone or cannot be read. */
bool session_entry_signal_pending(const session_entry_t *e, int signo);

/* The test of the above on the text of a /proc/PID/status: `signo` in the
 * process's shared pending set (ShdPnd) or its main thread's (SigPnd). */
bool proc_status_signal_pending(const char *status, int signo);

void session_entry_free(session_entry_t *e);
DEFINE_CLEANUP_FUNC(session_entry_t, session_entry_free)
void session_entries_free(session_entry_t **v, size_t n);

#endif
