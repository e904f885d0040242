#include "msg.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* msg_open_secret's buffer: no block it leaves behind holds its text. */
struct msg_secret {
    char *buf;
    size_t len, cap;
};

static ssize_t secret_write(void *cookie, const char *data, size_t n)
{
    msg_secret_t *s = cookie;
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap > 0 ? s->cap : 256;
        while (s->len + n + 1 > cap)
            cap *= 2;
        /* zeroed: no byte of it is ever undefined, the unused end included */
        char *more = calloc(1, cap);
        if (more == NULL)
            return -1;
        if (s->buf != NULL) {
            memcpy(more, s->buf, s->len);
            explicit_bzero(s->buf, s->cap);
            free(s->buf);
        }
        s->buf = more;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, data, n);
    s->len += n;
    s->buf[s->len] = '\0';
    return (ssize_t)n;
}

static void secret_free(msg_secret_t *s)
{
    if (s == NULL)
        return;
    if (s->buf != NULL)
        explicit_bzero(s->buf, s->cap);
    free(s->buf);
    free(s);
}

int msg_open_secret(msg_t *m, as_error_t **err)
{
    *m = (msg_t){ 0 };
    if ((m->secret = calloc(1, sizeof(*m->secret))) == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    m->f = fopencookie(m->secret, "w", (cookie_io_functions_t){ .write = secret_write });
    /* unbuffered: stdio's buffer would be one more copy */
    if (m->f == NULL || setvbuf(m->f, NULL, _IONBF, 0) != 0) {
        if (m->f != NULL)
            fclose(m->f);
        m->f = NULL;
        secret_free(steal_pointer(&m->secret));
        return as_error_make(err, ENOMEM, "out of memory");
    }
    return 0;
}

/* A secret stream's text, as open_memstream's would be: NULL when none. */
static void secret_take(msg_t *m)
{
    msg_secret_t *s = steal_pointer(&m->secret);
    if (s->buf == NULL && (s->buf = calloc(1, 1)) != NULL)
        s->cap = 1;
    m->buf = steal_pointer(&s->buf);
    m->len = s->len;
    secret_free(s);
}

int msg_open(msg_t *m, as_error_t **err)
{
    *m = (msg_t){ 0 };
    m->f = open_memstream(&m->buf, &m->len);
    if (m->f == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    return 0;
}

int msg_close(msg_t *m, char **ret_text, as_error_t **err)
{
    bool bad = ferror(m->f) != 0;
    /* fclose() is what sets the buffer for the last time */
    if (fclose(m->f) != 0)
        bad = true;
    m->f = NULL;
    bool secret = m->secret != NULL;
    if (secret)
        secret_take(m);
    if (bad || m->buf == NULL) {
        if (secret)
            free_wiped(m->buf);
        else
            free(m->buf);
        m->buf = NULL;
        return as_error_make(err, ENOMEM, "out of memory");
    }
    *ret_text = m->buf;
    m->buf = NULL;
    return 0;
}

int msg_fail(msg_t *m, int code, as_error_t **err)
{
    char *text = NULL;
    int r = msg_close(m, &text, err);
    if (r < 0)
        return r;
    r = as_error_make(err, code, "%s", text);
    free(text);
    return r;
}

void msg_discard(msg_t *m)
{
    if (m->f != NULL)
        fclose(m->f);
    m->f = NULL;
    secret_free(steal_pointer(&m->secret));
    free(m->buf);
    m->buf = NULL;
}
