/* The one filter between a review and the host tree (review_filter.h). */
#include "review_filter.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/paths.h"
#include "review_after.h"
#include "workspace/link_resolve.h"
#include "workspace/host_names.h"
#include "workspace/python_env.h"
#include "workspace/vcs_meta.h"

static int oom(as_error_t **err)
{
    return as_error_make(err, ENOMEM, "out of memory");
}

void review_verdicts_free(review_verdicts_t *v)
{
    if (v == NULL)
        return;
    for (size_t i = 0; i < v->n; i++) {
        free(v->v[i].reason);
        free(v->v[i].notes);
    }
    free(v->v);
    free(v);
}

/* Does some leading part of rel, ending at a component's end, end with the
 * components of rule? ".envrc" covers ".envrc", "a/.envrc" and
 * "a/.envrc/x"; "hooks" does not cover "githooks". */
static bool covers(const char *rule, const char *rel)
{
    size_t rn = strlen(rule);
    for (const char *end = rel;; end++) {
        if (*end == '/' || *end == '\0') {
            size_t len = (size_t)(end - rel);
            if (len >= rn && memcmp(end - rn, rule, rn) == 0 && (len == rn || end[-(ptrdiff_t)rn - 1] == '/'))
                return true;
        }
        if (*end == '\0')
            return false;
    }
}

const char *review_protected_rule(const review_filter_t *f, const char *rel)
{
    for (size_t i = 0; i < f->n_protected; i++)
        if (covers(f->protected_paths[i], rel))
            return f->protected_paths[i];
    return NULL;
}

int review_git_depth(const char *rel)
{
    if (covers(".git", rel))
        return strncmp(rel, ".git", 4) == 0 && (rel[4] == '\0' || rel[4] == '/') ? 1 : 2;
    return 0;
}

static bool included(const review_filter_t *f, const review_change_t *c)
{
    for (size_t i = 0; i < f->n_include; i++)
        if (review_change_under(c, f->include[i]))
            return true;
    return false;
}

/* Where the link c would lead: NULL in *ret when inside the tree;
 * *ret_system: out of it, to a file of the system. */
static int link_leads_out(const review_filter_t *f, const review_change_t *c, char **ret, bool *ret_system,
                          as_error_t **err)
{
    _cleanup_free_ char *start = NULL, *end_path = NULL, *norm = NULL;
    const char *slash = strrchr(c->path, '/');
    int n = c->target[0] == '/' ? asprintf(&start, "%s", c->target)
                                : asprintf(&start, "%s/%.*s%s%s", f->root, slash ? (int)(slash - c->path) : 0,
                                           c->path, slash ? "/" : "", c->target);
    if (n < 0)
        return oom(err);
    as_error_t *e = NULL;
    link_end_t end;
    *ret = NULL;
    *ret_system = false;
    if (link_resolve(start, NULL, &end_path, &end, &e) < 0 || path_normalize(end_path, &norm, &e) < 0) {
        as_error_free(&e);   /* a loop, an unreadable place: no telling where it leads */
        return (*ret = strdup("a place that cannot be resolved")) == NULL ? oom(err) : 0;
    }
    if (strcmp(norm, f->root) == 0 || path_is_inside(norm, f->root))
        return 0;
    *ret_system = end == LINK_FOUND && link_system_file(norm);
    *ret = steal_pointer(&norm);
    return 0;
}

static int refuse(review_verdict_t *v, as_error_t **err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int refuse(review_verdict_t *v, as_error_t **err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vasprintf(&v->reason, fmt, ap);
    va_end(ap);
    v->refused = true;
    return r < 0 ? (v->reason = NULL, oom(err)) : 0;
}

static int note(review_verdict_t *v, const char *text, as_error_t **err)
{
    char *s = NULL;
    if (asprintf(&s, "%s%s%s", v->notes ? v->notes : "", v->notes ? "; " : "", text) < 0)
        return oom(err);
    free(v->notes);
    v->notes = s;
    return 0;
}

/* The permission bits apply writes, and what it says about them. */
static int judge_mode(const review_change_t *c, review_verdict_t *v, as_error_t **err)
{
    v->mode = c->mode & 0777 & ~(mode_t)S_IWOTH;
    int r = 0;
    if (c->type != REVIEW_FILE && c->type != REVIEW_DIR)
        return 0;
    if (c->mode & (S_ISUID | S_ISGID))
        r = note(v, c->mode & S_ISUID ? "setuid bit dropped" : "setgid bit dropped", err);
    if (r == 0 && (c->mode & S_IWOTH))
        r = note(v, "world-writable bit dropped", err);
    bool had_x = c->host_type == c->type && (c->host_mode & 0111);
    if (r == 0 && c->type == REVIEW_FILE && (c->mode & 0111) && !had_x)
        r = note(v, "new executable bit", err);
    return r;
}

/* Does rel end with the components of the first len bytes of s? */
static bool ends_with(const char *rel, const char *s, size_t len)
{
    size_t n = strlen(rel);
    return n >= len && memcmp(rel + n - len, s, len) == 0 && (n == len || rel[n - len - 1] == '/');
}

/* The protection rule that a link at rel would stand on the way to (rel
 * ends where a directory above the rule's path is: "sub/.vscode" for
 * ".vscode/tasks.json"): host tools would read what it leads to as that
 * path. NULL when none. */
static const char *link_on_the_way(const review_filter_t *f, const char *rel)
{
    for (size_t i = 0; i < f->n_protected; i++) {
        const char *rule = f->protected_paths[i];
        for (const char *slash = strchr(rule, '/'); slash != NULL; slash = strchr(slash + 1, '/'))
            if (ends_with(rel, rule, (size_t)(slash - rule)))
                return rule;
    }
    return NULL;
}

static mode_t st_mode_of(const review_change_t *c)
{
    mode_t type = c->type == REVIEW_FILE ? S_IFREG : c->type == REVIEW_DIR ? S_IFDIR
                : c->type == REVIEW_SYMLINK ? S_IFLNK : 0;
    return type | (c->mode & 07777);
}

/* The link a change makes, judged where it leads (a python of the system
 * for PYTHON_ENV_SYSTEM_PYTHON): harmless? */
static bool leads_to_system(const review_filter_t *f, const review_change_t *c, as_error_t **err)
{
    _cleanup_free_ char *out = NULL;
    bool system = false;
    return link_leads_out(f, c, &out, &system, err) == 0 && out != NULL && system;
}

/* What host git and a virtual environment's python would read of the tree
 * after apply, as the default mode's end-of-session check judges it: a
 * bare-shaped directory's content is never applied; what an environment's
 * python runs at start, only with --include. 1 when refused; *ret_sub the
 * change's path below its environment, or NULL. */
static int judge_readers(const review_filter_t *f, review_after_t *after, const review_change_t *c,
                         review_verdict_t *v, const char **ret_sub, as_error_t **err)
{
    const char *repo, *venv;
    *ret_sub = NULL;
    int r = review_after_context(after, c->path, &repo, &venv, err);
    if (r < 0)
        return r;
    if (repo != NULL)
        return refuse(v, err, "%s", "inside a directory that host git would take for a repository (a HEAD, "
                                    "and objects and refs or a commondir): never applied as a file") < 0 ? -ENOMEM : 1;
    if (venv == NULL || c->kind == REVIEW_DELETED)
        return 0;
    *ret_sub = *venv ? c->path + strlen(venv) + 1 : c->path;
    const char *why = python_env_verdict(c->path, *ret_sub, st_mode_of(c), c->target);
    if (why == PYTHON_ENV_SYSTEM_PYTHON && leads_to_system(f, c, err))
        why = NULL;
    if (why == NULL)
        return 0;
    if (!included(f, c))
        return refuse(v, err, "%s: name it with --include to apply it", why) < 0 ? -ENOMEM : 1;
    v->included = true;
    return 0;
}

/* What never lands as a file, by the class of its path: a version-control
 * tool's metadata, bytecode. 1 when refused. */
static int judge_class(const review_change_t *c, review_verdict_t *v, as_error_t **err)
{
    int git = review_git_depth(c->path);
    if (git != 0) {
        v->git = git == 1;
        return refuse(v, err, "%s", git == 1 ? "inside .git: never applied as a file (the agent's commits come as a branch: docs/review-apply.md)"
                                            : "inside a nested .git: never applied as a file") < 0 ? -ENOMEM : 1;
    }
    if (vcs_meta_inside(c->path))
        return refuse(v, err, "%s", "the metadata of a version-control tool (its configuration, hooks and "
                                    "extensions with its data): never applied as a file") < 0 ? -ENOMEM : 1;
    size_t n = strlen(c->path);
    if (c->kind != REVIEW_DELETED && c->type != REVIEW_DIR && n > 4 && strcmp(c->path + n - 4, ".pyc") == 0)
        return refuse(v, err, "%s", "bytecode: a cache python makes again from the sources, and loads instead "
                                    "of them; never applied") < 0 ? -ENOMEM : 1;
    return 0;
}

/* Names that stand in for the host's (the default mode's
 * workspace_shadow.c and its bin/ rule): a module at the top named like
 * one of the host python's, an entry of an environment's bin/ named like a
 * command on the host's PATH. A host python that cannot answer makes every
 * module at the top suspect. 1 when refused. */
static int judge_shadow(const review_filter_t *f, host_names_t *hn, const review_change_t *c, const char *sub,
                        review_verdict_t *v, as_error_t **err)
{
    _cleanup_free_ char *what = NULL, *where = NULL;
    if (c->kind == REVIEW_DELETED || included(f, c))
        return 0;
    if (sub != NULL && strncmp(sub, "bin/", 4) == 0 && strchr(sub + 4, '/') == NULL && c->type != REVIEW_DIR &&
        !python_env_own_bin_name(sub + 4)) {
        if (host_names_command(hn, sub + 4, &where) < 0)
            return oom(err);
        if (where != NULL)
            return refuse(v, err, "an entry of a virtual environment's bin named like the host command %s (%s): "
                          "name it with --include to apply it", sub + 4, where) < 0 ? -ENOMEM : 1;
    }
    bool found = false;
    as_error_t *e = NULL;
    _cleanup_free_ char *module = host_names_top_module(hn, c->path, c->type == REVIEW_DIR);
    if (module == NULL)
        return 0;
    int r = host_names_python(hn, &found, &e);
    if (r == 0 && (!found || !host_names_shadows(hn, module)))
        return 0;
    if (r < 0 && (what = strdup(e != NULL ? e->msg : "no answer")) == NULL)
        return oom(err);
    as_error_free(&e);
    return (what != NULL ? refuse(v, err, "a Python module at the top of the tree, and the host python's "
                                  "modules could not be listed (%s): name it with --include to apply it", what)
                         : refuse(v, err, "a Python module named %s, like one of the host python's or what "
                                  "python3 -m runs, which python run from the top imports instead: name it with "
                                  "--include to apply it", module)) < 0 ? -ENOMEM : 1;
}

static int judge_one(const review_filter_t *f, review_after_t *after, host_names_t *hn, const review_change_t *c,
                     review_verdict_t *v, as_error_t **err)
{
    const char *rule, *sub = NULL;
    if (c->unexamined != NULL)
        return refuse(v, err, "cannot be examined: %s", c->unexamined);
    int r = judge_class(c, v, err);
    if (r != 0)
        return r < 0 ? r : 0;
    review_type_t t = c->kind == REVIEW_DELETED ? c->host_type : c->type;
    if (c->kind != REVIEW_DELETED && t != REVIEW_FILE && t != REVIEW_DIR && t != REVIEW_SYMLINK)
        return refuse(v, err, "a %s: only regular files, directories and links are applied", review_type_name(t));
    r = judge_readers(f, after, c, v, &sub, err);
    if (r == 0)
        r = judge_shadow(f, hn, c, sub, v, err);
    if (r != 0)
        return r < 0 ? r : 0;
    if ((rule = review_protected_rule(f, c->path)) != NULL) {
        if (!included(f, c))
            return refuse(v, err, "a protected path (%s): name it with --include to apply it", rule);
        v->included = true;
    }
    if (c->kind != REVIEW_DELETED && c->type == REVIEW_SYMLINK && (rule = link_on_the_way(f, c->path)) != NULL) {
        if (!included(f, c))
            return refuse(v, err, "a link where a directory above a protected path (%s) is: name it with "
                                  "--include to apply it", rule);
        v->included = true;
    }
    if (c->kind != REVIEW_DELETED && c->type == REVIEW_SYMLINK) {
        _cleanup_free_ char *out = NULL;
        bool system = false;
        r = link_leads_out(f, c, &out, &system, err);
        if (r < 0)
            return r;
        /* the one shape that leaves: venv's bin/python* -> a python of the system */
        if (out != NULL && !(system && sub != NULL && python_env_link_shape(sub, c->target)))
            return refuse(v, err, "a link that leads out of the tree (to %s)", out);
    }
    return c->kind == REVIEW_DELETED ? 0 : judge_mode(c, v, err);
}

/* What lies below a refused directory that is new or replaces something is
 * refused with it; a directory to remove or replace that holds a refused
 * change cannot be removed. The changes list parents first. */
static int judge_nesting(const review_changes_t *c, review_verdicts_t *vs, as_error_t **err)
{
    for (size_t i = 0; i < c->n; i++) {
        const review_change_t *d = &c->v[i];
        bool replaces = d->kind == REVIEW_ADDED || d->host_type != d->type;
        if (d->kind != REVIEW_DELETED && !replaces)
            continue;
        for (size_t j = i + 1; j < c->n && review_change_under(&c->v[j], d->path); j++) {
            if (vs->v[i].refused && !vs->v[j].refused && d->kind != REVIEW_DELETED &&
                refuse(&vs->v[j], err, "%s", "inside a refused directory") < 0)
                return -ENOMEM;
            if (!vs->v[i].refused && vs->v[j].refused && d->host_type == REVIEW_DIR) {
                if (refuse(&vs->v[i], err, "%s", "holds refused changes, so it cannot be removed or replaced") < 0)
                    return -ENOMEM;
                i = (size_t)-1;   /* a parent of it may hold it now: judge again from the top */
                break;
            }
        }
    }
    return 0;
}

int review_filter_judge(const review_filter_t *f, const review_changes_t *c, review_verdicts_t **ret,
                        as_error_t **err)
{
    _cleanup_(review_verdicts_freep) review_verdicts_t *vs = calloc(1, sizeof(*vs));
    if (vs == NULL || (vs->v = calloc(c->n ? c->n : 1, sizeof(*vs->v))) == NULL)
        return oom(err);
    vs->n = c->n;
    _cleanup_(review_after_freep) review_after_t *after = NULL;
    _cleanup_(host_names_freep) host_names_t *hn = NULL;
    int r = review_after_new(f->root, c, &after, err);
    if (r == 0)
        r = host_names_new(f->host_path, f->root, &hn, err);
    if (r < 0)
        return r;
    for (size_t i = 0; i < c->n; i++) {
        r = judge_one(f, after, hn, &c->v[i], &vs->v[i], err);
        if (r < 0)
            return r;
    }
    r = judge_nesting(c, vs, err);
    if (r < 0)
        return r;
    *ret = steal_pointer(&vs);
    return 0;
}
