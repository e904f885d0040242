# Container images, built without any container registry.
#
#   <name>-image/packages --mmdebstrap--> build/images/<name>-rootfs.tar
#     --podman import--> base image --podman build <name>-image/Containerfile--> image
#
#   make images                          both images, into the invoking user's
#                                        podman storage (run it as that user)
#   make images SANDBOX_IMAGE=... ROUTER_IMAGE=...
#   make images BASE_IMAGE=docker.io/library/debian:bookworm
#                                        build both on a registry image instead
#                                        of the local mmdebstrap bases
#   make bump-claude [VERSION=x]         pin Claude Code x (default: the npm
#                                        registry's latest) in
#                                        sandbox-image/claude-code.version
#   make -s claude-version               print the pinned Claude Code version
#
# Each step runs only when its inputs changed (stamps under build/images/).
# Next to each stamp an .args file holds the step's parameters; it is checked
# on every run, rewritten when they change and touched when the image is
# missing from podman storage, so a new name, `podman rmi` or
# `podman system reset` leads to a rebuild of just what is gone.
#
# Claude Code: sandbox-image/claude-code.version is the one place its version
# is written (with the digest of each platform's tarball). The sandbox build
# mounts build/images/claude-code/, where sandbox-image/claude-code-fetch
# downloads the pinned tarball from the npm registry once (186 MB, kept across
# builds like the root file systems) and checks its digest.

SANDBOX_IMAGE      ?= localhost/agent-sandbox:$(or $(IMAGE_TAG),dev)
ROUTER_IMAGE       ?= localhost/agent-sandbox-router:$(or $(IMAGE_TAG),dev)
DEBIAN_SUITE       ?= bookworm
SANDBOX_BASE_IMAGE ?= localhost/agent-sandbox-base:$(DEBIAN_SUITE)
ROUTER_BASE_IMAGE  ?= localhost/agent-sandbox-router-base:$(DEBIAN_SUITE)
# Empty: build the bases with mmdebstrap. Else: FROM this image for both.
BASE_IMAGE         ?=
# Empty: mmdebstrap's default mirror (with -updates and -security).
DEBIAN_MIRROR      ?=
PODMAN             ?= podman
MMDEBSTRAP         ?= mmdebstrap
# Empty: the registry npm is configured with (npm config get registry).
NPM_REGISTRY       ?=

IMAGES_DIR  := build/images
IMAGE_NAMES := sandbox router
IMAGE_LABEL := agent-sandbox.image

image_sandbox = $(SANDBOX_IMAGE)
image_router  = $(ROUTER_IMAGE)
base_sandbox  = $(SANDBOX_BASE_IMAGE)
base_router   = $(ROUTER_BASE_IMAGE)
from          = $(or $(BASE_IMAGE),$(base_$(1)))

# Same documentation filter as the Containerfiles (and debian:*-slim); the
# copyright files stay. The merged-usr hook sets up merged /usr the way
# debootstrap (and so debian:bookworm) does; without it init-system-helpers'
# "usrmerge | usr-is-merged" pulls in usrmerge and with it perl (+50 MB).
# /etc/hostname and /etc/resolv.conf are the host's during the build: they
# must not end up in the image.
MMDEBSTRAP_HOOKS   ?= /usr/share/mmdebstrap/hooks
MMDEBSTRAP_OPTS := --mode=unshare --variant=essential --format=tar \
    --hook-dir=$(MMDEBSTRAP_HOOKS)/merged-usr \
    --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/groff/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/lintian/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --customize-hook='rm -f "$$1/etc/hostname" "$$1/etc/resolv.conf"'

CLAUDE_CODE_PIN      := sandbox-image/claude-code.version
CLAUDE_CODE_FETCH    := NPM_REGISTRY=$(NPM_REGISTRY) sandbox-image/claude-code-fetch
CLAUDE_CODE_VERSION  := $(shell sed -n 's/^version[[:space:]]*//p' $(CLAUDE_CODE_PIN))
CLAUDE_CODE_PLATFORM := $(shell sandbox-image/claude-code-fetch --platform 2>/dev/null)
CLAUDE_CODE_DIR      := $(IMAGES_DIR)/claude-code
CLAUDE_CODE_TGZ      := $(CLAUDE_CODE_DIR)/claude-code-$(CLAUDE_CODE_PLATFORM)-$(CLAUDE_CODE_VERSION).tgz

# Extra `podman build` options of each image.
build_opts_sandbox = --volume $(abspath $(CLAUDE_CODE_DIR)):/var/cache/agent-sandbox/claude-code:ro,z
build_opts_router  =

ROOTFS_TARS  := $(IMAGE_NAMES:%=$(IMAGES_DIR)/%-rootfs.tar)
ROOTFS_ARGS  := $(IMAGE_NAMES:%=$(IMAGES_DIR)/%-rootfs.args)
BASE_STAMPS  := $(IMAGE_NAMES:%=$(IMAGES_DIR)/%-base.stamp)
BASE_ARGS    := $(IMAGE_NAMES:%=$(IMAGES_DIR)/%-base.args)
IMAGE_STAMPS := $(IMAGE_NAMES:%=$(IMAGES_DIR)/%.stamp)
IMAGE_ARGS   := $(IMAGE_NAMES:%=$(IMAGES_DIR)/%.args)

# The parameters of each step, as written to its .args file.
rootfs_args = suite=$(DEBIAN_SUITE) mirror=$(DEBIAN_MIRROR) opts=$(MMDEBSTRAP_OPTS)
base_args   = base=$(base_$*)
image_args  = image=$(image_$*) from=$(call from,$*) version=$(VERSION)

# $(call update_args,FILE,TEXT[,IMAGE]): rewrite FILE if TEXT differs from its
# content; touch it if IMAGE is not in podman storage.
squote      = '$(subst ','\'',$(1))'
update_args = mkdir -p $(dir $(1)); \
    printf '%s\n' $(call squote,$(2)) | cmp -s - $(1) || printf '%s\n' $(call squote,$(2)) >$(1); \
    $(if $(3),$(PODMAN) image exists $(3) || touch $(1))

.PHONY: images images-force clean-images bump-claude claude-version

images: $(IMAGE_STAMPS)
	@$(PODMAN) image prune -f --filter label=$(IMAGE_LABEL) >/dev/null
	@for i in $(SANDBOX_IMAGE) $(ROUTER_IMAGE); do \
	    $(PODMAN) images --format 'images: {{.Repository}}:{{.Tag}}  {{.ID}}  {{.Size}}' $$i; done

$(ROOTFS_ARGS): $(IMAGES_DIR)/%-rootfs.args: images-force
	@$(call update_args,$@,$(rootfs_args))

$(BASE_ARGS): $(IMAGES_DIR)/%-base.args: images-force
	@$(call update_args,$@,$(base_args),$(base_$*))

$(IMAGE_ARGS): $(IMAGES_DIR)/%.args: images-force
	@$(call update_args,$@,$(image_args),$(image_$*))

$(ROOTFS_TARS): $(IMAGES_DIR)/%-rootfs.tar: %-image/packages $(IMAGES_DIR)/%-rootfs.args
	@echo "images: mmdebstrap $(DEBIAN_SUITE) root file system for $* (about 20 s)"
	@start=$$(date +%s); \
	$(MMDEBSTRAP) $(MMDEBSTRAP_OPTS) \
	    --include="$$(sed -e 's/#.*//' $< | xargs | tr ' ' ,)" \
	    $(DEBIAN_SUITE) $@.tmp $(DEBIAN_MIRROR) </dev/null && \
	mv $@.tmp $@ && \
	echo "images: $@ ($$(du -m $@ | cut -f1) MB) in $$(( $$(date +%s) - start )) s"

$(BASE_STAMPS): $(IMAGES_DIR)/%-base.stamp: $(IMAGES_DIR)/%-rootfs.tar $(IMAGES_DIR)/%-base.args
	@echo "images: podman import $< as $(base_$*)"
	@$(PODMAN) import --quiet --change 'CMD ["/bin/bash"]' \
	    --change 'LABEL $(IMAGE_LABEL)=$*-base' $< $(base_$*) >/dev/null
	@touch $@

# Rebuilt when the Containerfile, anything else in the context, the base or
# the names changed.
$(IMAGE_STAMPS): $(IMAGES_DIR)/%.stamp: %-image/Containerfile $(IMAGES_DIR)/%.args \
        $(if $(BASE_IMAGE),,$(IMAGES_DIR)/%-base.stamp)
	@echo "images: podman build $(image_$*) from $(call from,$*)"
	@start=$$(date +%s); \
	$(PODMAN) build --layers=false $(if $(BASE_IMAGE),,--pull=never) \
	    --build-arg BASE_IMAGE=$(call from,$*) --label $(IMAGE_LABEL)=$* --label agent-sandbox.version=$(VERSION) $(build_opts_$*) \
	    -t $(image_$*) -f $*-image/Containerfile $*-image && \
	echo "images: $(image_$*) built in $$(( $$(date +%s) - start )) s"
	@touch $@
$(IMAGES_DIR)/sandbox.stamp: $(shell find sandbox-image -type f 2>/dev/null) $(CLAUDE_CODE_TGZ)
$(IMAGES_DIR)/router.stamp: $(shell find router-image -type f 2>/dev/null)

# The pinned Claude Code tarball, downloaded once and checked against the pin.
$(CLAUDE_CODE_TGZ): $(CLAUDE_CODE_PIN) sandbox-image/claude-code-fetch
	@$(CLAUDE_CODE_FETCH) $(CLAUDE_CODE_PIN) $(CLAUDE_CODE_DIR) >/dev/null
	@touch $@

# Rewrites the pin only; the next `make images` downloads and rebuilds. VERSION
# counts only when given on the command line (the project's own VERSION is
# not Claude Code's).
bump-claude:
	@$(CLAUDE_CODE_FETCH) --bump $(CLAUDE_CODE_PIN) $(if $(filter command line,$(origin VERSION)),$(VERSION))

claude-version:
	@echo '$(CLAUDE_CODE_VERSION)'

# Removes the images and their cache (not run by `make clean`, which only
# removes build/).
clean-images:
	-$(PODMAN) rmi -f $(SANDBOX_IMAGE) $(ROUTER_IMAGE) $(SANDBOX_BASE_IMAGE) $(ROUTER_BASE_IMAGE) 2>/dev/null
	rm -rf $(IMAGES_DIR)
