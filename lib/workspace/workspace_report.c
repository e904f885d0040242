/* The end of a session: the placeholders removed, the check, the report. */
#include "workspace_int.h"
#include "host_names.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/util.h"

/* ---- the report -------------------------------------------------------- */

typedef enum { CH_CREATED, CH_REMOVED, CH_CHANGED, CH_MADE_EXEC } change_t;

typedef struct change {
    const ws_item_t *it;        /* the after item, or the before one when removed */
    change_t kind;
    unsigned what;
} change_entry_t;

static int rank(unsigned what)
{
    return (what & W_PROTECTED) ? 0 : (what & W_NESTED) ? 1 : 2;
}

static int change_cmp(const void *a, const void *b)
{
    const change_entry_t *x = a, *y = b;
    int rx = rank(x->what), ry = rank(y->what);
    if (rx != ry)
        return rx - ry;
    return strcmp(x->it->rel, y->it->rel);
}

/* A change worth reporting? Only executables that appear or change count;
 * for the rest, any change. */
static bool relevant(change_t kind, unsigned what)
{
    if (what & (W_PROTECTED | W_NESTED))
        return true;
    return kind != CH_REMOVED;
}

static void put_change(FILE *f, const change_entry_t *c)
{
    fputs("  ", f);
    path_put_escaped(f, c->it->rel, strlen(c->it->rel));
    if (c->what & (W_PROTECTED | W_NESTED)) {
        fprintf(f, ": %s", c->kind == CH_CREATED ? "created" : c->kind == CH_REMOVED ? "removed" : "changed");
        if (c->what & W_PROTECTED)
            fputs(" (protected)", f);
        else
            fputs(" (a copy of a protected path)", f);
        if ((c->what & W_EXEC) && c->kind != CH_REMOVED)
            fputs(", executable", f);
    } else {
        fputs(c->kind == CH_MADE_EXEC ? ": made executable"
              : c->kind == CH_CREATED ? ": new or changed, executable" : ": changed, executable", f);
    }
    fputc('\n', f);
}

/* The git directory (rel) that a path inside a nested ".git" is in, or
 * NULL: "a/.git/config" is in "a/.git". */
static char *nested_git_dir(const char *rel)
{
    const char *at = NULL;
    for (const char *p = rel; (p = strstr(p, "/.git")) != NULL; p++)
        if (p[5] == '/' || p[5] == '\0')
            at = p;
    return at != NULL ? strndup(rel, (size_t)(at + 5 - rel)) : NULL;
}

/* Not news: git's own inert samples, and the configs and directories of a
 * nested git directory that the git check judged as a repository (what
 * runs there was disabled and is listed as such). Its hooks stay news, and
 * so does all of a .git that git would not take for a repository today. */
static bool judged_by_git(const workspace_snapshot_t *after, const ws_item_t *it, unsigned what)
{
    const char *base = strrchr(it->rel, '/');
    base = base != NULL ? base + 1 : it->rel;
    size_t bl = strlen(base);
    if (bl > 7 && strcmp(base + bl - 7, ".sample") == 0 && base - it->rel >= 6 &&
        strncmp(base - 6, "hooks/", 6) == 0)
        return true;
    if ((what & W_PROTECTED) || (what & W_EXEC) || !(what & W_NESTED))
        return false;
    if (!S_ISDIR(it->mode) && strcmp(base, "config") != 0 && strcmp(base, "config.worktree") != 0)
        return false;
    _cleanup_free_ char *dir = nested_git_dir(it->rel);
    const ws_item_t *repo = dir != NULL ? ws_snapshot_find(after, dir) : NULL;
    return repo != NULL && (repo->what & W_REPO);
}

static bool earlier(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec != b->tv_sec ? a->tv_sec < b->tv_sec : a->tv_nsec < b->tv_nsec;
}

/* An entry the start did not record: news. But a plain executable was not
 * looked at then (workspace_int.h, `started`): news only if its ctime is
 * of the session; *kind then says whether only its mode changed. */
static bool news_at_start(const workspace_snapshot_t *before, const ws_item_t *it, change_t *kind)
{
    if ((it->what & W_REPORTED) != W_EXEC)
        return true;
    if (earlier(&it->ctim, &before->started))
        return false;
    *kind = earlier(&it->mtim, &before->started) ? CH_MADE_EXEC : CH_CREATED;
    return true;
}

/* The changes worth reporting between the two snapshots, most important
 * first, none already listed as disabled; *ret_n of them. */
static int collect_changes(const workspace_snapshot_t *before, const workspace_snapshot_t *after,
                           const ws_actions_t *acts, change_entry_t **ret, size_t *ret_n)
{
    change_entry_t *ch = calloc(before->n + after->n + 1, sizeof(*ch));
    if (ch == NULL)
        return -ENOMEM;
    size_t n = 0, i = 0, j = 0;
    while (i < before->n || j < after->n) {
        int c = i == before->n ? 1 : j == after->n ? -1 : strcmp(before->v[i].rel, after->v[j].rel);
        change_entry_t e;
        if (c < 0) {
            e = (change_entry_t){ &before->v[i], CH_REMOVED, before->v[i].what & W_REPORTED };
            i++;
        } else if (c > 0) {
            e = (change_entry_t){ &after->v[j], CH_CREATED, after->v[j].what & W_REPORTED };
            j++;
            if (!news_at_start(before, e.it, &e.kind))
                continue;
        } else {
            const ws_item_t *a = &before->v[i++], *b = &after->v[j++];
            if (ws_item_same(a, b))
                continue;
            /* became executable: as good as new, or only made so when its
             * content is older than the session */
            bool made_exec = (b->what & W_EXEC) && !(a->what & W_EXEC);
            e = (change_entry_t){ b, !made_exec ? CH_CHANGED : earlier(&b->mtim, &before->started) ? CH_MADE_EXEC
                                                                                                : CH_CREATED,
                                  (a->what | b->what) & W_REPORTED };
            if (!(e.what & (W_PROTECTED | W_NESTED)) && !(b->what & W_EXEC))
                continue;         /* no longer executable */
        }
        if (e.what != 0 && relevant(e.kind, e.what) && !judged_by_git(after, e.it, e.what) &&
            !ws_acted_on(acts, e.it->rel))
            ch[n++] = e;
    }
    qsort(ch, n, sizeof(*ch), change_cmp);
    *ret = ch;
    *ret_n = n;
    return 0;
}

static void put_changes(FILE *f, const workspace_t *ws, const change_entry_t *ch, size_t n, bool whole)
{
    fputs("files that can run on this machine changed in ", f);
    ws_put_path(f, ws->home, ws->launch_dir);
    fputs(" during the session:\n", f);
    for (size_t k = 0; k < n && (whole || k < REPORT_MAX_LINES); k++)
        put_change(f, &ch[k]);
    if (!whole && n > REPORT_MAX_LINES)
        fprintf(f, "  ... and %zu more (all of them are in the whole report)\n", n - REPORT_MAX_LINES);
    fputs("Look at them before you run git, open the project in an editor or run its tools "
          "outside the sandbox.", f);
}

/* What the walk could not examine and left as it was: closed to the user
 * too (not theirs, not searchable), so no host tool of theirs goes in. */
static void put_closed(FILE *f, const workspace_snapshot_t *after, const char *sep)
{
    size_t n = 0;
    for (size_t i = 0; i < after->n_unexamined; i++) {
        if (after->unexamined[i].why != UNEX_CLOSED_TO_ALL)
            continue;
        fputs(n++ == 0 ? sep : ", ", f);
        if (n == 1)
            fputs("not examined, as they are not yours and you cannot enter them (nor can your tools): ", f);
        path_put_escaped(f, after->unexamined[i].rel, strlen(after->unexamined[i].rel));
    }
}

typedef struct report_parts {
    const ws_actions_t *acts;
    const change_entry_t *ch;
    size_t n;
    const char *kept;
    size_t bytecode;
} report_parts_t;

/* The report: what was disabled, what changed, placeholders kept, what
 * could not be examined, the bytecode dropped; the first lines of each
 * list, or whole. */
static int report_text(const workspace_t *ws, const workspace_snapshot_t *after, const report_parts_t *p,
                       bool whole, char **ret, as_error_t **err)
{
    msg_t m;
    int r = msg_open(&m, err);
    if (r < 0)
        return r;
    const char *sep = "";
    if (p->acts->n > 0) {
        ws_actions_put(m.f, ws, p->acts, whole);
        sep = "\n";
    }
    if (p->n > 0) {
        fputs(sep, m.f);
        put_changes(m.f, ws, p->ch, p->n, whole);
        sep = "\n";
    }
    if (p->kept != NULL) {
        fprintf(m.f, "%s%s", sep, p->kept);
        sep = "\n";
    }
    if (p->bytecode > 0) {
        fprintf(m.f, "%sremoved %zu bytecode file%s (.pyc) the session wrote: a cache python makes again from "
                "the sources", sep, p->bytecode, p->bytecode == 1 ? "" : "s");
        sep = "\n";
    }
    put_closed(m.f, after, sep);
    return msg_close(&m, ret, err);
}

/* The warning, short and whole; both NULL when there is nothing to say. */
static int compose_report(const workspace_t *ws, const workspace_snapshot_t *after, const ws_actions_t *acts,
                          const char *kept, size_t bytecode, char **ret, char **ret_whole, as_error_t **err)
{
    change_entry_t *ch = NULL;
    size_t n = 0;
    if (collect_changes(ws->before, after, acts, &ch, &n) < 0)
        return ws_oom(err);
    *ret = *ret_whole = NULL;
    int r = 0;
    if (n > 0 || acts->n > 0 || kept != NULL || after->n_unexamined > 0) {
        report_parts_t parts = { acts, ch, n, kept, bytecode };
        r = report_text(ws, after, &parts, false, ret, err);
        if (r == 0 && (r = report_text(ws, after, &parts, true, ret_whole, err)) < 0) {
            free(*ret);
            *ret = NULL;
        }
    }
    free(ch);
    return r;
}

/* Removes the placeholders it may; *ret_kept names those left (or NULL). */
static int placeholders_remove(workspace_t *ws, bool remove, char **ret_kept, as_error_t **err)
{
    msg_t m;
    int r = msg_open(&m, err);
    if (r < 0)
        return r;
    size_t n_kept = 0;
    for (size_t i = 0; i < ws->n_mounts; i++) {
        workspace_mount_t *mt = &ws->mounts[i];
        if (!mt->created)
            continue;
        if (remove && ws_remove_placeholder(mt)) {
            mt->created = false;
            continue;
        }
        fputs(n_kept++ == 0 ? "left in place, the placeholders made for the session: " : ", ", m.f);
        path_put_escaped(m.f, mt->rel, strlen(mt->rel));
    }
    if (n_kept > 0)
        fputs(remove ? " (no longer empty: they hold what was written on the host)"
                     : " (the sandbox may still be running; remove them once it is gone "
                       "if they are still empty)", m.f);
    char *kept = NULL;
    if ((r = msg_close(&m, &kept, err)) < 0)
        return r;
    if (n_kept == 0) {
        free(kept);
        kept = NULL;
    }
    *ret_kept = kept;
    return 0;
}

static void unexamined_why(ws_unexamined_why_t why, char *buf, size_t size)
{
    switch (why) {
    case UNEX_DEPTH:
        snprintf(buf, size, "a directory deeper than %d levels, which the check does not examine", WALK_MAX_DEPTH);
        return;
    case UNEX_LENGTH:
        snprintf(buf, size, "a directory whose path is too long (over %d bytes) for the check to examine "
                 "what is in it", WALK_PATH_ROOM);
        return;
    case UNEX_CLOSED:
    case UNEX_CLOSED_TO_ALL:
        break;
    }
    snprintf(buf, size, "a directory the check cannot read or search, and cannot open up (not yours)");
}

/* What the walk could not examine may hold anything: closed, whole. */
static int seal_unexamined(const workspace_t *ws, const workspace_snapshot_t *after, ws_actions_t *acts)
{
    int r = 0;
    for (size_t i = 0; i < after->n_unexamined && r == 0; i++) {
        const ws_unexamined_t *u = &after->unexamined[i];
        char why[160];
        unexamined_why(u->why, why, sizeof(why));
        if (u->why != UNEX_CLOSED_TO_ALL)
            r = ws_seal(ws, u->rel, why, acts);
    }
    return r;
}

/* Disables what host tools would run (only once the sandbox is gone: the
 * agent could otherwise undo it), and drops the bytecode the session wrote
 * (*ret_bytecode files). A version-control tool's metadata made during the
 * session goes whole before the checks of what is in it. */
static int neutralise(const workspace_t *ws, const workspace_snapshot_t *after, ws_actions_t *acts,
                      size_t *ret_bytecode, as_error_t **err)
{
    _cleanup_(host_names_freep) host_names_t *hn = NULL;
    int r = seal_unexamined(ws, after, acts) < 0 ? ws_oom(err) : 0;
    if (r == 0)
        r = host_names_new(ws->host_path, ws->launch_dir, &hn, err);
    if (r == 0)
        r = ws_chain_check(ws, acts, err);
    if (r == 0)
        r = ws_outside_links_check(ws, after, acts, err);
    if (r == 0)
        r = ws_vcs_check(ws, after, acts, err);
    if (r == 0)
        r = ws_git_check(ws, after, acts, err);
    if (r == 0)
        r = ws_python_check(ws, after, hn, acts, err);
    if (r == 0)
        r = ws_shadow_check(ws, after, hn, acts, err);
    if (r == 0)
        r = ws_configs_check(ws, after, acts, err);
    if (r == 0)
        r = ws_bytecode_drop(ws, after, acts, ret_bytecode, err);
    return r;
}

int workspace_end(workspace_t *ws, bool remove_placeholders, char **ret_report, char **ret_whole,
                  as_error_t **err)
{
    int r = workspace_begin_wait(ws, err);
    if (r < 0)
        return r;
    if (ws->before == NULL)
        return as_error_make(err, EINVAL, "internal error: workspace_end without workspace_begin");
    _cleanup_free_ char *kept = NULL, *whole = NULL;
    r = placeholders_remove(ws, remove_placeholders, &kept, err);
    if (r < 0)
        return r;
    _cleanup_(ws_snapshot_freep) workspace_snapshot_t *after = NULL;
    if ((r = ws_end_snapshot(ws, &after, err)) < 0)
        return r;
    ws_actions_t acts = { 0 };
    size_t bytecode = 0;
    if (remove_placeholders)
        r = neutralise(ws, after, &acts, &bytecode, err);
    ws_snapshot_restore_modes(ws, after);
    if (r == 0)
        r = compose_report(ws, after, &acts, kept, bytecode, ret_report, &whole, err);
    if (r == 0 && ret_whole != NULL)
        *ret_whole = steal_pointer(&whole);
    ws_actions_clear(&acts);
    return r;
}
