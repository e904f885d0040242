/* The byte stream of an attach or exec session. Without a TTY, libpod
 * multiplexes stdout and stderr into frames (8-byte header: stream id in
 * byte 0, big-endian length in bytes 4-7, then the payload); with a TTY the
 * stream is raw. The pump moves stdin up and output down until the far
 * side closes, without ever blocking one direction on the other. */
#ifndef AS_ATTACH_STREAM_H
#define AS_ATTACH_STREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "exec_failure.h"
#include "base/error.h"
#include "base/http.h"
#include "base/signal_source.h"

typedef struct frame_parser {
    unsigned char head[8];
    size_t head_len;     /* header bytes collected so far */
    size_t left;         /* payload bytes still due for the current frame */
    int stream;
} frame_parser_t;

/* Receives each piece of payload in order; a negative return stops parsing. */
typedef int (*frame_sink_fn)(int stream, const char *data, size_t len, void *ctx);

/* Feeds any number of bytes, in pieces of any size. Stream ids 1 (stdout),
 * 2 (stderr) and 3 (podman's own errors) are accepted; anything else is a
 * protocol error. */
int frame_parser_feed(frame_parser_t *p, const char *buf, size_t len,
                      frame_sink_fn sink, void *ctx, as_error_t **err);

typedef struct attach_io {
    int in_fd;           /* -1 for none */
    int out_fd;
    int err_fd;
    bool multiplexed;    /* false with a TTY */
    bool close_write_on_eof; /* half-close the input stream when in_fd ends */
    bool escape;         /* in_fd is the user's terminal: `~.` (base/tty_escape.h) is ours */
} attach_io_t;

typedef struct attach_hooks {
    /* Where signals come from (may be NULL: none), and what to do with
     * every one caught while pumping (SIGWINCH included). */
    const signal_source_t *signals;
    void (*on_signal)(int signo, void *ctx);
    /* A second stream to watch (may be NULL): on_watch is called once when
     * it delivers anything or closes. A line it returns (may be NULL) is
     * the user's, written on err_fd as the agent's output is: never
     * blocking the pump. */
    http_stream_t *watch;
    const char *(*on_watch)(void *ctx);
    /* Writing the agent's output failed (errnum EPIPE: its reader went
     * away): the agent should end, as a shell's writer would. Called once,
     * and once more with again set when the stream is still open
     * ATTACH_OUTPUT_LOST_GRACE_MS later. */
    void (*on_output_lost)(int errnum, bool again, void *ctx);
    /* The stream is still open ATTACH_SIGNAL_GRACE_MS after the first
     * terminating signal of `signals` (one that came before the pump
     * started counts from its start): the agent ignores it, and no second
     * signal may come (a closed terminal sends one SIGHUP). Called once. */
    void (*on_signal_overdue)(void *ctx);
    /* The user typed `~.` for the nth time (io->escape): the first starts
     * the grace of on_signal_overdue, as a terminating signal does. The
     * line it returns (may be NULL) is written as on_watch's is. */
    const char *(*on_escape)(unsigned nth, void *ctx);
    void *ctx;
} attach_hooks_t;

#define ATTACH_OUTPUT_LOST_GRACE_MS 2000L
/* As long as `podman stop` waits before it kills. */
#define ATTACH_SIGNAL_GRACE_MS 10000L

typedef struct attach_result {
    int output_errno;          /* the first write error on out_fd or err_fd, or 0 */
    bool output_errno_on_err;  /* ... and it was err_fd's */
    size_t output_dropped;     /* bytes of output dropped at a stop: their reader took none */
    exec_failure_t exec;       /* the init's report that the command could not run */
} attach_result_t;

/* Runs until the far side closes `out`, which carries the agent's output
 * (and, with a TTY, its input too: then in == out), and the output is
 * written. Without a TTY stdin goes up a connection of its own (`in`), so
 * that an agent that stops reading it costs neither its output nor its
 * exit status: a reset of `in` only ends the input, and whatever podman
 * says there (its "Error: ..." line) is dropped. The output is written as
 * its readers take it (attach_output.h): a reader that stops holds the
 * agent back, never the pump, and once the session is being stopped (a
 * terminating signal, `~.`), what it has not taken is dropped and counted,
 * so that the stream can end. Output that cannot be written is dropped
 * too, after on_output_lost; ret says what happened. */
int attach_pump(http_stream_t *out, http_stream_t *in, const attach_io_t *io,
                const attach_hooks_t *hooks, attach_result_t *ret, as_error_t **err);

#endif
