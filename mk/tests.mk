# Test targets (the unit target itself is in the Makefile).
#
#   make e2e              the end-to-end suite: bats tests/e2e against $(BIN),
#                         after `make images`; run it as the rootless user
#                         whose podman storage holds the images
#   make check            all + check-conventions (check-shell too) + unit +
#                         e2e + check-rpm + check-host-packages,
#                         under tests/user-state-guard: it fails if they changed
#                         the user's own ~/.config/agent-sandbox,
#                         ~/.local/state/agent-sandbox (XDG rules) or git
#                         config (what the user's own sessions write aside)
#   make check-sanitize   all + unit + the e2e files of SANITIZE_E2E with
#                         SANITIZE=1 (build/sanitize/agent-sandbox and its
#                         unit tests under ASan/UBSan), under the same guard;
#                         what CI runs after make check
#   make check-sanitize-full  the same with the whole e2e suite
#   make check-podman5    (as root) the podman 5 test bed (tests/podman5/bed):
#                         a Debian 13 root with podman 5 where a rootless
#                         user builds this checkout, makes the images and
#                         runs the unit tests and the e2e files of
#                         PODMAN5_E2E (PODMAN5_E2E=tests/e2e: all of them);
#                         its TAP stream lands in build/podman5/e2e.tap
#                         (docs/podman-versions.md)
#   make check-host-packages  tests/host/test-setup-packages.sh: the packages
#                         scripts/setup-host.sh installs provide every program
#                         the build, the CLI, the images and the tests run
#                         (needs Debian's mirror)
#
#   make e2e E2E_TESTS=tests/e2e/020-exec.bats      one file
#   make e2e BATS_FLAGS='--filter SIGINT'           some tests
#   make e2e E2E_AGENT=codex                        every session runs that agent
#                                                   (its image: make images AGENTS=codex)
#
# An e2e run keeps its TAP stream in $(BUILD)/e2e.tap and ends with the line
# "N passed, N failed[, N skipped]" (tests/e2e/tap-summary); any failure makes
# it exit non-zero.

BATS       ?= bats
E2E_TESTS  ?= tests/e2e
BATS_FLAGS ?=
E2E_TAP    := $(BUILD)/e2e.tap

# The CLI finds the images by its built-in names; pass them on only when they
# were overridden (make e2e SANDBOX_IMAGE=...).
E2E_ENV := AGENT_SANDBOX_BIN=$(abspath $(BIN))
ifneq ($(filter command% environment%,$(origin SANDBOX_IMAGE)),)
E2E_ENV += AGENT_SANDBOX_IMAGE=$(SANDBOX_IMAGE)
endif
ifneq ($(filter command% environment%,$(origin ROUTER_IMAGE)),)
E2E_ENV += AGENT_SANDBOX_ROUTER_IMAGE=$(ROUTER_IMAGE)
endif
ifneq ($(E2E_AGENT),)
E2E_ENV += AS_AGENT=$(E2E_AGENT)
endif
ifeq ($(SANITIZE),1)
# Sanitizer reports fail the test that caused them (tests/e2e/helpers.bash).
E2E_ENV += ASAN_OPTIONS=$(or $(ASAN_OPTIONS),detect_leaks=1) \
           UBSAN_OPTIONS=$(or $(UBSAN_OPTIONS),print_stacktrace=1)
endif

# The e2e files of `make check-sanitize`: the ones that drive most of the C
# code in the least time (about 4 of the suite's ~28 minutes), so that the
# sanitized CLI fits into CI's budget after make check:
#   010-cli             option parsing, usage errors, --dry-run's plan
#                       (cmd/, lib/config/), the private service's start-up
#   020-exec            a whole session: set-up, the attach stream both ways,
#                       exit codes, teardown (lib/session/, lib/podman/)
#   025-unix-filter     the stream's edge cases: closed descriptors, a reader
#                       or writer gone, write errors, 126/127
#   070-sessions        two sessions at once: the registry, ps (table and
#                       JSON), stop and its grace, the refused second session
#   100-egress-allowed  the allowlist, the router's rendered config and the
#                       egress path end to end (lib/egress/)
#   300-workspace-report  the end-of-session workspace check and its report
#                       (lib/workspace/)
#   330-config-files    every config file's reader and its refusals
#                       (lib/base/file_read.c)
# Signals, faults and concurrency (040, 400, 410) run sanitized in
# make check-sanitize-full.
SANITIZE_E2E ?= tests/e2e/010-cli.bats tests/e2e/020-exec.bats \
                tests/e2e/025-unix-filter.bats tests/e2e/070-sessions.bats \
                tests/e2e/100-egress-allowed.bats tests/e2e/300-workspace-report.bats \
                tests/e2e/330-config-files.bats

# The e2e files of `make check-podman5` (and of CI's podman 5 phase): what
# podman 5 changed under the product, in about 10 minutes of the bed's time:
#   020-exec, 040-signals, 072-teardown-later, 400-faults, 405-agent-lost
#                       a whole session and its teardown, signals, the
#                       faults of each part (the libpod API's answers)
#   100-egress-*, 110-egress-live, 120-publish
#                       networking: the router, its DNS and nginx, the
#                       rootless network tool (pasta), live allow, publish
#   105, 106-*, 107, 108 held secrets and request rules
#   200-agent-nested-podman, 310-isolation-*
#                       the sandbox's confinement under podman 5's runtime
#   300-workspace-*, 340-host-fail-closed
#                       the workspace's protection and end-of-session check
#   350-review-session, 505-review-apply, 510-review-attacks
#                       review mode (overlay volumes)
PODMAN5_E2E ?= $(addprefix tests/e2e/,020-exec.bats 040-signals.bats 072-teardown-later.bats \
                400-faults.bats 405-agent-lost.bats \
                100-egress-allowed.bats 100-egress-ip.bats 100-egress-names.bats 100-egress-ports.bats \
                110-egress-live.bats 120-publish.bats \
                105-egress-secrets.bats 106-egress-rules.bats 106-verify-secrets.bats \
                107-agent-secrets.bats 108-egress-checks.bats \
                200-agent-nested-podman.bats 310-isolation-host.bats 310-isolation-tmp.bats \
                300-workspace-config.bats 300-workspace-protect.bats 300-workspace-report.bats \
                340-host-fail-closed.bats \
                350-review-session.bats 505-review-apply.bats 510-review-attacks.bats)

.PHONY: check-podman5 print-podman5-e2e
check-podman5:
	tests/podman5/bed all images unit e2e E2E_TESTS='$(PODMAN5_E2E)'
print-podman5-e2e:
	@echo $(PODMAN5_E2E)

.PHONY: e2e check check-suites check-sanitize check-sanitize-full check-host-packages check-conventions check-shell

# The build (the CLI, the unit tests, the fuzz replays) uses every core; the
# suites then run one at a time, so that no compile competes with a test.
BUILD_JOBS ?= $(shell nproc 2>/dev/null || echo 1)

check:
	@tests/user-state-guard $(MAKE) --no-print-directory check-suites
check-suites:
	@$(MAKE) --no-print-directory -j$(BUILD_JOBS) all
	@$(MAKE) --no-print-directory check-conventions unit e2e check-rpm check-host-packages

# Conventions that hold for the whole tree, checked, not only reviewed:
# no C function over 80 lines (scripts/check-function-length); the include
# rules of docs/architecture.md: lib/'s folders layered, no circle
# (scripts/check-includes); that document's tables list exactly the files
# of each folder (scripts/check-architecture); one way for each job, by the
# module that owns it: msg_t, file_read, libcrypto, tar_write
# (scripts/check-one-way); no shellcheck finding, of any severity, in any
# shell script (check-shell).
check-conventions: check-shell
	@scripts/check-function-length $(wildcard lib/*/*.c cmd/*.c cmd/*/*.c tests/unit/*.c tests/fuzz/*.c)
	@scripts/check-includes
	@scripts/check-architecture
	@scripts/check-one-way

# Every shell script git knows of (scripts/check-shell says which count);
# the exceptions are annotated where they occur, .shellcheckrc has the rest.
check-shell:
	@scripts/check-shell

e2e: $(BIN) images
	@mkdir -p $(BUILD)
	@echo "e2e: $(BATS) $(E2E_TESTS) with $(BIN)"
	@{ env $(E2E_ENV) $(BATS) --formatter tap --timing $(BATS_FLAGS) $(E2E_TESTS) </dev/null; \
	   echo $$? >$(E2E_TAP).rc; } | tee $(E2E_TAP)
	@rc=$$(cat $(E2E_TAP).rc); \
	[ "$$rc" = 0 ] || echo "e2e: bats exited with status $$rc" >&2; \
	tests/e2e/tap-summary $(E2E_TAP) && [ "$$rc" = 0 ]

check-sanitize:
	@$(MAKE) --no-print-directory -j$(BUILD_JOBS) SANITIZE=1 all
	@tests/user-state-guard $(MAKE) --no-print-directory SANITIZE=1 all unit e2e \
	    E2E_TESTS='$(SANITIZE_E2E)'
check-sanitize-full:
	@$(MAKE) --no-print-directory -j$(BUILD_JOBS) SANITIZE=1 all
	@tests/user-state-guard $(MAKE) --no-print-directory SANITIZE=1 all unit e2e

check-host-packages:
	DEBIAN_MIRROR='$(DEBIAN_MIRROR)' tests/host/test-setup-packages.sh
