/* The libpod calls whose answer is a stream handed on as it comes: a
 * container's export (a tar stream) and an image build (its progress,
 * line by line). */
#ifndef AS_PODMAN_API_STREAM_H
#define AS_PODMAN_API_STREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "podman_api_transport.h"
#include "podman_spec_json.h"
#include "base/error.h"
#include "base/http.h"

/* GET /containers/ID/export: the container's flattened file system as a
 * tar stream, handed to sink piece by piece (http_request_stream). */
int podman_container_export(podman_api_t *api, const char *id, http_sink_fn sink, void *ctx, as_error_t **err);

/* POST /build: the context as a tar body (the Containerfile at its top),
 * tagged `tag`, with labels; layers cached, nothing pulled. The answer's
 * JSON lines ({"stream": ...}, {"error": ...}, ...) go to `on_line` one
 * by one. 0 when the build succeeded; a failure carries the build's
 * error. */
typedef int (*podman_build_line_fn)(const char *text, bool is_error, void *ctx, as_error_t **err);
int podman_image_build(podman_api_t *api, const void *context, size_t len, const char *tag,
                       const podman_label_t *labels, size_t n_labels, podman_build_line_fn on_line, void *ctx,
                       as_error_t **err);

#endif
