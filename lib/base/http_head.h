/* The head of an HTTP/1.x answer read off a raw connection. A hijacked
 * stream (attach, events) is opened with curl in CONNECT_ONLY mode, so that
 * the connection stays a byte pipe afterwards; curl then reads nothing of
 * the answer, and this small parser finds its end and its status:
 *   status-line = "HTTP/1." DIGIT SP 3DIGIT [SP reason] CRLF
 *   head        = status-line *( header-line CRLF ) CRLF
 * Header lines are not interpreted: what matters on a hijacked stream is
 * the status (101 or 200: the stream is handed over) and where the stream's
 * own bytes begin. Pure code. */
#ifndef AS_HTTP_HEAD_H
#define AS_HTTP_HEAD_H

#include <stddef.h>

#include "error.h"

/* A longer head is refused: the libpod service sends a few hundred bytes. */
#define HTTP_HEAD_MAX 65536

typedef struct http_head {
    long status;          /* 100..999 */
    size_t len;           /* bytes of the head, the blank line included */
} http_head_t;

/* Looks at the first `len` bytes read: 1 and *ret when they hold a whole
 * head; 0 when more are needed; -EPROTO when they cannot start an HTTP/1.x
 * answer or the head runs past HTTP_HEAD_MAX. NUL bytes are data. */
int http_head_parse(const char *buf, size_t len, http_head_t *ret, as_error_t **err);

#endif
