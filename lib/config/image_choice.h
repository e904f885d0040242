/* Which image a session runs, and why (docs/images.md). The choice is
 * pure: it reads the options, the environment's AGENT_SANDBOX_IMAGE and
 * the settings, all already loaded, and names the image, the reason shown
 * for it and what builds it when it is missing. In order:
 *   1. --image NAME             the image derived as NAME (`image build`)
 *   2. --toolchain NAME...      the agent's image with those toolchains
 *   3. AGENT_SANDBOX_IMAGE      any image, as named
 *   4. the settings' `image` or `toolchain`, whichever line is the more
 *      specific (`in DIR`), else the later
 *   5. the agent's own image
 * --image with --toolchain is refused earlier (cmd/run/run_options.c);
 * `toolchain none` in the settings means the agent's own image. */
#ifndef AS_IMAGE_CHOICE_H
#define AS_IMAGE_CHOICE_H

#include "base/error.h"
#include "config/user_settings.h"

/* Where the session's image comes from. */
typedef enum image_kind {
    IMAGE_AGENT,             /* the agent's own */
    IMAGE_TOOLCHAIN,         /* the agent's with toolchains */
    IMAGE_DERIVED,           /* one the user derived (`image build`) */
    IMAGE_ENV,               /* AGENT_SANDBOX_IMAGE */
} image_kind_t;

/* Everything the choice reads; none of it is owned. */
typedef struct image_request {
    const char *agent;                  /* the agent's name */
    const char *agent_image;            /* its image's name, without a tag */
    const char *tag;                    /* this build's image tag */
    const char *option_image;           /* --image, or NULL */
    char *const *option_toolchains;     /* --toolchain..., or NULL */
    const char *env_image;              /* AGENT_SANDBOX_IMAGE, or NULL */
    const user_settings_t *settings;
    const char *settings_path;          /* named in the reason of a settings line */
} image_request_t;

/* Why a request was refused, so that the caller can tell a bad argument
 * from a bad settings line. */
typedef enum image_refusal {
    IMAGE_REFUSED_NONE,
    IMAGE_REFUSED_NAME,      /* a derived image's name is not one */
    IMAGE_REFUSED_SETTINGS,  /* the settings name a toolchain this build lacks */
} image_refusal_t;

typedef struct image_choice {
    image_kind_t kind;
    char *ref;               /* the image's reference, with its tag */
    char *reason;            /* "--toolchain go", "FILE:LINE: image", ... */
    char *build;             /* what builds it when it is missing, or NULL */
    image_refusal_t refusal; /* set when image_choose fails for the request's sake */
} image_choice_t;

/* 0, or a negative errno with *err saying why (ret->refusal tells
 * whether the request was at fault, IMAGE_REFUSED_NONE for out of memory).
 * *ret is cleared first and owns its strings either way. */
int image_choose(const image_request_t *req, image_choice_t *ret, as_error_t **err);
void image_choice_clear(image_choice_t *c);

#endif
