#include "session_logs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "egress_log.h"
#include "egress_state.h"
#include "base/file_write.h"
#include "base/util.h"
#include "config/allowlist.h"
#include "base/user_dirs.h"

const char *const router_log_files[ROUTER_LOG_FILES] = { "dns.log", "egress.log", "nginx-error.log" };

/* Copies at most `max` bytes: a file the router (or anything) made larger
 * than its ceiling is cut there. */
static int copy_file(const char *from, const char *to, off_t max)
{
    int in = open(from, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (in < 0)
        return errno == ENOENT ? 0 : -errno;
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (out < 0) {
        int e = errno;
        close(in);
        return -e;
    }
    char buf[65536];
    ssize_t n = 0;
    int r = 0;
    off_t left = max;
    while (left > 0 && (n = read(in, buf, (size_t)left < sizeof(buf) ? (size_t)left : sizeof(buf))) > 0) {
        if (write(out, buf, (size_t)n) != n) {
            r = -EIO;
            break;
        }
        left -= n;
    }
    if (left == 0)
        n = 0;
    if (n < 0)
        r = -errno;
    close(in);
    if (close(out) < 0 && r == 0)
        r = -errno;
    return r;
}

static int by_mtime_desc(const void *a, const void *b)
{
    const struct { char *name; time_t mtime; } *x = a, *y = b;
    return x->mtime < y->mtime ? 1 : x->mtime > y->mtime ? -1 : strcmp(x->name, y->name);
}

/* Bytes in the regular files directly in dir. */
static off_t dir_bytes(int base_fd, const char *name)
{
    int fd = openat(base_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d == NULL) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    off_t total = 0;
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d)) != NULL)
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
            total += st.st_size;
    closedir(d);
    return total;
}

/* Keeps the newest session directories under base: at most LOGS_KEPT, no
 * more than LOGS_TOTAL_MAX_BYTES together, none older than
 * LOGS_MAX_AGE_DAYS (the newest always). */
static void prune(const char *base)
{
    DIR *d = opendir(base);
    if (d == NULL)
        return;
    struct { char *name; time_t mtime; } items[256];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < ARRAY_SIZE(items)) {
        struct stat st;
        if (e->d_name[0] == '.' || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
            !S_ISDIR(st.st_mode))
            continue;
        if ((items[n].name = strdup(e->d_name)) == NULL)
            break;
        items[n++].mtime = st.st_mtime;
    }
    qsort(items, n, sizeof(items[0]), by_mtime_desc);
    off_t total = 0;
    for (size_t i = 0; i < n; i++) {
        total += dir_bytes(dirfd(d), items[i].name);
        bool old = time(NULL) - items[i].mtime > (time_t)LOGS_MAX_AGE_DAYS * 86400;
        if (i >= LOGS_KEPT || (i > 0 && (total > LOGS_TOTAL_MAX_BYTES || old))) {
            _cleanup_free_ char *path = NULL;
            if (asprintf(&path, "%s/%s", base, items[i].name) >= 0)
                remove_tree(path, NULL);
        }
        free(items[i].name);
    }
    closedir(d);
}

int session_logs_keep(const char *session_dir, const char *id, char **ret_dest, as_error_t **err)
{
    _cleanup_free_ char *state = NULL, *base = NULL, *dest = NULL;
    int r = user_state_dir(&state, err);
    if (r < 0)
        return r;
    if (asprintf(&base, "%s/logs", state) < 0 || asprintf(&dest, "%s/%s", base, id) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    if ((r = user_dir_create(dest, err)) < 0)
        return r;
    for (size_t i = 0; i <= 2 * ROUTER_LOG_FILES; i++) {
        /* each log and its count; then the allowlist in effect */
        bool list = i == 2 * ROUTER_LOG_FILES;
        const char *dir = list ? EGRESS_STATE_DIR : "router-log";
        const char *name = list ? EGRESS_STATE_ALLOWLIST : router_log_files[i / 2];
        const char *suffix = !list && i % 2 ? LOG_DROPPED_SUFFIX : "";
        _cleanup_free_ char *from = NULL, *to = NULL;
        if (asprintf(&from, "%s/%s/%s%s", session_dir, dir, name, suffix) < 0 ||
            asprintf(&to, "%s/%s%s", dest, name, suffix) < 0)
            return as_error_make(err, ENOMEM, "out of memory");
        off_t max = list ? ALLOWLIST_FILE_MAX : i % 2 ? 64 : ROUTER_LOG_MAX_BYTES;
        if ((r = copy_file(from, to, max)) < 0)
            return as_error_errno(err, -r, "keeping %s", from);
    }
    prune(base);
    *ret_dest = steal_pointer(&dest);
    return 0;
}

void egress_summary_clear(egress_summary_t *s)
{
    for (size_t i = 0; i < ARRAY_SIZE(s->counts); i++)
        name_counts_free(s->counts[i]);
    free(s->blocked);
    free(s->unresolved);
    free(s->unreachable);
    free(s->refused);
    *s = (egress_summary_t){0};
}

static size_t dropped_lines(const char *dir, const char *log)
{
    _cleanup_free_ char *path = NULL;
    if (asprintf(&path, "%s/%s" LOG_DROPPED_SUFFIX, dir, log) < 0)
        return 0;
    _cleanup_fclose_ FILE *f = fopen(path, "re");
    unsigned long long n = 0;
    if (f == NULL || fscanf(f, "%llu", &n) != 1)
        return 0;
    return (size_t)n;
}

/* A name as the summary counts it: lower case, without a trailing dot. */
static char *normal_name(const char *name)
{
    char *n = strdup(name);
    if (n == NULL)
        return NULL;
    size_t len = strlen(n);
    if (len > 1 && n[len - 1] == '.')
        n[len - 1] = '\0';
    for (char *c = n; *c != '\0'; c++)
        *c = (char)tolower((unsigned char)*c);
    return n;
}

static int count_event(const egress_event_t *e, void *ctx)
{
    egress_summary_t *s = ctx;
    name_counts_t *m = NULL;
    if (e->by != EGRESS_BY_AGENT)      /* the sandbox's own checks, verify's probes */
        return 0;
    if (e->by_rule) {
        s->denied++;
        m = s->counts[3];
    } else if (e->denied) {
        /* a lookup counts once: its A query (AAAA, HTTPS come with it) */
        if (strcmp(e->kind, "dns") == 0 && strcmp(e->qtype, "A") != 0)
            return 0;
        s->denied++;
        m = s->counts[0];
    } else if (strcmp(e->kind, "dns") != 0) {
        s->allowed++;
        m = e->failure == EGRESS_UNRESOLVED ? s->counts[1]
            : e->failure == EGRESS_UNREACHABLE ? s->counts[2] : NULL;
    }
    if (m == NULL || e->name[0] == '\0')     /* refused before a name was read */
        return 0;
    _cleanup_free_ char *name = normal_name(e->name);
    return name != NULL && name_counts_add(m, name, 1, NULL, NULL) == 0 ? 0 : -ENOMEM;
}

int egress_log_summary(const char *dir, egress_summary_t *ret, as_error_t **err)
{
    egress_summary_t s = {0};
    for (size_t i = 0; i < ROUTER_LOG_FILES; i++)
        s.dropped += dropped_lines(dir, router_log_files[i]);
    egress_log_reader_t *r = NULL;
    int rc = 0;
    for (size_t i = 0; i < ARRAY_SIZE(s.counts); i++)
        if ((s.counts[i] = name_counts_new()) == NULL)
            rc = as_error_make(err, ENOMEM, "out of memory");
    if (rc == 0 && (rc = egress_log_open(dir, &r, err)) == 0 &&
        (rc = egress_log_read(r, count_event, &s, err)) == -ENOMEM && *err == NULL)
        rc = as_error_make(err, ENOMEM, "out of memory");
    egress_log_close(r);
    if (rc == 0 && ((rc = name_counts_sorted(s.counts[0], &s.blocked, err)) < 0 ||
                    (rc = name_counts_sorted(s.counts[1], &s.unresolved, err)) < 0 ||
                    (rc = name_counts_sorted(s.counts[2], &s.unreachable, err)) < 0 ||
                    (rc = name_counts_sorted(s.counts[3], &s.refused, err)) < 0))
        rc = -ENOMEM;
    if (rc < 0) {
        egress_summary_clear(&s);
        return rc;
    }
    s.n_blocked = name_counts_len(s.counts[0]);
    s.n_unresolved = name_counts_len(s.counts[1]);
    s.n_unreachable = name_counts_len(s.counts[2]);
    s.n_refused = name_counts_len(s.counts[3]);
    *ret = s;
    return 0;
}
