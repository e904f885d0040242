/* Per-session resource limits: memory, processes and CPU for the agent and
 * everything it starts (nested containers run in its namespaces and count
 * against the same limits). Values come from the defaults, then the limits
 * file in the config directory, then the command line. Whether a limit
 * can be applied depends on the host: rootless podman sets cgroup limits
 * only where cgroup v2 delegates the controller to the user; the process
 * limit is also set as RLIMIT_NPROC, which the kernel counts per user
 * namespace, so it holds everywhere. Nothing that cannot be applied is
 * skipped silently: limits_describe() says what is and what is not. */
#ifndef AS_RESOURCE_LIMITS_H
#define AS_RESOURCE_LIMITS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

typedef struct limits {
    long long memory_bytes;   /* 0: none */
    long long pids;           /* 0: none */
    long long cpu_millis;     /* thousandths of a CPU; 0: none */
} limits_t;

/* What the host lets rootless podman enforce through cgroups. */
typedef struct cgroup_caps {
    bool v2;
    bool memory, pids, cpu;
} cgroup_caps_t;

/* Defaults: memory 3/4 of the machine's, 4096 processes, CPU unlimited. */
void limits_defaults(limits_t *ret);

/* Parses one value: "8G", "512m", "none" (memory); "4096", "none" (pids);
 * "1.5", "none" (cpus). `what` names it in messages. */
int limits_parse_memory(const char *s, const char *what, long long *ret, as_error_t **err);
int limits_parse_pids(const char *s, const char *what, long long *ret, as_error_t **err);
int limits_parse_cpus(const char *s, const char *what, long long *ret, as_error_t **err);

/* Applies a limits file's text ("memory 8G", "pids 4096", "cpus 2"; the
 * line syntax of every config file, lib/base/config_lines.h) on top of *lim;
 * errors name file:line. */
int limits_parse_file(const char *filename, const char *text, size_t len, limits_t *lim,
                      as_error_t **err);

/* Reads the host's cgroup set-up for the calling user. */
void cgroup_caps_detect(cgroup_caps_t *ret);

/* One line about what applies and what does not, or NULL when all applies;
 * limits_file is named as the place to silence it. */
char *limits_unapplied(const limits_t *lim, const cgroup_caps_t *caps, const char *limits_file);

#endif
