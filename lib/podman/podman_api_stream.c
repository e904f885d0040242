#include "podman_api_stream.h"

#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/util.h"

int podman_container_export(podman_api_t *api, const char *id, http_sink_fn sink, void *ctx, as_error_t **err)
{
    _cleanup_free_ char *path = podman_printf(PODMAN_API "/containers/%s/export", id);
    _cleanup_free_ char *what = podman_printf("exporting container %.12s", id);
    if (path == NULL || what == NULL)
        return podman_oom(err);
    return podman_request_stream(api, "GET", path, NULL, 0, NULL, sink, ctx, what, err);
}

/* The build's answer, cut into lines as it comes: the start of a line
 * not yet ended waits in `pending`. */
typedef struct build_lines {
    podman_build_line_fn on_line;
    void *ctx;
    char *pending;
    size_t len;
    bool failed;
} build_lines_t;

/* One JSON object of the build's answer. */
static int build_line(build_lines_t *b, const char *text, as_error_t **err)
{
    _cleanup_(json_freep) json_t *doc = NULL;
    int r = json_parse(text, "the build's progress", &doc, err);
    if (r < 0)
        return r;
    const char *stream = json_get_str(doc, "stream"), *error = json_get_str(doc, "error");
    if (error != NULL)
        b->failed = true;
    if (error != NULL || stream != NULL)
        return b->on_line(error != NULL ? error : stream, error != NULL, b->ctx, err);
    return 0;
}

static int build_sink(const char *data, size_t len, void *ctx, as_error_t **err)
{
    build_lines_t *b = ctx;
    char *p = realloc(b->pending, b->len + len + 1);
    if (p == NULL)
        return podman_oom(err);
    b->pending = p;
    memcpy(b->pending + b->len, data, len);
    b->len += len;
    b->pending[b->len] = '\0';
    char *nl;
    while ((nl = memchr(b->pending, '\n', b->len)) != NULL) {
        *nl = '\0';
        int r = nl > b->pending ? build_line(b, b->pending, err) : 0;
        size_t used = (size_t)(nl - b->pending) + 1;
        memmove(b->pending, nl + 1, b->len - used + 1);
        b->len -= used;
        if (r < 0)
            return r;
    }
    return 0;
}

static char *build_path(podman_api_t *api, const char *tag, const podman_label_t *labels, size_t n_labels)
{
    json_gen_t *g = json_gen_new();
    json_obj_open(g);
    for (size_t i = 0; i < n_labels; i++)
        json_kv_str(g, labels[i].key, labels[i].value);
    json_obj_close(g);
    _cleanup_free_ char *json = NULL, *esc_labels = NULL, *esc_tag = NULL;
    as_error_t *e = NULL;
    int r = json_gen_finish(g, &json, &e);
    json_gen_free(g);
    if (r < 0) {
        as_error_free(&e);
        return NULL;
    }
    esc_labels = podman_escape(api, json);
    esc_tag = podman_escape(api, tag);
    if (esc_labels == NULL || esc_tag == NULL)
        return NULL;
    /* The Containerfile is at the context's top. Layers are kept and
     * reused, and the FROM image is local: it is never pulled. RUN gets no
     * network beyond what podman's defaults give any build. */
    return podman_printf(PODMAN_API "/build?dockerfile=Containerfile&t=%s&labels=%s&layers=true"
                         "&pullpolicy=never&rm=true&forcerm=true", esc_tag, esc_labels);
}

int podman_image_build(podman_api_t *api, const void *context, size_t len, const char *tag,
                       const podman_label_t *labels, size_t n_labels, podman_build_line_fn on_line, void *ctx,
                       as_error_t **err)
{
    _cleanup_free_ char *path = build_path(api, tag, labels, n_labels);
    _cleanup_free_ char *what = podman_printf("building image %s", tag);
    if (path == NULL || what == NULL)
        return podman_oom(err);
    build_lines_t b = { .on_line = on_line, .ctx = ctx };
    int r = podman_request_stream(api, "POST", path, context, len, "application/x-tar", build_sink, &b,
                                  what, err);
    /* The answer's last line may come without its newline. */
    if (r == 0 && b.len > 0 && (r = build_line(&b, b.pending, err)) < 0)
        r = as_error_prefix(err, "%s", what);
    free(b.pending);
    if (r < 0)
        return r;
    if (b.failed)
        return as_error_make(err, EIO, "%s failed (the step above)", what);
    return 0;
}
