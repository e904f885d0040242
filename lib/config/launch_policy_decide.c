#include "launch_policy.h"

#include "base/file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config_lines.h"
#include "base/msg.h"
#include "base/paths.h"
#include "base/strv.h"
#include "base/util.h"

#define ALLOWED_PATHS_MAX (1024 * 1024)
#define DEFAULT_ROOT_TEXT "anywhere in your home outside its dot-directories"

/* ---- the file ---------------------------------------------------------- */

int launch_policy_file_read(const char *path, launch_policy_file_t **ret_file, as_error_t **err)
{
    if (path == NULL)
        return as_error_make(err, EINVAL, "no allowed-paths file name");

    _cleanup_free_ char *buf = NULL;
    size_t len = 0;
    as_error_t *read_err = NULL;
    int r = config_file_read(AT_FDCWD, path, CONFIG_FOLLOW, ALLOWED_PATHS_MAX, &buf, &len, &read_err);
    if (r == -ENOMEM) {
        as_error_free(&read_err);
        return as_error_make(err, ENOMEM, "out of memory reading %s", path);
    }
    launch_policy_file_state_t state = r == 0 ? LAUNCH_POLICY_FILE_PRESENT
                                     : r == -ENOENT ? LAUNCH_POLICY_FILE_ABSENT
                                     : LAUNCH_POLICY_FILE_UNREADABLE;
    const char *reason = state == LAUNCH_POLICY_FILE_UNREADABLE ? read_err->msg : "";
    size_t reason_len = strlen(reason);

    /* One allocation: the struct, the text, then why it is unreadable. */
    launch_policy_file_t *f = calloc(1, sizeof(*f) + len + 1 + reason_len + 1);
    if (f == NULL) {
        as_error_free(&read_err);
        return as_error_make(err, ENOMEM, "out of memory reading %s", path);
    }
    char *text = (char *)(f + 1);
    if (len > 0)
        memcpy(text, buf, len);
    char *why = text + len + 1;
    memcpy(why, reason, reason_len);
    f->state = state;
    f->read_errno = state == LAUNCH_POLICY_FILE_UNREADABLE ? -r : 0;
    f->reason = state == LAUNCH_POLICY_FILE_UNREADABLE ? why : NULL;
    f->text = state == LAUNCH_POLICY_FILE_PRESENT ? text : NULL;
    f->len = len;
    as_error_free(&read_err);
    *ret_file = f;
    return 0;
}

void launch_policy_file_free(launch_policy_file_t **file)
{
    if (file == NULL || *file == NULL)
        return;
    free(*file);
    *file = NULL;
}

/* ---- resolution -------------------------------------------------------- */

int launch_policy_resolve_realpath(void *ctx, const char *path, char **ret_resolved)
{
    (void)ctx;
    char *r = realpath(path, NULL);
    if (r == NULL)
        return errno > 0 ? -errno : -EIO;
    *ret_resolved = r;
    return 0;
}

struct guard {
    launch_policy_rule_t rule;
    unsigned relations;      /* bits of (1u << path_relation_t) that refuse */
    const char *noun;        /* what the place is ("podman's storage"), or NULL */
    const char *why;         /* why it matters, for the message */
    char *shown;             /* the path as configured (normalized) */
    char *path;              /* the form compared: normalized or resolved */
};

struct root {
    char *path;              /* resolved */
    unsigned line;
};

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

#define REL(r) (1u << (r))

static int oom(as_error_t **err)
{
    return as_error_make(err, ENOMEM, "out of memory");
}

/* Resolve fully; failure to resolve is an error carrying the resolver's errno. */
static int resolve_strict(struct ctx *c, const char *path, char **ret, as_error_t **err)
{
    char *out = NULL;
    int r = c->resolve(c->rctx, path, &out);
    if (r < 0)
        return as_error_errno(err, -r, "cannot resolve %s", path);
    _cleanup_free_ char *o = out;
    return path_normalize(o, ret, err);
}

/* Resolve as far as the path exists: the deepest existing ancestor resolved,
 * the rest appended (like `realpath -m`). A protected place that does not
 * exist yet (a $PATH entry to be created, say) is guarded all the same. */
static int resolve_loose(struct ctx *c, const char *path, char **ret, as_error_t **err)
{
    char *out = NULL;
    int r = c->resolve(c->rctx, path, &out);
    if (r == 0) {
        _cleanup_free_ char *o = out;
        return path_normalize(o, ret, err);
    }
    if (r == -ENOMEM)
        return oom(err);

    _cleanup_free_ char *norm = NULL;
    r = path_normalize(path, &norm, err);
    if (r < 0)
        return r;
    _cleanup_free_ char *prefix = strdup(norm);
    if (prefix == NULL)
        return oom(err);
    while (strcmp(prefix, "/") != 0) {
        char *slash = strrchr(prefix, '/');
        if (slash == prefix)
            slash[1] = '\0';
        else
            *slash = '\0';
        out = NULL;
        r = c->resolve(c->rctx, prefix, &out);
        if (r == -ENOMEM)
            return oom(err);
        if (r < 0)
            continue;
        _cleanup_free_ char *o = out;
        const char *tail = norm + strlen(prefix) + (strcmp(prefix, "/") == 0 ? 0 : 1);
        _cleanup_free_ char *joined = NULL;
        if (path_join(o, tail, &joined, err) < 0)
            return -ENOMEM;
        return path_normalize(joined, ret, err);
    }
    *ret = steal_pointer(&norm);
    return 0;
}

/* ---- messages ---------------------------------------------------------- */

/* A path for the user: "~" for $HOME, everything invisible escaped. */
static void put_path(FILE *f, const struct ctx *c, const char *path)
{
    path_put_for_user(f, path, c->home_res, c->home_lex);
}

/* Start a refusal: "refusing to launch from DIR: " */
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

/* "No line in FILE can allow this; " — the hard rules' hint starts here. */
static void refusal_hard(msg_t *m, const struct ctx *c)
{
    fputs("No line in ", m->f);
    put_path(m->f, c, c->file);
    fputs(" can allow this; ", m->f);
}

/* Finish a refusal and store it in the result. */
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
        return oom(err);
    }
    c->res->rule = rule;
    c->res->message = text;
    c->res->conflict = dup;
    c->res->config_line = line;
    return 0;
}

/* Takes text (NULL: out of memory). */
static int add_warning(struct ctx *c, char *text, as_error_t **err)
{
    _cleanup_free_ char *owned = text;
    if (text == NULL || strv_push(&c->res->warnings, text) < 0)
        return oom(err);
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

/* ---- the hard rules ---------------------------------------------------- */

static int push_guard(struct ctx *c, const struct guard *tmpl, const char *shown, char *path,
                      as_error_t **err)
{
    char *s = strdup(shown);
    struct guard *g = realloc(c->guards, (c->n_guards + 1) * sizeof(*g));
    if (g != NULL)
        c->guards = g;
    if (s == NULL || g == NULL) {
        free(s);
        free(path);
        return oom(err);
    }
    struct guard *n = &c->guards[c->n_guards++];
    *n = *tmpl;
    n->shown = s;
    n->path = path;
    return 0;
}

/* Guard a place under both its normalized and its resolved form: a symlinked
 * $HOME or ~/.ssh must not hide it from either side. */
static int add_guard(struct ctx *c, launch_policy_rule_t rule, unsigned relations,
                     const char *noun, const char *why, const char *raw, as_error_t **err)
{
    const struct guard tmpl = { .rule = rule, .relations = relations, .noun = noun, .why = why };
    char *lex = NULL, *res = NULL;
    int r = path_normalize(raw, &lex, err);
    if (r < 0)
        return r;
    r = resolve_loose(c, raw, &res, err);
    if (r < 0) {
        free(lex);
        return r;
    }
    /* lex is owned by the first guard from here on, and stays valid. */
    r = push_guard(c, &tmpl, lex, lex, err);
    if (r < 0 || strcmp(lex, res) == 0) {
        free(res);
        return r;
    }
    return push_guard(c, &tmpl, lex, res, err);
}

static int add_home_guard(struct ctx *c, launch_policy_rule_t rule, unsigned relations,
                          const char *noun, const char *why, const char *name, as_error_t **err)
{
    _cleanup_free_ char *p = NULL;
    if (path_join(c->home_lex, name, &p, err) < 0)
        return -ENOMEM;
    return add_guard(c, rule, relations, noun, why, p, err);
}

static int build_guards(struct ctx *c, as_error_t **err)
{
    const launch_policy_input_t *in = c->in;
    const unsigned all = REL(PATH_SAME) | REL(PATH_INSIDE) | REL(PATH_CONTAINS);
    int r;

    r = add_guard(c, LAUNCH_POLICY_RULE_HOME_OR_PARENT, REL(PATH_SAME) | REL(PATH_CONTAINS),
                  "your home directory", "so every dotfile and key in it would be exposed",
                  in->home, err);
    if (r < 0)
        return r;

    static const char *const system_dirs[] = { "/run", "/tmp", "/var/tmp", "/proc", "/sys", "/dev" };
    for (size_t i = 0; i < ARRAY_SIZE(system_dirs); i++) {
        r = add_guard(c, LAUNCH_POLICY_RULE_SYSTEM_DIR, REL(PATH_SAME) | REL(PATH_INSIDE),
                      NULL, "a shared or system directory", system_dirs[i], err);
        if (r < 0)
            return r;
    }

    static const struct { const char *name, *why; } secrets[] = {
        { ".ssh",    "which holds your SSH keys" },
        { ".gnupg",  "which holds your GnuPG keys" },
        { ".config", "which holds your applications' settings and tokens" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(secrets); i++) {
        r = add_home_guard(c, LAUNCH_POLICY_RULE_SECRET_DIR, all, NULL, secrets[i].why,
                           secrets[i].name, err);
        if (r < 0)
            return r;
    }

    if (in->xdg_runtime_dir != NULL && in->xdg_runtime_dir[0] != '\0') {
        r = add_guard(c, LAUNCH_POLICY_RULE_RUNTIME_DIR, all, "$XDG_RUNTIME_DIR",
                      "where your session's sockets live", in->xdg_runtime_dir, err);
        if (r < 0)
            return r;
    }

    static const char storage[] = "podman's storage";
    static const char storage_why[] = "which holds every container, image and volume";
    if (in->graphroot != NULL && in->graphroot[0] != '\0') {
        r = add_guard(c, LAUNCH_POLICY_RULE_PODMAN_STORAGE, all, storage, storage_why,
                      in->graphroot, err);
        if (r < 0)
            return r;
    }
    r = add_home_guard(c, LAUNCH_POLICY_RULE_PODMAN_STORAGE, all, storage, storage_why,
                       ".local/share/containers", err);
    if (r < 0)
        return r;

    static const char config[] = "agent-sandbox's config directory";
    static const char config_why[] = "so the agent could rewrite its own policy";
    r = add_guard(c, LAUNCH_POLICY_RULE_CONFIG_DIR, all, config, config_why, in->config_dir, err);
    if (r < 0)
        return r;

    /* Absolute $PATH entries; relative and empty ones are refused outright later. */
    if (in->path_env != NULL) {
        _cleanup_free_ char *copy = strdup(in->path_env);
        if (copy == NULL)
            return oom(err);
        char *save = NULL;
        for (char *e = strtok_r(copy, ":", &save); e != NULL; e = strtok_r(NULL, ":", &save)) {
            if (e[0] != '/')
                continue;
            r = add_guard(c, LAUNCH_POLICY_RULE_PATH_ENTRY, REL(PATH_SAME) | REL(PATH_CONTAINS),
                          NULL, "an entry of $PATH, so the agent could plant programs you later "
                          "run outside the sandbox", e, err);
            if (r < 0)
                return r;
        }
    }
    return 0;
}

/* The first relative or empty $PATH entry, or NULL. *ret_len gets its length. */
static const char *relative_path_entry(const char *path_env, size_t *ret_len)
{
    if (path_env == NULL)
        return NULL;
    const char *p = path_env;
    for (;;) {
        const char *end = strchrnul(p, ':');
        if (p == end || p[0] != '/') {
            *ret_len = (size_t)(end - p);
            return p;
        }
        if (*end == '\0')
            return NULL;
        p = end + 1;
    }
}

static const char *relation_words(path_relation_t rel)
{
    return rel == PATH_SAME ? "it is" : rel == PATH_INSIDE ? "it sits in" : "it holds";
}

static int refuse_guard(struct ctx *c, const struct guard *g, path_relation_t rel, as_error_t **err)
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

static int refuse_relative_path_entry(struct ctx *c, const char *entry, size_t len, as_error_t **err)
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
        return oom(err);
    }
    return refusal_close(&m, c, LAUNCH_POLICY_RULE_PATH_ENTRY, conflict, 0, err);
}

/* The first component of dir below home, when dir sits in home. */
static const char *first_component_below(const char *dir, const char *home)
{
    if (!path_is_inside(dir, home))
        return NULL;
    return dir + strlen(home) + (strcmp(home, "/") == 0 ? 0 : 1);
}

static bool is_home_dot_dir(const char *dir, const char *home)
{
    const char *first = first_component_below(dir, home);
    return first != NULL && first[0] == '.' && strchr(first, '/') == NULL;
}

/* 1 and a refusal stored when a hard rule applies, 0 when none does. */
static int check_hard_rules(struct ctx *c, as_error_t **err)
{
    for (size_t i = 0; i < c->n_guards; i++) {
        const struct guard *g = &c->guards[i];
        path_relation_t rel = path_relation(c->dir, g->path);
        if (rel != PATH_UNRELATED && (g->relations & REL(rel)) != 0) {
            int r = refuse_guard(c, g, rel, err);
            return r < 0 ? r : 1;
        }
    }

    size_t len = 0;
    const char *entry = relative_path_entry(c->in->path_env, &len);
    if (entry != NULL) {
        int r = refuse_relative_path_entry(c, entry, len, err);
        return r < 0 ? r : 1;
    }

    if (is_home_dot_dir(c->dir, c->home_res) || is_home_dot_dir(c->dir, c->home_lex)) {
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
        r = refusal_close(&m, c, LAUNCH_POLICY_RULE_HOME_DOT_DIR, c->dir, 0, err);
        return r < 0 ? r : 1;
    }
    return 0;
}

/* ---- allowed-paths ----------------------------------------------------- */

static int refuse_bad_line(struct ctx *c, unsigned line, const char *problem,
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

/* "FILE:LINE: ignoring the root PATH: strerror" */
static int warn_root(struct ctx *c, unsigned line, const char *path, int code, as_error_t **err)
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

/* A root line's path, "~/" expanded: 0 and *ret, or 1 and a refusal stored. */
static int root_path(struct ctx *c, const config_line_t *l, char **ret, as_error_t **err)
{
    const char *p = l->text;
    size_t n = l->len;
    const char *problem = NULL;
    size_t k = 2;
    if (p[0] == '/') {
        *ret = strndup(p, n);
    } else if (p[0] == '~' && n >= 2 && p[1] == '/') {
        while (k < n && p[k] == '/')
            k++;
        if (k == n)
            problem = "nothing after ~/";
        else if (asprintf(ret, "%s/%.*s", c->home_lex, (int)(n - k), p + k) < 0)
            *ret = NULL;
    } else if (p[0] == '~') {
        problem = n == 1 ? "a bare ~ is not allowed (write ~/ and a directory)"
                         : "the ~user/ form is not supported (write the path in full)";
    } else {
        problem = "a relative path";
    }
    if (problem != NULL) {
        int r = refuse_bad_line(c, l->number, problem, p, n, err);
        return r < 0 ? r : 1;
    }
    return *ret == NULL ? oom(err) : 0;
}

/* One root: resolved and kept, or a warning when it does not resolve. */
static int add_root(struct ctx *c, unsigned line, const char *path, as_error_t **err)
{
    _cleanup_free_ char *resolved = NULL;
    as_error_t *rerr = NULL;
    int r = resolve_strict(c, path, &resolved, &rerr);
    if (r == -ENOMEM) {
        as_error_free(&rerr);
        return oom(err);
    }
    if (r < 0) {
        int code = as_error_rc(rerr);
        as_error_free(&rerr);
        return warn_root(c, line, path, -code, err);
    }
    struct root *nr = realloc(c->roots, (c->n_roots + 1) * sizeof(*nr));
    if (nr == NULL)
        return oom(err);
    c->roots = nr;
    c->roots[c->n_roots++] = (struct root){ steal_pointer(&resolved), line };
    return 0;
}

/* Parse the text (lib/base/config_lines.h) into resolved roots. 1 and a refusal
 * stored on a malformed line; 0 otherwise (roots that do not resolve become
 * warnings). */
static int parse_roots(struct ctx *c, const char *text, size_t len, as_error_t **err)
{
    config_lines_t it;
    config_line_t l;
    config_lines_init(&it, c->file, text, len);
    while (config_lines_next(&it, &l)) {
        if (l.problem != NULL) {
            int r = refuse_bad_line(c, l.number, l.problem, l.text, l.len, err);
            return r < 0 ? r : 1;
        }
        _cleanup_free_ char *path = NULL;
        int r = root_path(c, &l, &path, err);
        if (r == 0)
            r = add_root(c, l.number, path, err);
        if (r != 0)
            return r;
    }
    return 0;
}

static int refuse_file(struct ctx *c, launch_policy_rule_t rule, int read_errno, as_error_t **err)
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

/* The line to suggest for allowing dir: its parent, unless that is "/" or
 * would take in $HOME (which the file cannot usefully list). */
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

static int refuse_not_under_root(struct ctx *c, bool file_absent, const struct root *same,
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

static int check_roots(struct ctx *c, as_error_t **err)
{
    const launch_policy_file_t *file = c->in->allowed_paths;

    switch (file->state) {
    case LAUNCH_POLICY_FILE_ABSENT: {
        const char *first = first_component_below(c->dir, c->home_res);
        if (first != NULL && first[0] != '.')
            return 0;
        return refuse_not_under_root(c, true, NULL, err);
    }
    case LAUNCH_POLICY_FILE_UNREADABLE:
        return refuse_file(c, LAUNCH_POLICY_RULE_BAD_CONFIG,
                           file->read_errno > 0 ? file->read_errno : EIO, err);
    case LAUNCH_POLICY_FILE_PRESENT:
        break;
    default:
        return as_error_make(err, EINVAL, "unknown allowed-paths state %d", (int)file->state);
    }

    int r = parse_roots(c, file->text != NULL ? file->text : "", file->text != NULL ? file->len : 0, err);
    if (r != 0)
        return r < 0 ? r : 0;
    if (c->n_roots == 0 && c->res->n_warnings == 0)
        return refuse_file(c, LAUNCH_POLICY_RULE_NO_ROOTS, 0, err);

    const struct root *same = NULL;
    for (size_t i = 0; i < c->n_roots; i++) {
        path_relation_t rel = path_relation(c->dir, c->roots[i].path);
        if (rel == PATH_INSIDE)
            return 0;
        if (rel == PATH_SAME && same == NULL)
            same = &c->roots[i];
    }
    return refuse_not_under_root(c, false, same, err);
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

static int decide(struct ctx *c, as_error_t **err)
{
    const launch_policy_input_t *in = c->in;
    int r;

    if ((r = path_normalize(in->home, &c->home_lex, err)) < 0)
        return r;
    if (strcmp(c->home_lex, "/") == 0)
        return as_error_make(err, EINVAL, "$HOME is \"/\"; refusing to decide what is inside it");
    if ((r = resolve_loose(c, in->home, &c->home_res, err)) < 0)
        return r;
    if (strcmp(c->home_res, "/") == 0)
        return as_error_make(err, EINVAL, "$HOME (%s) resolves to \"/\"", in->home);

    if ((r = path_normalize(in->launch_dir, &c->given, err)) < 0)
        return r;
    if ((r = resolve_strict(c, in->launch_dir, &c->dir, err)) < 0)
        return as_error_prefix(err, "cannot resolve the launch directory");
    if ((c->res->resolved_dir = strdup(c->dir)) == NULL)
        return oom(err);

    if (in->allowed_paths_path != NULL)
        c->file = strdup(in->allowed_paths_path);
    else
        path_join(in->config_dir, "allowed-paths", &c->file, NULL);
    if (c->file == NULL)
        return oom(err);

    if ((r = build_guards(c, err)) < 0)
        return r;
    if ((r = check_hard_rules(c, err)) != 0)
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
        return oom(err);
    struct ctx c = {
        .in = in,
        .resolve = in->resolve != NULL ? in->resolve : launch_policy_resolve_realpath,
        .rctx = in->resolve_ctx,
        .res = res,
    };
    r = decide(&c, err);
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
