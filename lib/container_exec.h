/* Run a command in a running container through the exec API and collect
 * what it printed: the executor's readiness probes use it. */
#ifndef AS_CONTAINER_EXEC_H
#define AS_CONTAINER_EXEC_H

#include "error.h"
#include "podman_api.h"

/* Output (stdout and stderr together) is kept up to 64 KiB. */
int container_exec_capture(podman_api_t *api, const char *container, char *const *argv,
                           int *ret_exit_code, char **ret_output, as_error_t **err);

#endif
