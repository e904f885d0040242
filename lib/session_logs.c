#include "session_logs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session_dir.h"
#include "session_router.h"
#include "user_dirs.h"
#include "util.h"

static const char *const log_files[] = { "dns.log", "egress.log", "nginx-error.log" };

static int copy_file(const char *from, const char *to)
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
    ssize_t n;
    int r = 0;
    while ((n = read(in, buf, sizeof(buf))) > 0)
        if (write(out, buf, (size_t)n) != n) {
            r = -EIO;
            break;
        }
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

/* Keeps the newest LOGS_KEPT session directories under base. */
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
    closedir(d);
    qsort(items, n, sizeof(items[0]), by_mtime_desc);
    for (size_t i = 0; i < n; i++) {
        if (i >= LOGS_KEPT) {
            _cleanup_free_ char *path = NULL;
            if (asprintf(&path, "%s/%s", base, items[i].name) >= 0)
                remove_tree(path, NULL);
        }
        free(items[i].name);
    }
}

int session_logs_keep(const char *log_dir, const char *id, char **ret_dest, as_error_t **err)
{
    _cleanup_free_ char *state = NULL, *base = NULL, *dest = NULL;
    int r = user_state_dir(&state, err);
    if (r < 0)
        return r;
    if (asprintf(&base, "%s/logs", state) < 0 || asprintf(&dest, "%s/%s", base, id) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    if ((r = user_dir_create(dest, err)) < 0)
        return r;
    for (size_t i = 0; i < ARRAY_SIZE(log_files); i++) {
        _cleanup_free_ char *from = NULL, *to = NULL;
        if (asprintf(&from, "%s/%s", log_dir, log_files[i]) < 0 ||
            asprintf(&to, "%s/%s", dest, log_files[i]) < 0)
            return as_error_make(err, ENOMEM, "out of memory");
        if ((r = copy_file(from, to)) < 0)
            return as_error_errno(err, -r, "keeping %s", from);
    }
    prune(base);
    *ret_dest = steal_pointer(&dest);
    return 0;
}

int egress_log_summary(const char *path, egress_summary_t *ret, as_error_t **err)
{
    _cleanup_fclose_ FILE *f = fopen(path, "re");
    egress_summary_t s = {0};
    if (f == NULL) {
        if (errno != ENOENT)
            return as_error_errno(err, errno, "reading %s", path);
        *ret = s;
        return 0;
    }
    char line[8192];
    while (fgets(line, sizeof(line), f) != NULL) {
        /* the readiness probe's own request is refused by design */
        if (strstr(line, "\"name\":\"" PROBE_DENIED_NAME "\"") != NULL)
            continue;
        if (strstr(line, "\"verdict\":\"allow\"") != NULL)
            s.allowed++;
        else if (strstr(line, "\"verdict\":\"deny\"") != NULL)
            s.denied++;
    }
    *ret = s;
    return 0;
}
