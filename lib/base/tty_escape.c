#include "tty_escape.h"

#include <stdbool.h>

/* Enter, and Ctrl-C: who pressed Ctrl-C at a hung agent types `~.` next,
 * and should not need an Enter first. */
static bool ends_line(char c)
{
    return c == '\r' || c == '\n' || c == '\003';
}

size_t tty_escape_feed(tty_escape_t *e, const char *in, size_t len, char *out, unsigned *ret_stops)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        char c = in[i];
        if (e->state == TTY_ESCAPE_HELD) {
            if (c == '.') {
                (*ret_stops)++;
                e->state = TTY_ESCAPE_LINE_START;
                continue;
            }
            out[n++] = '~';
            if (c == '~') {          /* ~~: one ~, and the line goes on */
                e->state = TTY_ESCAPE_MID_LINE;
                continue;
            }
        } else if (e->state == TTY_ESCAPE_LINE_START && c == '~') {
            e->state = TTY_ESCAPE_HELD;
            continue;
        }
        out[n++] = c;
        e->state = ends_line(c) ? TTY_ESCAPE_LINE_START : TTY_ESCAPE_MID_LINE;
    }
    return n;
}
