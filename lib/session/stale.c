#include "stale.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "session_dir.h"
#include "session_find.h"
#include "session_plan.h"
#include "base/file_write.h"
#include "base/util.h"

/* A half-made directory (.new-<id>) older than this is from a dead CLI. */
#define NEW_DIR_GRACE_S 60

typedef struct {
    char **ids;
    size_t n, cap;
} idset_t;

/* Only session directories are ours to judge: <id> or .new-<id>. */
static bool session_entry(const char *name)
{
    if (strncmp(name, ".new-", 5) == 0)
        name += 5;
    return session_id_valid(name);
}

static bool idset_has(const idset_t *s, const char *id)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->ids[i], id) == 0)
            return true;
    return false;
}

static int idset_add(idset_t *s, const char *id)
{
    if (idset_has(s, id))
        return 0;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        char **ids = realloc(s->ids, cap * sizeof(char *));
        if (ids == NULL)
            return -ENOMEM;
        s->ids = ids;
        s->cap = cap;
    }
    if ((s->ids[s->n] = strdup(id)) == NULL)
        return -ENOMEM;
    s->n++;
    return 0;
}

static void idset_clear(idset_t *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->ids[i]);
    free(s->ids);
}

/* Collects the live sessions and removes the directories of dead ones. */
static int sweep_dirs(const char *base, const char *own_id, idset_t *live, stale_report_t *rep,
                      as_error_t **err)
{
    int base_fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (base_fd < 0)
        return errno == ENOENT ? 0 : as_error_errno(err, errno, "opening %s", base);
    DIR *dir = fdopendir(base_fd);
    if (dir == NULL) {
        close(base_fd);
        return as_error_errno(err, errno, "reading %s", base);
    }
    int first = 0;
    struct dirent *e;
    time_t now = time(NULL);
    while ((e = readdir(dir)) != NULL) {
        const char *name = e->d_name;
        if (!session_entry(name))
            continue;
        if (own_id != NULL && strcmp(name, own_id) == 0) {
            idset_add(live, name);
            continue;
        }
        bool half_made = strncmp(name, ".new-", 5) == 0;
        if (half_made) {
            struct stat st;
            if (fstatat(dirfd(dir), name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                now - st.st_mtime < NEW_DIR_GRACE_S)
                continue;
        } else if (session_dir_live(base, name)) {
            if (idset_add(live, name) < 0) {
                closedir(dir);
                return as_error_make(err, ENOMEM, "out of memory");
            }
            continue;
        }
        _cleanup_free_ char *path = NULL;
        if (asprintf(&path, "%s/%s", base, name) < 0)
            continue;
        as_error_t *e2 = NULL;
        if (remove_tree(path, &e2) < 0) {
            if (first == 0) {
                first = as_error_rc(e2);
                *err = e2;
                e2 = NULL;
            }
        } else {
            rep->dirs++;
        }
        as_error_free(&e2);
    }
    closedir(dir);
    return first;
}

/* Whether session `id` is alive now: its directory's lock is held. Asked
 * for each resource just before removing it, never from an earlier look:
 * a session's directory (locked) exists before its first resource does, so
 * a resource whose lock is free belongs to a CLI that is gone. */
static bool session_live(const char *base, const char *id, const char *own_id)
{
    if (own_id != NULL && strcmp(id, own_id) == 0)
        return true;
    return session_entry(id) && session_dir_live(base, id);
}

static int remove_one(podman_api_t *api, podman_kind_t kind, const char *name, as_error_t **err)
{
    switch (kind) {
    case PODMAN_CONTAINERS: return podman_container_remove(api, name, err);
    case PODMAN_PODS:       return podman_pod_remove(api, name, err);
    case PODMAN_NETWORKS:   return podman_network_remove(api, name, err);
    default:                return podman_volume_remove(api, name, err);
    }
}

/* The first failure is the one reported; the sweep goes on past it. */
static void keep_first(int *first, as_error_t **err, int r, as_error_t **e)
{
    if (*first != 0)
        return;
    *first = r;
    as_error_free(err);
    *err = steal_pointer(e);
}

int stale_sweep(podman_api_t *api, const char *base, const char *own_id,
                stale_report_t *ret, as_error_t **err)
{
    stale_report_t rep = {0};
    idset_t dead = {0};
    int first = 0;

    /* Remove in dependency order: containers, then pods, then networks. */
    static const podman_kind_t order[] = { PODMAN_CONTAINERS, PODMAN_PODS, PODMAN_NETWORKS, PODMAN_VOLUMES };
    for (size_t k = 0; k < ARRAY_SIZE(order); k++) {
        podman_labelled_t *list = NULL;
        size_t n = 0;
        as_error_t *e = NULL;
        int r = podman_list_labelled(api, order[k], LABEL_SESSION, &list, &n, &e);
        if (r < 0)
            keep_first(&first, err, r, &e);
        for (size_t i = 0; r == 0 && i < n; i++) {
            if (session_live(base, list[i].label_value, own_id))
                continue;
            idset_add(&dead, list[i].label_value);
            int rr = remove_one(api, order[k], list[i].name, &e);
            if (rr == 0)
                rep.resources++;
            else if (rr != -ENOENT)          /* -ENOENT: removed meanwhile with its pod */
                keep_first(&first, err, rr, &e);
            as_error_free(&e);
        }
        podman_labelled_free(list, n);
        as_error_free(&e);
    }
    /* Directories go last: a live session's directory is locked before it
     * makes anything, so only dead ones are free here. */
    idset_t live = {0};
    as_error_t *dir_err = NULL;
    int r = sweep_dirs(base, own_id, &live, &rep, &dir_err);
    if (r < 0)
        keep_first(&first, err, r, &dir_err);
    as_error_free(&dir_err);
    rep.sessions = dead.n;
    idset_clear(&live);
    idset_clear(&dead);
    if (ret != NULL)
        *ret = rep;
    return first;
}
