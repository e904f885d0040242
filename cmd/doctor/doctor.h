/* Between the parts of `agent-sandbox doctor` (cmd/doctor/cmd_doctor.c, the host
 * and podman; cmd/doctor/doctor_checks.c, the config files, limits and homes). */
#ifndef AS_DOCTOR_H
#define AS_DOCTOR_H

#include "shared/backend.h"
#include "config/host_check.h"

typedef struct doctor {
    unsigned count[3];       /* by check_level_t */
} doctor_t;

/* Prints c as one line ("WARN  name: detail") and its fix below when it
 * is not OK; clears it. r < 0 (no memory to fill c) is a FAIL. */
void doctor_show(doctor_t *d, const char *name, check_t *c, int r);
/* An error as a check of `level`, with `fix` (may be NULL); frees it. */
void doctor_error(doctor_t *d, const char *name, check_level_t level, const char *fix, as_error_t **err);

void doctor_check_limits(doctor_t *d);
void doctor_check_config(doctor_t *d);
/* The agent the settings file names, or NULL (none, or a file in error:
 * doctor_check_config says so). */
char *doctor_settings_agent(void);
void doctor_check_homes(doctor_t *d, backend_t *b);

#endif
