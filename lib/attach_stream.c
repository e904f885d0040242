#include "attach_stream.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "signals.h"

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

typedef struct {
    int out_fd, err_fd;
    bool out_broken, err_broken;   /* reader went away: drop, keep draining */
    as_error_t **err;
} sink_state_t;

static int write_all(int fd, const char *data, size_t len, bool *broken)
{
    while (len > 0 && !*broken) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) {
            struct pollfd p = { .fd = fd, .events = POLLOUT };
            poll(&p, 1, -1);
            continue;
        }
        if (n < 0) {
            *broken = true;      /* EPIPE and friends: the reader is gone */
            return 0;
        }
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

static int sink_to_fds(int stream, const char *data, size_t len, void *ctx)
{
    sink_state_t *st = ctx;
    if (stream == 1)
        return write_all(st->out_fd, data, len, &st->out_broken);
    return write_all(st->err_fd, data, len, &st->err_broken);
}

int attach_pump(http_stream_t *s, const attach_io_t *io, const attach_hooks_t *hooks,
                as_error_t **err)
{
    frame_parser_t parser = {0};
    sink_state_t sink = { .out_fd = io->out_fd, .err_fd = io->err_fd, .err = err };
    static char down[65536], up[65536];
    size_t up_len = 0, up_off = 0;
    bool in_open = io->in_fd >= 0;
    http_stream_t *watch = hooks != NULL ? hooks->watch : NULL;

    if (!in_open && io->close_write_on_eof && http_stream_close_write(s, err) < 0)
        return as_error_prefix(err, "closing the agent's stdin");

    for (;;) {
        struct pollfd fds[4];
        nfds_t n = 0;
        int i_stream = -1, i_in = -1, i_sig = -1, i_watch = -1;
        bool pending_up = up_off < up_len;

        fds[n] = (struct pollfd){ .fd = http_stream_fd(s), .events = POLLIN | (pending_up ? POLLOUT : 0) };
        i_stream = (int)n++;
        if (in_open && !pending_up) {
            fds[n] = (struct pollfd){ .fd = io->in_fd, .events = POLLIN };
            i_in = (int)n++;
        }
        if (signals_fd() >= 0) {
            fds[n] = (struct pollfd){ .fd = signals_fd(), .events = POLLIN };
            i_sig = (int)n++;
        }
        if (watch != NULL) {
            fds[n] = (struct pollfd){ .fd = http_stream_fd(watch), .events = POLLIN };
            i_watch = (int)n++;
        }
        if (poll(fds, n, -1) < 0) {
            if (errno == EINTR)
                continue;
            return as_error_errno(err, errno, "waiting for the agent's I/O");
        }

        if (i_sig >= 0 && (fds[i_sig].revents & POLLIN)) {
            int signo;
            while ((signo = signals_next()) != 0)
                if (hooks != NULL && hooks->on_signal != NULL)
                    hooks->on_signal(signo, hooks->ctx);
        }

        if (i_watch >= 0 && (fds[i_watch].revents & (POLLIN | POLLHUP | POLLERR))) {
            char drain[4096];
            as_error_t *werr = NULL;
            ssize_t got = http_stream_recv(watch, drain, sizeof(drain), &werr);
            as_error_free(&werr);
            if (got != -EAGAIN) {
                watch = NULL;           /* once is enough */
                if (hooks->on_watch != NULL)
                    hooks->on_watch(hooks->ctx);
            }
        }

        if (fds[i_stream].revents & (POLLIN | POLLHUP | POLLERR)) {
            for (;;) {
                ssize_t got = http_stream_recv(s, down, sizeof(down), err);
                if (got == -EAGAIN)
                    break;
                if (got < 0)
                    return got;
                if (got == 0)
                    return 0;            /* the agent is done */
                int r = io->multiplexed
                      ? frame_parser_feed(&parser, down, (size_t)got, sink_to_fds, &sink, err)
                      : write_all(io->out_fd, down, (size_t)got, &sink.out_broken);
                if (r < 0)
                    return r;
            }
        }

        if (pending_up && (fds[i_stream].revents & POLLOUT)) {
            ssize_t sent = http_stream_send_some(s, up + up_off, up_len - up_off, err);
            if (sent < 0 && sent != -EAGAIN)
                return as_error_prefix(err, "sending input to the agent");
            if (sent > 0)
                up_off += (size_t)sent;
        }

        if (i_in >= 0 && (fds[i_in].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t got = read(io->in_fd, up, sizeof(up));
            if (got < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (got <= 0) {
                in_open = false;
                if (io->close_write_on_eof && http_stream_close_write(s, err) < 0)
                    return as_error_prefix(err, "closing the agent's stdin");
            } else {
                up_len = (size_t)got;
                up_off = 0;
            }
        }
    }
}
