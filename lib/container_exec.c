#include "container_exec.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "attach_stream.h"
#include "util.h"

#define OUTPUT_MAX 65536

typedef struct {
    char buf[OUTPUT_MAX + 1];
    size_t len;
} capture_t;

static int keep(int stream, const char *data, size_t len, void *ctx)
{
    (void)stream;
    capture_t *c = ctx;
    size_t room = OUTPUT_MAX - c->len;
    if (len > room)
        len = room;
    memcpy(c->buf + c->len, data, len);
    c->len += len;
    return 0;
}

int container_exec_capture(podman_api_t *api, const char *container, char *const *argv,
                           int *ret_exit_code, char **ret_output, as_error_t **err)
{
    podman_exec_spec_t spec = { .command = argv };
    _cleanup_free_ char *exec_id = NULL;
    int r = podman_exec_create(api, container, &spec, &exec_id, err);
    if (r < 0)
        return r;
    http_stream_t *s = NULL;
    r = podman_exec_start(api, exec_id, false, &s, err);
    if (r < 0)
        return r;

    capture_t *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        http_stream_free(s);
        return as_error_make(err, ENOMEM, "out of memory");
    }
    frame_parser_t parser = {0};
    char chunk[8192];
    for (;;) {
        ssize_t got = http_stream_recv(s, chunk, sizeof(chunk), err);
        if (got == -EAGAIN) {
            struct pollfd p = { .fd = http_stream_fd(s), .events = POLLIN };
            poll(&p, 1, -1);
            continue;
        }
        if (got < 0) {
            r = (int)got;
            break;
        }
        if (got == 0)
            break;
        if ((r = frame_parser_feed(&parser, chunk, (size_t)got, keep, c, err)) < 0)
            break;
    }
    http_stream_free(s);
    if (r < 0) {
        free(c);
        return r;
    }
    r = podman_exec_exit_code(api, exec_id, ret_exit_code, err);
    if (r == 0 && ret_output != NULL) {
        c->buf[c->len] = '\0';
        if ((*ret_output = strdup(c->buf)) == NULL)
            r = as_error_make(err, ENOMEM, "out of memory");
    }
    free(c);
    return r;
}
