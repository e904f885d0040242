/* From the rules to mounts: read-only binds, pins, placeholders, notes. */
#include "workspace_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "link_resolve.h"
#include "base/paths.h"
#include "base/util.h"
/* ---- the plan ---------------------------------------------------------- */

void ws_mounts_clear(workspace_t *ws)
{
    for (size_t i = 0; i < ws->n_mounts; i++) {
        free(ws->mounts[i].path);
        free(ws->mounts[i].rel);
    }
    free(ws->mounts);
    ws->mounts = NULL;
    ws->n_mounts = 0;
    for (size_t i = 0; i < ws->n_notes; i++)
        free(ws->notes[i]);
    free(ws->notes);
    ws->notes = NULL;
    ws->n_notes = 0;
    for (size_t i = 0; i < ws->n_links; i++) {
        free(ws->links[i].rel);
        free(ws->links[i].target);
        free(ws->links[i].leads_to);
    }
    free(ws->links);
    ws->links = NULL;
    ws->n_links = 0;
}

static int add_note(workspace_t *ws, char *text, as_error_t **err)
{
    if (text == NULL)
        return ws_oom(err);
    for (size_t i = 0; i < ws->n_notes; i++)
        if (strcmp(ws->notes[i], text) == 0) {
            free(text);
            return 0;
        }
    char **v = realloc(ws->notes, (ws->n_notes + 1) * sizeof(*v));
    if (v == NULL) {
        free(text);
        return ws_oom(err);
    }
    ws->notes = v;
    v[ws->n_notes++] = text;
    return 0;
}

static char *rel_of(const workspace_t *ws, const char *abs)
{
    size_t l = strlen(ws->launch_dir);
    return strdup(abs + l + (strcmp(ws->launch_dir, "/") == 0 ? 0 : 1));
}

static int add_mount(workspace_t *ws, workspace_mount_kind_t kind, const char *abs, bool placeholder,
                     bool dir, as_error_t **err)
{
    for (size_t i = 0; i < ws->n_mounts; i++)
        if (strcmp(ws->mounts[i].path, abs) == 0) {
            /* The same place for two rules: a directory placeholder serves both. */
            workspace_mount_t *m = &ws->mounts[i];
            if (kind == WORKSPACE_READ_ONLY)
                m->kind = WORKSPACE_READ_ONLY;
            m->dir = m->dir || dir;
            return 0;
        }
    workspace_mount_t *v = realloc(ws->mounts, (ws->n_mounts + 1) * sizeof(*v));
    if (v == NULL)
        return ws_oom(err);
    ws->mounts = v;
    workspace_mount_t m = { .kind = kind, .placeholder = placeholder, .dir = dir };
    if ((m.path = strdup(abs)) == NULL || (m.rel = rel_of(ws, abs)) == NULL) {
        free(m.path);
        return ws_oom(err);
    }
    v[ws->n_mounts++] = m;
    return 0;
}

static char *note_text(const workspace_t *ws, const char *fmt_rel, const char *rel, const char *target)
{
    msg_t m;
    char *s = NULL;
    if (msg_open(&m, NULL) < 0)
        return NULL;
    path_put_escaped(m.f, rel, strlen(rel));
    fputs(fmt_rel, m.f);
    ws_put_path(m.f, ws->home, target);
    fputs(")", m.f);
    return msg_close(&m, &s, NULL) == 0 ? s : NULL;
}

/* Is a component of rel before its last one ".git" or ".hg"? Then a missing
 * file there is stood in for by a file: git and hg read it, and would
 * reject a directory. */
static bool in_vcs_dir(const char *rel)
{
    const char *last = strrchr(rel, '/');
    for (const char *c = rel; last != NULL && c < last;) {
        size_t n = strcspn(c, "/");
        if ((n == 4 && strncmp(c, ".git", 4) == 0) || (n == 3 && strncmp(c, ".hg", 3) == 0))
            return true;
        c += n + 1;
    }
    return false;
}

static int add_link(workspace_t *ws, const link_hop_t *hop, const char *leads_to, as_error_t **err)
{
    _cleanup_free_ char *rel = rel_of(ws, hop->path);
    if (rel == NULL)
        return ws_oom(err);
    for (size_t i = 0; i < ws->n_links; i++)
        if (strcmp(ws->links[i].rel, rel) == 0)
            return 0;
    workspace_link_t *v = realloc(ws->links, (ws->n_links + 1) * sizeof(*v));
    if (v == NULL)
        return ws_oom(err);
    ws->links = v;
    workspace_link_t l = { steal_pointer(&rel), strdup(hop->target), strdup(leads_to) };
    v[ws->n_links++] = l;
    return l.target == NULL || l.leads_to == NULL ? ws_oom(err) : 0;
}

/* The links met on the way: each one inside the tree is recorded (put back
 * at the end if re-pointed), and the first one is named at the start. */
static int plan_links(workspace_t *ws, const workspace_rule_t *rule, const link_chain_t *chain,
                      const char *where, as_error_t **err)
{
    int r = 0;
    for (size_t i = 0; i < chain->n && r == 0; i++)
        if (path_is_inside(chain->v[i].path, ws->launch_dir))
            r = add_link(ws, &chain->v[i], rule->path, err);
    if (r < 0 || chain->n == 0)
        return r;
    _cleanup_free_ char *shown = rel_of(ws, chain->v[0].path);
    if (shown == NULL)
        return ws_oom(err);
    if (!path_is_inside(where, ws->launch_dir))
        return add_note(ws, note_text(ws, " is a symlink to a place outside the launch directory, which the "
                                      "agent cannot see (", shown, where), err);
    return add_note(ws, note_text(ws, " is a symlink: what it points to is read-only inside, and a link on "
                                  "the way that the agent re-points is put back at the end (", shown, where),
                    err);
}

/* Where a rule's path leads, resolved as the kernel would, every link on
 * the way recorded: the path itself when it exists; the first component that
 * is not a directory (a .git file of a linked worktree); the first missing
 * component, which gets a placeholder (unless the rule is if_exists). */
static int plan_rule(workspace_t *ws, const workspace_rule_t *rule, as_error_t **err)
{
    _cleanup_free_ char *abs = NULL, *where = NULL;
    int r = path_join(ws->launch_dir, rule->path, &abs, err);
    if (r < 0)
        return r;
    link_chain_t chain = { 0 };
    link_end_t end;
    r = link_resolve(abs, &chain, &where, &end, err);
    if (r == -ELOOP) {
        as_error_free(err);
        link_chain_clear(&chain);
        char *note = NULL;
        if (asprintf(&note, "%s%s leads through more than %d symlinks; it is not protected", rule->path,
                     rule->dir ? "/" : "", LINK_RESOLVE_MAX_HOPS) < 0)
            note = NULL;
        return add_note(ws, note, err);
    }
    if (r == 0)
        r = plan_links(ws, rule, &chain, where, err);
    link_chain_clear(&chain);
    if (r < 0 || !path_is_inside(where, ws->launch_dir))
        return r;
    struct stat st;
    switch (end) {
    case LINK_FOUND:
        return add_mount(ws, WORKSPACE_READ_ONLY, where, false, lstat(where, &st) == 0 && S_ISDIR(st.st_mode), err);
    case LINK_NOTDIR:
        return add_mount(ws, WORKSPACE_READ_ONLY, where, false, false, err);
    case LINK_MISSING:
    case LINK_MISSING_LAST:
        break;
    }
    if (rule->if_exists)
        return 0;
    /* A directory, unless git or hg would read the file: an empty directory
     * is invisible to git, so `git add -A` cannot commit a placeholder and
     * `git status` stays clean. */
    _cleanup_free_ char *rel = rel_of(ws, where);
    if (rel == NULL)
        return ws_oom(err);
    bool dir = end == LINK_MISSING || rule->dir || !in_vcs_dir(rel);
    return add_mount(ws, WORKSPACE_READ_ONLY, where, true, dir, err);
}

static int mount_cmp(const void *a, const void *b)
{
    const workspace_mount_t *x = a, *y = b;
    size_t dx = ws_depth(x->path), dy = ws_depth(y->path);
    if (dx != dy)
        return dx < dy ? -1 : 1;
    return strcmp(x->path, y->path);
}

typedef struct named_ctx {
    workspace_t *ws;
    as_error_t **err;
} named_ctx_t;

/* A file a frozen config names to run: frozen where it exists. */
static int plan_named(void *ctx, const char *path)
{
    named_ctx_t *c = ctx;
    if (path[0] == '/' || path[0] == '\0')
        return 0;             /* outside: the agent cannot write it */
    workspace_rule_t rule = { .path = (char *)path, .if_exists = true };
    int r = plan_rule(c->ws, &rule, c->err);
    return r == -ENOMEM ? r : 0;
}

int ws_plan_all(workspace_t *ws, as_error_t **err)
{
    ws_mounts_clear(ws);
    int r;
    for (size_t i = 0; i < ws->rules->n; i++)
        if ((r = plan_rule(ws, &ws->rules->v[i], err)) < 0)
            return r;
    /* Without a .git, git would take the launch directory itself for a
     * (bare) repository if it had a HEAD: freeze one. Not with a .git: a
     * HEAD there would make `git diff HEAD` ambiguous; the end-of-session
     * check covers that case. */
    _cleanup_free_ char *dotgit = NULL;
    struct stat st;
    if (asprintf(&dotgit, "%s/.git", ws->launch_dir) < 0)
        return ws_oom(err);
    workspace_rule_t head = { .path = (char *)"HEAD", .dir = true };
    if (lstat(dotgit, &st) < 0 && errno == ENOENT && (r = plan_rule(ws, &head, err)) < 0)
        return r;
    named_ctx_t nc = { ws, err };
    if ((r = ws_tool_named_files(ws->launch_dir, plan_named, &nc)) < 0)
        return r == -ENOMEM ? ws_oom(err) : r;
    /* A path inside another read-only one is covered by it. */
    for (size_t i = 0; i < ws->n_mounts;) {
        bool covered = false;
        for (size_t j = 0; j < ws->n_mounts && !covered; j++)
            covered = j != i && path_is_inside(ws->mounts[i].path, ws->mounts[j].path);
        if (covered) {
            free(ws->mounts[i].path);
            free(ws->mounts[i].rel);
            memmove(&ws->mounts[i], &ws->mounts[i + 1], (ws->n_mounts - i - 1) * sizeof(ws->mounts[0]));
            ws->n_mounts--;
        } else {
            i++;
        }
    }
    /* Pin every directory between the launch directory and a protected path. */
    size_t n_ro = ws->n_mounts;
    for (size_t i = 0; i < n_ro; i++) {
        _cleanup_free_ char *p = strdup(ws->mounts[i].path);
        if (p == NULL)
            return ws_oom(err);
        for (;;) {
            char *slash = strrchr(p, '/');
            *slash = '\0';
            if (!path_is_inside(p, ws->launch_dir))
                break;
            if ((r = add_mount(ws, WORKSPACE_PIN, p, false, true, err)) < 0)
                return r;
        }
    }
    if (ws->n_mounts > 0)
        qsort(ws->mounts, ws->n_mounts, sizeof(ws->mounts[0]), mount_cmp);
    return 0;
}

/* ---- the rest ---------------------------------------------------------- */

int workspace_agent_mounts(const workspace_t *ws, podman_mount_t **ret, size_t *ret_n, as_error_t **err)
{
    static char *const ro[] = { "ro", "rbind", "rprivate", NULL };
    static char *const rw[] = { "rw", "rbind", "rprivate", NULL };
    size_t n = ws != NULL ? ws->n_mounts : 0;
    podman_mount_t *v = calloc(n + 1, sizeof(*v));
    if (v == NULL)
        return ws_oom(err);
    for (size_t i = 0; i < n; i++) {
        const workspace_mount_t *m = &ws->mounts[i];
        v[i] = (podman_mount_t){
            .source = m->path, .destination = m->path, .type = "bind",
            .options = m->kind == WORKSPACE_READ_ONLY ? ro : rw,
        };
    }
    *ret = v;
    *ret_n = n;
    return 0;
}

int workspace_describe(const workspace_t *ws, char **ret, as_error_t **err)
{
    msg_t m;
    int r = msg_open(&m, err);
    if (r < 0)
        return r;
    for (size_t i = 0; i < ws->n_mounts; i++) {
        const workspace_mount_t *mt = &ws->mounts[i];
        fputs(mt->kind == WORKSPACE_READ_ONLY ? "    protect: " : "    pin:     ", m.f);
        path_put_escaped(m.f, mt->rel, strlen(mt->rel));
        fputs(mt->dir ? "/" : "", m.f);
        if (mt->kind == WORKSPACE_PIN)
            fputs(" (read-write, cannot be renamed or removed)", m.f);
        else if (mt->placeholder)
            fprintf(m.f, " (missing: an empty %s stands in for the session)", mt->dir ? "directory" : "file");
        else
            fputs(" (read-only)", m.f);
        fputc('\n', m.f);
    }
    for (size_t i = 0; i < ws->n_notes; i++)
        fprintf(m.f, "    note:    %s\n", ws->notes[i]);
    return msg_close(&m, ret, err);
}
