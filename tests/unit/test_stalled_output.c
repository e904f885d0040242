/* The agent's output to a reader that stops (threat 64), against the stub
 * libpod server (stub_libpod.h): an agent floods its output into a pipe or
 * a terminal that nobody reads. The pump stops reading the agent's output
 * once its queue is full (the agent is held back, as a pipeline's writer
 * is) and goes on serving the stop: a signal, `~.`; the session then ends,
 * and what its reader never took is dropped and counted. A reader that is
 * only slow gets all of it, stdout and stderr in the order they came. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <pty.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "stub_libpod.h"
#include "podman/attach_output.h"
#include "session/session.h"
#include "session/session_plan.h"

static stub_libpod_t *stub;

/* ---- the agent: a flood of output ------------------------------------- */

#define CHUNK 16384
#define PATTERN 251          /* byte i of the output is i % PATTERN */

typedef struct flood {
    bool tty;                /* raw bytes, else frames */
    size_t limit;            /* how many bytes, then the end; 0: until the agent is signalled */
    atomic_size_t sent;
} flood_t;

/* Frames alternate between stdout and stderr, so that their order shows. */
static void flood_attach(stub_libpod_t *s, int fd, const char *container, bool input_only, void *ctx)
{
    (void)container;
    flood_t *f = ctx;
    stub_send_upgrade(fd);
    if (input_only) {
        char junk[256];
        while (read(fd, junk, sizeof(junk)) > 0) { }
        return;
    }
    unsigned char buf[8 + CHUNK];
    for (unsigned k = 0;; k++) {
        size_t at = atomic_load(&f->sent);
        if (f->limit > 0 ? at >= f->limit : stub_libpod_count(s, "POST", "-agent/kill") > 0)
            break;
        unsigned char *payload = f->tty ? buf : buf + 8;
        for (size_t i = 0; i < CHUNK; i++)
            payload[i] = (unsigned char)((at + i) % PATTERN);
        unsigned char head[8] = { (unsigned char)(1 + k % 2), 0, 0, 0, 0, 0, CHUNK >> 8, CHUNK & 0xff };
        memcpy(buf, head, sizeof(head));
        stub_send(fd, f->tty ? payload : buf, f->tty ? CHUNK : sizeof(buf));
        atomic_store(&f->sent, at + CHUNK);
    }
}

/* ---- signals the test sends ------------------------------------------- */

typedef struct driven {
    int fds[2];              /* a byte written: that signal caught */
    int first_terminating;
} driven_t;

static int driven_next(void *ctx)
{
    driven_t *d = ctx;
    unsigned char b;
    if (read(d->fds[0], &b, 1) != 1)
        return 0;
    if (d->first_terminating == 0 && b != SIGWINCH)
        d->first_terminating = b;
    return b;
}

static int driven_terminating(void *ctx)
{
    return ((driven_t *)ctx)->first_terminating;
}

/* ---- a session on its own thread -------------------------------------- */

static char *cmd[] = { "yes", NULL };

typedef struct run {
    bool tty;
    attach_io_t io;
    const signal_source_t *signals;
    session_result_t res;
    char error[256];
    atomic_bool done;
    pthread_t thread;
} run_t;

static void *run_session(void *arg)
{
    run_t *r = arg;
    session_inputs_t in = {
        .id = "0123456789ab", .cli_pid = getpid(), .workdir = "/home/u/proj",
        .image = "localhost/agent-sandbox:dev", .command = cmd, .tty = r->tty,
    };
    session_plan_t *plan = NULL;
    podman_api_t *api = NULL;
    session_t *s = NULL;
    as_error_t *err = NULL;
    if (session_plan_build(&in, &plan, &err) < 0 || podman_api_new(stub_libpod_socket(stub), &api, &err) < 0 ||
        session_new(api, plan, r->signals, &s, &err) < 0 || session_setup(s, &err) < 0 ||
        session_run(s, &r->io, &r->res, &err) < 0)
        snprintf(r->error, sizeof(r->error), "%s", err != NULL ? err->msg : "?");
    as_error_free(&err);
    session_free(s);
    podman_api_free(api);
    session_plan_free(plan);
    atomic_store(&r->done, true);
    return NULL;
}

static long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Waits until the agent can write no more: what it sent stays the same
 * for half a second (back-pressure); how much that is. */
static size_t wait_held_back(flood_t *f)
{
    size_t last = 0;
    long since = now_ms(), start = since;
    while (last == 0 || now_ms() - since < 500) {
        if (now_ms() - start > 20000)
            fail_msg("the agent's output was never held back: %zu bytes sent", atomic_load(&f->sent));
        size_t now = atomic_load(&f->sent);
        if (now != last) {
            last = now;
            since = now_ms();
        }
        usleep(10000);
    }
    return last;
}

static void join(run_t *r)
{
    long start = now_ms();
    while (!atomic_load(&r->done) && now_ms() - start < 30000)
        usleep(10000);
    if (!atomic_load(&r->done))
        fail_msg("the session did not end 30 s after its stop: the pump is wedged");
    pthread_join(r->thread, NULL);
    if (r->error[0] != '\0')
        fail_msg("%s", r->error);
}

static int stub_up(void **state)
{
    (void)state;
    if (stub_libpod_start(&stub) < 0)
        return -1;
    stub_libpod_exit_code(stub, 7);
    return 0;
}

static int stub_down(void **state)
{
    (void)state;
    stub_libpod_stop(stub);
    return 0;
}

/* A pipe nobody reads: the agent is held back within the queue's bound,
 * and a SIGTERM still reaches it; the session ends. */
static void a_stalled_pipe_holds_the_agent_back_not_the_stop(void **state)
{
    (void)state;
    int out[2];
    driven_t d = { 0 };
    assert_int_equal(pipe2(out, O_CLOEXEC), 0);
    assert_int_equal(pipe2(d.fds, O_CLOEXEC | O_NONBLOCK), 0);
    signal_source_t sig = { .fd = d.fds[0], .next = driven_next, .terminating = driven_terminating, .ctx = &d };
    flood_t f = { 0 };
    stub_libpod_on_attach(stub, "-agent", flood_attach, &f);
    run_t r = { .signals = &sig, .io = { .in_fd = -1, .out_fd = out[1], .err_fd = out[1], .multiplexed = true } };
    assert_int_equal(pthread_create(&r.thread, NULL, run_session, &r), 0);
    size_t held = wait_held_back(&f);
    /* the queue, the pipe and the sockets between: nothing near the 64 MiB
     * an unbounded queue would have taken by now */
    assert_true(held > 0 && held < ATTACH_OUTPUT_MAX + (8u << 20));
    unsigned char term = SIGTERM;
    assert_int_equal(write(d.fds[1], &term, 1), 1);
    join(&r);
    assert_int_equal(stub_libpod_count(stub, "POST", "-agent/kill?signal=15"), 1);
    assert_int_equal(r.res.end, SESSION_AGENT_EXITED);
    assert_int_equal(r.res.exit_code, 7);
    assert_int_equal(r.res.signal_sent, SIGTERM);
    assert_int_equal(r.res.io.output_errno, 0);
    assert_true(r.res.io.output_dropped > 0);
    /* the caller's pipe keeps its flags: nothing of the pump's is left on it */
    assert_int_equal(fcntl(out[1], F_GETFL) & O_NONBLOCK, 0);
    close(out[0]); close(out[1]); close(d.fds[0]); close(d.fds[1]);
}

/* A terminal nobody reads: `~.` typed on it still stops the session (as
 * SIGHUP, the terminal's stop). */
static void a_terminal_nobody_reads_still_hears_tilde_dot(void **state)
{
    (void)state;
    int master, slave;
    assert_int_equal(openpty(&master, &slave, NULL, NULL, NULL), 0);
    struct termios raw;
    assert_int_equal(tcgetattr(slave, &raw), 0);
    cfmakeraw(&raw);                     /* as the CLI makes the session's terminal */
    assert_int_equal(tcsetattr(slave, TCSANOW, &raw), 0);
    flood_t f = { .tty = true };
    stub_libpod_on_attach(stub, "-agent", flood_attach, &f);
    run_t r = { .tty = true, .io = { .in_fd = slave, .out_fd = slave, .err_fd = slave, .escape = true } };
    assert_int_equal(pthread_create(&r.thread, NULL, run_session, &r), 0);
    wait_held_back(&f);
    assert_int_equal(write(master, "~.", 2), 2);
    join(&r);
    assert_int_equal(stub_libpod_count(stub, "POST", "-agent/kill?signal=1"), 1);
    assert_true(r.res.stopped_by_escape);
    assert_true(r.res.io.output_dropped > 0);
    close(master);
    close(slave);
}

typedef struct reader {
    int fd;
    size_t got, bad_at;      /* bad_at: the first byte out of order, or SIZE_MAX */
} reader_t;

/* Reads slowly (a pause after every read) until the end, and checks the
 * order of every byte. */
static void *read_slowly(void *arg)
{
    reader_t *rd = arg;
    unsigned char buf[4096];
    ssize_t n;
    rd->bad_at = SIZE_MAX;
    while ((n = read(rd->fd, buf, sizeof(buf))) > 0) {
        for (ssize_t i = 0; i < n; i++)
            if (buf[i] != (unsigned char)((rd->got + (size_t)i) % PATTERN) && rd->bad_at == SIZE_MAX)
                rd->bad_at = rd->got + (size_t)i;
        rd->got += (size_t)n;
        usleep(500);
    }
    return NULL;
}

/* A slow reader holds the agent back too, and gets every byte, stdout's
 * and stderr's in the order they came (both go to one pipe here). */
static void a_slow_reader_gets_all_of_it_in_order(void **state)
{
    (void)state;
    int out[2];
    assert_int_equal(pipe2(out, O_CLOEXEC), 0);
    flood_t f = { .limit = 3u << 20 };
    stub_libpod_on_attach(stub, "-agent", flood_attach, &f);
    reader_t rd = { .fd = out[0] };
    pthread_t reader;
    assert_int_equal(pthread_create(&reader, NULL, read_slowly, &rd), 0);
    run_t r = { .io = { .in_fd = -1, .out_fd = out[1], .err_fd = out[1], .multiplexed = true } };
    assert_int_equal(pthread_create(&r.thread, NULL, run_session, &r), 0);
    join(&r);
    close(out[1]);
    pthread_join(reader, NULL);
    assert_int_equal(rd.got, f.limit);
    assert_int_equal(rd.bad_at, SIZE_MAX);
    assert_int_equal(r.res.io.output_dropped, 0);
    assert_int_equal(r.res.exit_code, 7);
    close(out[0]);
}

int main(void)
{
    /* as the CLI does (signals_install): a write to a reset stream is EPIPE */
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_stalled_pipe_holds_the_agent_back_not_the_stop, stub_up, stub_down),
        cmocka_unit_test_setup_teardown(a_terminal_nobody_reads_still_hears_tilde_dot, stub_up, stub_down),
        cmocka_unit_test_setup_teardown(a_slow_reader_gets_all_of_it_in_order, stub_up, stub_down),
    };
    return cmocka_run_group_tests_name("stalled_output", tests, NULL, NULL);
}
