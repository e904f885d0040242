#include "git_identity.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "git_config.h"
#include "base/escape.h"
#include "base/file_read.h"
#include "base/msg.h"
#include "base/strv.h"
#include "base/util.h"

/* git reads bigger files, but an identity lives in a small one. */
#define GIT_CONFIG_FILE_MAX (1024 * 1024)

void git_identity_clear(git_identity_t *id)
{
    free(id->name);
    free(id->email);
    id->name = id->email = NULL;
}

static int push_path(char ***v, const char *a, const char *b)
{
    _cleanup_free_ char *path = NULL;
    if (asprintf(&path, "%s%s", a, b) < 0)
        return -ENOMEM;
    return strv_push(v, path);
}

int git_global_config_paths(const char *git_config_global, const char *xdg_config_home,
                            const char *home, char ***ret, as_error_t **err)
{
    char **v = calloc(1, sizeof(char *));
    int r = v != NULL ? 0 : -ENOMEM;
    if (r == 0 && git_config_global != NULL) {
        if (git_config_global[0] != '\0')
            r = strv_push(&v, git_config_global);
    } else if (r == 0) {
        if (xdg_config_home != NULL && xdg_config_home[0] != '\0')
            r = push_path(&v, xdg_config_home, "/git/config");
        else if (home != NULL)
            r = push_path(&v, home, "/.config/git/config");
        if (r == 0 && home != NULL)
            r = push_path(&v, home, "/.gitconfig");
    }
    if (r < 0) {
        strv_free(v);
        return as_error_make(err, ENOMEM, "out of memory");
    }
    *ret = v;
    return 0;
}

typedef struct collect {
    git_identity_t id;
    bool oom;
} collect_t;

static int take(void *ctx, const char *key, const char *value)
{
    collect_t *c = ctx;
    char **slot = strcmp(key, "user.name") == 0 ? &c->id.name
                  : strcmp(key, "user.email") == 0 ? &c->id.email : NULL;
    if (slot == NULL)
        return 0;
    char *copy = value != NULL ? strdup(value) : NULL;
    if (value != NULL && copy == NULL) {
        c->oom = true;
        return 1;
    }
    free(*slot);
    *slot = copy;
    return 0;
}

int git_identity_parse(const char *file, const char *text, size_t len, git_identity_t *id,
                       as_error_t **err)
{
    collect_t c = { .id = { NULL, NULL } };
    if ((id->name != NULL && (c.id.name = strdup(id->name)) == NULL) ||
        (id->email != NULL && (c.id.email = strdup(id->email)) == NULL)) {
        git_identity_clear(&c.id);
        return as_error_make(err, ENOMEM, "out of memory");
    }
    unsigned line = 0;
    int r = git_config_parse(text, len, take, &c, &line);
    if (r != 0 || c.oom) {
        git_identity_clear(&c.id);
        if (c.oom)
            return as_error_make(err, ENOMEM, "out of memory");
        _cleanup_free_ char *shown = path_escaped(file);
        return as_error_make(err, EINVAL, "%s:%u: not read as git config (git's syntax, without "
                             "what this reader refuses: a NUL byte, an unknown escape)",
                             shown != NULL ? shown : file, line);
    }
    git_identity_clear(id);
    *id = c.id;
    return 0;
}

int git_identity_read(char *const *paths, git_identity_t *ret, as_error_t **err)
{
    git_identity_t id = { NULL, NULL };
    for (size_t i = 0; paths != NULL && paths[i] != NULL; i++) {
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = config_file_read(AT_FDCWD, paths[i], CONFIG_FOLLOW, GIT_CONFIG_FILE_MAX, &text, &len, err);
        if (r == -ENOENT) {
            as_error_free(err);
            continue;
        }
        if (r < 0) {
            git_identity_clear(&id);
            return config_error_name(err, "cannot read ", paths[i]);
        }
        if ((r = git_identity_parse(paths[i], text, len, &id, err)) < 0) {
            git_identity_clear(&id);
            return r;
        }
    }
    git_identity_clear(ret);
    *ret = id;
    return 0;
}

/* What git keeps as it is: no control character, a sane length. */
static bool value_passable(const char *value)
{
    if (strlen(value) > GIT_IDENTITY_VALUE_MAX)
        return false;
    for (const char *c = value; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return false;
    return true;
}

/* `\tkey = "value"`, with git's escapes for the quote and the backslash. */
static void put_value(FILE *f, const char *key, const char *value)
{
    fprintf(f, "\t%s = \"", key);
    for (const char *c = value; *c; c++) {
        if (*c == '"' || *c == '\\')
            fputc('\\', f);
        fputc(*c, f);
    }
    fputs("\"\n", f);
}

int git_identity_render(const git_identity_t *id, char **ret, as_error_t **err)
{
    if (id->name == NULL && id->email == NULL) {
        *ret = NULL;
        return 0;
    }
    const char *bad = id->name != NULL && !value_passable(id->name) ? "user.name"
                      : id->email != NULL && !value_passable(id->email) ? "user.email" : NULL;
    if (bad != NULL)
        return as_error_make(err, EINVAL, "%s has a control character or is over %d bytes", bad,
                             GIT_IDENTITY_VALUE_MAX);
    msg_t m;
    int r = msg_open(&m, err);
    if (r < 0)
        return r;
    fputs("# Generated by agent-sandbox: user.name and user.email of your global git\n"
          "# config. Your global config and each repository's override it.\n[user]\n", m.f);
    if (id->name != NULL)
        put_value(m.f, "name", id->name);
    if (id->email != NULL)
        put_value(m.f, "email", id->email);
    return msg_close(&m, ret, err);
}
