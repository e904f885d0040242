/* The host terminal during an interactive session: raw mode in, the saved
 * mode back out on every exit path (normal, error, signal, atexit). */
#ifndef AS_TERMINAL_H
#define AS_TERMINAL_H

#include <stdbool.h>

#include "error.h"

int terminal_enter_raw(int fd, as_error_t **err);
/* Safe to call many times and from an atexit handler. */
void terminal_restore(void);
bool terminal_size(int fd, unsigned *ret_rows, unsigned *ret_cols);

#endif
