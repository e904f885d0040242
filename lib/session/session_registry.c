#include "session_registry.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "base/file_read.h"
#include "base/file_write.h"
#include "base/json.h"
#include "base/strv.h"
#include "base/util.h"

/* A command line of the agent's may be long, but the file is never near
 * this size: anything bigger is not an entry we wrote. */
#define REGISTRY_MAX_BYTES (1024 * 1024)
#define REGISTRY_FORMAT 1

/* A path is bytes while JSON text is UTF-8, so every string is stored with
 * the bytes outside printable ASCII, and '%', as %XX, and decoded on
 * reading. */
static char *encoded(const char *s)
{
    if (s == NULL)
        return NULL;
    char *out = malloc(3 * strlen(s) + 1), *o = out;
    for (const unsigned char *p = (const unsigned char *)s; out != NULL && *p != '\0'; p++) {
        if (*p < 0x20 || *p >= 0x7f || *p == '%')
            o += sprintf(o, "%%%02X", *p);
        else
            *o++ = (char)*p;
    }
    if (out != NULL)
        *o = '\0';
    return out;
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Decodes s into *ret: NULL stays NULL, and a malformed %XX or a NUL byte
 * is -EINVAL, since no string we wrote holds one. */
static int decoded(const char *s, char **ret)
{
    *ret = NULL;
    if (s == NULL)
        return 0;
    char *out = malloc(strlen(s) + 1), *o = out;
    if (out == NULL)
        return -ENOMEM;
    for (const char *p = s; *p != '\0'; p++) {
        int hi, lo;
        if (*p != '%') {
            *o++ = *p;
        } else if ((hi = hex_digit(p[1])) >= 0 && (lo = hex_digit(p[2])) >= 0 && (hi | lo) != 0) {
            *o++ = (char)(hi << 4 | lo);
            p += 2;
        } else {
            free(out);
            return -EINVAL;
        }
    }
    *o = '\0';
    *ret = out;
    return 0;
}

/* The entry's strings, encoded for JSON; NULL members stay NULL. */
typedef struct encoded_entry {
    char *launch_dir, *agent, *image, *allowlist_path;
    char **command;
} encoded_entry_t;

static void encoded_entry_clear(encoded_entry_t *x)
{
    free(x->launch_dir);
    free(x->agent);
    free(x->image);
    free(x->allowlist_path);
    strv_free(x->command);
}

static int encode_entry(const session_entry_t *e, encoded_entry_t *x)
{
    *x = (encoded_entry_t){
        .launch_dir = encoded(e->launch_dir), .agent = encoded(e->agent), .image = encoded(e->image),
        .allowlist_path = encoded(e->allowlist_path),
    };
    bool ok = (x->launch_dir != NULL || e->launch_dir == NULL) && (x->agent != NULL || e->agent == NULL) &&
              (x->image != NULL || e->image == NULL) &&
              (x->allowlist_path != NULL || e->allowlist_path == NULL);
    for (size_t i = 0; ok && e->command != NULL && e->command[i] != NULL; i++) {
        _cleanup_free_ char *arg = encoded(e->command[i]);
        ok = arg != NULL && strv_push(&x->command, arg) == 0;
    }
    return ok ? 0 : -ENOMEM;
}

int session_registry_write(const char *dir, const session_entry_t *e, as_error_t **err)
{
    encoded_entry_t x;
    _cleanup_(json_gen_freep) json_gen_t *g = NULL;
    if (encode_entry(e, &x) < 0 || (g = json_gen_new()) == NULL) {
        encoded_entry_clear(&x);
        return as_error_make(err, ENOMEM, "out of memory");
    }
    json_obj_open(g);
    json_kv_int(g, "format", REGISTRY_FORMAT);
    json_kv_str(g, "id", e->id);
    json_kv_int(g, "pid", e->pid);
    json_kv_str(g, "launch_dir", x.launch_dir);
    json_kv_int(g, "started", e->started);
    json_key(g, "command");
    json_arr_open(g);
    for (size_t i = 0; x.command != NULL && x.command[i] != NULL; i++)
        json_str(g, x.command[i]);
    json_arr_close(g);
    json_kv_str(g, "agent", x.agent);           /* null with --exec, which runs no agent */
    json_kv_str(g, "image", x.image);
    json_key(g, "allowlist");
    json_obj_open(g);
    json_kv_str(g, "path", x.allowlist_path);
    json_kv_int(g, "entries", e->allowlist_entries);
    json_obj_close(g);
    json_obj_close(g);
    encoded_entry_clear(&x);
    _cleanup_free_ char *text = NULL;
    int r = json_gen_finish(g, &text, err);
    if (r < 0)
        return as_error_prefix(err, "writing the session's registry entry");
    return file_write_atomic(dir, REGISTRY_FILE, text, 0600, err);
}

int session_registry_end(const char *dir, as_error_t **err)
{
    _cleanup_free_ char *from = NULL, *to = NULL;
    if (asprintf(&from, "%s/" REGISTRY_FILE, dir) < 0 || asprintf(&to, "%s/" REGISTRY_ENDED_FILE, dir) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    if (rename(from, to) < 0)
        return as_error_errno(err, errno, "renaming %s", from);
    return 0;
}

void session_entry_free(session_entry_t *e)
{
    if (e == NULL)
        return;
    free(e->launch_dir);
    strv_free(e->command);
    free(e->agent);
    free(e->image);
    free(e->allowlist_path);
    free(e->dir);
    free(e);
}

void session_entries_free(session_entry_t **v, size_t n)
{
    for (size_t i = 0; v != NULL && i < n; i++)
        session_entry_free(v[i]);
    free(v);
}

static int command_of(const json_t *arr, char ***ret)
{
    _cleanup_(strv_freep) char **v = NULL;
    for (size_t i = 0; i < json_array_len(arr); i++) {
        _cleanup_free_ char *arg = NULL;
        const char *s = json_as_str(json_array_at(arr, i));
        int r = s == NULL ? -EINVAL : decoded(s, &arg);
        if (r == 0 && strv_push(&v, arg) < 0)
            r = -ENOMEM;
        if (r < 0)
            return r;
    }
    *ret = steal_pointer(&v);
    return 0;
}

/* Reads the entry in `doc` into *e; -EINVAL when a required member is
 * missing or of another type. */
static int entry_of(const json_t *doc, session_entry_t *e)
{
    long long pid = 0, format = 0;
    const char *id = json_get_str(doc, "id");
    const json_t *al = json_get(doc, "allowlist");
    if (!json_as_int(json_get(doc, "format"), &format) || format != REGISTRY_FORMAT ||
        id == NULL || !session_id_valid(id) || !json_as_int(json_get(doc, "pid"), &pid) || pid <= 0 ||
        !json_as_int(json_get(doc, "started"), &e->started) || json_get_str(doc, "launch_dir") == NULL ||
        !json_is_array(json_get(doc, "command")) || json_get_str(doc, "image") == NULL ||
        !json_as_int(json_get(al, "entries"), &e->allowlist_entries) || json_get_str(al, "path") == NULL)
        return -EINVAL;
    snprintf(e->id, sizeof(e->id), "%s", id);
    e->pid = (pid_t)pid;
    int r = command_of(json_get(doc, "command"), &e->command);
    if (r == 0)
        r = decoded(json_get_str(doc, "launch_dir"), &e->launch_dir);
    if (r == 0)
        r = decoded(json_get_str(doc, "agent"), &e->agent);
    if (r == 0)
        r = decoded(json_get_str(doc, "image"), &e->image);
    if (r == 0)
        r = decoded(json_get_str(al, "path"), &e->allowlist_path);
    return r;
}

int session_registry_read(const char *dir, session_entry_t **ret, as_error_t **err)
{
    _cleanup_free_ char *path = NULL, *text = NULL;
    size_t len = 0;
    if (asprintf(&path, "%s/" REGISTRY_FILE, dir) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    int r = config_file_read(AT_FDCWD, path, CONFIG_NOFOLLOW, REGISTRY_MAX_BYTES, &text, &len, err);
    if (r < 0)
        return r == -ENOENT ? r : config_error_name(err, "reading ", path);
    _cleanup_(json_freep) json_t *doc = NULL;
    if ((r = json_parse(text, path, &doc, err)) < 0)
        return r;
    _cleanup_(session_entry_freep) session_entry_t *e = calloc(1, sizeof(*e));
    if (e == NULL || (e->dir = strdup(dir)) == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    r = entry_of(doc, e);
    if (r < 0)
        return r == -ENOMEM ? as_error_make(err, ENOMEM, "out of memory")
                            : as_error_make(err, EINVAL, "%s: not a session entry of this version", path);
    *ret = steal_pointer(&e);
    return 0;
}

static int by_start(const void *a, const void *b)
{
    const session_entry_t *x = *(session_entry_t *const *)a, *y = *(session_entry_t *const *)b;
    if (x->started != y->started)
        return x->started < y->started ? -1 : 1;
    return strcmp(x->id, y->id);
}

static int list_push(session_entry_t ***v, size_t *n, session_entry_t *e)
{
    session_entry_t **nv = realloc(*v, (*n + 1) * sizeof(*nv));
    if (nv == NULL)
        return -ENOMEM;
    nv[(*n)++] = e;
    *v = nv;
    return 0;
}

/* Returns the entry of base/name when that session is running, and NULL
 * otherwise (no entry, a half-written one, or a session that ended
 * meanwhile). */
static session_entry_t *live_entry(const char *base, int base_fd, const char *name)
{
    if (!session_id_valid(name) || !session_dir_lock_held(base_fd, name))
        return NULL;
    _cleanup_free_ char *dir = NULL;
    if (asprintf(&dir, "%s/%s", base, name) < 0)
        return NULL;
    _cleanup_(session_entry_freep) session_entry_t *e = NULL;
    _cleanup_(as_error_freep) as_error_t *err = NULL;
    if (session_registry_read(dir, &e, &err) < 0 || strcmp(e->id, name) != 0)
        return NULL;
    return steal_pointer(&e);
}

int session_registry_list(const char *base, session_entry_t ***ret, size_t *ret_n, as_error_t **err)
{
    int base_fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (base_fd < 0 && errno == ENOENT) {
        *ret = NULL;
        *ret_n = 0;
        return 0;
    }
    DIR *d = base_fd >= 0 ? fdopendir(base_fd) : NULL;
    if (d == NULL) {
        int e = errno;
        if (base_fd >= 0)
            close(base_fd);
        return as_error_errno(err, e, "reading %s", base);
    }
    session_entry_t **v = NULL;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        session_entry_t *e = live_entry(base, dirfd(d), de->d_name);
        if (e != NULL && list_push(&v, &n, e) < 0) {
            session_entry_free(e);
            session_entries_free(v, n);
            closedir(d);
            return as_error_make(err, ENOMEM, "out of memory");
        }
    }
    closedir(d);
    if (n > 1)
        qsort(v, n, sizeof(*v), by_start);
    *ret = v;
    *ret_n = n;
    return 0;
}

/* Checks the lock of the entry's directory, through its parent. */
bool session_entry_live(const session_entry_t *e)
{
    _cleanup_free_ char *base = e->dir != NULL ? strdup(e->dir) : NULL;
    char *slash = base != NULL ? strrchr(base, '/') : NULL;
    if (slash == NULL || strcmp(slash + 1, e->id) != 0)
        return false;
    *slash = '\0';
    _cleanup_close_ int fd = open(base[0] != '\0' ? base : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return fd >= 0 && session_dir_lock_held(fd, e->id);
}

int session_entry_signal(const session_entry_t *e, int signo, as_error_t **err)
{
    _cleanup_close_ int pidfd = pidfd_open(e->pid, 0);
    if (pidfd < 0 && errno != ENOSYS) {
        if (errno == ESRCH)
            return as_error_make(err, ESRCH, "session %s is no longer running", e->id);
        return as_error_errno(err, errno, "reaching session %s (PID %d)", e->id, (int)e->pid);
    }
    /* The pidfd names a process from before this check: if the lock is
     * still held now, that process is the session's CLI, not a later one
     * that reused its PID. (Without pidfds, before Linux 5.3 or under
     * valgrind, only the moment between the check and kill() is open.) */
    if (!session_entry_live(e))
        return as_error_make(err, ESRCH, "session %s is no longer running", e->id);
    /* The signal carries a value, as sigqueue(3) sends it, so that the CLI
     * can tell `stop` from a kill(1). */
    siginfo_t info = { .si_signo = signo, .si_code = SI_QUEUE };
    info.si_pid = getpid();
    info.si_uid = getuid();
    info.si_value.sival_int = SESSION_STOP_SIGNAL_VALUE;
    int r = pidfd >= 0 ? pidfd_send_signal(pidfd, signo, &info, 0)
                       : sigqueue(e->pid, signo, info.si_value);
    if (r < 0) {
        if (errno == ESRCH)
            return as_error_make(err, ESRCH, "session %s is no longer running", e->id);
        return as_error_errno(err, errno, "signalling session %s (PID %d)", e->id, (int)e->pid);
    }
    return 0;
}

bool proc_status_signal_pending(const char *status, int signo)
{
    static const char *const fields[] = { "\nShdPnd:", "\nSigPnd:" };
    if (signo < 1 || signo > 64)
        return false;
    for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
        const char *at = strstr(status, fields[i]);
        if (at == NULL)
            continue;
        at += strlen(fields[i]);
        char *end = NULL;
        errno = 0;
        unsigned long long mask = strtoull(at, &end, 16);
        if (errno == 0 && end != at && (mask >> (signo - 1) & 1))
            return true;
    }
    return false;
}

bool session_entry_signal_pending(const session_entry_t *e, int signo)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)e->pid);
    _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
    _cleanup_free_ char *text = NULL;
    size_t len = 0;
    if (fd < 0 || read_fd_bounded(fd, 64 * 1024, &text, &len) < 0)
        return false;
    return proc_status_signal_pending(text, signo);
}
