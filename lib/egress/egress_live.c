#include "egress_live.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "router_protocol.h"
#include "base/file_read.h"
#include "base/file_write.h"
#include "base/util.h"
#include "podman/podman_api.h"

struct egress_live {
    char *dir;               /* the session directory */
    int lock_fd;
    egress_state_t *state;
    allowlist_t *al;
    char *source;
};

void egress_live_close(egress_live_t *l)
{
    if (l == NULL)
        return;
    if (l->lock_fd >= 0)
        close(l->lock_fd);      /* and the lock with it */
    free(l->dir);
    egress_state_free(l->state);
    allowlist_free(l->al);
    free(l->source);
    free(l);
}

const egress_state_t *egress_live_state(const egress_live_t *l) { return l->state; }
const allowlist_t *egress_live_allowlist(const egress_live_t *l) { return l->al; }
const char *egress_live_source(const egress_live_t *l) { return l->source; }

/* dir/rel, read whole (our own small files: never a link). */
static int read_rel(const char *dir, const char *rel, size_t max, char **ret_text, size_t *ret_len,
                    as_error_t **err)
{
    _cleanup_free_ char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, rel) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    int r = config_file_read(AT_FDCWD, path, CONFIG_NOFOLLOW, max, ret_text, ret_len, err);
    return r < 0 ? config_error_name(err, "cannot read ", path) : 0;
}

static int load(egress_live_t *l, as_error_t **err)
{
    _cleanup_free_ char *text = NULL, *state_path = NULL, *list_path = NULL;
    size_t len = 0;
    int r;
    if ((r = read_rel(l->dir, EGRESS_STATE_DIR "/" EGRESS_STATE_FILE, 4096, &text, &len, err)) < 0)
        return r;
    if (asprintf(&state_path, "%s/" EGRESS_STATE_DIR "/" EGRESS_STATE_FILE, l->dir) < 0 ||
        asprintf(&list_path, "%s/" EGRESS_STATE_DIR "/" EGRESS_STATE_ALLOWLIST, l->dir) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    if ((r = egress_state_parse(state_path, text, len, &l->state, err)) < 0)
        return r;
    free(steal_pointer(&text));
    if ((r = read_rel(l->dir, EGRESS_STATE_DIR "/" EGRESS_STATE_ALLOWLIST, ALLOWLIST_FILE_MAX,
                      &text, &len, err)) < 0 ||
        (r = allowlist_parse(list_path, text, len, &l->al, err)) < 0)
        return r;
    free(steal_pointer(&text));
    r = read_rel(l->dir, EGRESS_STATE_DIR "/" EGRESS_STATE_SOURCE, PATH_MAX, &text, &len, err);
    if (r == -ENOENT) {
        as_error_free(err);
        return 0;
    }
    if (r == 0)
        l->source = steal_pointer(&text);
    return r;
}

/* A router with held secrets terminates names the allowlist alone does
 * not say (docs/secrets.md): a configuration rendered from it would drop
 * them, so its names are not changed live. */
static int refuse_held(const char *dir, as_error_t **err)
{
    _cleanup_free_ char *held = NULL;
    if (asprintf(&held, "%s/router/" ROUTER_FILE_HELD, dir) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    if (access(held, F_OK) == 0)
        return as_error_make(err, EPERM, "this session's router terminates names (--secret, the "
                             "rules file): its allowlist cannot change while it runs (docs/secrets.md)");
    return 0;
}

int egress_live_open(const char *dir, egress_live_t **ret, as_error_t **err)
{
    _cleanup_(egress_live_closep) egress_live_t *l = calloc(1, sizeof(*l));
    if (l == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    l->lock_fd = -1;        /* before anything can fail: the close would close fd 0 */
    if ((l->dir = strdup(dir)) == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    _cleanup_free_ char *lock = NULL;
    int r = 0;
    if (asprintf(&lock, "%s/" EGRESS_STATE_DIR "/" EGRESS_STATE_LOCK, dir) < 0)
        r = as_error_make(err, ENOMEM, "out of memory");
    else if ((l->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0 ||
             flock(l->lock_fd, LOCK_EX) < 0)
        r = as_error_errno(err, errno, "locking %s", lock);
    if (r == 0)
        r = load(l, err);
    if (r == 0)
        r = refuse_held(dir, err);
    if (r < 0)
        return r;
    *ret = steal_pointer(&l);
    return 0;
}

/* The agent's /etc/hosts: its bind mount holds the file, so it is
 * rewritten where it is. The new text is written over the old one before
 * the file is cut to its length: a reader sees localhost (the first line)
 * throughout, and at worst a line of the old text past the new end. */
static int write_in_place(const char *path, const char *text, as_error_t **err)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return as_error_errno(err, errno, "opening %s", path);
    size_t len = strlen(text), off = 0;
    int r = 0;
    while (r == 0 && off < len) {
        ssize_t n = pwrite(fd, text + off, len - off, (off_t)off);
        if (n < 0 && errno != EINTR)
            r = as_error_errno(err, errno, "writing %s", path);
        else if (n > 0)
            off += (size_t)n;
    }
    if (r == 0 && ftruncate(fd, (off_t)len) < 0)
        r = as_error_errno(err, errno, "cutting %s", path);
    close(fd);
    return r;
}

/* The router's files, then the number of this change. */
static int write_router_files(const egress_live_t *l, const egress_names_t *n, unsigned gen,
                              as_error_t **err)
{
    _cleanup_free_ char *conf = NULL;
    char number[24];
    snprintf(number, sizeof(number), "%u\n", gen);
    if (asprintf(&conf, "%s/router", l->dir) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    int r;
    if ((r = file_write_atomic(conf, ROUTER_FILE_NGINX, n->nginx_conf, 0644, err)) < 0 ||
        (r = file_write_atomic(conf, ROUTER_FILE_DNSMASQ, n->dnsmasq_conf, 0644, err)) < 0 ||
        (r = file_write_atomic(conf, ROUTER_FILE_DNS_HOSTS, n->dns_hosts, 0644, err)) < 0 ||
        (r = file_write_atomic(conf, ROUTER_FILE_DNS_WILDCARDS, n->dns_wildcards, 0644,
                                         err)) < 0 ||
        (r = file_write_atomic(conf, ROUTER_FILE_GENERATION, number, 0644, err)) < 0)
        return r;
    return 0;
}

/* Once the router runs with them: what the agent reads, and the state. */
static int write_agent_files(const egress_live_t *l, const egress_names_t *n, as_error_t **err)
{
    _cleanup_free_ char *hosts = NULL, *view = NULL, *state = NULL;
    if (asprintf(&hosts, "%s/hosts", l->dir) < 0 ||
        asprintf(&view, "%s/" EGRESS_AGENT_VIEW_DIR, l->dir) < 0 ||
        asprintf(&state, "%s/" EGRESS_STATE_DIR, l->dir) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    int r;
    if ((r = write_in_place(hosts, n->agent_hosts, err)) < 0 ||
        (r = file_write_atomic(view, EGRESS_AGENT_VIEW_FILE, n->agent_view, 0644, err)) < 0)
        return r;
    return file_write_atomic(state, EGRESS_STATE_ALLOWLIST, n->allowlist, 0644, err);
}

/* The generation the last change was given (0 at the start). */
static int last_generation(const egress_live_t *l, unsigned *ret, as_error_t **err)
{
    _cleanup_free_ char *text = NULL;
    size_t len = 0;
    int r = read_rel(l->dir, "router/" ROUTER_FILE_GENERATION, 64, &text, &len, err);
    if (r < 0)
        return r;
    char *end = NULL;
    unsigned long v = strtoul(text, &end, 10);
    if (end == text || (*end != '\n' && *end != '\0') || v >= UINT_MAX)
        return as_error_make(err, EINVAL, "%s/router/" ROUTER_FILE_GENERATION " holds no number",
                             l->dir);
    *ret = (unsigned)v;
    return 0;
}

/* The router's answer to change `gen`: 1 taken, 0 none yet, or an error
 * with the router's reason. */
static int router_answer(const egress_live_t *l, unsigned gen, as_error_t **err)
{
    _cleanup_free_ char *text = NULL;
    size_t len = 0;
    as_error_t *e = NULL;
    if (read_rel(l->dir, "router-log/" ROUTER_LOG_RELOAD, 4096, &text, &len, &e) < 0) {
        as_error_free(&e);
        return 0;
    }
    char *end = NULL;
    unsigned long got = strtoul(text, &end, 10);
    if (end == text || *end != ' ' || got != gen)
        return 0;
    text[strcspn(text, "\n")] = '\0';
    if (strcmp(end + 1, ROUTER_RELOAD_OK) == 0)
        return 1;
    const char *why = strncmp(end + 1, ROUTER_RELOAD_FAILED, strlen(ROUTER_RELOAD_FAILED)) == 0
                          ? end + 1 + strlen(ROUTER_RELOAD_FAILED) : end + 1;
    return as_error_make(err, EPROTO, "the router refused the change: %s", why);
}

static void sleep_ms(long ms)
{
    struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) { }
}

/* SIGHUP to the router through the session's podman service, again every
 * second (one that comes just before the router waits is not lost), until
 * it answers change `gen`. */
static int tell_router(const egress_live_t *l, unsigned gen, as_error_t **err)
{
    _cleanup_free_ char *socket = NULL;
    if (asprintf(&socket, "%s/podman.sock", l->dir) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    _cleanup_(podman_api_freep) podman_api_t *api = NULL;
    int r = podman_api_new(socket, &api, err);
    long deadline = monotonic_ms() + EGRESS_LIVE_TIMEOUT_MS, next_signal = 0;
    while (r == 0) {
        long now = monotonic_ms();
        if (now >= next_signal) {
            if ((r = podman_container_kill(api, l->state->router, SIGHUP, err)) < 0) {
                as_error_prefix(err, "telling the router");
                break;
            }
            next_signal = now + 1000;
        }
        if ((r = router_answer(l, gen, err)) != 0)
            break;
        if (now >= deadline) {
            r = as_error_make(err, ETIMEDOUT, "the router did not answer within %ld s",
                              EGRESS_LIVE_TIMEOUT_MS / 1000);
            break;
        }
        sleep_ms(20);
    }
    return r < 0 ? r : 0;
}

int egress_live_apply(egress_live_t *l, const allowlist_t *al, as_error_t **err)
{
    egress_names_t next = {0}, before = {0};
    unsigned gen = 0;
    int r;
    if ((r = egress_names_render(al, l->state, &next, err)) < 0 ||
        (r = egress_names_render(l->al, l->state, &before, err)) < 0 ||
        (r = last_generation(l, &gen, err)) < 0 ||
        (r = write_router_files(l, &next, gen + 1, err)) < 0)
        goto out;
    if ((r = tell_router(l, gen + 1, err)) < 0) {
        /* the files of what runs, again (and a new number: a late answer
         * to the refused one is not taken for theirs) */
        as_error_t *e = NULL;
        if (write_router_files(l, &before, gen + 2, &e) < 0)
            as_error_free(&e);
        goto out;
    }
    r = write_agent_files(l, &next, err);
out:
    egress_names_clear(&next);
    egress_names_clear(&before);
    return r;
}
