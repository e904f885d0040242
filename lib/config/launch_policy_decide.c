/* The launch policy's decision: the input checked, $HOME and the launch
 * directory resolved, then the rules in their order (the hard rules of
 * launch_policy_guards.c first, the roots of allowed-paths last). */
#include "launch_policy_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/paths.h"
#include "base/util.h"

/* ---- the roots rule ---------------------------------------------------- */

/* The launch directory must sit strictly under a root: one that allowed-paths
 * lists, or, without the file, the home outside its dot-directories. A file
 * that exists but cannot be read allows nothing rather than falling back to
 * the default. */
static int check_roots(struct ctx *c, as_error_t **err)
{
    const launch_policy_file_t *file = c->in->allowed_paths;

    switch (file->state) {
    case LAUNCH_POLICY_FILE_ABSENT: {
        const char *first = lp_first_component_below(c->dir, c->home_res);
        if (first != NULL && first[0] != '.')
            return 0;
        return lp_refuse_not_under_root(c, true, NULL, err);
    }
    case LAUNCH_POLICY_FILE_UNREADABLE:
        return lp_refuse_file(c, LAUNCH_POLICY_RULE_BAD_CONFIG,
                              file->read_errno > 0 ? file->read_errno : EIO, err);
    case LAUNCH_POLICY_FILE_PRESENT:
        break;
    default:
        return as_error_make(err, EINVAL, "unknown allowed-paths state %d", (int)file->state);
    }

    int r = lp_parse_roots(c, file->text != NULL ? file->text : "", file->text != NULL ? file->len : 0, err);
    if (r != 0)
        return r < 0 ? r : 0;
    if (c->n_roots == 0 && c->res->n_warnings == 0)
        return lp_refuse_file(c, LAUNCH_POLICY_RULE_NO_ROOTS, 0, err);

    const struct root *same = NULL;
    for (size_t i = 0; i < c->n_roots; i++) {
        path_relation_t rel = path_relation(c->dir, c->roots[i].path);
        if (rel == PATH_INSIDE)
            return 0;
        if (rel == PATH_SAME && same == NULL)
            same = &c->roots[i];
    }
    return lp_refuse_not_under_root(c, false, same, err);
}

/* ---- the decision ------------------------------------------------------ */

static void ctx_release(struct ctx *c)
{
    free(c->home_lex);
    free(c->home_res);
    free(c->given);
    free(c->dir);
    free(c->file);
    for (size_t i = 0; i < c->n_guards; i++) {
        free(c->guards[i].shown);
        free(c->guards[i].path);
    }
    free(c->guards);
    for (size_t i = 0; i < c->n_roots; i++)
        free(c->roots[i].path);
    free(c->roots);
}

static int check_input(const launch_policy_input_t *in, as_error_t **err)
{
    if (in == NULL)
        return as_error_make(err, EINVAL, "no launch policy input");
    if (in->allowed_paths == NULL)
        return as_error_make(err, EINVAL, "the allowed-paths file was not read");
    if (in->home == NULL || in->home[0] == '\0')
        return as_error_make(err, EINVAL, "$HOME is not set");
    if (in->home[0] != '/')
        return as_error_make(err, EINVAL, "$HOME is not an absolute path: %s", in->home);
    if (in->launch_dir == NULL || in->launch_dir[0] != '/')
        return as_error_make(err, EINVAL, "the launch directory is not an absolute path: %s",
                             in->launch_dir != NULL ? in->launch_dir : "(null)");
    const struct { const char *name, *value; } optional[] = {
        { "$XDG_RUNTIME_DIR", in->xdg_runtime_dir },
        { "podman's graphroot", in->graphroot },
        { "the config directory", in->config_dir },
    };
    for (size_t i = 0; i < ARRAY_SIZE(optional); i++) {
        const char *v = optional[i].value;
        if (v != NULL && v[0] != '\0' && v[0] != '/')
            return as_error_make(err, EINVAL, "%s is not an absolute path: %s", optional[i].name, v);
    }
    if (in->config_dir == NULL || in->config_dir[0] == '\0')
        return as_error_make(err, EINVAL, "no config directory given");
    return 0;
}

/* Decides whether the launch directory is allowed, and stores the result in
 * c->res (the refusal, or nothing): $HOME and the launch directory resolved
 * first, since every rule compares resolved paths. */
static int decide_launch_dir_allowed(struct ctx *c, as_error_t **err)
{
    const launch_policy_input_t *in = c->in;
    int r;

    if ((r = path_normalize(in->home, &c->home_lex, err)) < 0)
        return r;
    if (strcmp(c->home_lex, "/") == 0)
        return as_error_make(err, EINVAL, "$HOME is \"/\"; refusing to decide what is inside it");
    if ((r = lp_resolve_loose(c, in->home, &c->home_res, err)) < 0)
        return r;
    if (strcmp(c->home_res, "/") == 0)
        return as_error_make(err, EINVAL, "$HOME (%s) resolves to \"/\"", in->home);

    if ((r = path_normalize(in->launch_dir, &c->given, err)) < 0)
        return r;
    if ((r = lp_resolve_strict(c, in->launch_dir, &c->dir, err)) < 0)
        return as_error_prefix(err, "cannot resolve the launch directory");
    if ((c->res->resolved_dir = strdup(c->dir)) == NULL)
        return lp_oom(err);

    if (in->allowed_paths_path != NULL)
        c->file = strdup(in->allowed_paths_path);
    else
        path_join(in->config_dir, "allowed-paths", &c->file, NULL);
    if (c->file == NULL)
        return lp_oom(err);

    if ((r = lp_build_guards(c, err)) < 0)
        return r;
    if ((r = lp_check_hard_rules(c, err)) != 0)
        return r < 0 ? r : 0;
    return check_roots(c, err);
}

int launch_policy_decide(const launch_policy_input_t *in, launch_policy_result_t **ret_result,
                         as_error_t **err)
{
    int r = check_input(in, err);
    if (r < 0)
        return r;

    _cleanup_(launch_policy_result_freep) launch_policy_result_t *res = calloc(1, sizeof(*res));
    if (res == NULL || (res->warnings = calloc(1, sizeof(char *))) == NULL)
        return lp_oom(err);
    struct ctx c = {
        .in = in,
        .resolve = in->resolve != NULL ? in->resolve : launch_policy_resolve_realpath,
        .rctx = in->resolve_ctx,
        .res = res,
    };
    r = decide_launch_dir_allowed(&c, err);
    ctx_release(&c);
    if (r < 0)
        return r;
    *ret_result = steal_pointer(&res);
    return 0;
}

void launch_policy_result_free(launch_policy_result_t **result)
{
    if (result == NULL || *result == NULL)
        return;
    launch_policy_result_t *r = *result;
    free(r->resolved_dir);
    free(r->message);
    free(r->conflict);
    if (r->warnings != NULL)
        for (size_t i = 0; i < r->n_warnings; i++)
            free(r->warnings[i]);
    free(r->warnings);
    free(r);
    *result = NULL;
}
