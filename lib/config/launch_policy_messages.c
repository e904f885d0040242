/* The launch policy's texts: each refusal names the rule that refused
 * ("[rule: name]"), the file to edit and how, and is stored in the result
 * with its rule; a warning is added to the result's list. The wording is
 * documented in docs/launch-policy.md. */
#include "launch_policy_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/msg.h"
#include "base/paths.h"
#include "base/strv.h"
#include "base/util.h"

/* ---- the parts of a message ---------------------------------------------- */

/* Writes a path for the user: "~" for $HOME, everything invisible escaped. */
static void put_path(FILE *f, const struct ctx *c, const char *path)
{
    path_put_for_user(f, path, c->home_res, c->home_lex);
}

/* Starts a refusal: "refusing to launch from DIR: ", and the path as given
 * when it differs, so that a symlinked directory is recognised. */
static int refusal_open(msg_t *m, const struct ctx *c, as_error_t **err)
{
    int r = msg_open(m, err);
    if (r < 0)
        return r;
    fputs("refusing to launch from ", m->f);
    put_path(m->f, c, c->dir);
    if (strcmp(c->given, c->dir) != 0) {
        fputs(" (", m->f);
        put_path(m->f, c, c->given);
        fputs(" resolves to it)", m->f);
    }
    fputs(": ", m->f);
    return 0;
}

static void refusal_rule(msg_t *m, launch_policy_rule_t rule)
{
    fprintf(m->f, " [rule: %s].\n", launch_policy_rule_name(rule));
}

/* Writes "No line in FILE can allow this; ", where the hard rules' hint
 * starts, so the user does not look for a fix in the file. */
static void refusal_hard(msg_t *m, const struct ctx *c)
{
    fputs("No line in ", m->f);
    put_path(m->f, c, c->file);
    fputs(" can allow this; ", m->f);
}

/* Finishes a refusal and stores it in the result. */
static int refusal_close(msg_t *m, struct ctx *c, launch_policy_rule_t rule,
                         const char *conflict, unsigned line, as_error_t **err)
{
    char *text = NULL;
    int r = msg_close(m, &text, err);
    if (r < 0)
        return r;
    char *dup = NULL;
    if (conflict != NULL && (dup = strdup(conflict)) == NULL) {
        free(text);
        return lp_oom(err);
    }
    c->res->rule = rule;
    c->res->message = text;
    c->res->conflict = dup;
    c->res->config_line = line;
    return 0;
}

/* Adds text to the result's warnings and takes it over; a NULL text is the
 * caller's failed allocation, reported as such. */
static int add_warning(struct ctx *c, char *text, as_error_t **err)
{
    _cleanup_free_ char *owned = text;
    if (text == NULL || strv_push(&c->res->warnings, text) < 0)
        return lp_oom(err);
    c->res->n_warnings++;
    return 0;
}

const char *launch_policy_rule_name(launch_policy_rule_t rule)
{
    switch (rule) {
    case LAUNCH_POLICY_ALLOWED:              return "allowed";
    case LAUNCH_POLICY_RULE_HOME_OR_PARENT:  return "home-or-parent";
    case LAUNCH_POLICY_RULE_SYSTEM_DIR:      return "system-dir";
    case LAUNCH_POLICY_RULE_SECRET_DIR:      return "secret-dir";
    case LAUNCH_POLICY_RULE_RUNTIME_DIR:     return "runtime-dir";
    case LAUNCH_POLICY_RULE_PODMAN_STORAGE:  return "podman-storage";
    case LAUNCH_POLICY_RULE_CONFIG_DIR:      return "config-dir";
    case LAUNCH_POLICY_RULE_PATH_ENTRY:      return "path-entry";
    case LAUNCH_POLICY_RULE_HOME_DOT_DIR:    return "home-dot-dir";
    case LAUNCH_POLICY_RULE_BAD_CONFIG:      return "bad-config";
    case LAUNCH_POLICY_RULE_NO_ROOTS:        return "no-roots";
    case LAUNCH_POLICY_RULE_NOT_UNDER_ROOT:  return "not-under-root";
    }
    return "unknown";
}

/* ---- the hard rules ------------------------------------------------------ */

static const char *relation_words(path_relation_t rel)
{
    return rel == PATH_SAME ? "it is" : rel == PATH_INSIDE ? "it sits in" : "it holds";
}

int lp_refuse_guard(struct ctx *c, const struct guard *g, path_relation_t rel, as_error_t **err)
{
    msg_t m;
    int r = refusal_open(&m, c, err);
    if (r < 0)
        return r;
    FILE *f = m.f;

    fprintf(f, "%s ", relation_words(rel));
    if (g->rule == LAUNCH_POLICY_RULE_HOME_OR_PARENT) {
        fputs(g->noun, f);
    } else if (g->noun != NULL) {
        fprintf(f, "%s (", g->noun);
        put_path(f, c, g->shown);
        fputs(")", f);
    } else {
        put_path(f, c, g->shown);
    }
    if (g->rule != LAUNCH_POLICY_RULE_HOME_OR_PARENT && strcmp(g->shown, g->path) != 0) {
        fputs(" (resolved: ", f);
        put_path(f, c, g->path);
        fputs(")", f);
    }
    fprintf(f, ", %s", g->why);
    refusal_rule(&m, g->rule);
    refusal_hard(&m, c);

    switch (g->rule) {
    case LAUNCH_POLICY_RULE_HOME_OR_PARENT:
        fputs("cd into a project directory (such as ~/src/myproject) and launch from there.", f);
        break;
    case LAUNCH_POLICY_RULE_SYSTEM_DIR:
        fputs("move the project under an allowed root (by default " DEFAULT_ROOT_TEXT ").", f);
        break;
    case LAUNCH_POLICY_RULE_PATH_ENTRY:
        fputs("remove that entry from $PATH (usually set in ~/.profile or ~/.bashrc), "
              "or launch from a directory that does not hold it.", f);
        break;
    default:
        fputs("launch from a project directory that neither is, holds nor sits in it.", f);
        break;
    }
    return refusal_close(&m, c, g->rule, g->path, 0, err);
}

int lp_refuse_relative_path_entry(struct ctx *c, const char *entry, size_t len, as_error_t **err)
{
    msg_t m;
    int r = refusal_open(&m, c, err);
    if (r < 0)
        return r;
    if (len == 0)
        fputs("$PATH has an empty entry, which means the current directory", m.f);
    else {
        fputs("$PATH has the relative entry \"", m.f);
        path_put_escaped(m.f, entry, len);
        fputs("\", which names a directory inside the current one", m.f);
    }
    fputs(", so whatever the launch directory, it is or holds a $PATH entry", m.f);
    refusal_rule(&m, LAUNCH_POLICY_RULE_PATH_ENTRY);
    refusal_hard(&m, c);
    fputs("remove that entry from $PATH (look for \"::\", a leading or trailing \":\" or "
          "a \".\" where $PATH is set, usually ~/.profile or ~/.bashrc).", m.f);

    _cleanup_free_ char *conflict = strndup(entry, len);
    if (conflict == NULL) {
        msg_discard(&m);
        return lp_oom(err);
    }
    return refusal_close(&m, c, LAUNCH_POLICY_RULE_PATH_ENTRY, conflict, 0, err);
}

int lp_refuse_home_dot_dir(struct ctx *c, as_error_t **err)
{
    msg_t m;
    int r = refusal_open(&m, c, err);
    if (r < 0)
        return r;
    fputs("it is a top-level dot-directory of your home, where programs keep their state", m.f);
    refusal_rule(&m, LAUNCH_POLICY_RULE_HOME_DOT_DIR);
    refusal_hard(&m, c);
    fputs("to work inside it, list a subdirectory of it (such as ", m.f);
    put_path(m.f, c, c->dir);
    fputs("/src) in that file and launch from a project below that.", m.f);
    return refusal_close(&m, c, LAUNCH_POLICY_RULE_HOME_DOT_DIR, c->dir, 0, err);
}

/* ---- allowed-paths and its roots ----------------------------------------- */

int lp_refuse_bad_line(struct ctx *c, unsigned line, const char *problem,
                       const char *text, size_t len, as_error_t **err)
{
    msg_t m;
    int r = refusal_open(&m, c, err);
    if (r < 0)
        return r;
    put_path(m.f, c, c->file);
    fprintf(m.f, ":%u: \"", line);
    path_put_escaped(m.f, text, len);
    fprintf(m.f, "\": %s", problem);
    refusal_rule(&m, LAUNCH_POLICY_RULE_BAD_CONFIG);
    fputs("Each line must be an absolute path or start with ~/ (comments start with #). "
          "Fix or remove that line; while the file exists but is broken, nothing is allowed "
          "(without the file: " DEFAULT_ROOT_TEXT ").", m.f);
    return refusal_close(&m, c, LAUNCH_POLICY_RULE_BAD_CONFIG, NULL, line, err);
}

int lp_warn_root(struct ctx *c, unsigned line, const char *path, int code, as_error_t **err)
{
    msg_t m;
    char *text = NULL;
    int r = msg_open(&m, err);
    if (r < 0)
        return r;
    put_path(m.f, c, c->file);
    fprintf(m.f, ":%u: ignoring the root ", line);
    put_path(m.f, c, path);
    fprintf(m.f, ": %s", strerror(code));
    if ((r = msg_close(&m, &text, err)) < 0)
        return r;
    return add_warning(c, text, err);
}

int lp_refuse_file(struct ctx *c, launch_policy_rule_t rule, int read_errno, as_error_t **err)
{
    msg_t m;
    int r = refusal_open(&m, c, err);
    if (r < 0)
        return r;
    if (rule == LAUNCH_POLICY_RULE_BAD_CONFIG) {
        fputs("cannot read ", m.f);
        put_path(m.f, c, c->file);
        fprintf(m.f, ": %s", c->in->allowed_paths->reason != NULL ? c->in->allowed_paths->reason
                                                                   : strerror(read_errno));
        refusal_rule(&m, rule);
        fputs("Make it a readable regular file, or delete it to allow " DEFAULT_ROOT_TEXT
              "; that default never applies while the file exists.", m.f);
    } else {
        put_path(m.f, c, c->file);
        fputs(" lists no roots, so no directory is allowed", m.f);
        refusal_rule(&m, rule);
        fputs("Add a line naming a directory under which you launch projects (such as ~/src), "
              "or delete the file to allow " DEFAULT_ROOT_TEXT ".", m.f);
    }
    return refusal_close(&m, c, rule, NULL, 0, err);
}

/* Suggests the line that would allow the launch directory: its parent,
 * unless that is "/" or would take in $HOME, which the file cannot usefully
 * list. */
static void put_parent_suggestion(FILE *f, const struct ctx *c)
{
    _cleanup_free_ char *parent = strdup(c->dir);
    if (parent == NULL)
        return;
    char *slash = strrchr(parent, '/');
    if (slash == NULL || slash == parent)
        return;
    *slash = '\0';
    path_relation_t rel = path_relation(c->home_res, parent);
    if (rel == PATH_SAME || rel == PATH_INSIDE)
        return;
    fputs(" (such as ", f);
    put_path(f, c, parent);
    fputs(")", f);
}

int lp_refuse_not_under_root(struct ctx *c, bool file_absent, const struct root *same,
                             as_error_t **err)
{
    msg_t m;
    int r = refusal_open(&m, c, err);
    if (r < 0)
        return r;
    if (same != NULL) {
        fputs("it is a root listed in ", m.f);
        put_path(m.f, c, c->file);
        fprintf(m.f, ":%u itself; only directories strictly under a root are allowed", same->line);
        refusal_rule(&m, LAUNCH_POLICY_RULE_NOT_UNDER_ROOT);
        fputs("Launch from a project directory inside it, or list a directory above it in that file.", m.f);
    } else if (file_absent) {
        fputs("it is not under an allowed root; ", m.f);
        put_path(m.f, c, c->file);
        fputs(" does not exist, so the only root is your home outside its dot-directories", m.f);
        refusal_rule(&m, LAUNCH_POLICY_RULE_NOT_UNDER_ROOT);
        fputs("To allow it, create that file with a line naming a directory above it", m.f);
        put_parent_suggestion(m.f, c);
        fputs("; once the file exists only the roots it lists are allowed, so list the others "
              "you use too (such as ~/src).", m.f);
    } else {
        fputs("it is not strictly under any root listed in ", m.f);
        put_path(m.f, c, c->file);
        refusal_rule(&m, LAUNCH_POLICY_RULE_NOT_UNDER_ROOT);
        fputs("To allow it, add a line to that file naming a directory above it", m.f);
        put_parent_suggestion(m.f, c);
        fputs(", or launch from a project below a listed root.", m.f);
    }
    return refusal_close(&m, c, LAUNCH_POLICY_RULE_NOT_UNDER_ROOT, NULL, 0, err);
}
