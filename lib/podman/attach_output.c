#include "attach_output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"

/* A record's head: its stream (1 byte), then its length (4 bytes). */
#define HEAD 5
#define RECORD_MAX (UINT32_MAX / 2)
#define NONE SIZE_MAX
#define NOTICE_MAX 1024

typedef struct sink {
    int fd;               /* what is written: the caller's descriptor, or a description of our own */
    int caller_fd;
    bool own;             /* fd is ours: closed at the end */
    bool socket;          /* written with send(MSG_DONTWAIT) */
    int restore_flags;    /* >= 0: O_NONBLOCK was set on the caller's description; these flags go back */
    bool broken;          /* a write failed: its output is dropped */
} sink_t;

struct attach_output {
    sink_t sink[2];       /* stdout, stderr */
    char *buf;            /* the records waiting: buf[start, end) */
    size_t cap, start, end;
    size_t last;          /* where the last record starts (to extend it), or NONE */
    size_t written;       /* bytes of the first record written already */
    size_t pending;       /* bytes queued, heads aside */
    size_t dropped;
    char notice[NOTICE_MAX];
    size_t notice_len;
};

/* A descriptor made writable without blocking, the caller's flags kept
 * wherever that can be (attach_output.h says how). */
static void sink_open(sink_t *s, int fd)
{
    *s = (sink_t){ .fd = fd, .caller_fd = fd, .restore_flags = -1, .broken = fd < 0 };
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))
        return;
    if (S_ISSOCK(st.st_mode)) {
        s->socket = true;
        return;
    }
    char path[32];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    int own = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (own >= 0) {
        s->fd = own;
        s->own = true;
        return;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0 && (flags & O_NONBLOCK) == 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0)
        s->restore_flags = flags;
}

static void sink_close(sink_t *s)
{
    if (s->own)
        close(s->fd);
    if (s->restore_flags >= 0)
        fcntl(s->caller_fd, F_SETFL, s->restore_flags);
}

/* > 0 bytes written, -EAGAIN when it takes none now, or -errno. */
static ssize_t sink_write(const sink_t *s, const char *data, size_t len)
{
    ssize_t n;
    do
        n = s->socket ? send(s->fd, data, len, MSG_DONTWAIT | MSG_NOSIGNAL) : write(s->fd, data, len);
    while (n < 0 && errno == EINTR);
    return n < 0 ? -(errno == EWOULDBLOCK ? EAGAIN : errno) : n;
}

int attach_output_open(int out_fd, int err_fd, attach_output_t **ret, as_error_t **err)
{
    attach_output_t *o = calloc(1, sizeof(*o));
    if (o == NULL || (o->buf = malloc(o->cap = 64 * 1024)) == NULL) {
        free(o);
        return as_error_make(err, ENOMEM, "out of memory");
    }
    o->last = NONE;
    sink_open(&o->sink[0], out_fd);
    sink_open(&o->sink[1], err_fd);
    *ret = o;
    return 0;
}

void attach_output_close(attach_output_t *o)
{
    if (o == NULL)
        return;
    sink_close(&o->sink[0]);
    sink_close(&o->sink[1]);
    free(o->buf);
    free(o);
}

static uint32_t record_len(const attach_output_t *o, size_t at)
{
    uint32_t n;
    memcpy(&n, o->buf + at + 1, sizeof(n));
    return n;
}

static void record_set_len(attach_output_t *o, size_t at, uint32_t n)
{
    memcpy(o->buf + at + 1, &n, sizeof(n));
}

/* Room for `need` more bytes at the end: the written records' space
 * taken back first, then more memory. */
static int make_room(attach_output_t *o, size_t need)
{
    if (o->end + need <= o->cap)
        return 0;
    if (o->start > 0) {
        memmove(o->buf, o->buf + o->start, o->end - o->start);
        o->end -= o->start;
        if (o->last != NONE)
            o->last -= o->start;
        o->start = 0;
    }
    if (o->end + need <= o->cap)
        return 0;
    size_t cap = o->cap * 2 > o->end + need ? o->cap * 2 : o->end + need;
    char *buf = realloc(o->buf, cap);
    if (buf == NULL)
        return -ENOMEM;
    o->buf = buf;
    o->cap = cap;
    return 0;
}

int attach_output_put(attach_output_t *o, bool to_err, const char *data, size_t len)
{
    if (len == 0 || o->sink[to_err].broken)
        return 0;
    bool extend = o->last != NONE && o->buf[o->last] == (char)to_err &&
                  (size_t)record_len(o, o->last) + len <= RECORD_MAX;
    if (len > RECORD_MAX || make_room(o, len + (extend ? 0 : HEAD)) < 0)
        return -ENOMEM;
    if (!extend) {
        o->last = o->end;
        o->buf[o->end] = (char)to_err;
        record_set_len(o, o->end, 0);
        o->end += HEAD;
    }
    memcpy(o->buf + o->end, data, len);
    o->end += len;
    record_set_len(o, o->last, record_len(o, o->last) + (uint32_t)len);
    o->pending += len;
    return 0;
}

bool attach_output_room(const attach_output_t *o, size_t need)
{
    return o->pending + need <= ATTACH_OUTPUT_MAX;
}

size_t attach_output_pending(const attach_output_t *o)
{
    return o->pending;
}

void attach_output_notice(attach_output_t *o, const char *text)
{
    size_t len = strlen(text);
    if (o->sink[1].broken || len > sizeof(o->notice) - o->notice_len)
        return;
    memcpy(o->notice + o->notice_len, text, len);
    o->notice_len += len;
}

/* The first record's bytes are gone: written, or dropped. */
static void pop_record(attach_output_t *o)
{
    size_t len = record_len(o, o->start);
    o->pending -= len - o->written;
    if (o->last == o->start)
        o->last = NONE;
    o->start += HEAD + len;
    o->written = 0;
    if (o->start == o->end)
        o->start = o->end = 0;
}

/* The first record of a descriptor that still takes output, or NONE;
 * those of a failed one are dropped on the way. */
static size_t first_live(attach_output_t *o)
{
    while (o->start < o->end && o->sink[(int)o->buf[o->start]].broken)
        pop_record(o);
    return o->start < o->end ? o->start : NONE;
}

size_t attach_output_pollfds(const attach_output_t *o, struct pollfd *fds)
{
    size_t n = 0;
    if (o->notice_len > 0 && !o->sink[1].broken)
        fds[n++] = (struct pollfd){ .fd = o->sink[1].fd, .events = POLLOUT };
    size_t at = o->start;
    while (at < o->end && o->sink[(int)o->buf[at]].broken)
        at += HEAD + record_len(o, at);
    int fd = at < o->end ? o->sink[(int)o->buf[at]].fd : -1;
    if (fd >= 0 && (n == 0 || fds[0].fd != fd))
        fds[n++] = (struct pollfd){ .fd = fd, .events = POLLOUT };
    return n;
}

static void flush_notice(attach_output_t *o)
{
    if (o->notice_len == 0)
        return;
    ssize_t n = o->sink[1].broken ? -EPIPE : sink_write(&o->sink[1], o->notice, o->notice_len);
    if (n == -EAGAIN)
        return;
    size_t done = n < 0 ? o->notice_len : (size_t)n;     /* a failed one is dropped */
    memmove(o->notice, o->notice + done, o->notice_len - done);
    o->notice_len -= done;
}

int attach_output_flush(attach_output_t *o, bool *ret_to_err)
{
    flush_notice(o);
    size_t at;
    while ((at = first_live(o)) != NONE) {
        bool to_err = o->buf[at] != 0;
        size_t len = record_len(o, at);
        ssize_t n = sink_write(&o->sink[to_err], o->buf + at + HEAD + o->written, len - o->written);
        if (n == -EAGAIN)
            return 0;
        if (n < 0) {
            o->sink[to_err].broken = true;
            *ret_to_err = to_err;
            return (int)n;
        }
        o->written += (size_t)n;
        o->pending -= (size_t)n;
        if (o->written == len)
            pop_record(o);
    }
    return 0;
}

size_t attach_output_drop(attach_output_t *o)
{
    o->dropped += o->pending;
    o->pending = 0;
    o->start = o->end = o->written = 0;
    o->last = NONE;
    return o->dropped;
}
