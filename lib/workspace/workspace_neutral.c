/* What the end of the session does to what it disables: renames it aside
 * under a name no tool reads, replaces a symlink by a note, puts a link back;
 * and how the report says so. Nothing that was there at the start, unchanged,
 * is ever touched: the callers check that first (ws_unchanged). */
#include "workspace_int.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/util.h"

/* Lines of the report's first part; a flood of them hides nothing (all are
 * disabled) but would bury the rest. */
#define ACTIONS_SHOWN 30

void ws_actions_clear(ws_actions_t *a)
{
    for (size_t i = 0; i < a->n; i++) {
        free(a->v[i].rel);
        free(a->v[i].moved);
        free(a->v[i].target);
        free(a->v[i].why);
    }
    free(a->v);
    a->v = NULL;
    a->n = 0;
}

static int action_add(ws_actions_t *a, ws_action_kind_t kind, const char *rel, const char *moved,
                      const char *target, const char *why)
{
    ws_action_t *v = realloc(a->v, (a->n + 1) * sizeof(*v));
    if (v == NULL)
        return -ENOMEM;
    a->v = v;
    ws_action_t x = {
        kind, strdup(rel), moved ? strdup(moved) : NULL, target ? strdup(target) : NULL, strdup(why),
    };
    if (x.rel == NULL || x.why == NULL || (moved && x.moved == NULL) || (target && x.target == NULL)) {
        free(x.rel);
        free(x.moved);
        free(x.target);
        free(x.why);
        return -ENOMEM;
    }
    v[a->n++] = x;
    return 0;
}

static char *abs_of(const workspace_t *ws, const char *rel)
{
    char *p = NULL;
    return asprintf(&p, "%s/%s", ws->launch_dir, rel) < 0 ? NULL : p;
}

bool ws_unchanged(const workspace_t *ws, const char *rel)
{
    const ws_item_t *b = ws_snapshot_find(ws->before, rel);
    _cleanup_free_ char *abs = abs_of(ws, rel);
    struct stat st;
    if (b == NULL || abs == NULL || lstat(abs, &st) < 0)
        return false;
    ws_item_t now = { .mode = st.st_mode, .size = st.st_size, .dev = st.st_dev, .ino = st.st_ino,
                      .ctim = st.st_ctim };
    char buf[PATH_MAX];
    ssize_t l = S_ISLNK(st.st_mode) ? readlink(abs, buf, sizeof(buf) - 1) : -1;
    if (l >= 0) {
        buf[l] = '\0';
        now.link = buf;
    }
    return ws_item_same(b, &now);
}

bool ws_changed(const workspace_t *ws, const char *rel)
{
    _cleanup_free_ char *abs = abs_of(ws, rel);
    struct stat st;
    return abs != NULL && lstat(abs, &st) == 0 && !ws_unchanged(ws, rel);
}

/* Renames rel to a free name "rel.agent-sandbox-disabled[.N]"; *ret is it. */
static int move_aside(const workspace_t *ws, const char *rel, char **ret)
{
    _cleanup_free_ char *from = abs_of(ws, rel);
    if (from == NULL)
        return -ENOMEM;
    for (int i = 0; i < 100; i++) {
        _cleanup_free_ char *to_rel = NULL, *to = NULL;
        if ((i == 0 ? asprintf(&to_rel, "%s" DISABLED_SUFFIX, rel)
                    : asprintf(&to_rel, "%s" DISABLED_SUFFIX ".%d", rel, i)) < 0 ||
            (to = abs_of(ws, to_rel)) == NULL)
            return -ENOMEM;
        if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) {
            *ret = steal_pointer(&to_rel);
            return 0;
        }
        if (errno != EEXIST)
            return -errno;
    }
    return -EEXIST;
}

int ws_disable(const workspace_t *ws, const char *rel, const char *why, ws_actions_t *acts)
{
    if (ws_acted_on(acts, rel))     /* by another check: each is listed once */
        return 0;
    _cleanup_free_ char *moved = NULL;
    int r = move_aside(ws, rel, &moved);
    if (r == -ENOMEM)
        return r;
    return action_add(acts, r < 0 ? ACT_KEPT : ACT_MOVED, rel, moved, NULL, why);
}

int ws_seal(const workspace_t *ws, const char *rel, const char *why, ws_actions_t *acts)
{
    if (ws_acted_on(acts, rel))     /* by another check: each is listed once */
        return 0;
    _cleanup_free_ char *moved = NULL, *abs = NULL;
    int r = move_aside(ws, rel, &moved);
    if (r == -ENOMEM)
        return r;
    if (r < 0)
        return action_add(acts, ACT_KEPT, rel, NULL, NULL, why);
    if ((abs = abs_of(ws, moved)) == NULL)
        return -ENOMEM;
    /* what is inside was not examined: no host tool may go in unasked */
    return action_add(acts, chmod(abs, 0) == 0 ? ACT_SEALED : ACT_MOVED, rel, moved, NULL, why);
}

/* Writes the note to a new file beside rel, then renames it over rel. */
static int note_over(const char *abs, const char *target)
{
    _cleanup_free_ char *tmp = NULL;
    if (asprintf(&tmp, "%s.agent-sandbox-tmp-%d", abs, (int)getpid()) < 0)
        return -ENOMEM;
    _cleanup_close_ int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    dprintf(fd, "agent-sandbox: this was a symbolic link, made during a session, to a place outside "
                "the launch directory:\n%s\nHost tools could have written through it. Make it again "
                "with ln -sfn if you want it.\n", target);
    if (rename(tmp, abs) < 0) {
        int e = errno;
        unlink(tmp);
        return -e;
    }
    return 0;
}

int ws_link_to_note(const workspace_t *ws, const char *rel, const char *target, const char *why,
                    ws_actions_t *acts)
{
    _cleanup_free_ char *abs = abs_of(ws, rel);
    if (abs == NULL)
        return -ENOMEM;
    int r = note_over(abs, target);
    if (r == -ENOMEM)
        return r;
    return action_add(acts, r < 0 ? ACT_KEPT : ACT_LINK_NOTE, rel, NULL, target, why);
}

int ws_link_restore(const workspace_t *ws, const char *rel, const char *target, const char *why,
                    ws_actions_t *acts)
{
    _cleanup_free_ char *abs = abs_of(ws, rel), *moved = NULL;
    if (abs == NULL)
        return -ENOMEM;
    struct stat st;
    int r = lstat(abs, &st) < 0 ? (errno == ENOENT ? 0 : -errno) : move_aside(ws, rel, &moved);
    if (r == -ENOMEM)
        return r;
    if (r == 0 && symlink(target, abs) < 0)
        r = -errno;
    return action_add(acts, r < 0 ? ACT_KEPT : ACT_LINK_RESTORED, rel, moved, target, why);
}

static void put_one(FILE *f, const ws_action_t *x)
{
    fputs("  ", f);
    path_put_escaped(f, x->rel, strlen(x->rel));
    fputs(": ", f);
    path_put_escaped(f, x->why, strlen(x->why));
    switch (x->kind) {
    case ACT_MOVED:
        fputs("; moved to ", f);
        path_put_escaped(f, x->moved, strlen(x->moved));
        break;
    case ACT_LINK_NOTE:
        fputs("; now a file that names its target", f);
        break;
    case ACT_LINK_RESTORED:
        fputs("; put back to ", f);
        path_put_escaped(f, x->target, strlen(x->target));
        if (x->moved != NULL) {
            fputs(" (the session's version is ", f);
            path_put_escaped(f, x->moved, strlen(x->moved));
            fputs(")", f);
        }
        break;
    case ACT_SEALED:
        fputs("; moved to ", f);
        path_put_escaped(f, x->moved, strlen(x->moved));
        fputs(" and closed (chmod 000)", f);
        break;
    case ACT_KEPT:
        fputs("; COULD NOT BE DISABLED: remove it before you run host tools here", f);
        break;
    }
    fputc('\n', f);
}

static bool any_sealed(const ws_actions_t *a)
{
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i].kind == ACT_SEALED)
            return true;
    return false;
}

void ws_actions_put(FILE *f, const workspace_t *ws, const ws_actions_t *a, bool whole)
{
    fputs("what the session left in ", f);
    ws_put_path(f, ws->home, ws->launch_dir);
    fputs(" for host tools to run was DISABLED:\n", f);
    for (size_t i = 0; i < a->n && (whole || i < ACTIONS_SHOWN); i++)
        put_one(f, &a->v[i]);
    if (!whole && a->n > ACTIONS_SHOWN)
        fprintf(f, "  ... and %zu more, each renamed to its name + " DISABLED_SUFFIX " or, for a link, "
                "made a file that names its target\n", a->n - ACTIONS_SHOWN);
    fputs("Read each one before you undo it: rename it back (mv PATH" DISABLED_SUFFIX " PATH), or make "
          "the link again (ln -sfn TARGET PATH).", f);
    if (any_sealed(a))
        fputs(" A closed directory opens with chmod u+rwx; look inside before you run anything there.", f);
}

bool ws_acted_on(const ws_actions_t *acts, const char *rel)
{
    size_t n = strlen(rel);
    for (size_t i = 0; i < acts->n; i++) {
        const char *done = acts->v[i].rel;
        size_t l = strlen(done);
        if (strcmp(done, ".") == 0 || (l <= n && strncmp(done, rel, l) == 0 && (rel[l] == '\0' || rel[l] == '/')))
            return true;
    }
    return false;
}
