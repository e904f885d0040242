#include "review_store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/file_read.h"
#include "base/file_write.h"
#include "base/util.h"
#include "base/user_dirs.h"

#define REVIEW_ID_LEN 12
#define META_MAX (64 * 1024)

bool review_id_valid(const char *s)
{
    size_t n = 0;
    for (; s[n] != '\0'; n++)
        if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
            return false;
    return n == REVIEW_ID_LEN;
}

void review_info_clear(review_info_t *r)
{
    if (r == NULL)
        return;
    free(r->id);
    free(r->root);
    free(r->dir);
    free(r->upper);
    free(r->image);
    *r = (review_info_t){ 0 };
}

void review_list_free(review_info_t *v, size_t n)
{
    for (size_t i = 0; v != NULL && i < n; i++)
        review_info_clear(&v[i]);
    free(v);
}

int review_store_dir(char **ret, as_error_t **err)
{
    _cleanup_free_ char *state = NULL;
    int r = user_state_dir(&state, err);
    if (r < 0)
        return r;
    if (asprintf(ret, "%s/reviews", state) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    return 0;
}

char *review_meta_format(const review_info_t *r)
{
    char *text = NULL, ended[40] = "", image_line[8 + PATH_MAX] = "";
    if (r->ended_ns > 0)
        snprintf(ended, sizeof(ended), "ended %" PRId64 "\n", r->ended_ns);
    if (r->image != NULL && snprintf(image_line, sizeof(image_line), "image %s\n", r->image) >= (int)sizeof(image_line))
        return NULL;
    int n = asprintf(&text, "session %s\nroot %s\nstarted %" PRId64 "\n%s%s", r->id, r->root, r->started_ns, ended,
                     image_line);
    return n < 0 ? NULL : text;
}

static int parse_ns(const char *v, int64_t *ret)
{
    if (*v < '0' || *v > '9')
        return -EINVAL;
    char *end = NULL;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno != 0 || *end != '\0' || n <= 0)
        return -EINVAL;
    *ret = n;
    return 0;
}

/* One "key value" line into r; -EINVAL with the reason in *why. */
static int meta_line(char *line, review_info_t *r, const char **why)
{
    char *value = strchr(line, ' ');
    if (value == NULL) {
        *why = "no value";
        return -EINVAL;
    }
    *value++ = '\0';
    if (strcmp(line, "root") == 0 && r->root == NULL && value[0] == '/')
        return (r->root = strdup(value)) ? 0 : -ENOMEM;
    if (strcmp(line, "session") == 0 && r->id == NULL && review_id_valid(value))
        return (r->id = strdup(value)) ? 0 : -ENOMEM;
    if (strcmp(line, "started") == 0 && r->started_ns == 0)
        return parse_ns(value, &r->started_ns) == 0 ? 0 : (*why = "not a time in ns", -EINVAL);
    if (strcmp(line, "image") == 0 && r->image == NULL && value[0] != '\0')
        return (r->image = strdup(value)) ? 0 : -ENOMEM;
    if (strcmp(line, "ended") == 0 && r->ended_ns == 0)
        return parse_ns(value, &r->ended_ns) == 0 ? 0 : (*why = "not a time in ns", -EINVAL);
    *why = "an unknown key, a repeated one or a bad value";
    return -EINVAL;
}

int review_meta_parse(const char *text, const char *file, const char *id, review_info_t *ret,
                      as_error_t **err)
{
    _cleanup_(review_info_clear) review_info_t r = { 0 };
    _cleanup_free_ char *copy = strdup(text);
    if (copy == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    unsigned line_no = 0;
    char *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        line_no++;
        const char *why = NULL;
        int k = meta_line(line, &r, &why);
        if (k == -ENOMEM)
            return as_error_make(err, ENOMEM, "out of memory");
        if (k < 0)
            return as_error_make(err, EINVAL, "%s:%u: %s", file, line_no, why);
    }
    if (r.root == NULL || r.id == NULL || r.started_ns == 0)
        return as_error_make(err, EINVAL, "%s: it lacks one of root, session, started", file);
    if (strcmp(r.id, id) != 0)
        return as_error_make(err, EINVAL, "%s: its session is %s, not %s", file, r.id, id);
    *ret = r;
    r = (review_info_t){ 0 };
    return 0;
}

/* reviews/<id>: its meta read and checked, its paths filled in. */
static int load_exact(const char *store, const char *id, review_info_t *ret, as_error_t **err)
{
    _cleanup_free_ char *dir = NULL, *meta = NULL, *text = NULL;
    if (asprintf(&dir, "%s/%s", store, id) < 0 || asprintf(&meta, "%s/meta", dir) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    size_t len = 0;
    int r = config_file_read(AT_FDCWD, meta, CONFIG_NOFOLLOW, META_MAX, &text, &len, err);
    if (r < 0)
        return config_error_name(err, "review ", meta);
    _cleanup_(review_info_clear) review_info_t info = { 0 };
    if ((r = review_meta_parse(text, meta, id, &info, err)) < 0)
        return r;
    if (asprintf(&info.upper, "%s/upper", dir) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    info.dir = steal_pointer(&dir);
    *ret = info;
    info = (review_info_t){ 0 };
    return 0;
}

/* The IDs under reviews/ (names that are no ID are not ours: left alone). */
static int list_ids(const char *store, char ***ret, size_t *ret_n, as_error_t **err)
{
    DIR *d = opendir(store);
    if (d == NULL) {
        if (errno == ENOENT) {
            *ret = NULL;
            *ret_n = 0;
            return 0;
        }
        return as_error_errno(err, errno, "reading %s", store);
    }
    char **ids = NULL;
    size_t n = 0;
    struct dirent *e;
    int r = 0;
    while ((e = readdir(d)) != NULL) {
        if (!review_id_valid(e->d_name))
            continue;
        char **more = realloc(ids, (n + 1) * sizeof(*ids));
        if (more == NULL || (more[n] = strdup(e->d_name)) == NULL) {
            ids = more ? more : ids;
            r = as_error_make(err, ENOMEM, "out of memory");
            break;
        }
        ids = more;
        n++;
    }
    closedir(d);
    if (r < 0) {
        for (size_t i = 0; i < n; i++)
            free(ids[i]);
        free(ids);
        return r;
    }
    *ret = ids;
    *ret_n = n;
    return 0;
}

static void ids_free(char **ids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
}

int review_store_load(const char *id_or_prefix, review_info_t *ret, as_error_t **err)
{
    size_t plen = strlen(id_or_prefix);
    bool hex = plen > 0 && plen <= REVIEW_ID_LEN;
    for (size_t i = 0; hex && i < plen; i++)
        hex = (id_or_prefix[i] >= '0' && id_or_prefix[i] <= '9') ||
              (id_or_prefix[i] >= 'a' && id_or_prefix[i] <= 'f');
    if (!hex) {
        _cleanup_free_ char *shown = path_escaped(id_or_prefix);
        return as_error_make(err, EINVAL, "'%s' is no review ID (12 lower-case hex digits, or a prefix of them)",
                             shown ? shown : "?");
    }
    _cleanup_free_ char *store = NULL;
    char **ids = NULL;
    size_t n = 0, hits = 0;
    const char *hit = NULL;
    int r = review_store_dir(&store, err);
    if (r < 0 || (r = list_ids(store, &ids, &n, err)) < 0)
        return r;
    for (size_t i = 0; i < n; i++)
        if (strncmp(ids[i], id_or_prefix, plen) == 0) {
            hits++;
            hit = ids[i];
        }
    if (hits == 0)
        r = as_error_make(err, ENOENT, "no review %s (agent-sandbox reviews lists them)", id_or_prefix);
    else if (hits > 1)
        r = as_error_make(err, EINVAL, "%s is the start of %zu reviews' IDs: give more of it", id_or_prefix, hits);
    else
        r = load_exact(store, hit, ret, err);
    ids_free(ids, n);
    return r;
}

static int by_started(const void *a, const void *b)
{
    const review_info_t *x = a, *y = b;
    if (x->started_ns != y->started_ns)
        return x->started_ns < y->started_ns ? -1 : 1;
    return strcmp(x->id, y->id);
}

int review_store_list(review_info_t **ret, size_t *ret_n, as_error_t **err)
{
    _cleanup_free_ char *store = NULL;
    char **ids = NULL;
    size_t n = 0;
    int r = review_store_dir(&store, err);
    if (r < 0 || (r = list_ids(store, &ids, &n, err)) < 0)
        return r;
    review_info_t *v = calloc(n ? n : 1, sizeof(*v));
    if (v == NULL)
        r = as_error_make(err, ENOMEM, "out of memory");
    for (size_t i = 0; r == 0 && i < n; i++)
        r = load_exact(store, ids[i], &v[i], err);
    ids_free(ids, n);
    if (r < 0) {
        review_list_free(v, n);
        return r;
    }
    qsort(v, n, sizeof(*v), by_started);
    *ret = v;
    *ret_n = n;
    return 0;
}

int review_store_latest_for_root(const char *root, review_info_t *ret, as_error_t **err)
{
    review_info_t *v = NULL;
    size_t n = 0;
    int r = review_store_list(&v, &n, err);
    if (r < 0)
        return r;
    ssize_t newest = -1;
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].root, root) == 0)
            newest = (ssize_t)i;          /* oldest first: the last one wins */
    if (newest < 0) {
        review_list_free(v, n);
        _cleanup_free_ char *shown = path_escaped(root);
        return as_error_make(err, ENOENT, "no review of %s (agent-sandbox reviews lists them)",
                             shown ? shown : "?");
    }
    *ret = v[newest];
    v[newest] = (review_info_t){ 0 };
    review_list_free(v, n);
    return 0;
}

static int write_meta(review_info_t *r, as_error_t **err)
{
    _cleanup_free_ char *text = review_meta_format(r);
    if (text == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    return file_write_atomic(r->dir, "meta", text, 0600, err);
}

int review_store_create(const char *id, const char *root, const char *image, int64_t started_ns,
                        review_info_t *ret, as_error_t **err)
{
    if (!review_id_valid(id) || root[0] != '/' || strchr(root, '\n') != NULL || started_ns <= 0 ||
        (image != NULL && (image[0] == '\0' || strchr(image, '\n') != NULL)))
        return as_error_make(err, EINVAL, "a review needs a session ID, an absolute root without a newline and a start time");
    _cleanup_free_ char *store = NULL;
    _cleanup_(review_info_clear) review_info_t info = { .started_ns = started_ns };
    _cleanup_free_ char *work = NULL;
    int r = review_store_dir(&store, err);
    if (r < 0 || (r = user_dir_create(store, err)) < 0)
        return r;
    if (asprintf(&info.dir, "%s/%s", store, id) < 0 || asprintf(&info.upper, "%s/upper", info.dir) < 0 ||
        asprintf(&work, "%s/work", info.dir) < 0 || (info.id = strdup(id)) == NULL ||
        (info.root = strdup(root)) == NULL || (image != NULL && (info.image = strdup(image)) == NULL))
        return as_error_make(err, ENOMEM, "out of memory");
    if (mkdir(info.dir, 0700) < 0)
        return as_error_errno(err, errno, "creating the review %s", info.dir);
    if (mkdir(info.upper, 0700) < 0 || mkdir(work, 0700) < 0)
        return as_error_errno(err, errno, "creating the layers of the review %s", info.dir);
    if ((r = write_meta(&info, err)) < 0)
        return r;
    *ret = info;
    info = (review_info_t){ 0 };
    return 0;
}

int review_store_end(review_info_t *r, int64_t ended_ns, as_error_t **err)
{
    r->ended_ns = ended_ns;
    return write_meta(r, err);
}

/* Sums allocated bytes under dfd/name, never following a link. */
static int usage_at(int dfd, const char *name, uint64_t *sum, as_error_t **err)
{
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0 : as_error_errno(err, errno, "examining %s", name);
    *sum += (uint64_t)st.st_blocks * 512;
    if (!S_ISDIR(st.st_mode))
        return 0;
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return as_error_errno(err, errno, "reading the directory %s", name);
    DIR *d = fdopendir(fd);
    if (d == NULL) {
        close(fd);
        return as_error_errno(err, errno, "reading the directory %s", name);
    }
    int r = 0;
    struct dirent *e;
    while (r == 0 && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            r = usage_at(dirfd(d), e->d_name, sum, err);
    closedir(d);
    return r;
}

int review_store_usage(const review_info_t *r, uint64_t *ret_bytes, as_error_t **err)
{
    uint64_t sum = 0;
    /* the upper layer: work/ holds only the overlay's own scratch, owned by
     * the container's root and unreadable */
    int k = usage_at(AT_FDCWD, r->upper, &sum, err);
    if (k < 0)
        return as_error_prefix(err, "the size of review %s", r->id);
    *ret_bytes = sum;
    return 0;
}

/* Removes dfd/name and all below it, never following a link. A directory
 * the agent made read-only is opened up first (it is the user's); one the
 * user cannot open (the overlay's own work/work, owned by the container's
 * root, mode 0) is removed as it is, which works while it is empty. */
static int remove_at(int dfd, const char *name, as_error_t **err)
{
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0 : as_error_errno(err, errno, "examining %s", name);
    if (!S_ISDIR(st.st_mode)) {
        if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
            return as_error_errno(err, errno, "removing %s", name);
        return 0;
    }
    if ((st.st_mode & 0700) != 0700 && st.st_uid == geteuid())
        (void)fchmodat(dfd, name, (st.st_mode & 07777) | 0700, 0);
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (d == NULL && fd >= 0)
        close(fd);
    int r = 0;
    struct dirent *e;
    while (d != NULL && r == 0 && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            r = remove_at(dirfd(d), e->d_name, err);
    if (d != NULL)
        closedir(d);
    if (r < 0)
        return r;
    if (unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
        return as_error_errno(err, errno, "removing the directory %s", name);
    return 0;
}

int review_store_remove(const review_info_t *r, char **ret_left, as_error_t **err)
{
    /* First out of the store under a name that is no ID, so that a removal
     * cut short never leaves a review without its meta. */
    _cleanup_free_ char *trash = NULL;
    const char *slash = strrchr(r->dir, '/');
    if (slash == NULL || asprintf(&trash, "%.*s/.removed-%s", (int)(slash - r->dir), r->dir, r->id) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    if (rename(r->dir, trash) < 0)
        return as_error_errno(err, errno, "removing review %s", r->id);
    as_error_t *left = NULL;
    if (remove_at(AT_FDCWD, trash, &left) < 0) {
        /* what the overlay left in work/work belongs to the container's
         * root: only its user namespace can remove it */
        as_error_free(&left);
        *ret_left = steal_pointer(&trash);
        return 0;
    }
    *ret_left = NULL;
    return 0;
}
