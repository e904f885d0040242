/* The record of the tree before and after the session: the walk of the
 * launch directory, on threads, and what it opens up to look inside.
 * Which entries it records, and as what, workspace_classify.c judges. */
#include "workspace_int.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "git_repo.h"
#include "base/util.h"

/* The walk runs on several threads (a tree of a million files is a
 * million fstatat() calls, which a single thread makes no faster than
 * the kernel answers them): directories to list go on a shared queue, each
 * thread records what it finds in a list of its own, and the lists are
 * merged at the end. */

/* A directory to list: where it is, and what its entries inherit. */
typedef struct dir_job {
    struct dir_job *next;
    char *path;              /* "/" + relative path; "" for the top */
    struct stat st;
    unsigned what;           /* its own W_* (recorded once listed, with W_REPO) */
    unsigned inherited;      /* its W_INHERITED bits */
    int level;               /* of its entries: 0 for the top's */
    bool store;              /* an object store */
    bool in_old_store;       /* ... that existed at the start */
} dir_job_t;

typedef struct shared {
    const workspace_t *ws;
    const workspace_snapshot_t *before;   /* at the end: what was there at the start */
    ws_patterns_t pats;
    int top_fd;
    pthread_mutex_t lock;    /* the rest */
    pthread_cond_t changed;
    dir_job_t *queue;
    size_t busy;             /* jobs being listed */
    int error;               /* the first, which stops the walk */
    workspace_snapshot_t *snap;   /* unexamined, opened, visited */
} shared_t;

typedef struct worker {
    shared_t *sh;
    pthread_t thread;
    ws_item_t *v;
    size_t n, cap, visited;
    char path[PATH_MAX];     /* "/" + relative path of the current entry */
} worker_t;

#define WALK_MAX_THREADS 8

static int record(worker_t *w, int dirfd, const char *name, const char *path, const struct stat *st,
                  unsigned what)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 64;
        ws_item_t *v = realloc(w->v, cap * sizeof(*v));
        if (v == NULL)
            return -ENOMEM;
        w->v = v;
        w->cap = cap;
    }
    ws_item_t it = {
        .what = what, .mode = st->st_mode, .size = st->st_size, .dev = st->st_dev,
        .ino = st->st_ino, .ctim = st->st_ctim, .mtim = st->st_mtim,
    };
    if ((it.rel = strdup(path[0] != '\0' ? path + 1 : ".")) == NULL)
        return -ENOMEM;
    if (S_ISLNK(st->st_mode)) {
        char buf[PATH_MAX];
        ssize_t l = readlinkat(dirfd, name, buf, sizeof(buf) - 1);
        if (l >= 0 && (it.link = strndup(buf, (size_t)l)) == NULL) {
            free(it.rel);
            return -ENOMEM;
        }
    }
    w->v[w->n++] = it;
    return 0;
}

/* An "objects" directory beside a HEAD and refs (or a commondir): an object
 * store, whose two-hex-digit directories hold the loose objects. */
static bool object_store(int dirfd, const char *name)
{
    struct stat st;
    return strcmp(name, "objects") == 0 && fstatat(dirfd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
           (fstatat(dirfd, "refs", &st, AT_SYMLINK_NOFOLLOW) == 0 ||
            fstatat(dirfd, "commondir", &st, AT_SYMLINK_NOFOLLOW) == 0);
}


/* path is left unexamined. */
static int unexamined(shared_t *sh, const char *path, ws_unexamined_why_t why)
{
    int r = 0;
    pthread_mutex_lock(&sh->lock);
    workspace_snapshot_t *s = sh->snap;
    ws_unexamined_t *v = realloc(s->unexamined, (s->n_unexamined + 1) * sizeof(*v));
    if (v == NULL) {
        r = -ENOMEM;
    } else {
        s->unexamined = v;
        if ((v[s->n_unexamined].rel = strdup(path + 1)) == NULL)
            r = -ENOMEM;
        else
            v[s->n_unexamined++].why = why;
        s->incomplete = true;
    }
    pthread_mutex_unlock(&sh->lock);
    return r;
}

/* A directory of ours that we could not read, search or write in (the
 * agent's `chmod 111 .git`): host git needs only to search it, so it is
 * made examinable, and its mode recorded to be put back. */
static int open_up(shared_t *sh, int dirfd, const char *name, const char *path, const struct stat *st)
{
    if ((st->st_mode & 0700) == 0700 || st->st_uid != geteuid())
        return 0;
    if (fchmodat(dirfd, name, (st->st_mode & 07777) | 0700, 0) < 0)
        return 0;                        /* then it is unexamined */
    int r = 0;
    pthread_mutex_lock(&sh->lock);
    workspace_snapshot_t *s = sh->snap;
    ws_opened_t *v = realloc(s->opened, (s->n_opened + 1) * sizeof(*v));
    if (v == NULL) {
        r = -ENOMEM;
    } else {
        s->opened = v;
        if ((v[s->n_opened].rel = strdup(path[0] != '\0' ? path + 1 : ".")) == NULL)
            r = -ENOMEM;
        else
            v[s->n_opened++].mode = st->st_mode & 07777;
    }
    pthread_mutex_unlock(&sh->lock);
    return r;
}


static void job_free(dir_job_t *j)
{
    if (j != NULL)
        free(j->path);
    free(j);
}

static int push(shared_t *sh, dir_job_t *j)
{
    pthread_mutex_lock(&sh->lock);
    j->next = sh->queue;          /* last in, first out: the queue stays short */
    sh->queue = j;
    pthread_cond_signal(&sh->changed);
    pthread_mutex_unlock(&sh->lock);
    return 0;
}

/* The subdirectory `name` of the directory being listed (its path in
 * w->path, len bytes): queued, or unexamined past a limit. The entry
 * itself is recorded by the job that lists it. */
static int queue_dir(worker_t *w, const dir_job_t *parent, int dirfd, const char *name, size_t len,
                     const struct stat *st, unsigned what)
{
    shared_t *sh = w->sh;
    bool store = object_store(dirfd, name);
    /* Loose objects of a store that was there at the start: read-only
     * files, possibly many; the only place the walk does not look. */
    if (parent->in_old_store && ws_loose_objects_dir(name))
        return what != 0 ? record(w, dirfd, name, w->path, st, what) : 0;
    int r = 0;
    if (parent->level >= WALK_MAX_DEPTH)
        r = unexamined(sh, w->path, UNEX_DEPTH);
    else if (len > WALK_PATH_ROOM)
        r = unexamined(sh, w->path, UNEX_LENGTH);
    if (r < 0 || parent->level >= WALK_MAX_DEPTH || len > WALK_PATH_ROOM)
        return r < 0 ? r : what != 0 ? record(w, dirfd, name, w->path, st, what) : 0;
    if ((r = open_up(sh, dirfd, name, w->path, st)) < 0)
        return r;
    dir_job_t *j = calloc(1, sizeof(*j));
    if (j == NULL || (j->path = strndup(w->path, len)) == NULL) {
        job_free(j);
        return -ENOMEM;
    }
    j->st = *st;
    j->what = what;
    j->inherited = what & W_INHERITED;
    j->level = parent->level + 1;
    j->store = store;
    j->in_old_store = store && ws_store_existed(sh->before, w->path, st);
    return push(sh, j);
}

/* One entry of the directory being listed. */
static int visit(worker_t *w, const dir_job_t *job, int dirfd, const struct dirent *e, unsigned *git_flags)
{
    const char *name = e->d_name;
    size_t dl = strlen(job->path), nl = strlen(name), len = dl + 1 + nl;
    w->path[dl] = '/';
    memcpy(w->path + dl + 1, name, nl + 1);   /* fits: queue_dir() kept WALK_PATH_ROOM */
    *git_flags |= git_dir_entry_flag(name);
    unsigned what = ws_classify_name(&w->sh->pats, w->path, len, job->inherited);
    /* at the start, a plain file of no interest by its name: nothing to
     * record (see `started`) */
    if (w->sh->before == NULL && e->d_type == DT_REG && what == 0)
        return 0;
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        /* gone meanwhile, or in a directory we may list but not search */
        return errno == ENOENT ? 0 : unexamined(w->sh, w->path, UNEX_CLOSED);
    if (w->sh->before == NULL && ws_placeholder_ours(w->sh->ws, &st))
        return 0;
    what |= ws_classify_type(&st);
    if (S_ISDIR(st.st_mode))
        return queue_dir(w, job, dirfd, name, len, &st, what);
    return what != 0 ? record(w, dirfd, name, w->path, &st, what) : 0;
}

static int open_job(const shared_t *sh, const dir_job_t *job)
{
    if (job->path[0] == '\0')
        return fcntl(sh->top_fd, F_DUPFD_CLOEXEC, 0);
    return openat(sh->top_fd, job->path + 1, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Lists one directory, then records it (W_REPO when git could take it
 * for a git directory). */
static int list_dir(worker_t *w, const dir_job_t *job)
{
    shared_t *sh = w->sh;
    int fd = open_job(sh, job), r = 0;
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        bool searchable = faccessat(sh->top_fd, job->path + 1, X_OK, AT_EACCESS) == 0;
        r = unexamined(sh, job->path, searchable ? UNEX_CLOSED : UNEX_CLOSED_TO_ALL);
        return r < 0 ? r : job->what != 0 ? record(w, AT_FDCWD, "", job->path, &job->st, job->what) : 0;
    }
    DIR *d = fdopendir(fd);
    if (d == NULL) {
        close(fd);
        return -ENOMEM;
    }
    unsigned git_flags = 0;
    struct dirent *e;
    memcpy(w->path, job->path, strlen(job->path) + 1);   /* the entries' paths start with it */
    errno = 0;
    while (r == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            w->visited++;
            r = visit(w, job, dirfd(d), e, &git_flags);
        }
        errno = 0;
    }
    int read_error = r == 0 ? errno : 0;
    closedir(d);
    /* a listing cut short hides the rest of the directory */
    if (read_error != 0)
        r = read_error == ENOMEM ? -ENOMEM : unexamined(sh, job->path, UNEX_CLOSED);
    unsigned what = job->what | (job->store ? W_OBJSTORE : 0) | (git_dir_shaped(git_flags) ? W_REPO : 0);
    if (job->path[0] == '\0')
        what &= W_REPO;                  /* the top: only as a repository */
    if (r == 0 && what != 0)
        r = record(w, AT_FDCWD, "", job->path, &job->st, what);
    return r;
}

static void *worker_main(void *arg)
{
    worker_t *w = arg;
    shared_t *sh = w->sh;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);    /* signals are the main thread's */
    pthread_mutex_lock(&sh->lock);
    for (;;) {
        while (sh->queue == NULL && sh->busy > 0 && sh->error == 0)
            pthread_cond_wait(&sh->changed, &sh->lock);
        if (sh->queue == NULL || sh->error != 0)
            break;
        dir_job_t *job = sh->queue;
        sh->queue = job->next;
        sh->busy++;
        pthread_mutex_unlock(&sh->lock);
        int r = list_dir(w, job);
        job_free(job);
        pthread_mutex_lock(&sh->lock);
        sh->busy--;
        if (r < 0 && sh->error == 0)
            sh->error = r;
        if ((sh->queue == NULL && sh->busy == 0) || sh->error != 0)
            pthread_cond_broadcast(&sh->changed);
    }
    pthread_cond_broadcast(&sh->changed);
    pthread_mutex_unlock(&sh->lock);
    return NULL;
}

static size_t walk_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > WALK_MAX_THREADS ? WALK_MAX_THREADS : (size_t)n;
}

/* The workers' lists, into the snapshot. */
static int merge(workspace_snapshot_t *s, worker_t *ws, size_t n)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += ws[i].n;
    int r = 0;
    if (total > 0 && (s->v = malloc(total * sizeof(*s->v))) == NULL)
        r = -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (r == 0 && ws[i].n > 0) {
            memcpy(s->v + s->n, ws[i].v, ws[i].n * sizeof(*s->v));
            s->n += ws[i].n;
        } else if (r < 0) {
            for (size_t k = 0; k < ws[i].n; k++) {
                free(ws[i].v[k].rel);
                free(ws[i].v[k].link);
            }
        }
        s->visited += ws[i].visited;
        free(ws[i].v);
    }
    s->cap = s->n;
    return r;
}

/* Every directory from the top, on walk_threads() threads. */
static int walk_all(shared_t *sh, dir_job_t *top)
{
    size_t n = walk_threads(), started = 0;
    worker_t *w = calloc(n, sizeof(*w));
    if (w == NULL) {
        job_free(top);
        return -ENOMEM;
    }
    sh->queue = top;
    for (; started < n; started++) {
        w[started].sh = sh;
        if (pthread_create(&w[started].thread, NULL, worker_main, &w[started]) != 0)
            break;
    }
    for (size_t i = 0; i < started; i++)
        pthread_join(w[i].thread, NULL);
    if (started == 0) {
        w[0].sh = sh;                    /* no thread at all: this one walks */
        worker_main(&w[started++]);
    }
    for (dir_job_t *j; (j = sh->queue) != NULL;) {
        sh->queue = j->next;
        job_free(j);
    }
    int m = merge(sh->snap, w, started);
    free(w);
    return sh->error < 0 ? sh->error : m;
}


/* The launch directory itself: opened up like any other (the agent can
 * chmod the mount point), then walked. */
static int walk_top(shared_t *sh)
{
    const workspace_t *ws = sh->ws;
    struct stat st;
    if (lstat(ws->launch_dir, &st) < 0)
        return -errno;
    int r = open_up(sh, AT_FDCWD, ws->launch_dir, "", &st);
    if (r < 0)
        return r;
    if ((sh->top_fd = open(ws->launch_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return -errno;
    dir_job_t *top = calloc(1, sizeof(*top));
    if (top == NULL || (top->path = strdup("")) == NULL) {
        job_free(top);
        r = -ENOMEM;
    } else {
        top->st = st;
        r = walk_all(sh, top);
    }
    close(sh->top_fd);
    return r;
}

int ws_snapshot_take(const workspace_t *ws, const workspace_snapshot_t *before, workspace_snapshot_t **ret,
                     as_error_t **err)
{
    shared_t sh = { .ws = ws, .before = before, .top_fd = -1 };
    int r = ws_patterns_build(ws, &sh.pats, err);
    if (r < 0)
        return r;
    sh.snap = calloc(1, sizeof(*sh.snap));
    if (sh.snap == NULL) {
        ws_patterns_clear(&sh.pats);
        return ws_oom(err);
    }
    if (before == NULL)
        clock_gettime(CLOCK_REALTIME_COARSE, &sh.snap->started);
    pthread_mutex_init(&sh.lock, NULL);
    pthread_cond_init(&sh.changed, NULL);
    r = walk_top(&sh);
    pthread_cond_destroy(&sh.changed);
    pthread_mutex_destroy(&sh.lock);
    ws_patterns_clear(&sh.pats);
    if (before == NULL || r < 0)
        ws_snapshot_restore_modes(ws, sh.snap);
    if (r < 0) {
        ws_snapshot_free(sh.snap);
        return r == -ENOMEM ? ws_oom(err) : as_error_errno(err, -r, "cannot read %s", ws->launch_dir);
    }
    ws_snapshot_sort(sh.snap);
    *ret = sh.snap;
    return 0;
}

static int deeper_first(const void *a, const void *b)
{
    size_t x = ws_depth(((const ws_opened_t *)a)->rel), y = ws_depth(((const ws_opened_t *)b)->rel);
    return x < y ? 1 : x > y ? -1 : 0;
}

void ws_snapshot_restore_modes(const workspace_t *ws, workspace_snapshot_t *s)
{
    /* children first: a parent put back to 0 first would close them off */
    if (s->n_opened > 1)
        qsort(s->opened, s->n_opened, sizeof(*s->opened), deeper_first);
    for (size_t i = 0; i < s->n_opened; i++) {
        _cleanup_free_ char *abs = NULL;
        struct stat st;
        if (strcmp(s->opened[i].rel, ".") == 0 ? (abs = strdup(ws->launch_dir)) != NULL
                                               : asprintf(&abs, "%s/%s", ws->launch_dir, s->opened[i].rel) >= 0) {
            if (lstat(abs, &st) == 0 && S_ISDIR(st.st_mode))
                (void)chmod(abs, s->opened[i].mode);
        }
        free(s->opened[i].rel);
    }
    free(s->opened);
    s->opened = NULL;
    s->n_opened = 0;
}

