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
    report(SESSION_DOCTOR_HINT);
}

void report_config_errors(as_error_t **err)
{
    say_error_lines(&cli_say, err);
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

int backend_start_command(backend_t *ret)
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

void cli_say_line(say_level_t level, const char *text, void *ctx)
{
    (void)ctx;
    static const char *const prefix[] = { [SAY_ERROR] = "error: ", [SAY_WARNING] = "warning: ",
                                          [SAY_NOTE] = "note: ", [SAY_PLAIN] = "" };
    report("%s%s", prefix[level], text);
}

void cli_say_progress(const char *what, void *ctx)
{
    progress_show(what, ctx);
}

const session_say_t cli_say = { .line = cli_say_line, .progress = cli_say_progress };

int exit_code_of(session_fault_t fault)
{
    static const int codes[] = {
        [SESSION_OK] = 0, [SESSION_FAULT_USAGE] = EXIT_USAGE, [SESSION_FAULT_CONFIG] = EXIT_CONFIG,
        [SESSION_FAULT_NO_IMAGE] = EXIT_NO_IMAGE, [SESSION_FAULT_NO_SERVICE] = EXIT_NO_SERVICE,
        [SESSION_FAULT_INTERNAL] = EXIT_INTERNAL, [SESSION_FAULT_SETUP] = EXIT_SETUP,
        [SESSION_FAULT_SERVICE_LOST] = EXIT_SERVICE_LOST, [SESSION_FAULT_REFUSED] = EXIT_REFUSED,
        [SESSION_FAULT_NO_RUNTIME_DIR] = EXIT_NO_RUNTIME_DIR,
    };
    return fault >= 0 && (size_t)fault < ARRAY_SIZE(codes) ? codes[fault] : EXIT_INTERNAL;
}
