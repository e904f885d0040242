#include "terminal.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

static struct termios saved;
static int saved_fd = -1;

/* At once, never after the output drains: a terminal nobody reads would
 * hold that for ever, and what was written is processed by the mode it
 * was written in already. */
void terminal_restore(void)
{
    if (saved_fd < 0)
        return;
    tcsetattr(saved_fd, TCSANOW, &saved);
    saved_fd = -1;
}

int terminal_enter_raw(int fd, as_error_t **err)
{
    if (tcgetattr(fd, &saved) < 0)
        return as_error_errno(err, errno, "reading the terminal's mode");
    struct termios raw = saved;
    cfmakeraw(&raw);
    if (tcsetattr(fd, TCSADRAIN, &raw) < 0)
        return as_error_errno(err, errno, "setting the terminal to raw mode");
    if (saved_fd < 0) {
        static bool registered;
        if (!registered && atexit(terminal_restore) == 0)
            registered = true;
    }
    saved_fd = fd;
    return 0;
}

bool terminal_size(int fd, unsigned *ret_rows, unsigned *ret_cols)
{
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) < 0 || ws.ws_row == 0 || ws.ws_col == 0)
        return false;
    *ret_rows = ws.ws_row;
    *ret_cols = ws.ws_col;
    return true;
}
