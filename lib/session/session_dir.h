/* The per-session directory under <runtime dir>/agent-sandbox/ (the runtime
 * directory is $XDG_RUNTIME_DIR or its fallback, lib/base/user_dirs.h): private
 * (0700, never mounted anywhere), holding the service socket and a lock that
 * the CLI keeps for its whole life. A directory whose lock nobody holds
 * belongs to a session whose CLI is gone. */
#ifndef AS_SESSION_DIR_H
#define AS_SESSION_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"
#include "base/util.h"

#define SESSION_ID_LEN 12

typedef struct session_dir {
    char id[SESSION_ID_LEN + 1];
    char *base;          /* <runtime dir>/agent-sandbox */
    char *path;          /* base/<id> */
    char *socket_path;   /* path/podman.sock */
    int lock_fd;
} session_dir_t;

/* Random lower-case hex id of SESSION_ID_LEN digits. */
int session_id_generate(char ret[SESSION_ID_LEN + 1], as_error_t **err);

/* Whether s is an id as session_id_generate makes them. */
bool session_id_valid(const char *s);

/* The base directory, created 0700 if missing; refuses one that is not a
 * directory owned by us with mode 0700. */
int session_base_dir(char **ret, as_error_t **err);

/* Creates base/<id> atomically with its lock held (made under a temporary
 * name, locked, then renamed), so no sweeper ever sees it unlocked. */
int session_dir_create(const char *id, session_dir_t **ret, as_error_t **err);
/* Removes the directory and everything in it, then releases the lock. */
int session_dir_remove(session_dir_t *d, as_error_t **err);
void session_dir_free(session_dir_t *d);
DEFINE_CLEANUP_FUNC(session_dir_t, session_dir_free)

/* Whether a live CLI holds the lock of base/<id> (base_fd is base, opened
 * as a directory): the session is running. */
bool session_dir_lock_held(int base_fd, const char *id);

#endif
