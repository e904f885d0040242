/* What a session gets of the host user besides the launch directory: the
 * user's name (the agent's passwd entry) and, unless the settings file says
 * `git-identity off`, the git identity (lib/config/git_identity.h), read from the
 * global git config files without running git. An identity that cannot be
 * read is a warning, not a refusal: the confinement does not depend on it. */
#include <errno.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/cli.h"
#include "inputs.h"
#include "base/strv.h"
#include "base/util.h"
#include "config/git_global.h"
#include "config/git_identity.h"
#include "config/user_settings.h"

void host_identity_clear(host_identity_t *h)
{
    free(h->user_name);
    free(h->git_config);
    h->user_name = h->git_config = NULL;
}

/* The system git config for the sandbox, or NULL (said why, when it is not
 * for want of an identity). */
static char *git_config_for_sandbox(const char *settings_path)
{
    as_error_t *err = NULL;
    _cleanup_(strv_freep) char **paths = NULL;
    git_identity_t id = { NULL, NULL };
    char *text = NULL;
    if (git_global_files(environ, &paths, &err) < 0 || git_identity_read(paths, &id, &err) < 0 ||
        git_identity_render(&id, &text, &err) < 0) {
        report("warning: commits in the sandbox carry no identity of yours: %s (`git-identity off` "
               "in %s stops passing it)", err != NULL ? err->msg : "out of memory",
               settings_path);
        as_error_free(&err);
    }
    git_identity_clear(&id);
    return text;
}

int host_identity_load(const user_settings_t *settings, const char *settings_path, host_identity_t *ret)
{
    host_identity_t h = { NULL, NULL };
    errno = 0;
    const struct passwd *pw = getpwuid(getuid());
    if (pw != NULL && (h.user_name = strdup(pw->pw_name)) == NULL)
        return EXIT_INTERNAL;
    if (settings->git_identity)
        h.git_config = git_config_for_sandbox(settings_path);
    *ret = h;
    return 0;
}
