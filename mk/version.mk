# Versions. The VERSION file is the only place the version is written; the
# Makefile reads it into $(VERSION), and from there it reaches the CLI
# (-DAS_VERSION), the RPM spec (mk/rpm.mk) and the image tags ($(IMAGE_TAG)).
#
#   make patch | minor | major   bump VERSION (1.4.2 -> 1.4.3 | 1.5.0 | 2.0.0)
#   make -s version              print the version
#   make -s image-tag            print the image tag of this build
#
# RELEASE=1 makes a release build: images are tagged with the version and the
# CLI refuses image names that do not carry it. Development builds (the
# default) tag images `dev`.
#
# This file is included after the Makefile's own variables and rules (see the
# `include` at its end), so it may use $(BUILD), $(DATADIR) and the object
# lists. Other mk/*.mk files sorted before this one (images.mk, rpm.mk, ...)
# see IMAGE_TAG only where it is expanded late: in recipes and in `=`
# variables, not in `:=` assignments, target names or prerequisites.

RELEASE ?= 0
ifeq ($(RELEASE),1)
IMAGE_TAG := $(VERSION)
else
IMAGE_TAG := dev
endif

# CFLAGS is recursively expanded and recipes expand it when they run, so this
# reaches every compile even though it is appended after the rules.
CFLAGS += -DAS_IMAGE_TAG='"$(IMAGE_TAG)"' -DAS_RELEASE_BUILD=$(if $(filter 1,$(RELEASE)),1,0)

# Objects carry the version, image tag and data dir as -D values, but the
# Makefile rebuilds them only when a source or header changes. A stamp that is
# rewritten only when those values change makes `make patch && make`,
# `make RELEASE=1` after a development build, or `make PREFIX=/usr install`
# after a plain `make` recompile instead of keeping stale strings.
VERSION_STAMP      := $(BUILD)/version.stamp
VERSION_STAMP_TEXT  = version=$(VERSION) image-tag=$(IMAGE_TAG) release=$(RELEASE) datadir=$(DATADIR)

$(LIB_OBJS) $(CMD_OBJS) $(UNIT_BINS): $(VERSION_STAMP)

$(VERSION_STAMP): version-stamp-force
	@mkdir -p $(@D)
	@if [ "$$(cat $@ 2>/dev/null)" != '$(VERSION_STAMP_TEXT)' ]; then \
	    echo '$(VERSION_STAMP_TEXT)' > $@; fi

.PHONY: version-stamp-force version image-tag patch minor major
version-stamp-force:

version:
	@echo '$(VERSION)'

image-tag:
	@echo '$(IMAGE_TAG)'

# Rewrites VERSION only; the lead commits (and tags) the change.
patch minor major:
	@old='$(VERSION)'; \
	echo "$$old" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$$' || \
	    { echo "VERSION '$$old' is not MAJOR.MINOR.PATCH" >&2; exit 1; }; \
	new=$$(echo "$$old" | awk -F. -v part=$@ '{ \
	    if (part == "major") { $$1++; $$2 = 0; $$3 = 0 } \
	    else if (part == "minor") { $$2++; $$3 = 0 } \
	    else { $$3++ } \
	    printf "%d.%d.%d\n", $$1, $$2, $$3 }'); \
	echo "$$new" > VERSION; \
	echo "version: $$old -> $$new"
