/* Messages of the workspace module: paths shown with ~, refusals. */
#include "workspace_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"
#include "util.h"
int ws_oom(as_error_t **err)
{
    return as_error_make(err, ENOMEM, "out of memory");
}

void ws_put_path(FILE *f, const char *home, const char *path)
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

int ws_msg_open(ws_msg_t *m, as_error_t **err)
{
    m->buf = NULL;
    m->len = 0;
    m->f = open_memstream(&m->buf, &m->len);
    return m->f == NULL ? ws_oom(err) : 0;
}

int ws_msg_close(ws_msg_t *m, char **ret, as_error_t **err)
{
    bool bad = ferror(m->f) != 0;
    if (fclose(m->f) != 0 || bad || m->buf == NULL) {
        free(m->buf);
        return ws_oom(err);
    }
    *ret = m->buf;
    return 0;
}

int ws_msg_fail(ws_msg_t *m, int code, as_error_t **err)
{
    char *text = NULL;
    int r = ws_msg_close(m, &text, err);
    if (r < 0)
        return r;
    r = as_error_make(err, code, "%s", text);
    free(text);
    return r;
}

int ws_refusal_start(ws_msg_t *m, const char *launch_dir, const char *home, as_error_t **err)
{
    int r = ws_msg_open(m, err);
    if (r < 0)
        return r;
    fputs("refusing to launch from ", m->f);
    ws_put_path(m->f, home, launch_dir);
    fputs(": ", m->f);
    return 0;
}

