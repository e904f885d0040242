#include "podman_api_transport.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct podman_api {
    http_client_t *http;
};

int podman_api_new(const char *socket_path, podman_api_t **ret, as_error_t **err)
{
    podman_api_t *api = calloc(1, sizeof(*api));
    if (api == NULL)
        return podman_oom(err);
    int r = http_client_new(socket_path, &api->http, err);
    if (r < 0) {
        free(api);
        return r;
    }
    *ret = api;
    return 0;
}

int podman_api_clone(const podman_api_t *api, podman_api_t **ret, as_error_t **err)
{
    podman_api_t *copy = calloc(1, sizeof(*copy));
    if (copy == NULL)
        return podman_oom(err);
    int r = http_client_clone(api->http, &copy->http, err);
    if (r < 0) {
        free(copy);
        return r;
    }
    *ret = copy;
    return 0;
}

void podman_api_free(podman_api_t *api)
{
    if (api == NULL)
        return;
    http_client_free(api->http);
    free(api);
}

int podman_error_from_answer(long status, const char *body, const char *what, as_error_t **err)
{
    _cleanup_(json_freep) json_t *doc = NULL;
    const char *cause = NULL;
    as_error_t *parse_err = NULL;
    if (body != NULL && body[0] != '\0' && json_parse(body, what, &doc, &parse_err) == 0) {
        cause = json_get_str(doc, "message");
        if (cause == NULL || cause[0] == '\0')
            cause = json_get_str(doc, "cause");
    }
    as_error_free(&parse_err);
    if (cause == NULL) {
        /* The body is not libpod's error shape, so its start is quoted. */
        cause = body != NULL && body[0] != '\0' ? body : "no details given";
    }
    int n = (int)strcspn(cause, "\n");
    if (n > 500)
        n = 500;
    as_error_t *mine = NULL;
    as_error_http(&mine, status, "%s: HTTP %ld: %.*s", what, status, n, cause);
    /* libpod answers some lookups of a gone object with 500 "no such ...",
     * which means the same as a 404. */
    if (status == 500 && mine != NULL && strstr(cause, "no such ") != NULL)
        mine->code = ENOENT;
    return as_error_pass(err, &mine);
}

int podman_request(podman_api_t *api, const char *method, const char *path, const char *body,
                   long timeout_ms, long ok1, long ok2, const char *what,
                   long *ret_status, json_t **ret_doc, as_error_t **err)
{
    http_response_t res = {0};
    int r = http_request(api->http, method, path, body, timeout_ms, &res, err);
    if (r < 0)
        return as_error_prefix(err, "%s", what);
    if (res.status != ok1 && res.status != ok2) {
        r = podman_error_from_answer(res.status, res.body, what, err);
        http_response_clear(&res);
        return r;
    }
    if (ret_status != NULL)
        *ret_status = res.status;
    if (ret_doc != NULL && res.body[strspn(res.body, " \t\r\n")] == '\0') {
        http_response_clear(&res);
        return as_error_make(err, ENODATA, "%s: an empty answer where JSON was expected", what);
    }
    if (ret_doc != NULL) {
        r = json_parse(res.body, what, ret_doc, err);
        if (r < 0) {
            http_response_clear(&res);
            return r;
        }
    }
    http_response_clear(&res);
    return 0;
}

int podman_ping(podman_api_t *api, long timeout_ms, as_error_t **err)
{
    http_response_t res = {0};
    int r = http_request(api->http, "GET", "/_ping", NULL, timeout_ms, &res, err);
    if (r < 0)
        return r;
    long status = res.status;
    http_response_clear(&res);
    if (status != 200)
        return as_error_http(err, status, "pinging the podman service: HTTP %ld", status);
    return 0;
}

int podman_request_stream(podman_api_t *api, const char *method, const char *path, const void *body,
                          size_t len, const char *content_type, http_sink_fn sink, void *ctx,
                          const char *what, as_error_t **err)
{
    long status = 0;
    http_response_t refusal = {0};
    int r = http_request_stream(api->http, method, path, body, len, content_type, 0, sink, ctx,
                                &status, &refusal, err);
    if (r >= 0 && status != 200)
        r = podman_error_from_answer(refusal.status, refusal.body, what, err);
    else if (r < 0)
        r = as_error_prefix(err, "%s", what);
    http_response_clear(&refusal);
    return r < 0 ? r : 0;
}

int podman_stream_open(podman_api_t *api, const char *method, const char *path, const char *what,
                       http_stream_t **ret, as_error_t **err)
{
    http_response_t refusal = {0};
    as_error_t *mine = NULL;
    int r = http_stream_open(api->http, method, path, NULL, PODMAN_CALL_TIMEOUT_MS,
                             what != NULL ? &refusal : NULL, ret, &mine);
    if (r >= 0)
        return 0;
    if (refusal.status != 0) {
        /* libpod's own words say more than HTTP's. */
        as_error_free(&mine);
        podman_error_from_answer(refusal.status, refusal.body, what, &mine);
        http_response_clear(&refusal);
    } else if (what != NULL) {
        as_error_prefix(&mine, "%s", what);
    }
    return as_error_pass(err, &mine);
}

char *podman_escape(podman_api_t *api, const char *text)
{
    return http_escape(api->http, text);
}

char *podman_printf(const char *fmt, ...)
{
    char *p = NULL;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&p, fmt, ap) < 0)
        p = NULL;
    va_end(ap);
    return p;
}
