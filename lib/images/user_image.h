/* Images the user derives (docs/images.md, "Images you extend"): each is
 * a folder of the config directory, images/NAME/, whose Containerfile
 * starts FROM one of the shipped images, built by `agent-sandbox image
 * build NAME` into
 *     localhost/agent-sandbox-user/NAME:TAG
 * (a repository with a path: no shipped image's name has one, so the two
 * can never collide). Pure code. */
#ifndef AS_USER_IMAGE_H
#define AS_USER_IMAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

#define USER_IMAGE_DIR "images"                   /* in the config directory */
#define USER_IMAGE_REPO "localhost/agent-sandbox-user/"
#define USER_IMAGE_FILE "Containerfile"
/* Labels of a derived image: its name (for `image list`, `cleanup`), the
 * hash of its build context (no rebuild when unchanged), its FROM. */
#define LABEL_USER_IMAGE "agent-sandbox.user-image"
#define LABEL_USER_IMAGE_CONTEXT "agent-sandbox.user-image.context"
#define LABEL_USER_IMAGE_FROM "agent-sandbox.user-image.from"

/* A derived image's name: lower-case letters, digits, - and _, starting
 * with a letter or digit, at most 64 bytes. */
bool user_image_name_valid(const char *name);
/* Its reference: USER_IMAGE_REPO NAME ":" tag. */
int user_image_ref(const char *name, const char *tag, char **ret, as_error_t **err);

/* The agent whose image `ref` is, with or without toolchains (the agent
 * images and the toolchain images of toolchains.h, with this build's tag),
 * or NULL when it is not a shipped image. */
const char *shipped_image_agent(const char *ref);

/* The Containerfile's FROM: every FROM instruction (a build has one
 * stage) must name a shipped image, and the first instruction must be a
 * FROM (parser directives other than `escape` and comments may come
 * first). Refusals name "FILE:LINE". The image named, in *ret_from. */
int user_image_from_check(const char *file, const char *text, size_t len, char **ret_from, as_error_t **err);

#endif
