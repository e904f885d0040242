#include "git_config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define KEY_MAX 1024

typedef struct cursor {
    const char *s;
    size_t len, pos;
    unsigned line;
} cursor_t;

/* The next byte, with a "\\\n" continuation folded away only where git
 * folds it (inside values, handled there); -1 at the end. */
static int peek(const cursor_t *c)
{
    return c->pos < c->len ? (unsigned char)c->s[c->pos] : -1;
}

static int next(cursor_t *c)
{
    int ch = peek(c);
    if (ch >= 0) {
        c->pos++;
        if (ch == '\n')
            c->line++;
    }
    return ch;
}

static bool is_space(int ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

static bool is_alpha(int ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static bool is_alnum(int ch)
{
    return is_alpha(ch) || (ch >= '0' && ch <= '9');
}

static int lower(int ch)
{
    return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch;
}

/* Skips to the end of the line (a comment). */
static void skip_line(cursor_t *c)
{
    int ch;
    while ((ch = peek(c)) >= 0 && ch != '\n')
        next(c);
}

/* `"subsection"]` after `[section `: quotes and backslash escapes as in
 * git's get_extended_base_var(). */
static int parse_subsection(cursor_t *c, char *key, size_t *kn)
{
    int ch;
    while ((ch = next(c)) >= 0 && is_space(ch))
        ;
    if (ch != '"')
        return -EBADMSG;
    key[(*kn)++] = '.';
    while ((ch = next(c)) != '"') {
        if (ch < 0 || ch == '\n')
            return -EBADMSG;
        if (ch == '\\' && ((ch = next(c)) < 0 || ch == '\n'))
            return -EBADMSG;
        if (*kn + 1 >= KEY_MAX)
            return -EBADMSG;
        key[(*kn)++] = (char)ch;
    }
    return next(c) == ']' ? 0 : -EBADMSG;
}

/* After "[": the section name (letters, digits, "-", "."; lowercased), then
 * an optional quoted subsection, then "]". key holds "section[.sub]". */
static int parse_section(cursor_t *c, char *key, size_t *kn)
{
    *kn = 0;
    for (;;) {
        int ch = next(c);
        if (ch == ']')
            break;
        if (ch >= 0 && is_space(ch))
            return parse_subsection(c, key, kn);
        if (ch < 0 || !(is_alnum(ch) || ch == '-' || ch == '.') || *kn + 1 >= KEY_MAX)
            return -EBADMSG;
        key[(*kn)++] = (char)lower(ch);
    }
    key[*kn] = '\0';
    return *kn == 0 ? -EBADMSG : 0;
}

static int value_put(char **v, size_t *n, size_t *cap, int ch)
{
    if (*n + 1 >= *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        char *p = realloc(*v, nc);
        if (p == NULL)
            return -ENOMEM;
        *v = p;
        *cap = nc;
    }
    (*v)[(*n)++] = (char)ch;
    (*v)[*n] = '\0';
    return 0;
}

/* The escapes git's parse_value() knows; anything else is an error there. */
static int unescape(int ch)
{
    switch (ch) {
    case '\\': return '\\';
    case '"':  return '"';
    case 'n':  return '\n';
    case 't':  return '\t';
    case 'b':  return '\b';
    default:   return -1;
    }
}

/* After "=": up to the end of the line, quotes and escapes decoded,
 * unquoted trailing blanks dropped, "\\\n" joining lines. */
static int parse_value(cursor_t *c, char **ret)
{
    char *v = NULL;
    size_t n = 0, cap = 0, keep = 0;
    bool quoted = false, started = false;
    int r = value_put(&v, &n, &cap, 'x');
    n = 0;
    for (int ch; r == 0;) {
        ch = next(c);
        if (ch < 0 || ch == '\n') {
            if (quoted) {
                r = -EBADMSG;
                c->line -= ch == '\n';     /* the line it is on */
            }
            break;
        }
        if (!quoted && (ch == ';' || ch == '#')) {
            skip_line(c);
            continue;
        }
        if (!quoted && is_space(ch)) {
            if (started)
                r = value_put(&v, &n, &cap, ' ');
            continue;
        }
        started = true;
        if (ch == '"') {
            quoted = !quoted;
            keep = n;
            continue;
        }
        if (ch == '\\') {
            int e = next(c);
            if (e == '\n')
                continue;
            if ((ch = unescape(e)) < 0) {
                r = -EBADMSG;
                break;
            }
        }
        r = value_put(&v, &n, &cap, ch);
        keep = n;
    }
    if (r < 0) {
        free(v);
        return r;
    }
    v[keep] = '\0';       /* unquoted trailing blanks are not part of it */
    *ret = v;
    return 0;
}

/* A variable line: name (a letter, then letters, digits, "-"), then "=" and
 * a value, or nothing (true). */
static int parse_variable(cursor_t *c, char *key, size_t kn, git_config_fn fn, void *ctx)
{
    size_t n = kn;
    key[n++] = '.';
    int ch;
    while ((ch = peek(c)) >= 0 && (is_alnum(ch) || ch == '-')) {
        if (n + 1 >= KEY_MAX)
            return -EBADMSG;
        key[n++] = (char)lower(next(c));
    }
    key[n] = '\0';
    while ((ch = peek(c)) >= 0 && is_space(ch))
        next(c);
    char *value = NULL;
    if (ch == '=') {
        next(c);
        int r = parse_value(c, &value);
        if (r < 0)
            return r;
    } else if (ch >= 0 && ch != '\n' && ch != '#' && ch != ';') {
        return -EBADMSG;
    }
    int r = fn(ctx, key, value);
    free(value);
    return r;
}

static int parse_all(cursor_t *c, git_config_fn fn, void *ctx)
{
    char key[KEY_MAX];
    size_t kn = 0;
    bool in_section = false;
    if (c->len >= 3 && memcmp(c->s, "\xef\xbb\xbf", 3) == 0)
        c->pos = 3;
    for (int ch; (ch = peek(c)) >= 0;) {
        int r = 0;
        if (ch == '\n' || is_space(ch)) {
            next(c);
        } else if (ch == '#' || ch == ';') {
            skip_line(c);
        } else if (ch == '[') {
            next(c);
            r = parse_section(c, key, &kn);
            in_section = r == 0;
        } else if (is_alpha(ch) && in_section) {
            r = parse_variable(c, key, kn, fn, ctx);
        } else {
            r = -EBADMSG;
        }
        if (r != 0)
            return r;
    }
    return 0;
}

int git_config_parse(const char *text, size_t len, git_config_fn fn, void *ctx, unsigned *ret_line)
{
    cursor_t c = { .s = text, .len = len, .line = 1 };
    int r = memchr(text, '\0', len) != NULL ? -EBADMSG : parse_all(&c, fn, ctx);
    if (r == -EBADMSG && ret_line != NULL)
        *ret_line = c.line;
    return r;
}

/* "section", "*" for any subsection or NULL for none, "name". */
static const struct {
    const char *section, *sub, *name;
} ALLOWED[] = {
    { "core", NULL, "repositoryformatversion" },
    { "core", NULL, "filemode" },
    { "core", NULL, "bare" },
    { "core", NULL, "logallrefupdates" },
    { "core", NULL, "ignorecase" },
    { "core", NULL, "precomposeunicode" },
    { "core", NULL, "symlinks" },
    { "core", NULL, "worktree" },             /* submodules' git dirs; the caller checks where */
    { "core", NULL, "sharedrepository" },     /* git init --shared */
    { "core", NULL, "sparsecheckout" },
    { "core", NULL, "sparsecheckoutcone" },
    { "index", NULL, "sparse" },
    { "extensions", NULL, "objectformat" },
    { "extensions", NULL, "worktreeconfig" },
    { "extensions", NULL, "partialclone" },
    { "extensions", NULL, "refstorage" },
    { "remote", "*", "url" },                 /* ext:: stays off: protocol.ext.allow is not allowed */
    { "remote", "*", "pushurl" },
    { "remote", "*", "fetch" },
    { "remote", "*", "mirror" },
    { "remote", "*", "tagopt" },
    { "remote", "*", "promisor" },
    { "remote", "*", "partialclonefilter" },
    { "branch", "*", "remote" },
    { "branch", "*", "merge" },
    { "submodule", "*", "url" },              /* not .update, which may be "!command" */
    { "submodule", "*", "active" },
    { "user", NULL, "name" },
    { "user", NULL, "email" },
};

bool git_config_key_allowed(const char *key)
{
    const char *dot = strchr(key, '.'), *last = strrchr(key, '.');
    if (dot == NULL)
        return false;
    size_t sl = (size_t)(dot - key);
    bool has_sub = last != dot;
    for (size_t i = 0; i < sizeof(ALLOWED) / sizeof(ALLOWED[0]); i++) {
        if (strlen(ALLOWED[i].section) != sl || strncmp(key, ALLOWED[i].section, sl) != 0 ||
            strcmp(last + 1, ALLOWED[i].name) != 0)
            continue;
        if ((ALLOWED[i].sub != NULL) == has_sub)
            return true;
    }
    return false;
}

bool git_config_key_fetches(const char *key)
{
    const char *last = strrchr(key, '.');
    if (last == NULL)
        return false;
    if (strcmp(key, "extensions.partialclone") == 0 || strcmp(key, "core.partialclonefilter") == 0)
        return true;
    /* remote.<any subsection>.promisor / .partialclonefilter */
    return strncmp(key, "remote.", 7) == 0 && last > key + 6 &&
           (strcmp(last + 1, "promisor") == 0 || strcmp(last + 1, "partialclonefilter") == 0);
}
