#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"
#include "base/escape.h"
#include "base/terminal.h"
#include "base/util.h"
#include "base/user_dirs.h"
#include "session/labels.h"

void report(const char *fmt, ...)
{
    /* the terminal may be raw: put it back so the message reads right */
    terminal_restore();
    progress_clear();
    va_list ap;
    va_start(ap, fmt);
    char *text = NULL;
    int n = vasprintf(&text, fmt, ap);
    va_end(ap);
    fputs("agent-sandbox: ", stderr);
    /* Messages name paths and names the agent chose: whatever a call site
     * forgot to escape, no control reaches the terminal (lines stay lines). */
    if (n >= 0)
        text_put_escaped(stderr, text, (size_t)n);
    else
        fputs("(out of memory formatting a message)", stderr);
    fputc('\n', stderr);
    free(text);
}

void report_error(as_error_t **err)
{
    report("error: %s", *err != NULL && (*err)->msg != NULL ? (*err)->msg : "unknown error");
    as_error_free(err);
}

void report_doctor_hint(void)
{
    report("`agent-sandbox doctor` checks what sessions need of this host, with the fix for each problem");
}

static struct timespec trace_start;

static void print_trace(const char *method, const char *path, long status, double ms)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double at = (double)(now.tv_sec - trace_start.tv_sec) * 1e3 +
                (double)(now.tv_nsec - trace_start.tv_nsec) / 1e6;
    fprintf(stderr, "agent-sandbox: trace: %8.1f ms  %6.1f ms  %ld %s %s\n", at, ms, status, method, path);
}

void trace_enable(void)
{
    clock_gettime(CLOCK_MONOTONIC, &trace_start);
    http_set_trace(print_trace);
}

int runtime_dir_settle(void)
{
    as_error_t *err = NULL;
    _cleanup_free_ char *dir = NULL;
    bool fallback = false;
    int r = user_runtime_dir(&dir, &fallback, &err);
    if (r < 0) {
        report_error(&err);
        return r == -ENOMEM ? EXIT_INTERNAL : EXIT_NO_RUNTIME_DIR;
    }
    if (fallback) {
        /* the service (and so podman) must use the same directory */
        if (setenv("XDG_RUNTIME_DIR", dir, 1) < 0)
            return EXIT_INTERNAL;
        report("note: XDG_RUNTIME_DIR is not set; using %s, as podman does", dir);
    }
    return 0;
}

static int service_in(cli_backend_t *b, as_error_t **err)
{
    _cleanup_free_ char *log = NULL;
    if (asprintf(&log, "%s/service.log", b->dir->path) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    return podman_service_start(b->dir->socket_path, log, SERVICE_START_TIMEOUT_MS, b->signals,
                                &b->service, &b->api, err);
}

int backend_open(const char *id, const signal_source_t *signals, cli_backend_t *ret, as_error_t **err)
{
    cli_backend_t b = { .signals = signals };
    int r = session_dir_create(id, &b.dir, err);
    if (r < 0)
        return as_error_prefix(err, "creating the session directory");
    *ret = b;
    return 0;
}

int backend_service(cli_backend_t *b, as_error_t **err)
{
    return b->service != NULL ? 0 : service_in(b, err);
}

int backend_start(const char *id, const signal_source_t *signals, cli_backend_t *ret, as_error_t **err)
{
    cli_backend_t b = {0};
    int r = backend_open(id, signals, &b, err);
    if (r < 0)
        return r;
    if ((r = backend_service(&b, err)) < 0) {
        backend_stop(&b);
        return r;
    }
    *ret = b;
    return 0;
}

int backend_start_command(cli_backend_t *ret)
{
    int rc = runtime_dir_settle();
    if (rc != 0)
        return rc;
    char id[SESSION_ID_LEN + 1];
    as_error_t *err = NULL;
    if (session_id_generate(id, &err) < 0 || backend_start(id, NULL, ret, &err) < 0) {
        report_error(&err);
        return EXIT_NO_SERVICE;
    }
    return 0;
}

int backend_run_once(cli_backend_t *b, const podman_container_spec_t *spec, int *ret_exit, as_error_t **err)
{
    _cleanup_free_ char *id = NULL;
    int r = podman_container_create(b->api, spec, &id, err);
    if (r < 0)
        return r;
    r = podman_container_start(b->api, id, err);
    if (r == 0)
        r = podman_container_wait(b->api, id, ret_exit, err);
    as_error_t *rm_err = NULL;
    int rr = podman_container_remove(b->api, id, &rm_err);
    if (r == 0 && rr < 0) {
        *err = rm_err;
        return rr;
    }
    as_error_free(&rm_err);
    return r;
}

bool backend_usable(cli_backend_t *b)
{
    if (podman_service_reap_if_ended(b->service))
        return false;
    /* a service dying right now may not have been reaped yet */
    as_error_t *err = NULL;
    bool ok = podman_ping(b->api, 2000, &err) == 0;
    as_error_free(&err);
    return ok;
}

int backend_restart(cli_backend_t *b, as_error_t **err)
{
    podman_api_free(b->api);
    b->api = NULL;
    podman_service_stop(b->service, SERVICE_STOP_TIMEOUT_MS, NULL);
    podman_service_free(b->service);
    b->service = NULL;
    unlink(b->dir->socket_path);
    return service_in(b, err);
}

void backend_stop(cli_backend_t *b)
{
    as_error_t *err = NULL;
    podman_api_free(b->api);
    b->api = NULL;
    if (b->service != NULL && podman_service_stop(b->service, SERVICE_STOP_TIMEOUT_MS, &err) < 0)
        report_error(&err);
    podman_service_free(b->service);
    b->service = NULL;
    if (b->dir != NULL && session_dir_remove(b->dir, &err) < 0)
        report_error(&err);
    session_dir_free(b->dir);
    b->dir = NULL;
}

void backend_detach(cli_backend_t *b)
{
    podman_api_free(b->api);
    b->api = NULL;
    podman_service_free(b->service);
    b->service = NULL;
    session_dir_free(b->dir);      /* the lock stays the child's */
    b->dir = NULL;
}

int image_status(podman_api_t *api, const char *image, bool *ret_present, char **ret_version,
                 as_error_t **err)
{
    bool present = false;
    char *version = NULL;
    int r = podman_image_exists(api, image, &present, err);
    if (r == 0 && present)
        r = podman_image_label(api, image, LABEL_VERSION, &version, err);
    if (r < 0)
        return r;
    *ret_present = present;
    *ret_version = version;
    return 0;
}
