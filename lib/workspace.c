#include "workspace.h"

#include "file_read.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "paths.h"
#include "util.h"

/* Marks the placeholders we create, so that the next session from the same
 * directory can remove the ones a killed session left (when still empty). */
#define PLACEHOLDER_XATTR "user.agent-sandbox.placeholder"
#define MAX_SYMLINK_HOPS  8
#define WALK_MAX_ENTRIES  300000
#define WALK_MAX_DEPTH    64
#define REPORT_MAX_LINES  10

#define RULE_SYNTAX   "protected-paths-syntax"
#define RULE_READ     "protected-paths-unreadable"
#define RULE_PROJECT  "project-file-adds-only"
#define RULE_TOO_MANY "too-many-protected-paths"
#define RULE_BUSY     "one-session-per-tree"

/* The default set: what runs on the host without anyone choosing to run the
 * project's code — on a git command, on cd (direnv), on opening an editor or
 * Claude Code. Documented in docs/workspace-protection.md. */
static const struct {
    const char *path;
    bool dir;
} DEFAULTS[] = {
    { ".git/config", false },            /* core.hooksPath, core.fsmonitor, sshCommand, filters... */
    { ".git/config.worktree", false },   /* the same, with extensions.worktreeConfig */
    { ".git/hooks", true },
    { ".git/modules", true },            /* submodules' own config and hooks */
    { ".git/worktrees", true },          /* linked worktrees' commondir and config */
    { ".envrc", false },                 /* direnv */
    { ".vscode", true },                 /* tasks, settings naming programs */
    { ".idea", true },
    { ".devcontainer", true },           /* initializeCommand runs on the host */
    { ".husky", true },
    { ".pre-commit-config.yaml", false },
    { ".claude", true },                 /* settings (hooks), commands, agents */
    { ".mcp.json", false },              /* MCP servers Claude Code starts */
};

/* Watched for the end-of-session warning but not frozen: a placeholder there
 * would break git (an empty commondir is an error). */
static const char *const WATCHED[] = { ".git/commondir" };

static int oom(as_error_t **err)
{
    return as_error_make(err, ENOMEM, "out of memory");
}

/* ---- messages ---------------------------------------------------------- */


/* A path for the user: "~" for $HOME, control bytes escaped. */
static void put_path(FILE *f, const char *home, const char *path)
{
    _cleanup_free_ char *home_res = home != NULL ? realpath(home, NULL) : NULL;
    _cleanup_free_ char *home_lex = NULL;
    as_error_t *e = NULL;
    if (home != NULL && home[0] == '/' && path_normalize(home, &home_lex, &e) < 0)
        as_error_free(&e);
    const char *homes[] = { home_res, home_lex };
    for (size_t i = 0; i < ARRAY_SIZE(homes); i++) {
        if (homes[i] == NULL || strcmp(homes[i], "/") == 0)
            continue;
        path_relation_t rel = path_relation(path, homes[i]);
        if (rel == PATH_SAME || rel == PATH_INSIDE) {
            fputc('~', f);
            path += strlen(homes[i]);
            break;
        }
    }
    path_put_escaped(f, path, strlen(path));
}

typedef struct msg {
    FILE *f;
    char *buf;
    size_t len;
} msg_t;

static int msg_open(msg_t *m, as_error_t **err)
{
    m->buf = NULL;
    m->len = 0;
    m->f = open_memstream(&m->buf, &m->len);
    return m->f == NULL ? oom(err) : 0;
}

/* Closes the stream; *ret is the text. */
static int msg_close(msg_t *m, char **ret, as_error_t **err)
{
    bool bad = ferror(m->f) != 0;
    if (fclose(m->f) != 0 || bad || m->buf == NULL) {
        free(m->buf);
        return oom(err);
    }
    *ret = m->buf;
    return 0;
}

/* Closes the stream into an error with `code`. */
static int msg_fail(msg_t *m, int code, as_error_t **err)
{
    char *text = NULL;
    int r = msg_close(m, &text, err);
    if (r < 0)
        return r;
    r = as_error_make(err, code, "%s", text);
    free(text);
    return r;
}

/* ---- rules: the files -------------------------------------------------- */

typedef struct parser {
    const workspace_config_t *cfg;
    const char *file;          /* the file's path */
    bool project;
    workspace_rules_t *rules;
    unsigned line;
    const char *text;          /* the line as written (trimmed) */
    size_t text_len;
} parser_t;

void workspace_rules_free(workspace_rules_t *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].path);
        free(r->v[i].origin);
    }
    free(r->v);
    free(r);
}

static int refusal_start(msg_t *m, const workspace_config_t *cfg, as_error_t **err)
{
    int r = msg_open(m, err);
    if (r < 0)
        return r;
    fputs("refusing to launch from ", m->f);
    put_path(m->f, cfg->home, cfg->launch_dir);
    fputs(": ", m->f);
    return 0;
}

/* "refusing to launch from DIR: FILE:LINE: "TEXT": problem [rule: R].\nhint" */
static int line_error(const parser_t *p, const char *rule, const char *problem, as_error_t **err)
{
    msg_t m;
    int r = refusal_start(&m, p->cfg, err);
    if (r < 0)
        return r;
    put_path(m.f, p->cfg->home, p->file);
    fprintf(m.f, ":%u: \"", p->line);
    path_put_escaped(m.f, p->text, p->text_len);
    fprintf(m.f, "\": %s [rule: %s].\n", problem, rule);
    if (strcmp(rule, RULE_PROJECT) == 0) {
        fputs("Remove that line from ", m.f);
        put_path(m.f, p->cfg->home, p->file);
        fputs(" (the agent can write that file, so it may only add paths). To change the set "
              "for this project, add a section \"[", m.f);
        put_path(m.f, p->cfg->home, p->cfg->launch_dir);
        fputs("]\" with your lines to ", m.f);
        put_path(m.f, p->cfg->home, p->cfg->user_file);
        fputs(".", m.f);
    } else if (strcmp(rule, RULE_TOO_MANY) == 0) {
        fprintf(m.f, "Remove paths from %s (or protect their parent directory instead); "
                "at most %d can be protected.", p->project ? "that file" : "the set", WORKSPACE_MAX_PATHS);
    } else {
        fputs("Each line is a path relative to the launch directory (a trailing / for a "
              "directory, a ! in front to remove it from the set)", m.f);
        if (!p->project)
            fputs(" or a [directory] section header", m.f);
        fputs("; fix or remove that line in ", m.f);
        put_path(m.f, p->cfg->home, p->file);
        fputs(".", m.f);
    }
    return msg_fail(&m, WORKSPACE_EBADCONFIG, err);
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static bool has_control(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)
            return true;
    return false;
}

static ssize_t find_rule(const workspace_rules_t *r, const char *path)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->v[i].path, path) == 0)
            return (ssize_t)i;
    return -1;
}

static int add_rule(workspace_rules_t *r, const char *path, bool dir, const char *origin,
                    as_error_t **err)
{
    ssize_t at = find_rule(r, path);
    _cleanup_free_ char *o = strdup(origin);
    if (o == NULL)
        return oom(err);
    if (at >= 0) {
        free(r->v[at].origin);
        r->v[at].origin = steal_pointer(&o);
        r->v[at].dir = dir;
        return 0;
    }
    _cleanup_free_ char *pcopy = strdup(path);
    if (pcopy == NULL)
        return oom(err);
    workspace_rule_t *v = realloc(r->v, (r->n + 1) * sizeof(*v));
    if (v == NULL)
        return oom(err);
    r->v = v;
    v[r->n++] = (workspace_rule_t){ steal_pointer(&pcopy), dir, steal_pointer(&o) };
    return 0;
}

static void remove_rule(workspace_rules_t *r, const char *path)
{
    ssize_t at = find_rule(r, path);
    if (at < 0)
        return;
    free(r->v[at].path);
    free(r->v[at].origin);
    memmove(&r->v[at], &r->v[at + 1], (r->n - (size_t)at - 1) * sizeof(r->v[0]));
    r->n--;
}

/* Checks a relative entry; on success *ret is it without a trailing slash. */
static int entry_check(const parser_t *p, const char *s, size_t n, char **ret, bool *ret_dir,
                       as_error_t **err)
{
    if (n == 0)
        return line_error(p, RULE_SYNTAX, "nothing after the !", err);
    if (s[0] == '/')
        return line_error(p, RULE_SYNTAX, "an absolute path; protected paths are relative to the launch directory", err);
    if (s[0] == '~')
        return line_error(p, RULE_SYNTAX, "a ~ path; protected paths are relative to the launch directory", err);
    if (has_control(s, n))
        return line_error(p, RULE_SYNTAX, "a control character", err);
    if (memchr(s, '*', n) || memchr(s, '?', n) || memchr(s, '[', n) || memchr(s, ']', n))
        return line_error(p, RULE_SYNTAX, "a wildcard or bracket; wildcards are not supported, list each path", err);
    if (n >= PATH_MAX)
        return line_error(p, RULE_SYNTAX, "a path that is too long", err);
    bool dir = s[n - 1] == '/';
    size_t len = dir ? n - 1 : n;
    for (size_t i = 0; i <= len;) {
        size_t j = i;
        while (j < len && s[j] != '/')
            j++;
        size_t c = j - i;
        if (c == 0)
            return line_error(p, RULE_SYNTAX, "an empty component (//)", err);
        if ((c == 1 && s[i] == '.') || (c == 2 && s[i] == '.' && s[i + 1] == '.'))
            return line_error(p, RULE_SYNTAX, "a . or .. component", err);
        i = j + 1;
    }
    char *out = strndup(s, len);
    if (out == NULL)
        return oom(err);
    *ret = out;
    *ret_dir = dir;
    return 0;
}

static int resolve_default(void *ctx, const char *path, char **ret)
{
    (void)ctx;
    char *r = realpath(path, NULL);
    if (r == NULL)
        return errno > 0 ? -errno : -EIO;
    *ret = r;
    return 0;
}

/* Does the section header (inside the brackets) name the launch directory? */
static int section_matches(const parser_t *p, const char *s, size_t n, bool *ret, as_error_t **err)
{
    if (n == 0)
        return line_error(p, RULE_SYNTAX, "an empty section header", err);
    if (has_control(s, n) || memchr(s, '\t', n))
        return line_error(p, RULE_SYNTAX, "a control character in the section header", err);
    _cleanup_free_ char *abs = NULL;
    if (s[0] == '/') {
        abs = strndup(s, n);
    } else if (s[0] == '~') {
        if (n == 1)
            return line_error(p, RULE_SYNTAX, "a bare ~ as section header; name the project directory", err);
        if (s[1] != '/')
            return line_error(p, RULE_SYNTAX, "the ~user/ form is not supported", err);
        if (strspn(s + 1, "/") == n - 1)
            return line_error(p, RULE_SYNTAX, "nothing after ~/ in the section header", err);
        if (asprintf(&abs, "%s/%.*s", p->cfg->home, (int)(n - 2), s + 2) < 0)
            abs = NULL;
    } else {
        return line_error(p, RULE_SYNTAX, "a relative section header; name the directory as /... or ~/...", err);
    }
    if (abs == NULL)
        return oom(err);
    _cleanup_free_ char *norm = NULL;
    as_error_t *e = NULL;
    if (path_normalize(abs, &norm, &e) < 0) {
        as_error_free(&e);
        return oom(err);
    }
    if (strcmp(norm, p->cfg->launch_dir) == 0) {
        *ret = true;
        return 0;
    }
    workspace_resolve_fn resolve = p->cfg->resolve != NULL ? p->cfg->resolve : resolve_default;
    _cleanup_free_ char *res = NULL;
    int r = resolve(p->cfg->resolve_ctx, norm, &res);
    if (r == -ENOMEM)
        return oom(err);
    *ret = r == 0 && strcmp(res, p->cfg->launch_dir) == 0;
    return 0;
}

static int parse_file(parser_t *p, const char *text, size_t len, as_error_t **err)
{
    bool in_section = false, applies = true;
    size_t pos = 0;
    p->line = 0;
    while (pos < len) {
        const char *start = text + pos;
        const char *nl = memchr(start, '\n', len - pos);
        size_t n = nl != NULL ? (size_t)(nl - start) : len - pos;
        pos += n + 1;
        p->line++;
        p->text = start;
        p->text_len = n;
        if (memchr(start, '\0', n) != NULL) {
            p->text_len = strnlen(start, n);
            return line_error(p, RULE_SYNTAX, "an embedded NUL byte", err);
        }
        /* A comment starts at "#" that begins the line or follows a blank. */
        for (size_t i = 0; i < n; i++)
            if (start[i] == '#' && (i == 0 || is_blank(start[i - 1]))) {
                n = i;
                break;
            }
        while (n > 0 && is_blank(start[0])) {
            start++;
            n--;
        }
        while (n > 0 && is_blank(start[n - 1]))
            n--;
        if (n == 0)
            continue;
        p->text = start;
        p->text_len = n;

        if (start[0] == '[') {
            if (p->project)
                return line_error(p, RULE_PROJECT, "a section header; the project's own file applies to its own directory", err);
            if (start[n - 1] != ']')
                return line_error(p, RULE_SYNTAX, "a section header without its closing ]", err);
            const char *k = start + 1;
            size_t kn = n - 2;
            while (kn > 0 && is_blank(k[0])) {
                k++;
                kn--;
            }
            while (kn > 0 && is_blank(k[kn - 1]))
                kn--;
            int r = section_matches(p, k, kn, &applies, err);
            if (r < 0)
                return r;
            in_section = true;
            continue;
        }
        bool neg = start[0] == '!';
        const char *s = start + (neg ? 1 : 0);
        size_t sn = n - (neg ? 1 : 0);
        while (sn > 0 && is_blank(s[0])) {
            s++;
            sn--;
        }
        _cleanup_free_ char *path = NULL;
        bool dir = false;
        int r = entry_check(p, s, sn, &path, &dir, err);
        if (r < 0)
            return r;
        if (neg && p->project)
            return line_error(p, RULE_PROJECT, "a ! line; the project's own file can only add paths", err);
        if (in_section && !applies)
            continue;
        if (neg) {
            remove_rule(p->rules, path);
            continue;
        }
        if (find_rule(p->rules, path) < 0 && p->rules->n >= WORKSPACE_MAX_PATHS)
            return line_error(p, RULE_TOO_MANY, "one path too many", err);
        _cleanup_free_ char *origin = NULL;
        msg_t m;
        if ((r = msg_open(&m, err)) < 0)
            return r;
        put_path(m.f, p->cfg->home, p->file);
        fprintf(m.f, ":%u", p->line);
        if ((r = msg_close(&m, &origin, err)) < 0 || (r = add_rule(p->rules, path, dir, origin, err)) < 0)
            return r;
    }
    return 0;
}

int workspace_rules_build(const workspace_config_t *cfg, workspace_rules_t **ret, as_error_t **err)
{
    if (cfg == NULL || cfg->launch_dir == NULL || cfg->launch_dir[0] != '/' ||
        cfg->home == NULL || cfg->home[0] != '/')
        return as_error_make(err, EINVAL, "protected paths: the launch directory and $HOME must be absolute");
    workspace_rules_t *rules = calloc(1, sizeof(*rules));
    if (rules == NULL)
        return oom(err);
    int r = 0;
    for (size_t i = 0; i < ARRAY_SIZE(DEFAULTS) && r == 0; i++)
        r = add_rule(rules, DEFAULTS[i].path, DEFAULTS[i].dir, "default", err);

    _cleanup_free_ char *project_file = NULL;
    if (r == 0 && cfg->user_text != NULL && cfg->user_file == NULL)
        r = as_error_make(err, EINVAL, "protected paths: the user's file has no name");
    if (r == 0 && asprintf(&project_file, "%s/%s", cfg->launch_dir, WORKSPACE_PROJECT_FILE) < 0)
        r = oom(err);
    workspace_config_t c = *cfg;
    if (r == 0 && c.user_text != NULL) {
        parser_t p = { .cfg = &c, .file = c.user_file, .rules = rules };
        r = parse_file(&p, c.user_text, c.user_len, err);
    }
    if (r == 0 && c.project_text != NULL) {
        parser_t p = { .cfg = &c, .file = project_file, .project = true, .rules = rules };
        r = parse_file(&p, c.project_text, c.project_len, err);
        /* The project's file protects itself: else the agent could take back
         * what it adds, for the next session. */
        if (r == 0 && find_rule(rules, WORKSPACE_PROJECT_FILE) < 0)
            r = add_rule(rules, WORKSPACE_PROJECT_FILE, false, "the project's file itself", err);
    }
    if (r < 0) {
        workspace_rules_free(rules);
        return r;
    }
    *ret = rules;
    return 0;
}

/* ---- reading the files ------------------------------------------------- */

static int unreadable(const char *launch_dir, const char *home, const char *file, const char *reason,
                      bool project, as_error_t **err)
{
    msg_t m;
    workspace_config_t cfg = { .launch_dir = launch_dir, .home = home };
    int r = refusal_start(&m, &cfg, err);
    if (r < 0)
        return r;
    fputs("cannot read ", m.f);
    put_path(m.f, home, file);
    fprintf(m.f, ": %s [rule: %s].\n", reason, RULE_READ);
    if (project)
        fputs("Make it a regular file, or remove it (it can only add protected paths).", m.f);
    else
        fputs("Make it a readable regular file, or delete it to protect the default set only; "
              "while it exists but cannot be read, no session starts.", m.f);
    return msg_fail(&m, WORKSPACE_EBADCONFIG, err);
}

/* The project's file: inside the launch directory, so the agent may have put
 * a symlink there (to a key, to /dev/zero): never followed. */
static int read_project_file(const char *launch_dir, char **ret, size_t *ret_len, as_error_t **err)
{
    _cleanup_close_ int top = open(launch_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (top < 0)
        return as_error_make(err, errno, "%s", strerror(errno));
    char dir_name[] = WORKSPACE_PROJECT_FILE;
    char *slash = strchr(dir_name, '/');
    *slash = '\0';
    struct stat st;
    if (fstatat(top, dir_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return as_error_make(err, errno, "%s", strerror(errno));
    if (S_ISLNK(st.st_mode))
        return as_error_make(err, ELOOP, "it is a symlink, which is never followed for this file");
    if (!S_ISDIR(st.st_mode))
        return as_error_make(err, ENOENT, "%s", strerror(ENOENT));
    _cleanup_close_ int dfd = openat(top, dir_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return as_error_make(err, errno, "%s", strerror(errno));
    return config_file_read(dfd, slash + 1, CONFIG_NOFOLLOW, WORKSPACE_FILE_MAX, ret, ret_len, err);
}

/* Either file: absent is fine, unreadable refuses. */
static int read_or_refuse(int r, const char *launch_dir, const char *home, const char *file,
                          bool project, as_error_t **read_err, as_error_t **err)
{
    if (r == 0 || r == -ENOENT) {
        as_error_free(read_err);
        return 0;
    }
    if (r == -ENOMEM) {
        as_error_free(read_err);
        return oom(err);
    }
    r = unreadable(launch_dir, home, file, (*read_err)->msg, project, err);
    as_error_free(read_err);
    return r;
}

int workspace_load(const char *launch_dir, const char *home, const char *user_file,
                   workspace_t **ret, as_error_t **err)
{
    if (launch_dir == NULL || launch_dir[0] != '/' || home == NULL || home[0] != '/' ||
        user_file == NULL || user_file[0] != '/')
        return as_error_make(err, EINVAL, "protected paths: the launch directory, $HOME and the "
                             "user's file must be absolute");
    _cleanup_free_ char *project_file = NULL, *user_text = NULL, *project_text = NULL;
    size_t user_len = 0, project_len = 0;
    if (asprintf(&project_file, "%s/%s", launch_dir, WORKSPACE_PROJECT_FILE) < 0)
        return oom(err);
    /* The user's file: symlinks followed (it is the user's own). */
    as_error_t *read_err = NULL;
    int r = config_file_read(AT_FDCWD, user_file, CONFIG_FOLLOW, WORKSPACE_FILE_MAX, &user_text,
                             &user_len, &read_err);
    if ((r = read_or_refuse(r, launch_dir, home, user_file, false, &read_err, err)) < 0)
        return r;
    r = read_project_file(launch_dir, &project_text, &project_len, &read_err);
    if ((r = read_or_refuse(r, launch_dir, home, project_file, true, &read_err, err)) < 0)
        return r;

    workspace_config_t cfg = {
        .launch_dir = launch_dir, .home = home, .user_file = user_file,
        .user_text = user_text, .user_len = user_len,
        .project_text = project_text, .project_len = project_len,
    };
    workspace_rules_t *rules = NULL;
    if ((r = workspace_rules_build(&cfg, &rules, err)) < 0)
        return r;
    return workspace_plan(launch_dir, home, rules, ret, err);
}

/* ---- the plan ---------------------------------------------------------- */

static void mounts_clear(workspace_t *ws)
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
}

static int add_note(workspace_t *ws, char *text, as_error_t **err)
{
    if (text == NULL)
        return oom(err);
    for (size_t i = 0; i < ws->n_notes; i++)
        if (strcmp(ws->notes[i], text) == 0) {
            free(text);
            return 0;
        }
    char **v = realloc(ws->notes, (ws->n_notes + 1) * sizeof(*v));
    if (v == NULL) {
        free(text);
        return oom(err);
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
        return oom(err);
    ws->mounts = v;
    workspace_mount_t m = { .kind = kind, .placeholder = placeholder, .dir = dir };
    if ((m.path = strdup(abs)) == NULL || (m.rel = rel_of(ws, abs)) == NULL) {
        free(m.path);
        return oom(err);
    }
    v[ws->n_mounts++] = m;
    return 0;
}

/* Resolve as far as the path exists (like `realpath -m`). */
static int resolve_loose(const char *path, char **ret, as_error_t **err)
{
    _cleanup_free_ char *norm = NULL;
    int r = path_normalize(path, &norm, err);
    if (r < 0)
        return r;
    _cleanup_free_ char *prefix = strdup(norm);
    if (prefix == NULL)
        return oom(err);
    for (;;) {
        char *res = realpath(prefix, NULL);
        if (res == NULL && errno == ENOMEM)
            return oom(err);
        if (res != NULL) {
            _cleanup_free_ char *o = res;
            const char *tail = norm + strlen(prefix);
            while (*tail == '/')
                tail++;
            if (*tail == '\0') {
                *ret = steal_pointer(&o);
                return 0;
            }
            _cleanup_free_ char *joined = NULL;
            if (path_join(o, tail, &joined, err) < 0)
                return -ENOMEM;
            return path_normalize(joined, ret, err);
        }
        if (strcmp(prefix, "/") == 0)
            return as_error_errno(err, errno, "cannot resolve %s", path);
        char *slash = strrchr(prefix, '/');
        if (slash == prefix)
            slash[1] = '\0';
        else
            *slash = '\0';
    }
}

static char *note_text(const workspace_t *ws, const char *fmt_rel, const char *rel, const char *target)
{
    char *s = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&s, &len);
    if (f == NULL)
        return NULL;
    path_put_escaped(f, rel, strlen(rel));
    fputs(fmt_rel, f);
    if (target != NULL) {
        put_path(f, ws->home, target);
        fputs(")", f);
    }
    fputs("; the link itself can be replaced by the agent: the end-of-session check reports it if it is", f);
    if (fclose(f) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

/* Is one of the components from `rel` up to `last` (the final one) ".git"? */
static bool in_git_dir(const char *rel, const char *last)
{
    for (const char *c = rel; c < last;) {
        const char *slash = strchr(c, '/');
        if (slash == NULL || slash >= last)
            slash = last - 1;
        if (slash - c == 4 && strncmp(c, ".git", 4) == 0)
            return true;
        c = slash + 1;
    }
    return false;
}

/* Where a rule's path leads, component by component, without following a
 * symlink silently: the path itself when it exists; the first component
 * that is not a directory (a .git file of a linked worktree); the first
 * missing component, which gets a placeholder; through a symlink, where it
 * points if that is inside the launch directory. */
static int plan_rule(workspace_t *ws, const workspace_rule_t *rule, as_error_t **err)
{
    _cleanup_free_ char *rel = strdup(rule->path);
    if (rel == NULL)
        return oom(err);
    bool dir = rule->dir;
    for (int hop = 0; hop <= MAX_SYMLINK_HOPS; hop++) {
        _cleanup_free_ char *abs = NULL;
        if (path_join(ws->launch_dir, rel, &abs, err) < 0)
            return -ENOMEM;
        size_t base = strlen(ws->launch_dir) + (strcmp(ws->launch_dir, "/") == 0 ? 0 : 1);
        char *c = abs + base;
        for (;;) {
            char *slash = strchr(c, '/');
            bool last = slash == NULL;
            if (!last)
                *slash = '\0';
            struct stat st;
            if (lstat(abs, &st) < 0) {
                if (errno != ENOENT)
                    return as_error_errno(err, errno, "cannot protect %s", abs);
                /* A directory, unless git would read the file: an empty
                 * directory is invisible to git, so `git add -A` cannot
                 * commit a placeholder and `git status` stays clean. */
                return add_mount(ws, WORKSPACE_READ_ONLY, abs, true, !last || dir || !in_git_dir(abs + base, c), err);
            }
            if (S_ISLNK(st.st_mode)) {
                /* Where the link points, plus the rest of the path, resolved
                 * as far as it exists: a dangling link still leads somewhere. */
                char buf[PATH_MAX];
                ssize_t l = readlink(abs, buf, sizeof(buf) - 1);
                if (l < 0)
                    return as_error_errno(err, errno, "cannot read the symlink %s", abs);
                buf[l] = '\0';
                _cleanup_free_ char *joined = NULL;
                char *cut = strrchr(abs, '/');
                int r = buf[0] == '/' ? asprintf(&joined, "%s%s%s", buf, last ? "" : "/", last ? "" : slash + 1)
                                      : asprintf(&joined, "%.*s/%s%s%s", (int)(cut - abs), abs, buf,
                                                 last ? "" : "/", last ? "" : slash + 1);
                if (r < 0)
                    return oom(err);
                _cleanup_free_ char *target = NULL;
                if ((r = resolve_loose(joined, &target, err)) < 0)
                    return r;
                _cleanup_free_ char *shown = rel_of(ws, abs);
                if (shown == NULL)
                    return oom(err);
                if (!path_is_inside(target, ws->launch_dir))
                    return add_note(ws, note_text(ws, " is a symlink to a place outside the launch directory, "
                                                  "which the agent cannot see (", shown, target), err);
                free(rel);
                if ((rel = rel_of(ws, target)) == NULL)
                    return oom(err);
                if ((r = add_note(ws, note_text(ws, " is a symlink: what it points to is read-only inside (",
                                                shown, target), err)) < 0)
                    return r;
                break;
            }
            if (last || !S_ISDIR(st.st_mode))
                return add_mount(ws, WORKSPACE_READ_ONLY, abs, false, S_ISDIR(st.st_mode), err);
            *slash = '/';
            c = slash + 1;
        }
    }
    char *note = NULL;
    if (asprintf(&note, "%s%s leads through more than %d symlinks; it is not protected", rule->path,
                 rule->dir ? "/" : "", MAX_SYMLINK_HOPS) < 0)
        note = NULL;
    return add_note(ws, note, err);
}

static size_t depth(const char *p)
{
    size_t d = 0;
    for (; *p != '\0'; p++)
        d += *p == '/';
    return d;
}

static int mount_cmp(const void *a, const void *b)
{
    const workspace_mount_t *x = a, *y = b;
    size_t dx = depth(x->path), dy = depth(y->path);
    if (dx != dy)
        return dx < dy ? -1 : 1;
    return strcmp(x->path, y->path);
}

static int plan_all(workspace_t *ws, as_error_t **err)
{
    mounts_clear(ws);
    int r;
    for (size_t i = 0; i < ws->rules->n; i++)
        if ((r = plan_rule(ws, &ws->rules->v[i], err)) < 0)
            return r;
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
            return oom(err);
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

int workspace_plan(const char *launch_dir, const char *home, workspace_rules_t *rules,
                   workspace_t **ret, as_error_t **err)
{
    if (launch_dir == NULL || launch_dir[0] != '/' || home == NULL || rules == NULL) {
        workspace_rules_free(rules);
        return as_error_make(err, EINVAL, "protected paths: bad input");
    }
    workspace_t *ws = calloc(1, sizeof(*ws));
    if (ws == NULL) {
        workspace_rules_free(rules);
        return oom(err);
    }
    ws->rules = rules;
    as_error_t *e = NULL;
    if ((ws->home = strdup(home)) == NULL || path_normalize(launch_dir, &ws->launch_dir, &e) < 0) {
        as_error_free(&e);
        workspace_free(ws);
        return oom(err);
    }
    int r = plan_all(ws, err);
    if (r < 0) {
        workspace_free(ws);
        return r;
    }
    *ret = ws;
    return 0;
}

/* ---- the lock ---------------------------------------------------------- */

/* Shared on every ancestor, exclusive on the launch directory: a session in
 * this directory, above it or below it makes the other fail. Directories we
 * cannot open or lock (permissions, a file system without flock) are
 * skipped. */
static int lock_tree(workspace_t *ws, as_error_t **err)
{
    _cleanup_free_ char *p = strdup(ws->launch_dir);
    size_t n = depth(ws->launch_dir) + 1;
    ws->lock_fds = calloc(n, sizeof(int));
    if (p == NULL || ws->lock_fds == NULL)
        return oom(err);
    for (char *s = p + 1;; s++) {
        bool end = *s == '\0';
        if (*s != '/' && !end)
            continue;
        *s = '\0';
        int fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0) {
            if (flock(fd, (end ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0) {
                ws->lock_fds[ws->n_lock_fds++] = fd;
            } else {
                int e = errno;
                close(fd);
                if (e == EWOULDBLOCK) {
                    msg_t m;
                    workspace_config_t cfg = { .launch_dir = ws->launch_dir, .home = ws->home };
                    int r = refusal_start(&m, &cfg, err);
                    if (r < 0)
                        return r;
                    if (end) {
                        fputs("another agent-sandbox session is running in this directory or in one below it", m.f);
                    } else {
                        fputs("another agent-sandbox session is running in ", m.f);
                        put_path(m.f, ws->home, p);
                        fputs(", which holds this directory", m.f);
                    }
                    fprintf(m.f, " [rule: %s].\nSessions may not overlap: each one's protected paths are "
                            "host paths the other's agent could change. Wait for it to end, or launch "
                            "from a directory outside its tree.", RULE_BUSY);
                    return msg_fail(&m, WORKSPACE_EBUSY, err);
                }
            }
        }
        if (end)
            break;
        *s = '/';
    }
    /* The launch directory was resolved before the lock: still the same? */
    _cleanup_free_ char *now = realpath(ws->launch_dir, NULL);
    if (now == NULL || strcmp(now, ws->launch_dir) != 0)
        return as_error_make(err, ESTALE, "the launch directory %s changed while starting", ws->launch_dir);
    return 0;
}

/* ---- placeholders ------------------------------------------------------ */

static bool is_empty(const char *path, const struct stat *st)
{
    if (S_ISREG(st->st_mode))
        return st->st_size == 0;
    if (!S_ISDIR(st->st_mode))
        return false;
    DIR *d = opendir(path);
    if (d == NULL)
        return false;
    bool empty = true;
    struct dirent *e;
    while (empty && (e = readdir(d)) != NULL)
        empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    closedir(d);
    return empty;
}

static bool marked(const char *path)
{
    char v[8];
    return lgetxattr(path, PLACEHOLDER_XATTR, v, sizeof(v)) >= 0;
}

/* Removes what a killed session left on the rules' paths: empty and marked. */
static void remove_stale_placeholders(workspace_t *ws)
{
    for (size_t i = 0; i < ws->rules->n; i++) {
        _cleanup_free_ char *abs = NULL;
        as_error_t *e = NULL;
        if (path_join(ws->launch_dir, ws->rules->v[i].path, &abs, &e) < 0) {
            as_error_free(&e);
            return;
        }
        char *c = abs + strlen(ws->launch_dir) + 1;
        for (;;) {
            char *slash = strchr(c, '/');
            if (slash != NULL)
                *slash = '\0';
            struct stat st;
            if (lstat(abs, &st) < 0 || S_ISLNK(st.st_mode))
                break;
            if (marked(abs) && is_empty(abs, &st)) {
                if (S_ISDIR(st.st_mode))
                    rmdir(abs);
                else
                    unlink(abs);
                break;
            }
            if (slash == NULL || !S_ISDIR(st.st_mode))
                break;
            *slash = '/';
            c = slash + 1;
        }
    }
}

static int create_placeholder(workspace_mount_t *m, as_error_t **err)
{
    int fd;
    if (m->dir) {
        if (mkdir(m->path, 0755) < 0) {
            if (errno == EEXIST)
                return 0;       /* made meanwhile on the host: it is mounted as it is */
            return as_error_errno(err, errno, "cannot create the placeholder %s", m->path);
        }
        fd = open(m->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    } else {
        fd = open(m->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno == EEXIST)
            return 0;
    }
    if (fd < 0)
        return as_error_errno(err, errno, "cannot create the placeholder %s", m->path);
    struct stat st;
    if (fstat(fd, &st) == 0) {
        m->created = true;
        m->dev = st.st_dev;
        m->ino = st.st_ino;
    }
    (void)fsetxattr(fd, PLACEHOLDER_XATTR, "1", 1, 0);   /* best effort: only helps a later sweep */
    close(fd);
    return 0;
}

/* Removes a placeholder we made if it is still ours and empty. */
static bool remove_placeholder(workspace_mount_t *m)
{
    struct stat st;
    if (lstat(m->path, &st) < 0)
        return errno == ENOENT;
    if (st.st_dev != m->dev || st.st_ino != m->ino || !is_empty(m->path, &st))
        return false;
    if ((S_ISDIR(st.st_mode) ? rmdir(m->path) : unlink(m->path)) < 0)
        return errno == ENOENT;
    return true;
}

/* ---- the snapshot ------------------------------------------------------ */

enum {
    W_PROTECTED = 1u << 0,   /* a protected path, or inside one */
    W_WATCHED   = 1u << 1,   /* watched only (.git/commondir) */
    W_NESTED    = 1u << 2,   /* a copy of a protected or watched path deeper in the tree */
    W_EXEC      = 1u << 3,   /* an executable regular file */
};

typedef struct item {
    char *rel;
    unsigned what;
    mode_t mode;
    off_t size;
    dev_t dev;
    ino_t ino;
    struct timespec ctim;
    char *link;
} item_t;

struct workspace_snapshot {
    item_t *v;
    size_t n, cap;
    size_t visited;
    bool incomplete;
};

typedef struct pattern {
    char *slashed;           /* "/" + relative path */
    size_t len;
    bool protected;          /* else watched */
    bool root_only;          /* a symlink's target: not looked for deeper */
} pattern_t;

typedef struct walker {
    pattern_t *pats;
    size_t n_pats;
    workspace_snapshot_t *snap;
    char path[PATH_MAX];     /* "/" + relative path of the current entry */
} walker_t;

static void snapshot_free(workspace_snapshot_t *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].rel);
        free(s->v[i].link);
    }
    free(s->v);
    free(s);
}

static void patterns_free(pattern_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(p[i].slashed);
    free(p);
}

static int patterns_build(const workspace_t *ws, pattern_t **ret, size_t *ret_n, as_error_t **err)
{
    size_t cap = ws->rules->n + ARRAY_SIZE(WATCHED) + ws->n_mounts, n = 0;
    pattern_t *p = calloc(cap ? cap : 1, sizeof(*p));
    if (p == NULL)
        return oom(err);
    for (size_t i = 0; i < cap; i++) {
        const char *rel;
        bool prot = true, root_only = false;
        if (i < ws->rules->n) {
            rel = ws->rules->v[i].path;
        } else if (i < ws->rules->n + ARRAY_SIZE(WATCHED)) {
            rel = WATCHED[i - ws->rules->n];
            prot = false;
        } else {
            const workspace_mount_t *m = &ws->mounts[i - ws->rules->n - ARRAY_SIZE(WATCHED)];
            if (m->kind != WORKSPACE_READ_ONLY)
                continue;
            rel = m->rel;
            root_only = true;
        }
        if (asprintf(&p[n].slashed, "/%s", rel) < 0) {
            patterns_free(p, n);
            return oom(err);
        }
        p[n].len = strlen(p[n].slashed);
        p[n].protected = prot;
        p[n].root_only = root_only;
        n++;
    }
    *ret = p;
    *ret_n = n;
    return 0;
}

/* Which of the W_* apply to the entry at w->path ("/a/b"). */
static unsigned classify(const walker_t *w, const struct stat *st)
{
    unsigned what = 0;
    if (S_ISREG(st->st_mode) && (st->st_mode & 0111) != 0)
        what |= W_EXEC;
    const char *path = w->path;
    for (size_t i = 0; i < w->n_pats; i++) {
        const pattern_t *p = &w->pats[i];
        for (const char *at = path; (at = strstr(at, p->slashed)) != NULL; at++) {
            if (at[p->len] != '\0' && at[p->len] != '/')
                continue;
            if (at == path)
                what |= p->protected ? W_PROTECTED : W_WATCHED;
            else if (!p->root_only)
                what |= W_NESTED;
            break;
        }
    }
    return what;
}

static int record(walker_t *w, int dirfd, const char *name, const struct stat *st, unsigned what)
{
    workspace_snapshot_t *s = w->snap;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        item_t *v = realloc(s->v, cap * sizeof(*v));
        if (v == NULL)
            return -ENOMEM;
        s->v = v;
        s->cap = cap;
    }
    item_t it = {
        .what = what, .mode = st->st_mode, .size = st->st_size, .dev = st->st_dev,
        .ino = st->st_ino, .ctim = st->st_ctim,
    };
    if ((it.rel = strdup(w->path + 1)) == NULL)
        return -ENOMEM;
    if (S_ISLNK(st->st_mode)) {
        char buf[PATH_MAX];
        ssize_t l = readlinkat(dirfd, name, buf, sizeof(buf) - 1);
        if (l >= 0 && (it.link = strndup(buf, (size_t)l)) == NULL) {
            free(it.rel);
            return -ENOMEM;
        }
    }
    s->v[s->n++] = it;
    return 0;
}

/* Object stores hold only read-only files and can be huge. */
static bool skip_dir(const char *path)
{
    const char *base = strrchr(path, '/');
    return strcmp(base, "/objects") == 0 && strstr(path, "/.git/") != NULL;
}

static int walk(walker_t *w, int dirfd, size_t len, int level)
{
    DIR *d = fdopendir(dirfd);
    if (d == NULL) {
        close(dirfd);
        w->snap->incomplete = true;
        return 0;
    }
    int r = 0;
    struct dirent *e;
    while (r == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (++w->snap->visited > WALK_MAX_ENTRIES) {
            w->snap->incomplete = true;
            break;
        }
        size_t nl = strlen(e->d_name);
        if (len + 1 + nl >= sizeof(w->path)) {
            w->snap->incomplete = true;
            continue;
        }
        w->path[len] = '/';
        memcpy(w->path + len + 1, e->d_name, nl + 1);
        struct stat st;
        if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;                     /* gone meanwhile */
        unsigned what = classify(w, &st);
        if (what != 0 && (r = record(w, dirfd, e->d_name, &st, what)) < 0)
            break;
        if (!S_ISDIR(st.st_mode) || skip_dir(w->path))
            continue;
        if (level >= WALK_MAX_DEPTH) {
            w->snap->incomplete = true;
            continue;
        }
        int fd = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            w->snap->incomplete = true;
            continue;
        }
        r = walk(w, fd, len + 1 + nl, level + 1);
    }
    w->path[len] = '\0';
    closedir(d);
    return r;
}

static int item_cmp(const void *a, const void *b)
{
    return strcmp(((const item_t *)a)->rel, ((const item_t *)b)->rel);
}

static int snapshot_take(const workspace_t *ws, workspace_snapshot_t **ret, as_error_t **err)
{
    walker_t w = { 0 };
    int r = patterns_build(ws, &w.pats, &w.n_pats, err);
    if (r < 0)
        return r;
    w.snap = calloc(1, sizeof(*w.snap));
    if (w.snap == NULL) {
        patterns_free(w.pats, w.n_pats);
        return oom(err);
    }
    int fd = open(ws->launch_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        r = as_error_errno(err, errno, "cannot read %s", ws->launch_dir);
    } else if ((r = walk(&w, fd, 0, 0)) < 0) {
        r = oom(err);
    }
    patterns_free(w.pats, w.n_pats);
    if (r < 0) {
        snapshot_free(w.snap);
        return r;
    }
    if (w.snap->n > 0)
        qsort(w.snap->v, w.snap->n, sizeof(item_t), item_cmp);
    *ret = w.snap;
    return 0;
}

/* ---- begin, end, the report -------------------------------------------- */

int workspace_begin(workspace_t *ws, as_error_t **err)
{
    if (ws->before != NULL)
        return as_error_make(err, EALREADY, "internal error: workspace_begin called twice");
    int r = lock_tree(ws, err);
    if (r < 0)
        return r;
    remove_stale_placeholders(ws);
    if ((r = plan_all(ws, err)) < 0 || (r = snapshot_take(ws, &ws->before, err)) < 0)
        return r;
    for (size_t i = 0; i < ws->n_mounts; i++)
        if (ws->mounts[i].placeholder && (r = create_placeholder(&ws->mounts[i], err)) < 0)
            return r;
    return 0;
}

typedef enum { CH_CREATED, CH_REMOVED, CH_CHANGED } change_t;

typedef struct change {
    const item_t *it;        /* the after item, or the before one when removed */
    change_t kind;
    unsigned what;
} change_entry_t;

static bool item_changed(const item_t *a, const item_t *b)
{
    return a->mode != b->mode || a->size != b->size || a->dev != b->dev || a->ino != b->ino ||
           a->ctim.tv_sec != b->ctim.tv_sec || a->ctim.tv_nsec != b->ctim.tv_nsec ||
           (a->link == NULL) != (b->link == NULL) || (a->link != NULL && strcmp(a->link, b->link) != 0);
}

static int rank(unsigned what)
{
    return (what & W_PROTECTED) ? 0 : (what & W_WATCHED) ? 1 : (what & W_NESTED) ? 2 : 3;
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
    if (what & (W_PROTECTED | W_WATCHED | W_NESTED))
        return true;
    return kind != CH_REMOVED;
}

static void put_change(FILE *f, const change_entry_t *c)
{
    fputs("  ", f);
    path_put_escaped(f, c->it->rel, strlen(c->it->rel));
    if (c->what & (W_PROTECTED | W_WATCHED | W_NESTED)) {
        fprintf(f, ": %s", c->kind == CH_CREATED ? "created" : c->kind == CH_REMOVED ? "removed" : "changed");
        if (c->what & W_PROTECTED)
            fputs(" (protected)", f);
        else if (c->what & W_WATCHED)
            fputs(" (git reads it to find its config)", f);
        else
            fputs(" (a copy of a protected path)", f);
        if ((c->what & W_EXEC) && c->kind != CH_REMOVED)
            fputs(", executable", f);
    } else {
        fputs(c->kind == CH_CREATED ? ": new, or made executable" : ": changed, executable", f);
    }
    fputc('\n', f);
}

static int report(const workspace_t *ws, const workspace_snapshot_t *after, const char *kept,
                  char **ret, as_error_t **err)
{
    const workspace_snapshot_t *before = ws->before;
    change_entry_t *ch = calloc(before->n + after->n + 1, sizeof(*ch));
    if (ch == NULL)
        return oom(err);
    size_t n = 0, i = 0, j = 0;
    while (i < before->n || j < after->n) {
        int c = i == before->n ? 1 : j == after->n ? -1 : strcmp(before->v[i].rel, after->v[j].rel);
        change_entry_t e;
        if (c < 0) {
            e = (change_entry_t){ &before->v[i], CH_REMOVED, before->v[i].what };
            i++;
        } else if (c > 0) {
            e = (change_entry_t){ &after->v[j], CH_CREATED, after->v[j].what };
            j++;
        } else {
            const item_t *a = &before->v[i++], *b = &after->v[j++];
            if (!item_changed(a, b))
                continue;
            /* became executable: as good as new */
            e = (change_entry_t){ b, (b->what & W_EXEC) && !(a->what & W_EXEC) ? CH_CREATED : CH_CHANGED,
                                  a->what | b->what };
            if (!(e.what & (W_PROTECTED | W_WATCHED | W_NESTED)) && !(b->what & W_EXEC))
                continue;         /* no longer executable */
        }
        if (relevant(e.kind, e.what))
            ch[n++] = e;
    }
    if (n == 0 && kept == NULL && !after->incomplete && !before->incomplete) {
        free(ch);
        *ret = NULL;
        return 0;
    }
    qsort(ch, n, sizeof(*ch), change_cmp);
    msg_t m;
    int r = msg_open(&m, err);
    if (r < 0) {
        free(ch);
        return r;
    }
    if (n > 0) {
        fputs("files that can run on this machine changed in ", m.f);
        put_path(m.f, ws->home, ws->launch_dir);
        fputs(" during the session:\n", m.f);
        for (size_t k = 0; k < n && k < REPORT_MAX_LINES; k++)
            put_change(m.f, &ch[k]);
        if (n > REPORT_MAX_LINES)
            fprintf(m.f, "  ... and %zu more\n", n - REPORT_MAX_LINES);
        fputs("Look at them before you run git, open the project in an editor or run its tools "
              "outside the sandbox.", m.f);
    }
    if (kept != NULL)
        fprintf(m.f, "%s%s", n > 0 ? "\n" : "", kept);
    if (after->incomplete || before->incomplete)
        fprintf(m.f, "%sthe check of executable files was partial: the tree has more than %d entries, "
                "is deeper than %d levels or has unreadable directories.",
                n > 0 || kept != NULL ? "\n" : "", WALK_MAX_ENTRIES, WALK_MAX_DEPTH);
    free(ch);
    return msg_close(&m, ret, err);
}

int workspace_end(workspace_t *ws, bool remove_placeholders, char **ret_report, as_error_t **err)
{
    if (ws->before == NULL)
        return as_error_make(err, EINVAL, "internal error: workspace_end without workspace_begin");
    msg_t m;
    int r = msg_open(&m, err);
    if (r < 0)
        return r;
    size_t n_kept = 0;
    for (size_t i = 0; i < ws->n_mounts; i++) {
        workspace_mount_t *mt = &ws->mounts[i];
        if (!mt->created)
            continue;
        if (remove_placeholders && remove_placeholder(mt)) {
            mt->created = false;
            continue;
        }
        fputs(n_kept++ == 0 ? "left in place, the placeholders made for the session: " : ", ", m.f);
        path_put_escaped(m.f, mt->rel, strlen(mt->rel));
    }
    if (n_kept > 0)
        fputs(remove_placeholders ? " (no longer empty: they hold what was written on the host)"
                                  : " (the sandbox may still be running; remove them once it is gone "
                                    "if they are still empty)", m.f);
    _cleanup_free_ char *kept = NULL;
    if ((r = msg_close(&m, &kept, err)) < 0)
        return r;
    workspace_snapshot_t *after = NULL;
    if ((r = snapshot_take(ws, &after, err)) < 0)
        return r;
    r = report(ws, after, n_kept > 0 ? kept : NULL, ret_report, err);
    snapshot_free(after);
    return r;
}

/* ---- the rest ---------------------------------------------------------- */

int workspace_agent_mounts(const workspace_t *ws, agent_spec_t *a, as_error_t **err)
{
    static char *const ro[] = { "ro", "rbind", "rprivate", NULL };
    static char *const rw[] = { "rw", "rbind", "rprivate", NULL };
    for (size_t i = 0; ws != NULL && i < ws->n_mounts; i++) {
        const workspace_mount_t *m = &ws->mounts[i];
        podman_mount_t pm = {
            .source = m->path, .destination = m->path, .type = "bind",
            .options = m->kind == WORKSPACE_READ_ONLY ? ro : rw,
        };
        int r = agent_spec_add_mount(a, &pm, err);
        if (r < 0)
            return r;
    }
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

void workspace_free(workspace_t *ws)
{
    if (ws == NULL)
        return;
    for (size_t i = 0; i < ws->n_lock_fds; i++)
        close(ws->lock_fds[i]);
    free(ws->lock_fds);
    mounts_clear(ws);
    snapshot_free(ws->before);
    workspace_rules_free(ws->rules);
    free(ws->launch_dir);
    free(ws->home);
    free(ws);
}
