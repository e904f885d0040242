/* Files written whole or removed whole: the project's one atomic writer
 * (every file another process reads while we may rewrite it: the router's
 * files, session.json, the saved allowlist, the reports) and the one tree
 * remover. */
#ifndef AS_FILE_WRITE_H
#define AS_FILE_WRITE_H

#include <sys/types.h>

#include "error.h"

/* Writes `text` to dir/name with exactly `mode` (umask or not: the router
 * reads its files as another uid), through a temporary file of its own
 * (dir/name.XXXXXX) and file_commit, so a reader sees the old file or the
 * new one, never half of one, even after a crash, and of writers at once
 * each succeeds and the last one's whole text stays. `name` may have one
 * directory level ("router/nginx.conf"). */
int file_write_atomic(const char *dir, const char *name, const char *text, mode_t mode,
                      as_error_t **err);

/* The durable end of every write through a temporary file, in the one
 * order that survives a crash: the file's bytes on disk (fsync of fd, the
 * open file tmp), then the rename to path, then the rename on disk (fsync
 * of path's directory). On a failure before the rename tmp is removed.
 * fd stays open (the journal keeps its lock on it). */
int file_commit(int fd, const char *tmp, const char *path, as_error_t **err);

/* Removes a directory tree that holds only files and directories (no
 * following of symlinks); a missing one is no error. */
int remove_tree(const char *path, as_error_t **err);

#endif
