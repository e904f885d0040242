#include "agent_spec.h"

#include <errno.h>
#include <string.h>

static char *const cap_drop_all[] = { "all", NULL };
static char *const bind_rw[] = { "rw", "rbind", "rprivate", NULL };

int agent_spec_add_mount(agent_spec_t *a, const podman_mount_t *m, as_error_t **err)
{
    if (a->n_mounts == AGENT_MAX_MOUNTS)
        return as_error_make(err, ENOSPC, "the agent would need more than %d mounts", AGENT_MAX_MOUNTS);
    a->mounts[a->n_mounts++] = *m;
    a->spec.mounts = a->mounts;
    a->spec.n_mounts = a->n_mounts;
    return 0;
}

int agent_spec_build(const session_plan_t *p, agent_spec_t *ret, as_error_t **err)
{
    memset(ret, 0, sizeof(*ret));
    ret->spec = (podman_container_spec_t){
        .name = p->agent,
        .image = p->image,
        .pod = p->pod,
        .command = p->command,
        .env = p->env,
        .work_dir = p->workdir,
        .stdin_open = true,
        .terminal = p->tty,
        .no_new_privileges = true,
        .init = true,
        .cap_drop = cap_drop_all,
        .labels = p->labels,
        .n_labels = 2,
    };
    /* The launch directory is the one host path the agent sees, at the
     * same place as on the host so paths in its output mean the same. */
    podman_mount_t workdir = {
        .source = p->workdir, .destination = p->workdir, .type = "bind", .options = bind_rw,
    };
    return agent_spec_add_mount(ret, &workdir, err);
}
