#include "workspace_check.h"

#include <stdlib.h>

#include "cli.h"
#include "user_dirs.h"
#include "util.h"

static int fail(as_error_t **err, const char *context)
{
    int code = (*err)->code;
    if (code == WORKSPACE_EBADCONFIG || code == WORKSPACE_EBUSY) {
        /* a refusal: the message names the rule and what to do */
        report("%s", (*err)->msg);
        as_error_free(err);
        return code == WORKSPACE_EBUSY ? EXIT_REFUSED : EXIT_CONFIG;
    }
    as_error_prefix(err, "%s", context);
    report_error(err);
    return code == ENOMEM ? EXIT_INTERNAL : EXIT_SETUP;
}

int workspace_check_load(const char *workdir, workspace_t **ret)
{
    as_error_t *err = NULL;
    const char *home = getenv("HOME");     /* launch_check() made sure it is absolute */
    _cleanup_free_ char *user_file = NULL;
    if (user_config_file(WORKSPACE_USER_FILE, &user_file, &err) < 0 ||
        workspace_load(workdir, home, user_file, ret, &err) < 0)
        return fail(&err, "reading the protected paths");
    return 0;
}

void workspace_check_describe(const workspace_t *ws, FILE *out)
{
    as_error_t *err = NULL;
    char *text = NULL;
    if (workspace_describe(ws, &text, &err) < 0) {
        report_error(&err);
        return;
    }
    fprintf(out, "  protected paths (docs/workspace-protection.md):\n%s", text);
    free(text);
}

int workspace_check_begin(workspace_t *ws)
{
    as_error_t *err = NULL;
    if (workspace_begin(ws, &err) < 0)
        return fail(&err, "protecting the workspace");
    for (size_t i = 0; i < ws->n_notes; i++)
        report("warning: %s", ws->notes[i]);
    return 0;
}

void workspace_check_end(workspace_t *ws, bool container_gone)
{
    if (ws == NULL || ws->before == NULL)
        return;
    as_error_t *err = NULL;
    char *text = NULL;
    if (workspace_end(ws, container_gone, &text, &err) < 0) {
        as_error_prefix(&err, "checking the workspace after the session");
        report_error(&err);
        return;
    }
    if (text != NULL)
        report("warning: %s", text);
    free(text);
}
