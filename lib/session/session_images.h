/* The images a session runs, before anything of it is made: the session's
 * own there (else what builds it) and passing the image check
 * (lib/images/image_check.h), whatever its origin; the router's there; in
 * a release build, both of this release. */
#ifndef AS_SESSION_IMAGES_H
#define AS_SESSION_IMAGES_H

#include <stdbool.h>

#include "backend.h"
#include "session_inputs.h"
#include "session_say.h"

session_fault_t session_images_gate(backend_t *b, const session_inputs_t *in, const session_say_t *to);

/* The image check of any image, said ("image X: PROBLEM: refused (WHY)"):
 * SESSION_OK, or SESSION_FAULT_NO_IMAGE (*ret_missing, unsaid, when there
 * is no such image), or another fault. */
session_fault_t image_check_said(backend_t *b, const char *image, const char *why, const session_say_t *to,
                                 bool *ret_missing);

#endif
