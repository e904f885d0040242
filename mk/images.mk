# Container images, built without any container registry.
#
#   <name>-image/packages --mmdebstrap--> build/images/<name>-rootfs.tar
#     --podman import--> base image --podman build <name>-image/Containerfile--> image
#   sandbox image (AGENTS empty) --podman build, AGENTS=NAME--> one image per agent
#
#   make images                          the router, the shared sandbox image
#                                        and Claude Code's, into the invoking
#                                        user's podman storage (run it as
#                                        that user)
#   make images AGENTS="claude codex"    those agents' images (names:
#                                        sandbox-image/agents/*.version;
#                                        docs/agents.md)
#   make images AGENTS=claude TOOLCHAINS="node go"
#                                        and the agent's image with those
#                                        toolchains (names:
#                                        sandbox-image/toolchains/*.toolchain;
#                                        docs/images.md)
#   make images SANDBOX_IMAGE=... ROUTER_IMAGE=...
#   make images BASE_IMAGE=docker.io/library/debian:bookworm \
#               ROUTER_BASE_FROM=docker.io/library/debian:trixie
#                                        build on registry images instead
#                                        of the local mmdebstrap bases
#   make bump-agent NAME=x [VERSION=y]   pin agent x at version y (default: the
#                                        npm registry's latest) in
#                                        sandbox-image/agents/x.version
#   make bump-claude [VERSION=y]         the same for Claude Code
#   make -s agent-version NAME=x         print the pinned version of agent x
#   make -s claude-version               the same for Claude Code
#
# Each step runs only when its inputs changed (stamps under build/images/).
# Next to each stamp an .args file holds the step's parameters; it is checked
# on every run, rewritten when they change and touched when the image is
# missing from podman storage, so a new name, `podman rmi` or
# `podman system reset` leads to a rebuild of just what is gone.
#
# Agents: sandbox-image/agents/NAME.version is the one place an agent's
# version is written (with the digest of each tarball it needs). Each
# agent's image is a thin layer on the shared image COMMON_IMAGE, named
# AGENT_IMAGE_PREFIX-NAME:TAG; Claude Code's is also SANDBOX_IMAGE, the
# CLI's default. Its build mounts build/images/agents/, where
# sandbox-image/agent-fetch downloads the pinned tarballs from the npm
# registry once (kept across builds like the root file systems) and checks
# their digests.
#
# Toolchains: sandbox-image/toolchains/NAME.toolchain names a toolchain's
# Debian packages and pins its npm tarballs (docs/images.md). The image of
# agent A with the toolchains T1 T2 ... (a set, taken in sorted order) is
# AGENT_IMAGE_PREFIX-A-T1-T2...:TAG: one layer per toolchain on the image
# named by the toolchains before it (A-T1 on A's image, A-T1-T2 on A-T1),
# so that images with the same first toolchains share their layers. Each
# layer is built by sandbox-image/toolchains/Containerfile with the same
# mount of fetched tarballs as an agent's.

SANDBOX_IMAGE      ?= localhost/agent-sandbox:$(or $(IMAGE_TAG),dev)
COMMON_IMAGE       ?= localhost/agent-sandbox-common:$(or $(IMAGE_TAG),dev)
AGENT_IMAGE_PREFIX ?= localhost/agent-sandbox
AGENTS             ?= claude
ROUTER_IMAGE       ?= localhost/agent-sandbox-router:$(or $(IMAGE_TAG),dev)
# The sandbox image's Debian release, and the router's: the router needs
# nginx 1.23 or later, whose $$http_NAME holds every copy of a header, so
# that its request checks judge them all (docs/secrets.md); Debian 12 has
# 1.22, Debian 13 has 1.26. The router image's build refuses an older one.
DEBIAN_SUITE       ?= bookworm
ROUTER_SUITE       ?= trixie
SANDBOX_BASE_IMAGE ?= localhost/agent-sandbox-base:$(DEBIAN_SUITE)
ROUTER_BASE_IMAGE  ?= localhost/agent-sandbox-router-base:$(ROUTER_SUITE)
# Empty: build the bases with mmdebstrap. Else: FROM this image (the
# sandbox image's; ROUTER_BASE_FROM: the router's).
BASE_IMAGE         ?=
ROUTER_BASE_FROM   ?=
# Empty: mmdebstrap's default mirror (with -updates and -security).
DEBIAN_MIRROR      ?=
PODMAN             ?= podman
MMDEBSTRAP         ?= mmdebstrap
# Empty: the registry npm is configured with (npm config get registry).
NPM_REGISTRY       ?=

IMAGES_DIR  := build/images
# Each step's whole output (mmdebstrap, dpkg, podman build) and the time it
# took, which the next run gives as its estimate (scripts/image-step).
IMAGES_LOG  := $(IMAGES_DIR)/logs
IMAGE_STEP  := scripts/image-step
# The seconds each step took on the development VM (2 cores; Debian's
# mirror and the npm registry over the network), the estimate until this
# machine has done it once.
first_rootfs_sandbox := 45
first_rootfs_router  := 30
first_import_sandbox := 10
first_import_router  := 2
first_build_sandbox  := 5
first_build_router   := 5
FIRST_FETCH          := 10
FIRST_AGENT_BUILD    := 20
first_toolchain_go     := 160
first_toolchain_java   := 165
first_toolchain_node   := 25
first_toolchain_python := 115
first_toolchain_rust   := 120
IMAGE_NAMES := sandbox router
IMAGE_LABEL := agent-sandbox.image

image_sandbox = $(COMMON_IMAGE)
image_router  = $(ROUTER_IMAGE)
base_sandbox  = $(SANDBOX_BASE_IMAGE)
base_router   = $(ROUTER_BASE_IMAGE)
suite_sandbox = $(DEBIAN_SUITE)
suite_router  = $(ROUTER_SUITE)
from_sandbox  = $(BASE_IMAGE)
from_router   = $(ROUTER_BASE_FROM)
from          = $(or $(from_$(1)),$(base_$(1)))

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

AGENT_DIR    := sandbox-image/agents
AGENT_CACHE  := $(IMAGES_DIR)/agents
AGENT_FETCH  := env NPM_REGISTRY=$(NPM_REGISTRY) sandbox-image/agent-fetch
AGENT_KNOWN  := $(patsubst $(AGENT_DIR)/%.version,%,$(wildcard $(AGENT_DIR)/*.version))
$(foreach a,$(AGENTS),$(if $(filter $(a),$(AGENT_KNOWN)),,\
    $(error AGENTS: no agent '$(a)'; the agents are: $(AGENT_KNOWN))))
agent_version = $(shell sed -n 's/^version[[:space:]]*//p' $(AGENT_DIR)/$(1).version)
# The image names of agent $(1): its own, and SANDBOX_IMAGE for Claude Code.
agent_images  = $(AGENT_IMAGE_PREFIX)-$(1):$(or $(IMAGE_TAG),dev) $(if $(filter claude,$(1)),$(SANDBOX_IMAGE))

# Extra `podman build` options of each image: the shared sandbox image holds
# no agent.
build_opts_sandbox = --build-arg AGENTS=
build_opts_router  =

ROOTFS_TARS  := $(IMAGE_NAMES:%=$(IMAGES_DIR)/%-rootfs.tar)
ROOTFS_ARGS  := $(IMAGE_NAMES:%=$(IMAGES_DIR)/%-rootfs.args)
BASE_STAMPS  := $(IMAGE_NAMES:%=$(IMAGES_DIR)/%-base.stamp)
BASE_ARGS    := $(IMAGE_NAMES:%=$(IMAGES_DIR)/%-base.args)
IMAGE_STAMPS := $(IMAGE_NAMES:%=$(IMAGES_DIR)/%.stamp)
IMAGE_ARGS   := $(IMAGE_NAMES:%=$(IMAGES_DIR)/%.args)
AGENT_STAMPS := $(AGENTS:%=$(IMAGES_DIR)/agent-%.stamp)
AGENT_ARGS   := $(AGENTS:%=$(IMAGES_DIR)/agent-%.args)

TOOLCHAINS   ?=
TC_DIR       := sandbox-image/toolchains
TC_KNOWN     := $(patsubst $(TC_DIR)/%.toolchain,%,$(wildcard $(TC_DIR)/*.toolchain))
$(foreach t,$(TOOLCHAINS),$(if $(filter $(t),$(TC_KNOWN)),,\
    $(error TOOLCHAINS: no toolchain '$(t)'; the toolchains are: $(TC_KNOWN))))
TC_SORTED    := $(sort $(TOOLCHAINS))
tc_space     := $(subst x, ,x)
# The chain of layers as name suffixes: T1, T1-T2, T1-T2-T3 ...
TC_CHAIN     := $(foreach i,$(shell seq 1 $(words $(TC_SORTED))),$(subst $(tc_space),-,$(wordlist 1,$(i),$(TC_SORTED))))
tc_image      = $(AGENT_IMAGE_PREFIX)-$(1):$(or $(IMAGE_TAG),dev)
TC_IMAGES    := $(foreach a,$(AGENTS),$(foreach c,$(TC_CHAIN),$(call tc_image,$(a)-$(c))))
TC_STAMPS    := $(foreach a,$(AGENTS),$(foreach c,$(TC_CHAIN),$(IMAGES_DIR)/toolchain-$(a)-$(c).stamp))

# The parameters of each step, as written to its .args file.
rootfs_args = suite=$(suite_$*) mirror=$(DEBIAN_MIRROR) opts=$(MMDEBSTRAP_OPTS)
base_args   = base=$(base_$*)
image_args  = image=$(image_$*) from=$(call from,$*) version=$(VERSION)
agent_args  = images=$(call agent_images,$*) from=$(COMMON_IMAGE) version=$(VERSION)

# $(call update_args,FILE,TEXT[,IMAGES]): rewrite FILE if TEXT differs from its
# content; touch it if one of IMAGES is not in podman storage.
squote      = '$(subst ','\'',$(1))'
update_args = mkdir -p $(dir $(1)); \
    printf '%s\n' $(call squote,$(2)) | cmp -s - $(1) || printf '%s\n' $(call squote,$(2)) >$(1); \
    $(foreach i,$(3),$(PODMAN) image exists $(i) || touch $(1);)

.PHONY: images images-force clean-images bump-agent bump-claude agent-version claude-version

images: $(IMAGE_STAMPS) $(AGENT_STAMPS) $(TC_STAMPS)
	@$(PODMAN) image prune -f --filter label=$(IMAGE_LABEL) >/dev/null
	@for i in $(ROUTER_IMAGE) $(COMMON_IMAGE) $(foreach a,$(AGENTS),$(call agent_images,$(a))) $(TC_IMAGES); do \
	    $(PODMAN) images --format 'images: {{.Repository}}:{{.Tag}}  {{.ID}}  {{.Size}}' $$i; done | awk '!seen[$$0]++'

$(ROOTFS_ARGS): $(IMAGES_DIR)/%-rootfs.args: images-force
	@$(call update_args,$@,$(rootfs_args))

$(BASE_ARGS): $(IMAGES_DIR)/%-base.args: images-force
	@$(call update_args,$@,$(base_args),$(base_$*))

$(IMAGE_ARGS): $(IMAGES_DIR)/%.args: images-force
	@$(call update_args,$@,$(image_args),$(image_$*))

$(AGENT_ARGS): $(IMAGES_DIR)/agent-%.args: images-force
	@$(call update_args,$@,$(agent_args),$(call agent_images,$*))

$(ROOTFS_TARS): $(IMAGES_DIR)/%-rootfs.tar: %-image/packages $(IMAGES_DIR)/%-rootfs.args
	@$(IMAGE_STEP) "$* root file system (mmdebstrap $(suite_$*))" $(first_rootfs_$*) $(IMAGES_LOG)/$*-rootfs.log \
	    $(MMDEBSTRAP) $(MMDEBSTRAP_OPTS) \
	    --include="$$(sed -e 's/#.*//' $< | xargs | tr ' ' ,)" \
	    $(suite_$*) $@.tmp $(DEBIAN_MIRROR)
	@mv $@.tmp $@

$(BASE_STAMPS): $(IMAGES_DIR)/%-base.stamp: $(IMAGES_DIR)/%-rootfs.tar $(IMAGES_DIR)/%-base.args
	@$(IMAGE_STEP) "$* base image (podman import)" $(first_import_$*) $(IMAGES_LOG)/$*-base.log \
	    $(PODMAN) import --quiet --change 'CMD ["/bin/bash"]' \
	    --change 'LABEL $(IMAGE_LABEL)=$*-base' $< $(base_$*)
	@touch $@

# Rebuilt when the Containerfile, anything else in the context, the base or
# the names changed.
$(IMAGE_STAMPS): $(IMAGES_DIR)/%.stamp: %-image/Containerfile $(IMAGES_DIR)/%.args
	@$(IMAGE_STEP) "$* image (podman build)" $(first_build_$*) $(IMAGES_LOG)/$*.log \
	    $(PODMAN) build --layers=false $(if $(from_$*),,--pull=never) \
	    --build-arg BASE_IMAGE=$(call from,$*) --label $(IMAGE_LABEL)=$* --label agent-sandbox.version=$(VERSION) $(build_opts_$*) \
	    -t $(image_$*) -f $*-image/Containerfile $*-image
	@touch $@
# Each image on its local base, unless it was given one to build FROM.
ifeq ($(BASE_IMAGE),)
$(IMAGES_DIR)/sandbox.stamp: $(IMAGES_DIR)/sandbox-base.stamp
endif
ifeq ($(ROUTER_BASE_FROM),)
$(IMAGES_DIR)/router.stamp: $(IMAGES_DIR)/router-base.stamp
endif
# The shared image holds no agent: an agent's pin, its fetch and install do
# not change it.
$(IMAGES_DIR)/sandbox.stamp: $(shell find sandbox-image -type f ! -path '$(AGENT_DIR)/*' ! -path '$(TC_DIR)/*' ! -name 'agent-*' 2>/dev/null)
$(IMAGES_DIR)/router.stamp: $(shell find router-image -type f 2>/dev/null)

# An agent's image: its pinned tarballs, downloaded once into AGENT_CACHE and
# checked against the pin, unpacked in a layer on the shared image.
$(AGENT_STAMPS): $(IMAGES_DIR)/agent-%.stamp: $(AGENT_DIR)/%.version $(IMAGES_DIR)/agent-%.args \
        $(IMAGES_DIR)/sandbox.stamp sandbox-image/Containerfile sandbox-image/agent-fetch sandbox-image/agent-install
	@$(IMAGE_STEP) "agent $* $(call agent_version,$*): its npm tarballs" $(FIRST_FETCH) $(IMAGES_LOG)/agent-$*-fetch.log \
	    $(AGENT_FETCH) $< $(AGENT_CACHE)
	@$(IMAGE_STEP) "agent $* $(call agent_version,$*) (podman build)" $(FIRST_AGENT_BUILD) $(IMAGES_LOG)/agent-$*.log \
	    $(PODMAN) build --layers=false --pull=never \
	    --build-arg BASE_IMAGE=$(COMMON_IMAGE) --build-arg AGENTS=$* \
	    --label $(IMAGE_LABEL)=agent-$* --label agent-sandbox.agent=$* --label agent-sandbox.version=$(VERSION) \
	    --volume $(abspath $(AGENT_CACHE)):/var/cache/agent-sandbox/agents:ro,z \
	    $(addprefix -t ,$(call agent_images,$*)) -f sandbox-image/Containerfile sandbox-image
	@touch $@

# A toolchain layer: $(1) agent, $(2) the chain up to this layer (T1-T2),
# $(3) the toolchain, $(4) the image below, $(5) its stamp. Its pinned
# tarballs (if any) are fetched into AGENT_CACHE first, as an agent's.
define toolchain_layer
$(IMAGES_DIR)/toolchain-$(1)-$(2).args: images-force
	@$$(call update_args,$$@,image=$(call tc_image,$(1)-$(2)) from=$(4) version=$$(VERSION),$(call tc_image,$(1)-$(2)))

$(IMAGES_DIR)/toolchain-$(1)-$(2).stamp: $(TC_DIR)/$(3).toolchain $(IMAGES_DIR)/toolchain-$(1)-$(2).args $(5) \
        $(TC_DIR)/Containerfile $(TC_DIR)/install sandbox-image/agent-fetch
	@if grep -q '^tarball[[:space:]]' $(TC_DIR)/$(3).toolchain; then \
	    $$(IMAGE_STEP) "toolchain $(3): its npm tarballs" $$(FIRST_FETCH) $$(IMAGES_LOG)/toolchain-$(3)-fetch.log \
	    $$(AGENT_FETCH) $(TC_DIR)/$(3).toolchain $$(AGENT_CACHE); fi
	@$$(IMAGE_STEP) "toolchain $(3) on $(4) (podman build)" $$(first_toolchain_$(3)) $$(IMAGES_LOG)/toolchain-$(1)-$(2).log \
	    $$(PODMAN) build --layers=false --pull=never \
	    --build-arg BASE_IMAGE=$(4) --build-arg TOOLCHAINS=$(3) \
	    --label $$(IMAGE_LABEL)=toolchain-$(1)-$(2) --label agent-sandbox.agent=$(1) \
	    --label agent-sandbox.toolchains=$(2) --label agent-sandbox.version=$$(VERSION) \
	    --volume $$(abspath $$(AGENT_CACHE)):/var/cache/agent-sandbox/agents:ro,z \
	    -t $(call tc_image,$(1)-$(2)) -f $(TC_DIR)/Containerfile sandbox-image
	@touch $$@
endef
# Layer i of agent a: toolchain word i on layer i-1 (i = 1: the agent's image).
$(foreach a,$(AGENTS),$(foreach i,$(shell seq 1 $(words $(TC_SORTED))),$(eval $(call toolchain_layer,$(a),$(word $(i),$(TC_CHAIN)),$(word $(i),$(TC_SORTED)),$(if $(filter 1,$(i)),$(AGENT_IMAGE_PREFIX)-$(a):$(or $(IMAGE_TAG),dev),$(call tc_image,$(a)-$(word $(shell expr $(i) - 1),$(TC_CHAIN)))),$(if $(filter 1,$(i)),$(IMAGES_DIR)/agent-$(a).stamp,$(IMAGES_DIR)/toolchain-$(a)-$(word $(shell expr $(i) - 1),$(TC_CHAIN)).stamp)))))

# Rewrite the pin only; the next `make images AGENTS=NAME` downloads and
# rebuilds. VERSION counts only when given on the command line (the
# project's own VERSION is not the agent's).
agent_pin = $(AGENT_DIR)/$(or $(NAME),$(error NAME: which agent? one of $(AGENT_KNOWN))).version
bump-agent:
	@$(AGENT_FETCH) --bump $(agent_pin) $(if $(filter command line,$(origin VERSION)),$(VERSION))
bump-claude:
	@$(MAKE) --no-print-directory bump-agent NAME=claude

agent-version:
	@sed -n 's/^version[[:space:]]*//p' $(agent_pin)
claude-version:
	@echo '$(call agent_version,claude)'

# Removes the images and their cache (not run by `make clean`, which only
# removes build/).
clean-images:
	-$(PODMAN) rmi -f $$($(PODMAN) images -q --filter label=agent-sandbox.toolchains) 2>/dev/null
	-$(PODMAN) rmi -f $(foreach a,$(AGENT_KNOWN),$(call agent_images,$(a))) $(COMMON_IMAGE) $(ROUTER_IMAGE) \
	    $(SANDBOX_BASE_IMAGE) $(ROUTER_BASE_IMAGE) 2>/dev/null
	rm -rf $(IMAGES_DIR)
