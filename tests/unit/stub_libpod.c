#include "stub_libpod.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_RULES 32
#define MAX_HOOKS 8
#define MAX_SERVERS 128

typedef struct rule {
    char *method, *path, *body, *answer;
    int status, times, used;
} rule_t;

typedef struct hook {
    char *container;
    stub_attach_fn fn;
    void *ctx;
} hook_t;

struct stub_libpod {
    int listen_fd;
    char dir[64], sock[96];
    pthread_mutex_t lock;
    pthread_cond_t changed;
    rule_t rules[MAX_RULES];
    int n_rules;
    hook_t hooks[MAX_HOOKS];
    int n_hooks;
    int exit_code;
    bool waited;             /* a wait was answered: the agent has exited */
    char router_log[256];    /* the router's log directory, from its create */
    char *log;
    size_t log_len;
    pthread_t acceptor, servers[MAX_SERVERS];
    int n_servers;
};

typedef struct conn {
    stub_libpod_t *stub;
    int fd;
} conn_t;

void stub_send(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n <= 0)
            return;
        p += n;
        len -= (size_t)n;
    }
}

static void send_text(int fd, const char *text)
{
    stub_send(fd, text, strlen(text));
}

void stub_send_upgrade(int fd)
{
    send_text(fd, "HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\n"
                  "Connection: Upgrade\r\nUpgrade: tcp\r\n\r\n");
}

void stub_send_frame(int fd, int stream, const char *text)
{
    size_t len = strlen(text);
    unsigned char head[8] = { (unsigned char)stream, 0, 0, 0, (unsigned char)(len >> 24),
                              (unsigned char)(len >> 16), (unsigned char)(len >> 8), (unsigned char)len };
    stub_send(fd, head, sizeof(head));
    stub_send(fd, text, len);
}

static void answer(int fd, int status, const char *body)
{
    char head[256];
    snprintf(head, sizeof(head), "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
             "Content-Length: %zu\r\n\r\n", status, strlen(body));
    send_text(fd, head);
    send_text(fd, body);
}

static void answer_error(int fd, int status, const char *why)
{
    char body[512];
    snprintf(body, sizeof(body), "{\"cause\":\"%s\",\"message\":\"%s\",\"response\":%d}", why, why, status);
    answer(fd, status, body);
}

/* One request: "METHOD PATH" in line, its body (up to n bytes) in body.
 * false at the connection's end. */
static bool read_request(int fd, char *line, size_t n, char *body, size_t body_n)
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
    char *sp = strchr(buf, ' ');
    char *sp2 = sp != NULL ? strchr(sp + 1, ' ') : NULL;
    snprintf(line, n, "%.*s", sp2 != NULL ? (int)(sp2 - buf) : (int)strcspn(buf, "\r"), buf);
    const char *cl = strcasestr(buf, "Content-Length:");
    long left = cl != NULL ? strtol(cl + 15, NULL, 10) : 0;
    size_t kept = 0;
    while (left > 0) {
        char chunk[4096];
        ssize_t got = read(fd, chunk, left < (long)sizeof(chunk) ? (size_t)left : sizeof(chunk));
        if (got <= 0)
            return false;
        size_t take = kept + (size_t)got < body_n - 1 ? (size_t)got : body_n - 1 - kept;
        memcpy(body + kept, chunk, take);
        kept += take;
        left -= got;
    }
    body[kept] = '\0';
    return true;
}

static void log_request(stub_libpod_t *s, const char *line)
{
    pthread_mutex_lock(&s->lock);
    size_t add = strlen(line) + 1;
    char *grown = realloc(s->log, s->log_len + add + 1);
    if (grown != NULL) {
        s->log = grown;
        memcpy(s->log + s->log_len, line, add - 1);
        s->log[s->log_len + add - 1] = '\n';
        s->log_len += add;
        s->log[s->log_len] = '\0';
    }
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

/* The rule for this request, if any (the latest added first). */
static bool ruled(stub_libpod_t *s, const char *line, const char *body, int *status, char **text)
{
    bool found = false;
    pthread_mutex_lock(&s->lock);
    for (int i = s->n_rules - 1; i >= 0 && !found; i--) {
        rule_t *r = &s->rules[i];
        if ((r->method != NULL && strncmp(line, r->method, strlen(r->method)) != 0) ||
            strstr(line, r->path) == NULL || (r->body != NULL && strstr(body, r->body) == NULL) ||
            (r->times > 0 && r->used >= r->times))
            continue;
        r->used++;
        *status = r->status;
        *text = r->answer != NULL ? strdup(r->answer) : NULL;
        found = true;
    }
    pthread_mutex_unlock(&s->lock);
    return found;
}

/* "/containers/NAME/..." -> NAME */
static void container_of(const char *line, char *name, size_t n)
{
    const char *c = strstr(line, "/containers/");
    name[0] = '\0';
    if (c != NULL)
        snprintf(name, n, "%.*s", (int)strcspn(c + 12, "/?"), c + 12);
}

/* The forwarder proves the path once started; anything else says nothing. */
static void default_attach(stub_libpod_t *s, int fd, const char *container, bool input_only, void *ctx)
{
    (void)ctx;
    /* this session's start, counted before the client can send it: the
     * ones before were other sessions' (and what came with the 101 head
     * would be read only on the client's next poll) */
    char started[300];
    snprintf(started, sizeof(started), "/containers/%s/start", container);
    int before = stub_libpod_count(s, "POST", started);
    stub_send_upgrade(fd);
    if (input_only || strstr(container, "forwarder") == NULL)
        return;
    stub_libpod_wait_count(s, "POST", started, before + 1, 10);
    stub_send_frame(fd, 1, "agent-sandbox-forwarder: ready\n");
    char junk[256];
    while (read(fd, junk, sizeof(junk)) > 0) { }    /* until the CLI lets go */
}

static void serve_attach(stub_libpod_t *s, int fd, const char *line)
{
    char name[256];
    container_of(line, name, sizeof(name));
    stub_attach_fn fn = default_attach;
    void *ctx = NULL;
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < s->n_hooks; i++)
        if (strstr(name, s->hooks[i].container) != NULL) {
            fn = s->hooks[i].fn;
            ctx = s->hooks[i].ctx;
        }
    pthread_mutex_unlock(&s->lock);
    fn(s, fd, name, strstr(line, "stdout=false") != NULL, ctx);
}

/* A stream held open until the client goes (events). */
static void serve_held(int fd)
{
    send_text(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
    char junk[256];
    while (read(fd, junk, sizeof(junk)) > 0) { }
}

/* The router's log directory: the source of its mount that ends in
 * /router-log (the session directory's). */
static void note_router_log(stub_libpod_t *s, const char *body)
{
    const char *end = strstr(body, "/router-log\""), *start = end;
    if (end == NULL || strstr(body, "-router\"") == NULL)
        return;
    while (start > body && start[-1] != '"')
        start--;
    pthread_mutex_lock(&s->lock);
    snprintf(s->router_log, sizeof(s->router_log), "%.*s/router-log", (int)(end - start), start);
    pthread_mutex_unlock(&s->lock);
}

/* The router's answer to the CLI's mark (docs/router-protocol.md, "Whose
 * events"): SIGUSR1 the agent's, SIGUSR2 verify's. */
static void router_marks(stub_libpod_t *s, const char *line)
{
    const char *who = strstr(line, "?signal=10") != NULL ? "agent\n"
                      : strstr(line, "?signal=12") != NULL ? "verify\n" : NULL;
    char path[300];
    if (who == NULL || strstr(line, "-router/kill") == NULL)
        return;
    pthread_mutex_lock(&s->lock);
    snprintf(path, sizeof(path), "%s/started", s->router_log);
    pthread_mutex_unlock(&s->lock);
    FILE *f = fopen(path, "we");
    if (f != NULL) {
        fputs(who, f);
        fclose(f);
    }
}

/* What a healthy podman answers. */
static void default_answer(stub_libpod_t *s, int fd, const char *line, const char *body)
{
    char reply[512];
    if (strstr(line, "/containers/create") != NULL)
        note_router_log(s, body);
    if (strstr(line, "/kill") != NULL)
        router_marks(s, line);
    if (strstr(line, "/_ping") != NULL) {
        answer(fd, 200, "OK");
    } else if (strstr(line, "/networks/create") != NULL) {
        answer(fd, 200, "{\"name\":\"n\",\"subnets\":[{\"subnet\":\"10.89.7.0/24\",\"gateway\":\"10.89.7.1\"}]}");
    } else if (strstr(line, "/containers/create") != NULL) {
        const char *n = strstr(body, "\"name\":\"");
        snprintf(reply, sizeof(reply), "{\"Id\":\"%.*s\",\"Warnings\":[]}",
                 n != NULL ? (int)strcspn(n + 8, "\"") : 4, n != NULL ? n + 8 : "ctr1");
        answer(fd, 201, reply);
    } else if (strstr(line, "/create") != NULL) {
        answer(fd, 201, "{\"Id\":\"id1\"}");
    } else if (strstr(line, "/exists") != NULL || strstr(line, "/start") != NULL ||
               strstr(line, "/kill") != NULL) {
        answer(fd, 204, "");
    } else if (strstr(line, "/wait?") != NULL) {
        snprintf(reply, sizeof(reply), "%d", s->exit_code);
        pthread_mutex_lock(&s->lock);
        s->waited = true;
        pthread_mutex_unlock(&s->lock);
        answer(fd, 200, reply);
    } else if (strstr(line, "/containers/") != NULL && strstr(line, "/json") != NULL &&
               strstr(line, "/containers/json") == NULL) {
        /* As podman: a container whose exit a wait reported runs no more. */
        pthread_mutex_lock(&s->lock);
        bool running = !s->waited;
        pthread_mutex_unlock(&s->lock);
        answer(fd, 200, running ? "{\"State\":{\"Running\":true}}" : "{\"State\":{\"Running\":false}}");
    } else if (strstr(line, "/json?") != NULL) {
        answer(fd, 200, "[]");
    } else if (strncmp(line, "DELETE", 6) == 0 || strstr(line, "/resize?") != NULL) {
        answer(fd, 200, "{}");
    } else if (strstr(line, "/info") != NULL) {
        answer(fd, 200, "{\"store\":{\"graphRoot\":\"/nonexistent\"}}");
    } else {
        answer_error(fd, 404, "no such thing");
    }
}

static void *serve(void *arg)
{
    conn_t *c = arg;
    stub_libpod_t *s = c->stub;
    char line[1024];
    static __thread char body[65536];
    while (read_request(c->fd, line, sizeof(line), body, sizeof(body))) {
        log_request(s, line);
        int status = 0;
        char *text = NULL;
        if (ruled(s, line, body, &status, &text)) {
            if (text != NULL)
                answer(c->fd, status, text);
            else
                answer_error(c->fd, status, "scripted failure");
            free(text);
        } else if (strstr(line, "/attach?") != NULL) {
            serve_attach(s, c->fd, line);
            break;
        } else if (strstr(line, "/events?") != NULL) {
            serve_held(c->fd);
            break;
        } else {
            default_answer(s, c->fd, line, body);
        }
    }
    close(c->fd);
    free(c);
    return NULL;
}

static void *accept_loop(void *arg)
{
    stub_libpod_t *s = arg;
    for (;;) {
        int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            return NULL;
        conn_t *c = malloc(sizeof(*c));
        if (c == NULL || s->n_servers == MAX_SERVERS) {
            free(c);
            close(fd);
            continue;
        }
        *c = (conn_t){ s, fd };
        pthread_create(&s->servers[s->n_servers++], NULL, serve, c);
    }
}

int stub_libpod_start(stub_libpod_t **ret)
{
    return stub_libpod_start_at(NULL, ret);
}

int stub_libpod_start_at(const char *socket_path, stub_libpod_t **ret)
{
    stub_libpod_t *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return -ENOMEM;
    strcpy(s->dir, "/tmp/stub_libpod.XXXXXX");
    if (mkdtemp(s->dir) == NULL) {
        free(s);
        return -errno;
    }
    if (socket_path != NULL)
        snprintf(s->sock, sizeof(s->sock), "%s", socket_path);
    else
        snprintf(s->sock, sizeof(s->sock), "%s/api.sock", s->dir);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", s->sock);
    s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s->listen_fd < 0 || bind(s->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
        listen(s->listen_fd, 64) < 0) {
        int e = errno;
        close(s->listen_fd);
        rmdir(s->dir);
        free(s);
        return -e;
    }
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
    pthread_create(&s->acceptor, NULL, accept_loop, s);
    *ret = s;
    return 0;
}

void stub_libpod_stop(stub_libpod_t *s)
{
    if (s == NULL)
        return;
    shutdown(s->listen_fd, SHUT_RDWR);
    pthread_join(s->acceptor, NULL);
    for (int i = 0; i < s->n_servers; i++)
        pthread_join(s->servers[i], NULL);
    close(s->listen_fd);
    for (int i = 0; i < s->n_rules; i++) {
        free(s->rules[i].method);
        free(s->rules[i].path);
        free(s->rules[i].body);
        free(s->rules[i].answer);
    }
    for (int i = 0; i < s->n_hooks; i++)
        free(s->hooks[i].container);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->dir);
    if (system(cmd) != 0) { }
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->changed);
    free(s->log);
    free(s);
}

const char *stub_libpod_socket(const stub_libpod_t *s)
{
    return s->sock;
}

const char *stub_libpod_dir(const stub_libpod_t *s)
{
    return s->dir;
}

static char *dup_or_null(const char *s)
{
    return s != NULL ? strdup(s) : NULL;
}

void stub_libpod_rule(stub_libpod_t *s, const char *method, const char *path, const char *body,
                      int status, const char *text, int times)
{
    pthread_mutex_lock(&s->lock);
    if (s->n_rules < MAX_RULES)
        s->rules[s->n_rules++] = (rule_t){
            .method = dup_or_null(method), .path = strdup(path), .body = dup_or_null(body),
            .answer = dup_or_null(text), .status = status, .times = times,
        };
    pthread_mutex_unlock(&s->lock);
}

void stub_libpod_on_attach(stub_libpod_t *s, const char *container, stub_attach_fn fn, void *ctx)
{
    pthread_mutex_lock(&s->lock);
    if (s->n_hooks < MAX_HOOKS)
        s->hooks[s->n_hooks++] = (hook_t){ strdup(container), fn, ctx };
    pthread_mutex_unlock(&s->lock);
}

void stub_libpod_exit_code(stub_libpod_t *s, int code)
{
    s->exit_code = code;
}

static int count_locked(stub_libpod_t *s, const char *method, const char *path)
{
    int n = 0;
    for (const char *l = s->log; l != NULL && *l != '\0'; l = strchr(l, '\n') + 1) {
        size_t len = strcspn(l, "\n");
        char line[1024];
        snprintf(line, sizeof(line), "%.*s", (int)len, l);
        if ((method == NULL || strncmp(line, method, strlen(method)) == 0) && strstr(line, path) != NULL)
            n++;
    }
    return n;
}

int stub_libpod_count(stub_libpod_t *s, const char *method, const char *path)
{
    pthread_mutex_lock(&s->lock);
    int n = count_locked(s, method, path);
    pthread_mutex_unlock(&s->lock);
    return n;
}

char *stub_libpod_log(stub_libpod_t *s)
{
    pthread_mutex_lock(&s->lock);
    char *copy = strdup(s->log != NULL ? s->log : "");
    pthread_mutex_unlock(&s->lock);
    return copy;
}

bool stub_libpod_wait_count(stub_libpod_t *s, const char *method, const char *path, int count, int seconds)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += seconds;
    pthread_mutex_lock(&s->lock);
    while (count_locked(s, method, path) < count &&
           pthread_cond_timedwait(&s->changed, &s->lock, &until) == 0) { }
    bool ok = count_locked(s, method, path) >= count;
    pthread_mutex_unlock(&s->lock);
    return ok;
}
