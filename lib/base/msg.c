#include "msg.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

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
    if (bad || m->buf == NULL) {
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
    free(m->buf);
    m->buf = NULL;
}
