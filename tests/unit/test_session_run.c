/* The executor's run of the agent against the stub libpod server
 * (stub_libpod.h: real HTTP through the real client, scripted answers): the
 * terminal size it sends comes from the attach I/O's input descriptor, and
 * without a TTY stdin goes up a connection of its own whose reset costs
 * neither the output nor the exit status. */
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "stub_libpod.h"
#include "session/session.h"
#include "session/session_plan.h"

static stub_libpod_t *stub;
static bool tty_answer;          /* how the agent's output attach is answered */

/* The agent's output stream: one line, then the end (after the resize the
 * start causes, with a TTY). Without a TTY, a stdout frame, once stdin has
 * its own connection. The input connection: podman's complaint, as when
 * the agent closed its stdin, then a reset (unread input makes close()
 * send RST). */
static void agent_attach(stub_libpod_t *s, int fd, const char *container, bool input_only, void *ctx)
{
    (void)container;
    (void)ctx;
    stub_send_upgrade(fd);
    if (input_only) {
        static const char complaint[] = "\2\0\0\0\0\0\0\x1c" "Error: connection reset ...\n";
        stub_send(fd, complaint, sizeof(complaint) - 1);
        struct linger hard = { .l_onoff = 1, .l_linger = 0 };
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof(hard));
        return;
    }
    if (tty_answer) {
        stub_libpod_wait_count(s, "POST", "/resize?", 1, 10);
        stub_send(fd, "hello\r\n", 7);
        return;
    }
    stub_libpod_wait_count(s, "POST", "stdout=false", 1, 10);
    stub_send_frame(fd, 1, "hello\n");
}

static int stub_start(void **state)
{
    (void)state;
    if (stub_libpod_start(&stub) < 0)
        return -1;
    stub_libpod_on_attach(stub, "-agent", agent_attach, NULL);
    stub_libpod_exit_code(stub, 7);
    return 0;
}

/* Every client connection is closed by now: each server thread ends. */
static int stub_stop(void **state)
{
    (void)state;
    stub_libpod_stop(stub);
    return 0;
}

/* ---- the session ------------------------------------------------------- */

static char *cmd[] = { "sh", NULL };

/* Sets the session up against the stub and runs it with io. */
static void run(bool tty, const attach_io_t *io, session_result_t *res)
{
    tty_answer = tty;
    session_inputs_t in = {
        .id = "0123456789ab", .cli_pid = getpid(), .workdir = "/home/u/proj",
        .image = "localhost/agent-sandbox:dev", .command = cmd, .tty = tty,
    };
    session_plan_t *plan = NULL;
    podman_api_t *api = NULL;
    session_t *s = NULL;
    as_error_t *err = NULL;
    assert_int_equal(session_plan_build(&in, &plan, &err), 0);
    assert_int_equal(podman_api_new(stub_libpod_socket(stub), &api, &err), 0);
    assert_int_equal(session_new(api, plan, NULL, &s, &err), 0);
    if (session_setup(s, &err) < 0 || session_run(s, io, res, &err) < 0)
        fail_msg("%s", err->msg);
    session_free(s);
    podman_api_free(api);
    session_plan_free(plan);
}

static int pty_of_size(unsigned short rows, unsigned short cols, int *ret_master)
{
    int master, slave;
    struct winsize ws = { .ws_row = rows, .ws_col = cols };
    assert_int_equal(openpty(&master, &slave, NULL, NULL, &ws), 0);
    *ret_master = master;
    return slave;
}

static void resize_reads_the_input_descriptor(void **state)
{
    (void)state;
    /* fd 0 is another terminal, of another size: it must not be asked */
    int other_master, saved0 = dup(0);
    int other = pty_of_size(10, 20, &other_master);
    assert_int_equal(dup2(other, 0), 0);
    int master;
    int in = pty_of_size(33, 111, &master);
    int out = open("/dev/null", O_WRONLY | O_CLOEXEC);
    attach_io_t io = { .in_fd = in, .out_fd = out, .err_fd = out, .multiplexed = false };
    session_result_t res;
    run(true, &io, &res);
    dup2(saved0, 0);
    assert_int_equal(stub_libpod_count(stub, "POST", "/resize?"), 1);
    assert_int_equal(stub_libpod_count(stub, "POST", "/resize?h=33&w=111"), 1);
    assert_int_equal(res.exit_code, 7);
    close(in); close(master); close(other); close(other_master); close(out); close(saved0);
}

static void input_reset_is_not_fatal(void **state)
{
    (void)state;
    int fds[2], out[2];
    assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
    assert_int_equal(pipe2(out, O_CLOEXEC), 0);
    assert_int_equal(write(fds[1], "input nobody reads\n", 19), 19);  /* stays open: more may come */
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    attach_io_t io = { .in_fd = fds[0], .out_fd = out[1], .err_fd = null, .multiplexed = true,
                       .close_write_on_eof = true };
    session_result_t res;
    run(false, &io, &res);
    char got[16] = "";
    assert_int_equal(read(out[0], got, sizeof(got)), 6);
    assert_memory_equal(got, "hello\n", 6);
    assert_int_equal(stub_libpod_count(stub, "POST", "stdout=false"), 1);
    assert_int_equal(res.end, SESSION_AGENT_EXITED);
    assert_int_equal(res.exit_code, 7);
    assert_int_equal(res.io.output_errno, 0);
    close(fds[0]); close(fds[1]); close(out[0]); close(out[1]); close(null);
}

/* Podman 5 answers the wait of an agent whose monitor (conmon) died with
 * 0 while the agent still runs: no exit status, not a success. (Last in
 * the group: its rule stays in the shared stub.) */
static void a_wait_answered_while_the_agent_runs_is_a_lost_exit_status(void **state)
{
    (void)state;
    stub_libpod_rule(stub, "GET", "-agent/json", NULL, 200, "{\"State\":{\"Running\":true}}", 0);
    int fds[2], out[2];
    assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
    assert_int_equal(pipe2(out, O_CLOEXEC), 0);
    close(fds[1]);
    attach_io_t io = { .in_fd = fds[0], .out_fd = out[1], .err_fd = out[1], .multiplexed = true,
                       .close_write_on_eof = true };
    session_result_t res;
    run(false, &io, &res);
    assert_int_equal(res.end, SESSION_MONITOR_DIED);
    close(fds[0]); close(out[0]); close(out[1]);
}

int main(void)
{
    /* as the CLI does (signals_install): a write to a reset stream is EPIPE */
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(resize_reads_the_input_descriptor),
        cmocka_unit_test(input_reset_is_not_fatal),
        cmocka_unit_test(a_wait_answered_while_the_agent_runs_is_a_lost_exit_status),
    };
    return cmocka_run_group_tests_name("session_run", tests, stub_start, stub_stop);
}
