/* Every image a session runs (shipped, with toolchains, derived by the
 * user, or named by AGENT_SANDBOX_IMAGE) is checked for what the
 * confinement relies on, before anything of the session is made:
 *  - no setuid or setgid file, no file capabilities, no device node: the
 *    flattened file system is read as a tar stream (a container created,
 *    never started, and exported), none of the image's programs run;
 *  - /etc/passwd a regular file (podman adds the user's entry to it);
 *  - no USER and no ENTRYPOINT in its config: the agent runs as the
 *    user's own id (keep-id) and its command is the one the session gives.
 * The verdict "passed" is cached by image ID (content-addressed: the same
 * ID is the same file system and config) in the state directory, so the
 * export is paid once per image. Complete or refused: an export that
 * fails or ends early refuses the image. */
#ifndef AS_IMAGE_CHECK_H
#define AS_IMAGE_CHECK_H

#include <stdbool.h>

#include "base/error.h"
#include "podman/podman_api.h"

typedef struct image_check {
    const char *image;           /* the reference */
    const char *cache_dir;       /* where passed verdicts are kept (made when missing) */
    const char *container_name;  /* of the export's container */
    const podman_label_t *labels;   /* on it, so the stale sweep finds one left behind */
    size_t n_labels;
} image_check_t;

typedef struct image_verdict {
    char *problem;               /* NULL: passed; else "/usr/bin/x is setuid" */
    bool cached;                 /* the verdict came from the cache */
    size_t entries;              /* entries scanned (0 when cached) */
} image_verdict_t;

/* 0 and the verdict; -ENOENT when there is no such image; another -errno
 * when the check could not be completed (the image is then not to run). */
int image_check_run(podman_api_t *api, const image_check_t *c, image_verdict_t *ret, as_error_t **err);
void image_verdict_clear(image_verdict_t *v);

/* The file-system part, on the entries of a tar stream: the first problem
 * of an entry in *problem (NULL: none), and whether /etc/passwd was a
 * regular file. Exposed for the unit tests. */
typedef struct image_scan {
    char *problem;
    bool passwd_seen;
} image_scan_t;
int image_scan_entry(image_scan_t *s, const char *path, unsigned mode, char type, bool capability,
                     as_error_t **err);
/* The verdict once the stream is complete. */
int image_scan_end(image_scan_t *s, as_error_t **err);

#endif
