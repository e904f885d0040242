#include "egress_watch.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "egress_log.h"
#include "base/name_counts.h"
#include "base/util.h"

struct egress_watch {
    pthread_t thread;
    int stop_pipe[2];
    egress_log_reader_t *reader;
    name_counts_t *seen;
    egress_refused_fn fn;
    void *ctx;
    bool done;               /* fn asked to stop */
};

static int on_event(const egress_event_t *e, void *ctx)
{
    egress_watch_t *w = ctx;
    if (!e->denied || e->by_rule || w->done || e->name[0] == '\0' || e->by != EGRESS_BY_AGENT)
        return 0;
    _cleanup_free_ char *name = strdup(e->name);
    if (name == NULL)
        return -ENOMEM;
    size_t len = strlen(name);
    if (len > 1 && name[len - 1] == '.')
        name[len - 1] = '\0';
    for (char *c = name; *c != '\0'; c++)
        *c = (char)tolower((unsigned char)*c);
    bool first = false;
    if (name_counts_add(w->seen, name, 1, &first, NULL) < 0)
        return -ENOMEM;
    if (first && !w->fn(name, w->ctx))
        w->done = true;
    return 0;
}

static void *watch_main(void *arg)
{
    egress_watch_t *w = arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);    /* signals are the main thread's */
    for (bool stopping = false; !w->done;) {
        as_error_t *err = NULL;
        if (egress_log_read(w->reader, on_event, w, &err) < 0) {
            as_error_free(&err);
            break;
        }
        if (stopping)
            break;
        struct pollfd p = { .fd = w->stop_pipe[0], .events = POLLIN };
        stopping = poll(&p, 1, EGRESS_WATCH_INTERVAL_MS) > 0;
    }
    return NULL;
}

static void watch_free(egress_watch_t *w)
{
    for (size_t i = 0; i < 2; i++)
        if (w->stop_pipe[i] >= 0)
            close(w->stop_pipe[i]);
    egress_log_close(w->reader);
    name_counts_free(w->seen);
    free(w);
}

int egress_watch_start(const char *log_dir, egress_refused_fn fn, void *ctx, egress_watch_t **ret,
                       as_error_t **err)
{
    egress_watch_t *w = calloc(1, sizeof(*w));
    if (w == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    *w = (egress_watch_t){ .stop_pipe = { -1, -1 }, .fn = fn, .ctx = ctx };
    int r = 0;
    if ((w->seen = name_counts_new()) == NULL)
        r = as_error_make(err, ENOMEM, "out of memory");
    else if (pipe2(w->stop_pipe, O_CLOEXEC) < 0)
        r = as_error_errno(err, errno, "making a pipe");
    else if ((r = egress_log_open(log_dir, &w->reader, err)) == 0 &&
             (r = -pthread_create(&w->thread, NULL, watch_main, w)) < 0)
        as_error_errno(err, -r, "starting the log watcher");
    if (r < 0) {
        watch_free(w);
        return r;
    }
    *ret = w;
    return 0;
}

void egress_watch_stop(egress_watch_t *w)
{
    if (w == NULL)
        return;
    if (write(w->stop_pipe[1], "x", 1) < 0) { }
    pthread_join(w->thread, NULL);
    watch_free(w);
}
