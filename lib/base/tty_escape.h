/* The escape key sequence of a session with a terminal, as ssh has it: in
 * raw mode every key goes to the agent, Ctrl-C included, so an agent that
 * ignores its input can only be left from its own terminal by a sequence
 * the CLI keeps for itself. A `~` typed at the start of a line (after Enter
 * or Ctrl-C, or first in the session) is held back until the next key:
 *   ~.   stops the session (a request counted in *ret_stops; the caller
 *        stops on the first and kills on the second)
 *   ~~   sends one `~`
 *   ~X   sends both (`~/src`, `~user`: nothing is lost)
 * Pure code: bytes in, bytes out. */
#ifndef AS_TTY_ESCAPE_H
#define AS_TTY_ESCAPE_H

#include <stddef.h>

typedef enum tty_escape_state {
    TTY_ESCAPE_LINE_START,   /* the next `~` is held */
    TTY_ESCAPE_HELD,         /* a `~` is held */
    TTY_ESCAPE_MID_LINE,
} tty_escape_state_t;

typedef struct tty_escape {
    tty_escape_state_t state;
} tty_escape_t;

/* A session starts at the start of a line. */
#define TTY_ESCAPE_INIT ((tty_escape_t){ .state = TTY_ESCAPE_LINE_START })

/* Filters len bytes of `in` into `out`, which has room for len + 1 bytes
 * (a `~` held from the previous call comes out with this one's first
 * byte); returns how many were written. Each `~.` adds one to *ret_stops
 * and leaves the state at the start of a line, so `~.~.` is two. */
size_t tty_escape_feed(tty_escape_t *e, const char *in, size_t len, char *out, unsigned *ret_stops);

#endif
