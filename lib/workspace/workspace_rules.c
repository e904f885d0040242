/* The set of protected paths: the defaults, the user's file, the project's
 * file (docs/workspace-protection.md). */
#include "workspace_int.h"
#include "tool_configs.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config_lines.h"
#include "base/file_read.h"
#include "base/paths.h"
#include "base/util.h"
/* The default set is the table of tool configs (tool_configs.h): each
 * frozen or if-exists row is a default protected path. if_exists: frozen
 * where it exists, with no placeholder (one would be a visible,
 * ordinary-looking name in the tree); created during the session, it is
 * disabled at the end (ws_configs_check), and the row's reader names the
 * tool for that message. */
static bool is_default(const tool_config_t *t)
{
    return (t->how & (TOOL_FROZEN | TOOL_IF_EXISTS)) != 0;
}

bool workspace_default_covers(const char *rel)
{
    size_t n = strlen(rel);
    while (n > 0 && rel[n - 1] == '/')
        n--;
    size_t nt = 0;
    const tool_config_t *t = tool_configs(&nt);
    for (size_t i = 0; i < nt; i++) {
        size_t l = strlen(t[i].path);
        if (is_default(&t[i]) && n >= l && strncmp(rel, t[i].path, l) == 0 && (n == l || rel[l] == '/'))
            return true;
    }
    return false;
}

const char *ws_default_reader(const char *rel)
{
    const tool_config_t *t = tool_config_find(rel);
    return t != NULL ? t->reader : NULL;
}

/* ---- rules: the files -------------------------------------------------- */

typedef struct parser {
    const workspace_config_t *cfg;
    const char *file;          /* the file's path */
    bool project;
    workspace_rules_t *rules;
    unsigned line;
    const char *text;          /* the line's content (lib/base/config_lines.h) */
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

/* "refusing to launch from DIR: FILE:LINE: "TEXT": problem [rule: R].\nhint" */
static int line_error(const parser_t *p, const char *rule, const char *problem, as_error_t **err)
{
    msg_t m;
    int r = ws_refusal_start(&m, p->cfg->launch_dir, p->cfg->home, err);
    if (r < 0)
        return r;
    ws_put_path(m.f, p->cfg->home, p->file);
    fprintf(m.f, ":%u: \"", p->line);
    path_put_escaped(m.f, p->text, p->text_len);
    fprintf(m.f, "\": %s [rule: %s].\n", problem, rule);
    if (strcmp(rule, RULE_PROJECT) == 0) {
        fputs("Remove that line from ", m.f);
        ws_put_path(m.f, p->cfg->home, p->file);
        fputs(" (the agent can write that file, so it may only add paths). To change the set "
              "for this project, add a section \"[", m.f);
        ws_put_path(m.f, p->cfg->home, p->cfg->launch_dir);
        fputs("]\" with your lines to ", m.f);
        ws_put_path(m.f, p->cfg->home, p->cfg->user_file);
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
        ws_put_path(m.f, p->cfg->home, p->file);
        fputs(".", m.f);
    }
    return msg_fail(&m, WORKSPACE_EBADCONFIG, err);
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static ssize_t find_rule(const workspace_rules_t *r, const char *path)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->v[i].path, path) == 0)
            return (ssize_t)i;
    return -1;
}

static int add_rule(workspace_rules_t *r, const char *path, bool dir, bool if_exists, const char *origin,
                    as_error_t **err)
{
    ssize_t at = find_rule(r, path);
    _cleanup_free_ char *o = strdup(origin);
    if (o == NULL)
        return ws_oom(err);
    if (at >= 0) {
        free(r->v[at].origin);
        r->v[at].origin = steal_pointer(&o);
        r->v[at].dir = dir;
        r->v[at].if_exists = if_exists;
        return 0;
    }
    _cleanup_free_ char *pcopy = strdup(path);
    if (pcopy == NULL)
        return ws_oom(err);
    workspace_rule_t *v = realloc(r->v, (r->n + 1) * sizeof(*v));
    if (v == NULL)
        return ws_oom(err);
    r->v = v;
    v[r->n++] = (workspace_rule_t){ steal_pointer(&pcopy), dir, if_exists, steal_pointer(&o) };
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
        return ws_oom(err);
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
    if (memchr(s, '\t', n))      /* other control characters never get here (config_lines.h) */
        return line_error(p, RULE_SYNTAX, "a tab in the section header", err);
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
        return ws_oom(err);
    _cleanup_free_ char *norm = NULL;
    as_error_t *e = NULL;
    if (path_normalize(abs, &norm, &e) < 0) {
        as_error_free(&e);
        return ws_oom(err);
    }
    if (strcmp(norm, p->cfg->launch_dir) == 0) {
        *ret = true;
        return 0;
    }
    workspace_resolve_fn resolve = p->cfg->resolve != NULL ? p->cfg->resolve : resolve_default;
    _cleanup_free_ char *res = NULL;
    int r = resolve(p->cfg->resolve_ctx, norm, &res);
    if (r == -ENOMEM)
        return ws_oom(err);
    *ret = r == 0 && strcmp(res, p->cfg->launch_dir) == 0;
    return 0;
}

/* A "[directory]" line (p->text): does it name the launch directory? */
static int section_line(const parser_t *p, bool *ret_applies, as_error_t **err)
{
    const char *start = p->text;
    size_t n = p->text_len;
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
    return section_matches(p, k, kn, ret_applies, err);
}

/* A path line (p->text), "!" in front or not; `applies`: its section is
 * this launch directory's, or there is none. */
static int path_line(parser_t *p, bool applies, as_error_t **err)
{
    bool neg = p->text[0] == '!';
    const char *s = p->text + (neg ? 1 : 0);
    size_t sn = p->text_len - (neg ? 1 : 0);
    while (sn > 0 && is_blank(s[0])) {
        s++;
        sn--;
    }
    _cleanup_free_ char *path = NULL, *origin = NULL;
    bool dir = false;
    int r = entry_check(p, s, sn, &path, &dir, err);
    if (r < 0)
        return r;
    if (neg && p->project)
        return line_error(p, RULE_PROJECT, "a ! line; the project's own file can only add paths", err);
    if (!applies)
        return 0;
    if (neg) {
        remove_rule(p->rules, path);
        return 0;
    }
    if (find_rule(p->rules, path) < 0 && p->rules->n >= WORKSPACE_MAX_PATHS)
        return line_error(p, RULE_TOO_MANY, "one path too many", err);
    msg_t m;
    if ((r = msg_open(&m, err)) < 0)
        return r;
    ws_put_path(m.f, p->cfg->home, p->file);
    fprintf(m.f, ":%u", p->line);
    if ((r = msg_close(&m, &origin, err)) < 0)
        return r;
    return add_rule(p->rules, path, dir, false, origin, err);
}

static int parse_file(parser_t *p, const char *text, size_t len, as_error_t **err)
{
    bool in_section = false, applies = true;
    config_lines_t it;
    config_line_t l;
    config_lines_init(&it, p->file, text, len);
    while (config_lines_next(&it, &l)) {
        p->line = l.number;
        p->text = l.text;
        p->text_len = l.len;
        int r;
        if (l.problem != NULL) {
            r = line_error(p, RULE_SYNTAX, l.problem, err);
        } else if (l.text[0] == '[') {
            r = section_line(p, &applies, err);
            in_section = true;
        } else {
            r = path_line(p, !in_section || applies, err);
        }
        if (r < 0)
            return r;
    }
    return 0;
}

int workspace_rules_build(const workspace_config_t *cfg, workspace_rules_t **ret, as_error_t **err)
{
    if (cfg == NULL || cfg->launch_dir == NULL || cfg->launch_dir[0] != '/' ||
        cfg->home == NULL || cfg->home[0] != '/')
        return as_error_make(err, EINVAL, "protected paths: the launch directory and $HOME must be absolute");
    _cleanup_(workspace_rules_freep) workspace_rules_t *rules = calloc(1, sizeof(*rules));
    if (rules == NULL)
        return ws_oom(err);
    int r = 0;
    size_t nt = 0;
    const tool_config_t *t = tool_configs(&nt);
    for (size_t i = 0; i < nt && r == 0; i++)
        if (is_default(&t[i]))
            r = add_rule(rules, t[i].path, t[i].dir, (t[i].how & TOOL_IF_EXISTS) != 0, "default", err);

    if (r == 0 && ((cfg->user_text != NULL && cfg->user_file == NULL) ||
                   (cfg->project_text != NULL && cfg->project_file == NULL)))
        r = as_error_make(err, EINVAL, "protected paths: a file has no name");
    workspace_config_t c = *cfg;
    if (r == 0 && c.user_text != NULL) {
        parser_t p = { .cfg = &c, .file = c.user_file, .rules = rules };
        r = parse_file(&p, c.user_text, c.user_len, err);
    }
    if (r == 0 && c.project_text != NULL) {
        parser_t p = { .cfg = &c, .file = c.project_file, .project = true, .rules = rules };
        r = parse_file(&p, c.project_text, c.project_len, err);
        /* The project's file protects itself: else the agent could take back
         * what it adds, for the next session. */
        if (r == 0 && find_rule(rules, WORKSPACE_PROJECT_FILE) < 0)
            r = add_rule(rules, WORKSPACE_PROJECT_FILE, false, false, "the project's file itself", err);
    }
    if (r < 0)
        return r;
    *ret = steal_pointer(&rules);
    return 0;
}
