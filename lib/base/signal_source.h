/* The signals a long call must notice, handed to it as an event source
 * instead of read from process globals: a descriptor that becomes readable
 * when a signal arrives, the next one caught, and whether a terminating one
 * (INT, TERM, HUP) has been seen. The CLI passes the process's own
 * (signals_source()); tests pass one they drive. A NULL source has no
 * signals at all. */
#ifndef AS_SIGNAL_SOURCE_H
#define AS_SIGNAL_SOURCE_H

#include <stddef.h>

typedef struct signal_source {
    int fd;                          /* readable when a signal arrived; -1: none */
    int (*next)(void *ctx);          /* the next signal caught, or 0 when none is pending */
    int (*terminating)(void *ctx);   /* the first terminating signal seen, or 0 */
    void *ctx;
} signal_source_t;

static inline int signal_source_fd(const signal_source_t *s)
{
    return s != NULL ? s->fd : -1;
}

static inline int signal_source_next(const signal_source_t *s)
{
    return s != NULL && s->next != NULL ? s->next(s->ctx) : 0;
}

static inline int signal_source_terminating(const signal_source_t *s)
{
    return s != NULL && s->terminating != NULL ? s->terminating(s->ctx) : 0;
}

#endif
