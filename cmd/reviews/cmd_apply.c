/* `agent-sandbox apply [ID] [PATH...] [--include PATH]...` and
 * `apply --undo ID`: a review's changes brought into the host tree through
 * the one filter (lib/review/review_filter.h), each write atomic and
 * journaled, and taken back (docs/review.md). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/backend.h"
#include "shared/cli.h"
#include "shared/cli_env.h"
#include "review.h"
#include "shared/session_list.h"
#include "session/session_workspace.h"
#include "base/escape.h"
#include "base/paths.h"
#include "base/strv.h"
#include "base/util.h"
#include "review/review_apply.h"
#include "review/review_store.h"
#include "podman/podman_api.h"
#include "session/labels.h"

#define APPLY_EXIT_PARTLY 1   /* some chosen change was refused, conflicted or failed */

typedef struct apply_args {
    const char *id;
    const char *undo;
    char **paths;      /* as given */
    char **include;    /* as given */
} apply_args_t;

static void put_path(FILE *f, const char *rel)
{
    path_put_escaped(f, rel, strlen(rel));
}

static int parse_args(int argc, char **argv, apply_args_t *a)
{
    static const char *const known[] = { "--include", "--undo" };
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (strcmp(s, "--include") == 0 || strcmp(s, "--undo") == 0) {
            if (i + 1 >= argc)
                return cli_missing_value("apply", s, strcmp(s, "--undo") == 0 ? "ID" : "PATH");
            if (s[2] == 'u')
                a->undo = argv[++i];
            else if (strv_push(&a->include, argv[++i]) < 0)
                return EXIT_INTERNAL;
        } else if (s[0] == '-' && s[1] != '\0') {
            return cli_bad_argument("apply", s, known, ARRAY_SIZE(known));
        } else if (a->id == NULL && a->paths == NULL && s[strspn(s, "0123456789abcdef")] == '\0') {
            a->id = s;
        } else if (strv_push(&a->paths, s) < 0) {
            return EXIT_INTERNAL;
        }
    }
    if (a->undo != NULL && (a->id != NULL || a->paths != NULL || a->include != NULL)) {
        report("error: apply: --undo takes an ID alone\nusage: agent-sandbox apply --undo ID");
        return EXIT_USAGE;
    }
    return 0;
}

/* The review: the ID's, else the newest of this directory's tree or one
 * above it. */
static int find_review(const char *id, review_info_t *r)
{
    as_error_t *err = NULL;
    if (id != NULL) {
        if (review_store_load(id, r, &err) == 0)
            return 0;
        report_error(&err);
        return EXIT_USAGE;
    }
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof(cwd)) == NULL) {
        report("error: apply: the current directory: %s", strerror(errno));
        return EXIT_USAGE;
    }
    for (;;) {
        int rc = review_store_latest_for_root(cwd, r, &err);
        if (rc == 0)
            return 0;
        if (rc != -ENOENT) {
            report_error(&err);
            return EXIT_INTERNAL;
        }
        as_error_free(&err);
        char *slash = strrchr(cwd, '/');
        if (strcmp(cwd, "/") == 0 || slash == NULL)
            break;
        slash[slash == cwd] = '\0';
    }
    report("error: apply: no review of this directory or one above it (give its ID: `agent-sandbox reviews`)");
    return EXIT_USAGE;
}

/* PATH as given (relative to the current directory, or absolute) made
 * relative to the tree, which it must be in. */
static int path_in_tree(const char *root, const char *given, char **ret)
{
    char cwd[PATH_MAX];
    _cleanup_free_ char *abs = NULL, *norm = NULL;
    as_error_t *err = NULL;
    if ((given[0] != '/' && getcwd(cwd, sizeof(cwd)) == NULL) ||
        asprintf(&abs, "%s%s%s", given[0] == '/' ? "" : cwd, given[0] == '/' ? "" : "/", given) < 0)
        return EXIT_INTERNAL;
    if (path_normalize(abs, &norm, &err) < 0) {
        report_error(&err);
        return EXIT_USAGE;
    }
    if (strcmp(norm, root) == 0)
        return (*ret = strdup("")) ? 0 : EXIT_INTERNAL;
    if (!path_is_inside(norm, root)) {
        report("error: apply: %s is not in the review's tree %s", given, root);
        return EXIT_USAGE;
    }
    return (*ret = strdup(norm + strlen(root) + (strcmp(root, "/") != 0))) ? 0 : EXIT_INTERNAL;
}

static int paths_in_tree(const char *root, char **given, char ***ret)
{
    for (char **g = given; g && *g; g++) {
        _cleanup_free_ char *rel = NULL;
        int rc = path_in_tree(root, *g, &rel);
        if (rc != 0)
            return rc;
        if (strv_push(ret, rel) < 0)
            return EXIT_INTERNAL;
    }
    return 0;
}

/* applied/NNNN: the next journal's directory (made on demand). */
static int next_journal(const review_info_t *r, bool newest_pending, char **ret)
{
    _cleanup_free_ char *dir = NULL;
    if (asprintf(&dir, "%s/applied", r->dir) < 0)
        return -ENOMEM;
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return -errno;
    DIR *d = opendir(dir);
    if (d == NULL)
        return -errno;
    unsigned max = 0, pending = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char *end = NULL;
        unsigned long n = strtoul(e->d_name, &end, 10);
        if (end == e->d_name || (*end != '\0' && strcmp(end, ".undone") != 0))
            continue;
        if (n > max)
            max = (unsigned)n;
        if (*end == '\0' && n > pending)
            pending = (unsigned)n;
    }
    closedir(d);
    if (newest_pending && pending == 0)
        return -ENOENT;
    return asprintf(ret, "%s/%04u", dir, newest_pending ? pending : max + 1) < 0 ? -ENOMEM : 0;
}

static int load_filter_inputs(const review_info_t *r, char **include_given, workspace_t **ret_ws, char ***ret_include)
{
    int rc = exit_code_of(workspace_check_load(r->root, cli_env()->vars.home, cli_env()->vars.path, &cli_say, ret_ws));
    return rc != 0 ? rc : paths_in_tree(r->root, include_given, ret_include);
}

static const char *verb(const review_change_t *c)
{
    return c->kind == REVIEW_ADDED ? "added" : c->kind == REVIEW_DELETED ? "deleted" : "changed";
}

/* Refused ones first, then the protected paths named with --include,
 * shown before anything is written. Returns how many are refused. */
static size_t show_before(const review_changes_t *c, const review_verdicts_t *v, const bool *chosen)
{
    size_t refused = 0, included = 0, below = 0;
    const review_change_t *dir = NULL;   /* a refused directory: what is below it goes unnamed */
    for (size_t i = 0; i < c->n; i++) {
        if (!chosen[i] || !v->v[i].refused)
            continue;
        refused++;
        if (dir != NULL && review_change_under(&c->v[i], dir->path)) {
            below++;
            continue;
        }
        printf("  refused   ");
        put_path(stdout, c->v[i].path);
        printf(": %s\n", v->v[i].reason);
        dir = c->v[i].type == REVIEW_DIR || c->v[i].host_type == REVIEW_DIR ? &c->v[i] : NULL;
    }
    if (below > 0)
        printf("  refused   %zu more below the directories above\n", below);
    for (size_t i = 0; i < c->n; i++) {
        if (!chosen[i] || v->v[i].refused || !v->v[i].included)
            continue;
        if (included++ == 0)
            printf("Protected paths named with --include, written now:\n");
        printf("  %-9s ", verb(&c->v[i]));
        put_path(stdout, c->v[i].path);
        putchar('\n');
    }
    return refused;
}

static size_t show_after(const review_changes_t *c, const review_verdicts_t *v, const review_result_t *res)
{
    size_t applied = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (res[i].outcome == REVIEW_SKIPPED)
            continue;
        bool ok = res[i].outcome == REVIEW_APPLIED;
        printf("  %-9s ", ok ? verb(&c->v[i]) : res[i].outcome == REVIEW_CONFLICT ? "conflict" : "failed");
        put_path(stdout, c->v[i].path);
        if (!ok)
            printf(": %s; left as it is", res[i].why ? res[i].why : "out of memory");
        else if (v->v[i].notes != NULL)
            printf(" (%s)", v->v[i].notes);
        putchar('\n');
        applied += ok;
    }
    return applied;
}

/* The journal of an apply that changed nothing goes again. */
static void drop_empty_journal(const char *dir)
{
    _cleanup_free_ char *saved = NULL, *journal = NULL;
    if (asprintf(&saved, "%s/saved", dir) >= 0 && asprintf(&journal, "%s/journal", dir) >= 0) {
        rmdir(saved);
        unlink(journal);
        rmdir(dir);
    }
}

static int run_apply(const review_info_t *r, const review_changes_t *c, const review_verdicts_t *v,
                     const bool *chosen)
{
    size_t refused = show_before(c, v, chosen);
    _cleanup_free_ char *journal = NULL;
    _cleanup_free_ review_result_t *res = calloc(c->n ? c->n : 1, sizeof(*res));
    if (res == NULL || next_journal(r, false, &journal) < 0) {
        report("error: apply: cannot make the undo journal under %s/applied", r->dir);
        return EXIT_INTERNAL;
    }
    review_apply_ctx_t ctx = { .root = r->root, .upper = r->upper, .started_ns = r->started_ns,
                               .journal_dir = journal };
    as_error_t *err = NULL;
    int rc = review_apply(&ctx, c, v, chosen, res, &err);
    size_t applied = show_after(c, v, res), missed = refused;
    for (size_t i = 0; i < c->n; i++) {
        missed += res[i].outcome == REVIEW_CONFLICT || res[i].outcome == REVIEW_FAILED;
        free(res[i].why);
    }
    if (rc < 0) {
        report_error(&err);
        report("the changes written so far are in the journal: `agent-sandbox apply --undo %s` takes them back", r->id);
        return EXIT_INTERNAL;
    }
    if (applied == 0)
        drop_empty_journal(journal);
    report("%zu %s of review %s applied to %s", applied, plural(applied, "change", "changes"), r->id, r->root);
    if (missed)
        report("%zu not applied (above)", missed);
    if (applied)
        report("`agent-sandbox apply --undo %s` takes them back", r->id);
    return missed ? APPLY_EXIT_PARTLY : 0;
}

static int undo(const char *id)
{
    review_info_t r = { 0 };
    int rc = find_review(id, &r);
    if (rc != 0)
        return rc;
    _cleanup_free_ char *journal = NULL, *problems = NULL;
    as_error_t *err = NULL;
    int e = next_journal(&r, true, &journal);
    if (e < 0) {
        report("error: apply --undo: review %s has no apply to take back%s%s", r.id, e == -ENOENT ? "" : ": ",
               e == -ENOENT ? "" : strerror(-e));
        review_info_clear(&r);
        return EXIT_USAGE;
    }
    if (review_undo(journal, r.root, &problems, &err) < 0) {
        report_error(&err);
        review_info_clear(&r);
        return EXIT_INTERNAL;
    }
    if (problems != NULL)
        text_put_escaped(stdout, problems, strlen(problems));
    report("the last apply of review %s to %s is taken back%s", r.id, r.root,
           problems ? ", except the paths above" : "");
    review_info_clear(&r);
    return problems ? APPLY_EXIT_PARTLY : 0;
}

/* Which changes the PATHs choose (all without any). */
static bool *choose(const review_changes_t *c, char **rel_paths)
{
    bool *chosen = calloc(c->n ? c->n : 1, sizeof(*chosen));
    for (size_t i = 0; chosen != NULL && i < c->n; i++) {
        chosen[i] = rel_paths == NULL;
        for (char **p = rel_paths; p && *p && !chosen[i]; p++)
            chosen[i] = review_change_under(&c->v[i], *p);
    }
    return chosen;
}

/* A review whose CLI was killed (no `ended` in its meta): its containers
 * may still run, their agent still writing the upper layer. Asked of
 * podman; what cannot be asked is refused too. */
static int refuse_left_containers(const review_info_t *r)
{
    if (r->ended_ns != 0)
        return 0;
    backend_t b = { 0 };
    int rc = backend_start_command(&b);
    if (rc != 0)
        return rc;
    as_error_t *err = NULL;
    podman_labelled_t *list = NULL;
    size_t n = 0;
    if (podman_list_labelled(b.api, PODMAN_CONTAINERS, LABEL_SESSION, &list, &n, &err) < 0) {
        as_error_prefix(&err, "apply: whether the containers of review %s's killed session are gone", r->id);
        report_error(&err);
        rc = EXIT_INTERNAL;
    }
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (strcmp(list[i].label_value, r->id) == 0) {
            report("error: apply: the containers of review %s's session are still there (its CLI was killed, "
                   "its agent may still write): `agent-sandbox cleanup` removes them; apply once they are gone",
                   r->id);
            rc = EXIT_USAGE;
        }
    podman_labelled_free(list, n);
    backend_stop(&b, &cli_say);
    return rc;
}

/* The review's own session still running: its agent still writes the
 * upper layer, so what apply would read is not final. */
static int refuse_running(const review_info_t *r)
{
    session_entry_t **v = NULL;
    size_t n = 0;
    int rc = sessions_load(&v, &n);
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (strcmp(v[i]->id, r->id) == 0) {
            report("error: apply: the session of review %s still runs (`agent-sandbox stop %s` ends it); apply "
                   "once it has ended", r->id, r->id);
            rc = EXIT_USAGE;
        }
    session_entries_free(v, n);
    return rc != 0 ? rc : refuse_left_containers(r);
}

/* .git's changes never land as files: when some are chosen, the agent's
 * commits come as a branch instead, and then .git's changes are done with;
 * else they stay refused, with the reason said (cmd/reviews/review_git.c). */
static void bring_commits(const review_info_t *r, const review_changes_t *c, const review_verdicts_t *v,
                          bool *chosen)
{
    bool git = false;
    for (size_t i = 0; i < c->n; i++)
        git |= chosen[i] && v->v[i].git;
    if (git && review_git_bring(r) == 0)
        for (size_t i = 0; i < c->n; i++)
            chosen[i] = chosen[i] && !v->v[i].git;
}

static int apply_review(const review_info_t *r, const apply_args_t *a)
{
    int running = refuse_running(r);
    if (running != 0)
        return running;
    _cleanup_(workspace_freep) workspace_t *ws = NULL;
    _cleanup_(strv_freep) char **include = NULL, **rel_paths = NULL;
    int rc = load_filter_inputs(r, a->include, &ws, &include);
    if (rc == 0)
        rc = paths_in_tree(r->root, a->paths, &rel_paths);
    if (rc != 0)
        return rc;
    _cleanup_(review_changes_freep) review_changes_t *c = NULL;
    _cleanup_(review_verdicts_freep) review_verdicts_t *v = NULL;
    _cleanup_free_ char **protected_paths = calloc(ws->rules->n + 1, sizeof(char *));
    as_error_t *err = NULL;
    if (protected_paths == NULL)
        return EXIT_INTERNAL;
    for (size_t i = 0; i < ws->rules->n; i++)
        protected_paths[i] = ws->rules->v[i].path;
    review_filter_t f = { .root = r->root, .protected_paths = protected_paths, .n_protected = ws->rules->n,
                          .include = include, .n_include = strv_length(include), .host_path = ws->host_path };
    if (review_changes_list(r->upper, r->root, &c, &err) < 0 || review_filter_judge(&f, c, &v, &err) < 0) {
        report_error(&err);
        return EXIT_INTERNAL;
    }
    _cleanup_free_ bool *chosen = choose(c, rel_paths);
    if (chosen == NULL)
        return EXIT_INTERNAL;
    bring_commits(r, c, v, chosen);
    return run_apply(r, c, v, chosen);
}

int cmd_apply(int argc, char **argv)
{
    apply_args_t a = { 0 };
    int rc = parse_args(argc, argv, &a);
    if (rc == 0 && a.undo != NULL)
        rc = undo(a.undo);
    else if (rc == 0) {
        review_info_t r = { 0 };
        if ((rc = find_review(a.id, &r)) == 0)
            rc = apply_review(&r, &a);
        review_info_clear(&r);
    }
    strv_free(a.paths);
    strv_free(a.include);
    return rc;
}
