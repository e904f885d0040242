/* A progress line on the terminal for the steps that take seconds: shown
 * on stderr only when it is a terminal, rewritten in place, and erased
 * before anything else is written there (report() does, and the agent's
 * start). Quiet otherwise. It may be called from a set-up thread. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "base/escape.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool shown;

void progress_show(const char *what, void *ctx)
{
    (void)ctx;
    if (!isatty(STDERR_FILENO))
        return;
    pthread_mutex_lock(&lock);
    fputs("\r\033[Kagent-sandbox: ", stderr);
    path_put_escaped(stderr, what, strlen(what));
    fputs("...", stderr);
    fflush(stderr);
    shown = true;
    pthread_mutex_unlock(&lock);
}

void progress_clear(void)
{
    pthread_mutex_lock(&lock);
    if (shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        shown = false;
    }
    pthread_mutex_unlock(&lock);
}
