#include "attach_stream.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "attach_output.h"
#include "base/tty_escape.h"
#include "base/util.h"

/* What one read of the output stream takes; the queue must have room for
 * it (and the heads of its frames' pieces) before the next read. */
#define DOWN_CHUNK 65536
#define READ_ROOM (2 * DOWN_CHUNK)

int frame_parser_feed(frame_parser_t *p, const char *buf, size_t len,
                      frame_sink_fn sink, void *ctx, as_error_t **err)
{
    while (len > 0) {
        if (p->left == 0 && p->head_len < sizeof(p->head)) {
            size_t take = sizeof(p->head) - p->head_len;
            if (take > len)
                take = len;
            memcpy(p->head + p->head_len, buf, take);
            p->head_len += take;
            buf += take;
            len -= take;
            if (p->head_len < sizeof(p->head))
                return 0;
            if (p->head[0] < 1 || p->head[0] > 3)
                return as_error_make(err, EPROTO, "attach stream: frame for unknown stream %u",
                                     p->head[0]);
            p->stream = p->head[0];
            p->left = (size_t)p->head[4] << 24 | (size_t)p->head[5] << 16 |
                      (size_t)p->head[6] << 8 | (size_t)p->head[7];
            if (p->left == 0)           /* empty frame: next header */
                p->head_len = 0;
            continue;
        }
        size_t take = p->left < len ? p->left : len;
        int r = sink(p->stream, buf, take, ctx);
        if (r < 0)
            return r;
        buf += take;
        len -= take;
        p->left -= take;
        if (p->left == 0)
            p->head_len = 0;
    }
    return 0;
}

typedef struct pump {
    http_stream_t *out, *in;     /* in == out with a TTY */
    const attach_io_t *io;
    const attach_hooks_t *hooks;
    http_stream_t *watch;
    attach_result_t *res;
    frame_parser_t parser;
    attach_output_t *queue;      /* the agent's output on its way to io's descriptors */
    bool in_open;                /* still reading io->in_fd */
    bool in_stream_open;         /* the input stream still takes bytes */
    bool sniffing;               /* the output so far may be the init's report */
    bool out_ended;              /* the output stream ended: what is queued is written, then done */
    bool abandoned;              /* a stop came while the queue waited for its reader: dropped */
    int failure;                 /* the output stream's failure, once it ended */
    long lost_at;                /* when output was first lost, or 0 */
    bool lost_again;
    long signalled_at;           /* when a terminating signal was first seen, or 0 */
    bool signal_overdue;
    tty_escape_t escape;         /* io->escape: the `~.` keys */
    unsigned escapes;            /* `~.` typed so far */
    size_t up_len, up_off;
    char up[65536];
} pump_t;

/* Writes what the user's descriptors take now. The first failure is
 * recorded and the agent told to end (EPIPE: the reader went away, as in a
 * pipeline; anything else, ENOSPC or EIO: the output is being lost). */
static void flush_output(pump_t *p)
{
    bool to_err = false;
    int r;
    while ((r = attach_output_flush(p->queue, &to_err)) < 0) {
        if (p->res->output_errno != 0)
            continue;                /* the other descriptor may still take its part */
        p->res->output_errno = -r;
        p->res->output_errno_on_err = to_err;
        p->lost_at = monotonic_ms();
        if (p->hooks != NULL && p->hooks->on_output_lost != NULL)
            p->hooks->on_output_lost(-r, false, p->hooks->ctx);
    }
}

/* The agent's output, queued in order and written as far as it goes now. */
static void emit(pump_t *p, bool to_err, const char *data, size_t len)
{
    if (attach_output_put(p->queue, to_err, data, len) < 0) {
        p->res->output_dropped += len;      /* no memory to hold it */
        return;
    }
    flush_output(p);
}

/* A line of the CLI's own for the user, from a hook (NULL: none). */
static void notice(pump_t *p, const char *text)
{
    if (text == NULL)
        return;
    attach_output_notice(p->queue, text);
    flush_output(p);
}

/* A stop while the user's reader takes none of the agent's output: what is
 * queued can wait no more (the stream must reach its end). */
static void drop_queued(pump_t *p)
{
    p->res->output_dropped = attach_output_drop(p->queue);
}

/* The init's report would be on stderr, or on the one stream of a TTY. */
static bool report_goes_to_err(const pump_t *p)
{
    return p->io->multiplexed;
}

static void stop_sniffing(pump_t *p)
{
    p->sniffing = false;
    exec_failure_decline(&p->res->exec);
    emit(p, report_goes_to_err(p), p->res->exec.held, p->res->exec.len);
}

/* Output in order, except that the first bytes are held back while they
 * may be the init's report that the command could not be executed. */
static void deliver(pump_t *p, bool to_err, const char *data, size_t len)
{
    if (p->sniffing) {
        if (to_err == report_goes_to_err(p) && exec_failure_offer(&p->res->exec, data, len))
            return;
        stop_sniffing(p);
    }
    emit(p, to_err, data, len);
}

static int sink_frames(int stream, const char *data, size_t len, void *ctx)
{
    deliver(ctx, stream != 1, data, len);
    return 0;
}

/* What the output stream has now, as far as the queue has room: none left
 * is back-pressure (the next read waits for the reader), except once the
 * session is being stopped, when what waits is dropped instead. 1 at the
 * stream's end, 0 for more later. */
static int drain_output(pump_t *p, as_error_t **err)
{
    char down[DOWN_CHUNK];
    for (;;) {
        if (!attach_output_room(p->queue, READ_ROOM)) {
            if (p->signalled_at == 0)
                return 0;
            drop_queued(p);
        }
        ssize_t got = http_stream_recv(p->out, down, sizeof(down), err);
        if (got == -EAGAIN)
            return 0;
        if (got < 0)
            return (int)got;
        if (got == 0)
            return 1;            /* the agent is done */
        if (!p->io->multiplexed) {
            deliver(p, false, down, (size_t)got);
            continue;
        }
        int r = frame_parser_feed(&p->parser, down, (size_t)got, sink_frames, p, err);
        if (r < 0)
            return r;
    }
}

/* No more input: the agent sees end-of-file. A reset stream needs nothing. */
static void end_input(pump_t *p)
{
    p->in_open = false;
    p->up_len = p->up_off = 0;
    if (p->io->close_write_on_eof && p->in_stream_open) {
        as_error_t *e = NULL;
        http_stream_close_write(p->in, &e);
        as_error_free(&e);
    }
}

/* The input stream stopped taking bytes (the agent closed its stdin, or
 * exited): not an error, and the rest of our stdin stays unread. */
static void input_gone(pump_t *p)
{
    p->in_stream_open = false;
    p->in_open = false;
    p->up_len = p->up_off = 0;
}

/* A separate input stream carries nothing down but podman's complaint when
 * sending stdin failed: read and dropped, never shown. */
static void drain_input_stream(pump_t *p)
{
    char junk[4096];
    for (;;) {
        as_error_t *e = NULL;
        ssize_t got = http_stream_recv(p->in, junk, sizeof(junk), &e);
        as_error_free(&e);
        if (got == -EAGAIN)
            return;
        if (got <= 0) {
            input_gone(p);
            return;
        }
    }
}

static void send_pending(pump_t *p)
{
    as_error_t *e = NULL;
    ssize_t sent = http_stream_send_some(p->in, p->up + p->up_off, p->up_len - p->up_off, &e);
    as_error_free(&e);
    if (sent == -EAGAIN)
        return;
    if (sent < 0)
        input_gone(p);
    else
        p->up_off += (size_t)sent;
}

/* Each `~.` typed is the CLI's, not the agent's: the first starts the same
 * grace as a terminating signal does. Once the agent's output has ended,
 * one gives up writing what its reader has not taken. */
static void escape_typed(pump_t *p, unsigned stops)
{
    for (; stops > 0; stops--) {
        p->escapes++;
        if (p->out_ended) {
            p->abandoned = true;
            continue;
        }
        if (p->signalled_at == 0)
            p->signalled_at = monotonic_ms();
        if (p->hooks != NULL && p->hooks->on_escape != NULL)
            notice(p, p->hooks->on_escape(p->escapes, p->hooks->ctx));
    }
}

static void read_input(pump_t *p)
{
    char keys[sizeof(p->up) - 1];     /* a held `~` may come out with them */
    char *into = p->io->escape ? keys : p->up;
    ssize_t got = read(p->io->in_fd, into, p->io->escape ? sizeof(keys) : sizeof(p->up));
    if (got < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (got <= 0) {
        end_input(p);
        return;
    }
    p->up_len = (size_t)got;
    p->up_off = 0;
    if (p->io->escape) {
        unsigned stops = 0;
        p->up_len = tty_escape_feed(&p->escape, keys, (size_t)got, p->up, &stops);
        escape_typed(p, stops);
    }
    if (p->out_ended)
        p->up_len = 0;                /* nobody reads them any more */
}

/* Each signal to its hook; once the agent's output has ended, a
 * terminating one gives up writing what its reader has not taken. */
static void on_signals(pump_t *p)
{
    int signo;
    while ((signo = signal_source_next(p->hooks->signals)) != 0) {
        if (!p->out_ended && p->hooks->on_signal != NULL)
            p->hooks->on_signal(signo, p->hooks->ctx);
        else if (p->out_ended && signal_source_terminating(p->hooks->signals) != 0)
            p->abandoned = true;
    }
}

static void on_watched(pump_t *p)
{
    char drain[4096];
    as_error_t *werr = NULL;
    ssize_t got = http_stream_recv(p->watch, drain, sizeof(drain), &werr);
    as_error_free(&werr);
    if (got != -EAGAIN) {
        p->watch = NULL;           /* once is enough */
        if (p->hooks->on_watch != NULL)
            notice(p, p->hooks->on_watch(p->hooks->ctx));
    }
}

/* The milliseconds left of a grace that started at `since` (0: none, or
 * over with *done set); at its end, *done is set and the hook called. */
static long grace_left(long since, long grace_ms, bool *done, void (*hook)(pump_t *p), pump_t *p)
{
    if (since == 0 || *done)
        return -1;
    long left = since + grace_ms - monotonic_ms();
    if (left > 0)
        return left;
    *done = true;
    hook(p);
    return -1;
}

/* The agent outlived the grace after its output was lost, and is killed.
 * The stream is ended first: podman's SIGKILL waits (5 s, then fails with
 * no exit code) for the agent's monitor, conmon, to record the exit, and
 * conmon may be blocked writing output that nobody reads while that call
 * blocks this pump. With the stream shut, the service drops the attach and
 * conmon goes on; the pump ends, as the agent does. */
static void output_lost_again(pump_t *p)
{
    shutdown(http_stream_fd(p->out), SHUT_RDWR);
    if (p->hooks != NULL && p->hooks->on_output_lost != NULL)
        p->hooks->on_output_lost(p->res->output_errno, true, p->hooks->ctx);
}

static void signal_overdue(pump_t *p)
{
    if (p->hooks->on_signal_overdue != NULL)
        p->hooks->on_signal_overdue(p->hooks->ctx);
}

/* Until the next grace ends (after lost output; after a terminating
 * signal, however early it came), then no limit; none once the agent's
 * output has ended (it has exited: nothing is left to end). */
static int poll_timeout(pump_t *p)
{
    if (p->out_ended)
        return -1;
    if (p->signalled_at == 0 && p->hooks != NULL && signal_source_terminating(p->hooks->signals) != 0)
        p->signalled_at = monotonic_ms();
    long lost = grace_left(p->lost_at, ATTACH_OUTPUT_LOST_GRACE_MS, &p->lost_again, output_lost_again, p);
    long signalled = grace_left(p->signalled_at, ATTACH_SIGNAL_GRACE_MS, &p->signal_overdue, signal_overdue, p);
    long next = lost < 0 || (signalled >= 0 && signalled < lost) ? signalled : lost;
    return (int)next;
}

enum { I_OUT, I_IN, I_STDIN, I_SIG, I_WATCH, I_WRITE, I_WRITE2, I_COUNT };

/* The descriptors to wait for; slots not in use get fd -1 (poll skips them).
 * The output stream is read while the queue has room for a read, or when
 * the session is being stopped (drain_output drops what waits). */
static void fill_pollfds(const pump_t *p, struct pollfd *fds)
{
    bool pending = p->up_off < p->up_len;
    bool separate = p->in != p->out;
    bool readable = !p->out_ended && (p->signalled_at != 0 || attach_output_room(p->queue, READ_ROOM));
    for (int i = 0; i < I_COUNT; i++)
        fds[i] = (struct pollfd){ .fd = -1 };
    if (!p->out_ended)
        fds[I_OUT] = (struct pollfd){ .fd = http_stream_fd(p->out),
                                      .events = (readable ? POLLIN : 0) | (pending && !separate ? POLLOUT : 0) };
    if (separate && p->in_stream_open && !p->out_ended)
        fds[I_IN] = (struct pollfd){ .fd = http_stream_fd(p->in), .events = POLLIN | (pending ? POLLOUT : 0) };
    if (p->in_open && !pending && (!p->out_ended || p->io->escape))
        fds[I_STDIN] = (struct pollfd){ .fd = p->io->in_fd, .events = POLLIN };
    if (p->hooks != NULL && signal_source_fd(p->hooks->signals) >= 0)
        fds[I_SIG] = (struct pollfd){ .fd = signal_source_fd(p->hooks->signals), .events = POLLIN };
    if (p->watch != NULL && !p->out_ended)
        fds[I_WATCH] = (struct pollfd){ .fd = http_stream_fd(p->watch), .events = POLLIN };
    attach_output_pollfds(p->queue, &fds[I_WRITE]);
}

/* The output stream ended (r 1) or failed (r < 0): what the init held back
 * turned out to be the agent's own output, and what is queued is written
 * before the pump returns; in a session being stopped, only what its
 * readers take now (one that stopped reading would hold the stop up). */
static void output_ended(pump_t *p, int r)
{
    p->out_ended = true;
    p->failure = r < 0 ? r : 0;
    if (p->sniffing && !p->res->exec.seen)
        stop_sniffing(p);
    if (p->signalled_at != 0) {
        flush_output(p);
        p->abandoned = true;
    }
}

/* One wait and what it found: 0 to go on, 1 when done (the output stream
 * ended and its queue written, or given up), or the stream's failure. */
static int pump_step(pump_t *p, as_error_t **err)
{
    if (p->out_ended && (attach_output_pending(p->queue) == 0 || p->abandoned))
        return p->failure < 0 ? p->failure : 1;
    struct pollfd fds[I_COUNT];
    fill_pollfds(p, fds);
    const short ready = POLLIN | POLLHUP | POLLERR;
    if (poll(fds, I_COUNT, poll_timeout(p)) < 0)
        return errno == EINTR ? 0 : as_error_errno(err, errno, "waiting for the agent's I/O");
    if (fds[I_SIG].revents & POLLIN)
        on_signals(p);
    if (fds[I_WATCH].revents & ready)
        on_watched(p);
    if ((fds[I_WRITE].revents | fds[I_WRITE2].revents) != 0)
        flush_output(p);
    if (fds[I_OUT].revents & ready) {
        int r = drain_output(p, err);
        if (r != 0)
            output_ended(p, r);
    }
    if (fds[I_IN].revents & ready)
        drain_input_stream(p);
    if (p->in_stream_open && p->up_off < p->up_len && !p->out_ended &&
        ((fds[I_IN].revents | fds[I_OUT].revents) & POLLOUT))
        send_pending(p);
    if (fds[I_STDIN].revents & ready)
        read_input(p);
    if (p->abandoned)
        drop_queued(p);
    return 0;
}

int attach_pump(http_stream_t *out, http_stream_t *in, const attach_io_t *io,
                const attach_hooks_t *hooks, attach_result_t *ret, as_error_t **err)
{
    pump_t *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    *ret = (attach_result_t){0};
    *p = (pump_t){
        .out = out, .in = in != NULL ? in : out, .io = io, .hooks = hooks, .res = ret,
        .watch = hooks != NULL ? hooks->watch : NULL,
        .in_open = io->in_fd >= 0, .in_stream_open = true, .sniffing = true,
        .escape = TTY_ESCAPE_INIT,
    };
    int r = attach_output_open(io->out_fd, io->err_fd, &p->queue, err);
    if (r < 0) {
        free(p);
        return r;
    }
    if (!p->in_open)
        end_input(p);
    while ((r = pump_step(p, err)) == 0) { }
    attach_output_close(p->queue);
    free(p);
    return r < 0 ? r : 0;
}
