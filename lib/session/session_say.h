/* How a session speaks to its caller, since lib/ never prints: each line
 * for the user handed over as it comes (with its level, so that the CLI
 * prints "agent-sandbox: warning: ..."), and what went wrong as a typed
 * fault, never an exit code (the CLI maps one to the other,
 * cmd/run/session_lines.c). */
#ifndef AS_SESSION_SAY_H
#define AS_SESSION_SAY_H

#include "base/error.h"

/* What stopped a session, or SESSION_OK. */
typedef enum session_fault {
    SESSION_OK = 0,
    SESSION_FAULT_USAGE,          /* bad arguments or variables */
    SESSION_FAULT_CONFIG,         /* a config file unreadable or malformed */
    SESSION_FAULT_NO_IMAGE,       /* an image missing, or refused by the image check */
    SESSION_FAULT_NO_SERVICE,     /* the private podman service did not start */
    SESSION_FAULT_INTERNAL,       /* a bug, or no memory */
    SESSION_FAULT_SETUP,          /* the confinement could not be set up (or torn down) */
    SESSION_FAULT_SERVICE_LOST,   /* the service died mid-session */
    SESSION_FAULT_REFUSED,        /* the launch directory refused, or busy */
    SESSION_FAULT_NO_RUNTIME_DIR, /* no usable XDG_RUNTIME_DIR */
    SESSION_FAULT_SIGNALLED,      /* a terminating signal stopped it before the agent ran */
} session_fault_t;

typedef enum say_level {
    SAY_ERROR,        /* "error: " */
    SAY_WARNING,      /* "warning: " */
    SAY_NOTE,         /* "note: " */
    SAY_PLAIN,        /* as it is: a refusal in words of its own, a summary */
} say_level_t;

typedef struct session_say {
    void (*line)(say_level_t level, const char *text, void *ctx);
    /* a set-up step that can take seconds (may be NULL; any thread) */
    void (*progress)(const char *what, void *ctx);
    void *ctx;
} session_say_t;

/* A message at `level` (one report of the CLI's, whatever lines it has). */
void say(const session_say_t *s, say_level_t level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The error's message at SAY_ERROR, and the error freed; _lines says each
 * of its lines apart (a config file's errors, one per line). */
void say_error(const session_say_t *s, as_error_t **err);
void say_error_lines(const session_say_t *s, as_error_t **err);
void say_progress(const session_say_t *s, const char *what);

/* After a failure this host may be the cause of: where to look. */
#define SESSION_DOCTOR_HINT \
    "`agent-sandbox doctor` checks what sessions need of this host, with the fix for each problem"

#endif
