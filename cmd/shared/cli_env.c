#include "cli_env.h"

#include <stddef.h>
#include <stdlib.h>

#include "base/user_dirs.h"
#include "base/util.h"

static const struct {
    const char *name;
    size_t offset;
} VARIABLES[] = {
    { "AGENT_SANDBOX_IMAGE", offsetof(cli_env_t, vars.image) },
    { "AGENT_SANDBOX_ROUTER_IMAGE", offsetof(cli_env_t, vars.router_image) },
    { "AGENT_SANDBOX_EGRESS_NETWORK", offsetof(cli_env_t, vars.egress_network) },
    { "AGENT_SANDBOX_RESOLVER", offsetof(cli_env_t, vars.resolver) },
    { "AGENT_SANDBOX_HOME_VOLUME", offsetof(cli_env_t, vars.home_volume) },
    { "AGENT_SANDBOX_VOLUME_PREFIX", offsetof(cli_env_t, vars.volume_prefix) },
    { "AGENT_SANDBOX_ALLOWLIST", offsetof(cli_env_t, vars.allowlist) },
    { "AGENT_SANDBOX_TRACE", offsetof(cli_env_t, trace) },
    { "AGENT_SANDBOX_UPSTREAM_CA", offsetof(cli_env_t, vars.upstream_ca) },
    { "AGENT_SANDBOX_TEST_ROOT", offsetof(cli_env_t, test_root) },
};

const cli_env_t *cli_env(void)
{
    static cli_env_t env;
    static int read;
    if (read)
        return &env;
    read = 1;
    /* Pointers into the environment: nothing the CLI sets later (it
     * exports XDG_RUNTIME_DIR and verify's secret) replaces these. Ours:
     * unset or empty, the same. */
    for (size_t i = 0; i < ARRAY_SIZE(VARIABLES); i++) {
        const char *v = getenv(VARIABLES[i].name);
        *(const char **)((char *)&env + VARIABLES[i].offset) = v != NULL && v[0] != '\0' ? v : NULL;
    }
    /* the host tools' own variables, as those tools see them; HOME by its
     * one reader (lib/base/user_dirs.h), as every path under it is made */
    env.vars.home = user_env().home;
    env.vars.path = getenv("PATH");
    env.pager = getenv("PAGER");
    return &env;
}

