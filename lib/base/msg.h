/* A message or a generated text built with stdio in memory: the one copy
 * of the open_memstream pattern. Write freely to m.f; a failed write (out
 * of memory) sticks to the stream and is found once, when it is closed.
 *
 * A text that holds a secret (held values, the router's key) is opened
 * with msg_open_secret instead: open_memstream's reallocs and stdio's own
 * buffer would leave copies of it in freed memory. */
#ifndef AS_MSG_H
#define AS_MSG_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"

typedef struct msg_secret msg_secret_t;

typedef struct msg {
    FILE *f;
    char *buf;
    size_t len;
    msg_secret_t *secret;     /* msg_open_secret's own buffer, else NULL */
} msg_t;

/* -ENOMEM when no stream can be had. */
int msg_open(msg_t *m, as_error_t **err);
/* The same for a text that holds a secret: the stream is unbuffered, and
 * its buffer grows into a new block, the old one wiped before it is freed;
 * msg_discard wipes the text, and the caller wipes what msg_close gives
 * (free_wiped). */
int msg_open_secret(msg_t *m, as_error_t **err);
/* Closes the stream: *ret_text is the text (empty, never NULL, when nothing
 * was written); -ENOMEM when any write failed. */
int msg_close(msg_t *m, char **ret_text, as_error_t **err);
/* Closes the stream into an error with `code` whose message is the text. */
int msg_fail(msg_t *m, int code, as_error_t **err);
/* Closes the stream and drops the text, on a path that does not need it. */
void msg_discard(msg_t *m);

#endif
