/* The agent's command could not be executed. The agent container's init
 * (podman's catatonit) runs the command; when execve fails it prints, as the
 * container's very first output,
 *     ERROR (catatonit:N): failed to exec pid1: <strerror>
 * on stderr (on the terminal with a TTY) and exits 1, where a shell, env or
 * `podman run` without an init would give 127 (not found) or 126 (found but
 * not executable) and name the command. The pump holds the first output
 * bytes back while they may be that report, so that the CLI can say it in
 * its own words and return the shell's code instead. */
#ifndef AS_EXEC_FAILURE_H
#define AS_EXEC_FAILURE_H

#include <stdbool.h>
#include <stddef.h>

#define EXEC_FAILURE_HELD_MAX 256

typedef struct exec_failure {
    char held[EXEC_FAILURE_HELD_MAX];   /* the bytes held back so far */
    size_t len;
    bool decided;        /* no report (the held bytes are the agent's), or output went on after one */
    bool seen;           /* held is exactly one whole report */
} exec_failure_t;

/* Offers the next bytes of the stream the report would be on. true: taken
 * and held. false: these bytes are not (part of) a report: the caller writes
 * the held bytes first, then data, and offers nothing more. */
bool exec_failure_offer(exec_failure_t *ef, const char *data, size_t len);

/* Output went on elsewhere first (stdout): whatever is held is no report. */
void exec_failure_decline(exec_failure_t *ef);

/* The report's reason ("No such file or directory") when the output was
 * exactly one report, else NULL. Written into buf (size n). */
const char *exec_failure_reason(const exec_failure_t *ef, char *buf, size_t n);

/* Whether the reason means the command (or its interpreter) does not exist
 * (a shell's 127), rather than that it cannot be executed (126). */
bool exec_failure_not_found(const char *reason);

#endif
