/* The end-of-session check, across a CLI that never reached it. A session
 * whose CLI is killed (kill -9, a crash, the machine going down) would leave
 * whatever its agent planted (a repository, a tool config, a link out of the
 * tree) for host tools to obey, unreported: the before-state lived in that
 * CLI's memory. So workspace_begin's record is also written to a journal in
 * the user's state directory, which the agent never sees, and held under a
 * lock for the session's life. A later CLI that finds a journal whose lock is
 * free, once that session's containers are gone, runs the check the dead one
 * could not, against that record, and removes the journal.
 *
 * Format: a first line "agent-sandbox-journal 1", then records, one a line:
 * a kind letter and its fields, each field a netstring ("<len>:<bytes>,"),
 * so that any byte of a file name survives. "E" ends a complete journal. */
#include "workspace_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_read.h"
#include "base/paths.h"
#include "base/file_write.h"
#include "base/util.h"

#define JOURNAL_MAGIC "agent-sandbox-journal 1\n"
#define JOURNAL_MAX   (64 * 1024 * 1024)
#define MAX_FIELDS    10

/* ---- writing ----------------------------------------------------------- */

static void put_field(FILE *f, const char *s, size_t n)
{
    fprintf(f, "%zu:", n);
    fwrite(s, 1, n, f);
    fputc(',', f);
}

static void put_str(FILE *f, const char *s)
{
    put_field(f, s != NULL ? s : "", s != NULL ? strlen(s) : 0);
}

static void put_num(FILE *f, unsigned long long v)
{
    char buf[32];
    put_field(f, buf, (size_t)snprintf(buf, sizeof(buf), "%llu", v));
}

static void put_item(FILE *f, const ws_item_t *it)
{
    fputc('I', f);
    put_str(f, it->rel);
    put_num(f, it->what);
    put_num(f, it->mode);
    put_num(f, (unsigned long long)it->size);
    put_num(f, it->dev);
    put_num(f, it->ino);
    put_num(f, (unsigned long long)it->ctim.tv_sec);
    put_num(f, (unsigned long long)it->ctim.tv_nsec);
    put_str(f, it->link != NULL ? "L" : "-");    /* a link target may be empty */
    put_str(f, it->link);
    fputc('\n', f);
}

static void put_journal(FILE *f, const workspace_t *ws, const char *user_file)
{
    fputs(JOURNAL_MAGIC, f);
    fputc('D', f), put_str(f, ws->launch_dir), fputc('\n', f);
    fputc('H', f), put_str(f, ws->home), fputc('\n', f);
    fputc('U', f), put_str(f, user_file), fputc('\n', f);
    for (size_t i = 0; i < ws->n_links; i++) {
        fputc('L', f);
        put_str(f, ws->links[i].rel);
        put_str(f, ws->links[i].target);
        put_str(f, ws->links[i].leads_to);
        fputc('\n', f);
    }
    for (size_t i = 0; i < ws->n_mounts; i++) {
        const workspace_mount_t *m = &ws->mounts[i];
        if (!m->created)
            continue;
        fputc('P', f);
        put_str(f, m->path);
        put_num(f, m->dir);
        put_num(f, m->dev);
        put_num(f, m->ino);
        fputc('\n', f);
    }
    const workspace_snapshot_t *s = ws->before;
    fputc('S', f), put_num(f, s->visited), put_num(f, s->incomplete);
    put_num(f, (unsigned long long)s->started.tv_sec), put_num(f, (unsigned long long)s->started.tv_nsec);
    fputc('\n', f);
    for (size_t i = 0; i < s->n; i++)
        put_item(f, &s->v[i]);
    fputs("E\n", f);
}

static int journal_path(const char *dir, const char *id, const char *suffix, char **ret)
{
    return asprintf(ret, "%s/%s%s", dir, id, suffix) < 0 ? -ENOMEM : 0;
}

int workspace_journal_begin(const workspace_t *ws, const char *user_file, const char *dir,
                            const char *id, int *ret_fd, as_error_t **err)
{
    if (ws->before == NULL)
        return as_error_make(err, EINVAL, "internal error: a journal before workspace_begin");
    _cleanup_free_ char *tmp = NULL, *path = NULL;
    if (journal_path(dir, id, ".new", &tmp) < 0 || journal_path(dir, id, "", &path) < 0)
        return ws_oom(err);
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return as_error_errno(err, errno, "creating %s", dir);
    int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return as_error_errno(err, errno, "creating %s", tmp);
    FILE *f = NULL;
    int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (flock(fd, LOCK_EX | LOCK_NB) < 0 || dup_fd < 0 || (f = fdopen(dup_fd, "w")) == NULL) {
        int e = errno;
        if (dup_fd >= 0 && f == NULL)
            close(dup_fd);
        close(fd);
        unlink(tmp);
        return as_error_errno(err, e, "writing %s", tmp);
    }
    put_journal(f, ws, user_file);
    bool bad = fflush(f) != 0 || ferror(f) != 0;
    int e = errno;
    bad = fclose(f) != 0 || bad;
    if (bad) {
        close(fd);
        unlink(tmp);
        return as_error_errno(err, e, "writing the session's journal %s", path);
    }
    /* renamed whole and durable: a reader never sees a half-written journal */
    int r = file_commit(fd, tmp, path, err);
    if (r < 0) {
        close(fd);
        return as_error_prefix(err, "writing the session's journal");
    }
    *ret_fd = fd;
    return 0;
}

void workspace_journal_end(int fd, const char *dir, const char *id)
{
    _cleanup_free_ char *path = NULL;
    if (fd < 0)
        return;
    if (journal_path(dir, id, "", &path) == 0)
        unlink(path);
    close(fd);
}

/* ---- reading ----------------------------------------------------------- */

typedef struct reader {
    const char *p, *end;
} reader_t;

typedef struct field {
    const char *s;
    size_t n;
} field_t;

/* One record: its kind and up to MAX_FIELDS fields; false when malformed. */
static bool next_record(reader_t *r, char *ret_kind, field_t *f, size_t *ret_n)
{
    if (r->p >= r->end)
        return false;
    *ret_kind = *r->p++;
    size_t n = 0;
    while (r->p < r->end && *r->p != '\n') {
        char *colon = NULL;
        errno = 0;
        unsigned long long len = strtoull(r->p, &colon, 10);
        if (n == MAX_FIELDS || errno != 0 || colon == r->p || colon >= r->end || *colon != ':' ||
            len > (unsigned long long)(r->end - colon - 1) - 1 || colon[1 + len] != ',')
            return false;
        f[n++] = (field_t){ colon + 1, (size_t)len };
        r->p = colon + 2 + len;
    }
    if (r->p >= r->end)
        return false;
    r->p++;
    *ret_n = n;
    return true;
}

static char *field_dup(const field_t *f)
{
    return memchr(f->s, '\0', f->n) != NULL ? NULL : strndup(f->s, f->n);
}

static bool field_num(const field_t *f, unsigned long long *ret)
{
    char buf[32];
    if (f->n == 0 || f->n >= sizeof(buf) || strspn(f->s, "0123456789") < f->n)
        return false;
    memcpy(buf, f->s, f->n);
    buf[f->n] = '\0';
    errno = 0;
    *ret = strtoull(buf, NULL, 10);
    return errno == 0;
}

typedef struct journal {
    char *launch_dir, *home, *user_file;
    workspace_link_t *links;
    size_t n_links;
    workspace_mount_t *placeholders;
    size_t n_placeholders;
    workspace_snapshot_t *snap;
} journal_t;

static void journal_clear(journal_t *j)
{
    free(j->launch_dir);
    free(j->home);
    free(j->user_file);
    for (size_t i = 0; i < j->n_links; i++) {
        free(j->links[i].rel);
        free(j->links[i].target);
        free(j->links[i].leads_to);
    }
    free(j->links);
    for (size_t i = 0; i < j->n_placeholders; i++) {
        free(j->placeholders[i].path);
        free(j->placeholders[i].rel);
    }
    free(j->placeholders);
    ws_snapshot_free(j->snap);
    memset(j, 0, sizeof(*j));
}

static bool add_link(journal_t *j, const field_t *f, size_t n)
{
    workspace_link_t *v = realloc(j->links, (j->n_links + 1) * sizeof(*v));
    if (n != 3 || v == NULL)
        return false;
    j->links = v;
    workspace_link_t l = { field_dup(&f[0]), field_dup(&f[1]), field_dup(&f[2]) };
    v[j->n_links++] = l;
    return l.rel != NULL && l.target != NULL && l.leads_to != NULL;
}

static bool add_placeholder(journal_t *j, const field_t *f, size_t n)
{
    unsigned long long dir, dev, ino;
    workspace_mount_t *v = realloc(j->placeholders, (j->n_placeholders + 1) * sizeof(*v));
    if (v == NULL)
        return false;
    j->placeholders = v;
    workspace_mount_t m = { .kind = WORKSPACE_READ_ONLY, .placeholder = true, .created = true };
    v[j->n_placeholders++] = m;
    if (n != 4 || !field_num(&f[1], &dir) || !field_num(&f[2], &dev) || !field_num(&f[3], &ino))
        return false;
    v[j->n_placeholders - 1].path = field_dup(&f[0]);
    v[j->n_placeholders - 1].dir = dir != 0;
    v[j->n_placeholders - 1].dev = dev;
    v[j->n_placeholders - 1].ino = ino;
    return v[j->n_placeholders - 1].path != NULL;
}

static bool add_item(workspace_snapshot_t *s, const field_t *f, size_t n)
{
    unsigned long long num[7];
    if (n != 10 || f[8].n != 1 || (f[8].s[0] != 'L' && f[8].s[0] != '-'))
        return false;
    for (size_t i = 0; i < 7; i++)
        if (!field_num(&f[1 + i], &num[i]))
            return false;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        ws_item_t *v = realloc(s->v, cap * sizeof(*v));
        if (v == NULL)
            return false;
        s->v = v;
        s->cap = cap;
    }
    ws_item_t it = {
        .rel = field_dup(&f[0]), .what = (unsigned)num[0], .mode = (mode_t)num[1],
        .size = (off_t)num[2], .dev = (dev_t)num[3], .ino = (ino_t)num[4],
        .ctim = { .tv_sec = (time_t)num[5], .tv_nsec = (long)num[6] },
        .link = f[8].s[0] == 'L' ? field_dup(&f[9]) : NULL,
    };
    if (it.rel == NULL || (f[8].s[0] == 'L' && it.link == NULL)) {
        free(it.rel);
        free(it.link);
        return false;
    }
    s->v[s->n++] = it;
    return true;
}

static bool add_record(journal_t *j, char kind, const field_t *f, size_t n)
{
    unsigned long long visited, incomplete, sec = 0, nsec = 0;
    switch (kind) {
    case 'D': return n == 1 && j->launch_dir == NULL && (j->launch_dir = field_dup(&f[0])) != NULL;
    case 'H': return n == 1 && j->home == NULL && (j->home = field_dup(&f[0])) != NULL;
    case 'U': return n == 1 && j->user_file == NULL && (j->user_file = field_dup(&f[0])) != NULL;
    case 'L': return add_link(j, f, n);
    case 'P': return add_placeholder(j, f, n);
    case 'S':
        /* visited, incomplete, and (since the walk skips plain files at the
         * start) when it started; without it, every executable is news */
        if ((n != 2 && n != 4) || j->snap != NULL || !field_num(&f[0], &visited) ||
            !field_num(&f[1], &incomplete) || (n == 4 && (!field_num(&f[2], &sec) || !field_num(&f[3], &nsec))) ||
            (j->snap = calloc(1, sizeof(*j->snap))) == NULL)
            return false;
        j->snap->visited = visited;
        j->snap->incomplete = incomplete != 0;
        j->snap->started = (struct timespec){ (time_t)sec, (long)(nsec % 1000000000ULL) };
        return true;
    case 'I': return j->snap != NULL && add_item(j->snap, f, n);
    default:  return false;
    }
}

/* Parses a whole journal; false when it is not one, or incomplete. */
static bool journal_parse(const char *text, size_t len, journal_t *ret)
{
    size_t magic = strlen(JOURNAL_MAGIC);
    if (len < magic || memcmp(text, JOURNAL_MAGIC, magic) != 0)
        return false;
    reader_t r = { text + magic, text + len };
    journal_t j = { 0 };
    field_t f[MAX_FIELDS];
    size_t n = 0;
    char kind = 0;
    bool ended = false;
    while (!ended && next_record(&r, &kind, f, &n)) {
        if (kind == 'E' && n == 0)
            ended = true;
        else if (!add_record(&j, kind, f, n))
            break;
    }
    if (!ended || r.p != r.end || j.launch_dir == NULL || j.home == NULL || j.user_file == NULL ||
        j.snap == NULL || j.launch_dir[0] != '/' || j.home[0] != '/' || j.user_file[0] != '/') {
        journal_clear(&j);
        return false;
    }
    *ret = j;
    return true;
}

/* ---- recovery ---------------------------------------------------------- */

/* The journal's record in place of what a fresh plan found: the links and
 * placeholders as they were at the start, and the before-state. */
static int adopt(workspace_t *ws, journal_t *j, as_error_t **err)
{
    for (size_t i = 0; i < ws->n_links; i++) {
        free(ws->links[i].rel);
        free(ws->links[i].target);
        free(ws->links[i].leads_to);
    }
    free(ws->links);
    ws->links = steal_pointer(&j->links);
    ws->n_links = j->n_links;
    j->n_links = 0;
    for (size_t i = 0; i < j->n_placeholders; i++) {
        workspace_mount_t *p = &j->placeholders[i];
        if (!path_is_inside(p->path, ws->launch_dir))
            continue;
        workspace_mount_t *v = realloc(ws->mounts, (ws->n_mounts + 1) * sizeof(*v));
        if (v == NULL)
            return ws_oom(err);
        ws->mounts = v;
        size_t skip = strlen(ws->launch_dir) + (strcmp(ws->launch_dir, "/") == 0 ? 0 : 1);
        if ((p->rel = strdup(p->path + skip)) == NULL)
            return ws_oom(err);
        v[ws->n_mounts++] = *p;
        p->path = p->rel = NULL;
    }
    ws->before = steal_pointer(&j->snap);
    return 0;
}

/* The check the dead session could not run; *ret_report, *ret_whole as
 * workspace_end. */
static int recover_one(journal_t *j, const char *host_path, char **ret_report, char **ret_whole,
                       as_error_t **err)
{
    _cleanup_(workspace_freep) workspace_t *ws = NULL;
    int r = workspace_load(j->launch_dir, j->home, j->user_file, &ws, err);
    if (r == 0)
        r = workspace_host_path(ws, host_path, err);
    if (r == 0)
        r = ws_lock_tree(ws, err);
    if (r == 0)
        r = adopt(ws, j, err);
    if (r == 0)
        r = workspace_end(ws, true, ret_report, ret_whole, err);
    return r;
}

static bool is_journal_name(const char *name)
{
    return name[0] != '.' && strlen(name) < 64 && strspn(name, "0123456789abcdef") == strlen(name);
}

/* One journal file: skipped while its session lives (lock held) or its
 * containers are not gone yet; checked and removed otherwise. A check that
 * fails keeps the journal, for the next CLI to try again. */
static int recover_file(int dir_fd, const char *name, const workspace_recovery_t *rc, as_error_t **err)
{
    _cleanup_close_ int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0)
        return 0;                         /* gone meanwhile, or its session still runs */
    if (rc->is_gone != NULL && !rc->is_gone(rc->ctx, name))
        return 0;
    char *text = NULL;
    size_t len = 0;
    as_error_t *read_err = NULL;
    int r = config_file_read(dir_fd, name, CONFIG_NOFOLLOW, JOURNAL_MAX, &text, &len, &read_err);
    as_error_free(&read_err);
    journal_t j = { 0 };
    bool parsed = r == 0 && journal_parse(text, len, &j);
    free(text);
    struct stat st;
    char *report_text = NULL, *whole = NULL;
    r = 0;
    if (parsed && stat(j.launch_dir, &st) == 0 && S_ISDIR(st.st_mode))
        r = recover_one(&j, rc->host_path, &report_text, &whole, err);
    if (r == 0) {
        if (rc->on_report != NULL)
            rc->on_report(rc->ctx, name, parsed ? j.launch_dir : NULL, report_text, whole);
        unlinkat(dir_fd, name, 0);
    }
    free(report_text);
    free(whole);
    journal_clear(&j);
    return r;
}

int workspace_journal_recover(const char *dir, const workspace_recovery_t *rc, as_error_t **err)
{
    _cleanup_close_ int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0)
        return errno == ENOENT ? 0 : as_error_errno(err, errno, "reading %s", dir);
    int list_fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
    DIR *d = list_fd >= 0 ? fdopendir(list_fd) : NULL;
    if (d == NULL) {
        int e = errno;
        if (list_fd >= 0)
            close(list_fd);     /* fdopendir took it only on success */
        return as_error_errno(err, e, "reading %s", dir);
    }
    int first = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!is_journal_name(e->d_name))
            continue;
        as_error_t *one = NULL;
        int r = recover_file(dir_fd, e->d_name, rc, &one);
        if (r < 0 && one != NULL && one->code == WORKSPACE_EBUSY) {
            as_error_free(&one);   /* a session runs in that tree now: later */
            continue;
        }
        if (r < 0 && first == 0) {
            first = r;
            *err = one;
            one = NULL;
        }
        as_error_free(&one);
    }
    closedir(d);
    return first;
}

bool workspace_journal_pending(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return errno != ENOENT;          /* cannot tell: say so, the caller checks */
    bool pending = false;
    struct dirent *e;
    while (!pending && (e = readdir(d)) != NULL) {
        if (!is_journal_name(e->d_name))
            continue;
        _cleanup_close_ int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        /* the lock is let go with the descriptor */
        pending = fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0;
    }
    closedir(d);
    return pending;
}
