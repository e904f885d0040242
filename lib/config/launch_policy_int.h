/* Inside the launch policy (lib/config/launch_policy_*.c): what its files
 * share. Not for the rest of the CLI; launch_policy.h is the module's contract.
 *
 * The files, one concern each: _decide (the input checked, the paths resolved,
 * the order of the rules, the roots rule), _guards (the hard rules: the places
 * no launch directory may be, hold or sit in), _file (the allowed-paths file
 * read and parsed into roots), _messages (the texts of refusals and warnings,
 * stored in the result). */
#ifndef AS_LAUNCH_POLICY_INT_H
#define AS_LAUNCH_POLICY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "launch_policy.h"
#include "base/paths.h"

/* The default root in words, for the messages that name it. */
#define DEFAULT_ROOT_TEXT "anywhere in your home outside its dot-directories"

/* A path_relation_t as a bit of struct guard's relations. */
#define REL(r) (1u << (r))

/* A protected place: the launch directory is refused when its relation to
 * path is one of relations. */
struct guard {
    launch_policy_rule_t rule;
    unsigned relations;      /* bits of (1u << path_relation_t) that refuse */
    const char *noun;        /* what the place is ("podman's storage"), or NULL */
    const char *why;         /* why it matters, for the message */
    char *shown;             /* the path as configured (normalized) */
    char *path;              /* the form compared: normalized or resolved */
};

/* A root listed in allowed-paths, resolved. */
struct root {
    char *path;
    unsigned line;           /* its line in the file, for messages */
};

/* One decision's state, shared by the files of the module. */
struct ctx {
    const launch_policy_input_t *in;
    launch_policy_resolve_fn resolve;
    void *rctx;
    char *home_lex;          /* $HOME normalized */
    char *home_res;          /* $HOME resolved as far as it exists */
    char *given;             /* launch dir normalized, as given */
    char *dir;               /* launch dir resolved */
    char *file;              /* allowed-paths path, for messages */
    struct guard *guards;
    size_t n_guards;
    struct root *roots;
    size_t n_roots;
    launch_policy_result_t *res;
};

/* The first component of dir below home when dir sits in home, else NULL. */
static inline const char *lp_first_component_below(const char *dir, const char *home)
{
    if (!path_is_inside(dir, home))
        return NULL;
    return dir + strlen(home) + (strcmp(home, "/") == 0 ? 0 : 1);
}

/* ---- resolving paths (launch_policy_resolve.c) ---- */

int lp_oom(as_error_t **err);

/* Resolves path fully through the input's resolver, normalized. A path that
 * does not resolve is an error carrying the resolver's errno. */
int lp_resolve_strict(struct ctx *c, const char *path, char **ret, as_error_t **err);

/* Resolves path as far as it exists (like `realpath -m`): the deepest
 * existing ancestor resolved, the rest appended. */
int lp_resolve_loose(struct ctx *c, const char *path, char **ret, as_error_t **err);

/* ---- the hard rules (launch_policy_guards.c) ---- */

/* Fills c->guards with every protected place of the input. */
int lp_build_guards(struct ctx *c, as_error_t **err);

/* Returns 1 and stores a refusal when a hard rule applies, 0 when none does,
 * or a negative errno. */
int lp_check_hard_rules(struct ctx *c, as_error_t **err);

/* ---- allowed-paths (launch_policy_file.c) ---- */

/* Parses the file's text into c->roots, resolved. Returns 1 and stores a
 * refusal on a malformed line; 0 otherwise (a root that does not resolve
 * becomes a warning); a negative errno when it cannot go on. */
int lp_parse_roots(struct ctx *c, const char *text, size_t len, as_error_t **err);

/* ---- refusals and warnings (launch_policy_messages.c) ---- */

/* Each of these stores its refusal in c->res (the rule, the message, the
 * conflict and the line) and returns 0, or a negative errno. */
int lp_refuse_guard(struct ctx *c, const struct guard *g, path_relation_t rel, as_error_t **err);
int lp_refuse_relative_path_entry(struct ctx *c, const char *entry, size_t len, as_error_t **err);
int lp_refuse_home_dot_dir(struct ctx *c, as_error_t **err);
int lp_refuse_bad_line(struct ctx *c, unsigned line, const char *problem,
                       const char *text, size_t len, as_error_t **err);
/* rule is LAUNCH_POLICY_RULE_BAD_CONFIG (the file unreadable, for
 * read_errno) or LAUNCH_POLICY_RULE_NO_ROOTS. */
int lp_refuse_file(struct ctx *c, launch_policy_rule_t rule, int read_errno, as_error_t **err);
/* The launch directory is under no root; same is the listed root it is
 * itself, if any, and file_absent says the default root applied. */
int lp_refuse_not_under_root(struct ctx *c, bool file_absent, const struct root *same,
                             as_error_t **err);

/* Adds "FILE:LINE: ignoring the root PATH: strerror(code)" to the result's
 * warnings. */
int lp_warn_root(struct ctx *c, unsigned line, const char *path, int code, as_error_t **err);

#endif
