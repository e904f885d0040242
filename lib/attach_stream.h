/* The byte stream of an attach or exec session. Without a TTY, libpod
 * multiplexes stdout and stderr into frames (8-byte header: stream id in
 * byte 0, big-endian length in bytes 4-7, then the payload); with a TTY the
 * stream is raw. The pump moves stdin up and output down until the far
 * side closes, without ever blocking one direction on the other. */
#ifndef AS_ATTACH_STREAM_H
#define AS_ATTACH_STREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "http.h"

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
    bool close_write_on_eof; /* half-close the stream when in_fd ends */
} attach_io_t;

typedef struct attach_hooks {
    /* Every signal caught while pumping (SIGWINCH included). */
    void (*on_signal)(int signo, void *ctx);
    /* A second stream to watch (may be NULL): on_watch is called once when
     * it delivers anything or closes. */
    http_stream_t *watch;
    void (*on_watch)(void *ctx);
    void *ctx;
} attach_hooks_t;

/* Runs until the far side closes the stream. */
int attach_pump(http_stream_t *s, const attach_io_t *io, const attach_hooks_t *hooks,
                as_error_t **err);

#endif
