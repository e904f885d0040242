/* The executor's run of the agent against a stub libpod server on a unix
 * socket (real HTTP through the real client, scripted answers): the
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

#include "session.h"
#include "session_plan.h"

/* ---- the stub server ---------------------------------------------------- */

typedef struct stub {
    int listen_fd;
    char dir[64], sock[96];
    pthread_mutex_t lock;
    pthread_cond_t changed;
    unsigned rows, cols;        /* the last resize asked for */
    int resizes;
    int input_attaches;         /* attach connections that carry stdin only */
    bool tty;                   /* how the stub answers the output attach */
    pthread_t acceptor, servers[64];
    int n_servers;
} stub_t;

static stub_t stub;

static void send_text(int fd, const char *text)
{
    size_t len = strlen(text);
    while (len > 0) {
        ssize_t n = write(fd, text, len);
        if (n <= 0)
            return;
        text += n;
        len -= (size_t)n;
    }
}

static void answer(int fd, int status, const char *body)
{
    char head[256];
    snprintf(head, sizeof(head), "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
             "Content-Length: %zu\r\n\r\n", status, strlen(body));
    send_text(fd, head);
    send_text(fd, body);
}

/* One request: its line in line (method and path), its body skipped.
 * false at the connection's end. */
static bool read_request(int fd, char *line, size_t n)
{
    char buf[8192];
    size_t len = 0;
    char *end = NULL;
    while (end == NULL) {
        if (len == sizeof(buf) - 1)
            return false;
        ssize_t got = read(fd, buf + len, 1);    /* byte by byte: never read past the head */
        if (got <= 0)
            return false;
        len += (size_t)got;
        buf[len] = '\0';
        end = strstr(buf, "\r\n\r\n");
    }
    snprintf(line, n, "%.*s", (int)strcspn(buf, "\r"), buf);
    const char *cl = strcasestr(buf, "Content-Length:");
    long body = cl != NULL ? strtol(cl + 15, NULL, 10) : 0;
    char skip[4096];
    while (body > 0) {
        ssize_t got = read(fd, skip, body < (long)sizeof(skip) ? (size_t)body : sizeof(skip));
        if (got <= 0)
            return false;
        body -= got;
    }
    return true;
}

static bool wait_until(bool (*done)(void), int seconds)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += seconds;
    pthread_mutex_lock(&stub.lock);
    while (!done() && pthread_cond_timedwait(&stub.changed, &stub.lock, &until) == 0) { }
    bool ok = done();
    pthread_mutex_unlock(&stub.lock);
    return ok;
}

static bool resized(void) { return stub.resizes > 0; }
static bool input_attached(void) { return stub.input_attaches > 0; }

/* The agent's output stream: one line, then the end (after the resize the
 * start causes, with a TTY). Without a TTY, a stdout frame. */
static void serve_output(int fd)
{
    send_text(fd, "HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\n"
                  "Connection: Upgrade\r\nUpgrade: tcp\r\n\r\n");
    if (stub.tty) {
        wait_until(resized, 10);
        send_text(fd, "hello\r\n");
        return;
    }
    wait_until(input_attached, 10);
    static const char frame[] = { 1, 0, 0, 0, 0, 0, 0, 6, 'h', 'e', 'l', 'l', 'o', '\n' };
    if (write(fd, frame, sizeof(frame)) < 0) { }
}

/* The input connection: podman's complaint, as when the agent closed its
 * stdin, then a reset (unread input makes close() send RST). */
static void serve_input(int fd)
{
    send_text(fd, "HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\n"
                  "Connection: Upgrade\r\nUpgrade: tcp\r\n\r\n");
    static const char complaint[] = "\2\0\0\0\0\0\0\x1c" "Error: connection reset ...\n";
    if (write(fd, complaint, sizeof(complaint) - 1) < 0) { }
    struct linger hard = { .l_onoff = 1, .l_linger = 0 };
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof(hard));
}

static void *serve(void *arg)
{
    int fd = (int)(intptr_t)arg;
    char line[1024];
    while (read_request(fd, line, sizeof(line))) {
        if (strstr(line, "/networks/create") != NULL) {
            answer(fd, 200, "{\"name\":\"n\",\"subnets\":[{\"subnet\":\"10.89.7.0/24\",\"gateway\":\"10.89.7.1\"}]}");
        } else if (strstr(line, "/pods/create") != NULL) {
            answer(fd, 201, "{\"Id\":\"pod1\"}");
        } else if (strstr(line, "/containers/create") != NULL) {
            answer(fd, 201, "{\"Id\":\"ctr1\",\"Warnings\":[]}");
        } else if (strstr(line, "/attach?") != NULL && strstr(line, "stdout=false") != NULL) {
            pthread_mutex_lock(&stub.lock);
            stub.input_attaches++;
            pthread_cond_broadcast(&stub.changed);
            pthread_mutex_unlock(&stub.lock);
            serve_input(fd);
            break;
        } else if (strstr(line, "/attach?") != NULL) {
            serve_output(fd);
            break;
        } else if (strstr(line, "/start") != NULL) {
            answer(fd, 204, "");
        } else if (strstr(line, "/resize?") != NULL) {
            pthread_mutex_lock(&stub.lock);
            sscanf(strstr(line, "?h="), "?h=%u&w=%u", &stub.rows, &stub.cols);
            stub.resizes++;
            pthread_cond_broadcast(&stub.changed);
            pthread_mutex_unlock(&stub.lock);
            answer(fd, 200, "");
        } else if (strstr(line, "/wait?") != NULL) {
            answer(fd, 200, "7");
        } else {
            answer(fd, 404, "{\"cause\":\"no such thing\",\"message\":\"no such thing\",\"response\":404}");
        }
    }
    close(fd);
    return NULL;
}

static void *accept_loop(void *arg)
{
    (void)arg;
    for (;;) {
        int fd = accept4(stub.listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            return NULL;
        if (stub.n_servers == (int)(sizeof(stub.servers) / sizeof(stub.servers[0]))) {
            close(fd);
            continue;
        }
        pthread_create(&stub.servers[stub.n_servers++], NULL, serve, (void *)(intptr_t)fd);
    }
}

static int stub_start(void **state)
{
    (void)state;
    strcpy(stub.dir, "/tmp/test_session_run.XXXXXX");
    if (mkdtemp(stub.dir) == NULL)
        return -1;
    snprintf(stub.sock, sizeof(stub.sock), "%s/api.sock", stub.dir);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", stub.sock);
    stub.listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (stub.listen_fd < 0 || bind(stub.listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
        listen(stub.listen_fd, 16) < 0)
        return -1;
    pthread_mutex_init(&stub.lock, NULL);
    pthread_cond_init(&stub.changed, NULL);
    pthread_create(&stub.acceptor, NULL, accept_loop, NULL);
    return 0;
}

/* Every client connection is closed by now: each server thread ends. */
static int stub_stop(void **state)
{
    (void)state;
    shutdown(stub.listen_fd, SHUT_RDWR);
    pthread_join(stub.acceptor, NULL);
    for (int i = 0; i < stub.n_servers; i++)
        pthread_join(stub.servers[i], NULL);
    close(stub.listen_fd);
    unlink(stub.sock);
    rmdir(stub.dir);
    return 0;
}

/* ---- the session ------------------------------------------------------- */

static char *cmd[] = { "sh", NULL };

/* Sets the session up against the stub and runs it with io. */
static void run(bool tty, const attach_io_t *io, session_result_t *res)
{
    stub.tty = tty;
    stub.resizes = stub.input_attaches = 0;
    session_inputs_t in = {
        .id = "0123456789ab", .cli_pid = getpid(), .workdir = "/home/u/proj",
        .image = "localhost/agent-sandbox:dev", .command = cmd, .tty = tty,
    };
    session_plan_t *plan = NULL;
    podman_api_t *api = NULL;
    session_t *s = NULL;
    as_error_t *err = NULL;
    assert_int_equal(session_plan_build(&in, &plan, &err), 0);
    assert_int_equal(podman_api_new(stub.sock, &api, &err), 0);
    assert_int_equal(session_new(api, plan, &s, &err), 0);
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
    assert_int_equal(stub.resizes, 1);
    assert_int_equal(stub.rows, 33);
    assert_int_equal(stub.cols, 111);
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
    assert_int_equal(stub.input_attaches, 1);
    assert_int_equal(res.end, SESSION_AGENT_EXITED);
    assert_int_equal(res.exit_code, 7);
    assert_int_equal(res.io.output_errno, 0);
    close(fds[0]); close(fds[1]); close(out[0]); close(out[1]); close(null);
}

int main(void)
{
    /* as the CLI does (signals_install): a write to a reset stream is EPIPE */
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(resize_reads_the_input_descriptor),
        cmocka_unit_test(input_reset_is_not_fatal),
    };
    return cmocka_run_group_tests_name("session_run", tests, stub_start, stub_stop);
}
