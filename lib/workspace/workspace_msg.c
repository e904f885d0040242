/* Messages of the workspace module: paths shown with ~, refusals (built
 * with msg.h). */
#include "workspace_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/paths.h"
#include "base/util.h"
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
    path_put_for_user(f, path, home_res, home_lex);
}

int ws_refusal_start(msg_t *m, const char *launch_dir, const char *home, as_error_t **err)
{
    int r = msg_open(m, err);
    if (r < 0)
        return r;
    fputs("refusing to launch from ", m->f);
    ws_put_path(m->f, home, launch_dir);
    fputs(": ", m->f);
    return 0;
}

