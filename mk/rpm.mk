# RPM packaging (docs/packaging.md).
#
#   make rpm        dist/agent-sandbox-VERSION-RELEASE.ARCH.rpm and the .src.rpm
#   make srpm       only the source RPM
#   make spec       build/rpm/SPECS/agent-sandbox.spec from packaging/agent-sandbox.spec.in
#   make tarball    build/rpm/SOURCES/agent-sandbox-VERSION.tar.gz (the working tree's files)
#   make rpmlint    rpmlint the spec and the RPMs in dist/ of this version
#   make rebuild-srpm  rebuild dist's SRPM alone (in build/rpm-rebuild)
#   make check-rpm  tests/packaging/test-rpm.sh: build, inspect, unpack, run
#
# RPM_RELEASE is the package release (default 1); RELEASE=1 is something else,
# a release build of the CLI (mk/version.mk), which the spec always makes.

RPM_NAME       := agent-sandbox
RPM_RELEASE    ?= 1
RPM_TOPDIR     := $(abspath build/rpm)
RPM_SPEC       := $(RPM_TOPDIR)/SPECS/$(RPM_NAME).spec
RPM_TARBALL    := $(RPM_TOPDIR)/SOURCES/$(RPM_NAME)-$(VERSION).tar.gz
RPM_DIST        = $(shell rpm --eval '%{?dist}')
RPM_ARCH        = $(shell rpm --eval '%{_arch}')
RPM_FILE        = dist/$(RPM_NAME)-$(VERSION)-$(RPM_RELEASE)$(RPM_DIST).$(RPM_ARCH).rpm
SRPM_FILE       = dist/$(RPM_NAME)-$(VERSION)-$(RPM_RELEASE)$(RPM_DIST).src.rpm
# The changelog entry the spec carries for this version.
PACKAGER       ?= agent-sandbox developers <agent-sandbox@users.noreply.invalid>
CHANGELOG_DATE ?= $(shell LC_ALL=C date -u '+%a %b %d %Y')

RPMBUILD       ?= rpmbuild
# Two fixes for hosts whose packages rpm does not manage (Debian, where
# `rpm -q rpm` fails); on Fedora both stay off:
# - rpmbuild checks BuildRequires against the rpm database, which is empty
#   there, so every BuildRequires would be "missing": --nodeps skips the
#   check; the build itself still fails if a compiler or -dev package is
#   really absent.
# - Debian's brp-compress uses bash's `read -d` under #!/bin/sh (dash), so it
#   fails and leaves man pages uncompressed: run it with bash.
RPMBUILD_FOREIGN = --nodeps --define '__brp_compress bash %{_rpmconfigdir}/brp-compress %{?_prefix}'
RPMBUILD_HOST    = $(shell rpm -q --quiet rpm 2>/dev/null || echo "$(RPMBUILD_FOREIGN)")
RPMBUILD_FLAGS  ?=
RPMBUILD_CMD     = $(RPMBUILD) --define '_topdir $(RPM_TOPDIR)' $(RPMBUILD_HOST) $(RPMBUILD_FLAGS)

.PHONY: rpm srpm spec tarball rpmlint check-rpm rpm-paths rebuild-srpm

# Both are remade on every call: the file list and VERSION may have changed.
tarball:
	@mkdir -p $(RPM_TOPDIR)/SOURCES
	packaging/make-tarball.sh . $(RPM_NAME)-$(VERSION) $(RPM_TARBALL)

spec:
	@mkdir -p $(RPM_TOPDIR)/SPECS
	sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@RPM_RELEASE@|$(RPM_RELEASE)|g' \
	    -e 's|@CHANGELOG_DATE@|$(CHANGELOG_DATE)|g' -e 's|@PACKAGER@|$(PACKAGER)|g' \
	    packaging/$(RPM_NAME).spec.in > $(RPM_SPEC).tmp
	mv -f $(RPM_SPEC).tmp $(RPM_SPEC)

rpm: tarball spec
	rm -rf $(RPM_TOPDIR)/RPMS $(RPM_TOPDIR)/SRPMS
	$(RPMBUILD_CMD) -ba $(RPM_SPEC)
	@mkdir -p dist
	cp -f $(RPM_TOPDIR)/RPMS/*/*.rpm $(RPM_TOPDIR)/SRPMS/*.src.rpm dist/
	@echo "wrote $(RPM_FILE)"
	@echo "wrote $(SRPM_FILE)"

srpm: tarball spec
	rm -rf $(RPM_TOPDIR)/SRPMS
	$(RPMBUILD_CMD) -bs $(RPM_SPEC)
	@mkdir -p dist
	cp -f $(RPM_TOPDIR)/SRPMS/*.src.rpm dist/
	@echo "wrote $(SRPM_FILE)"

# packaging/rpmlint.toml gives Debian's rpmlint the parts of Fedora's
# configuration that matter here (docs/packaging.md).
RPMLINT ?= rpmlint
rpmlint: spec
	$(RPMLINT) -c packaging/rpmlint.toml $(RPM_SPEC) $(wildcard $(RPM_FILE) $(SRPM_FILE))

# Prints the paths `make rpm` writes; tests/packaging/test-rpm.sh reads them.
rpm-paths:
	@echo '$(RPM_FILE)'
	@echo '$(SRPM_FILE)'

# Rebuilds dist's source RPM on its own, away from the tree: proves that the
# SRPM (spec with the version written in, and tarball) is self-contained.
rebuild-srpm:
	rm -rf $(RPM_TOPDIR)-rebuild
	$(RPMBUILD) --define '_topdir $(RPM_TOPDIR)-rebuild' $(RPMBUILD_HOST) $(RPMBUILD_FLAGS) --rebuild $(SRPM_FILE)

check-rpm:
	tests/packaging/test-rpm.sh
