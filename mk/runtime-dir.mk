# podman keeps its sockets and runroot in XDG_RUNTIME_DIR. `su -`, `sudo -i`,
# `runuser -l` and ssh without a systemd login leave it unset; podman 4.3
# then uses /run/user/UID when that is the user's private directory, and
# otherwise /tmp/podman-run-UID, which it records in its database for good.
# The targets that run podman do what the CLI does (lib/base/user_dirs.h): the
# same fallback, exported to their recipes and said in one line, or a stop
# before anything runs.

PODMAN_GOALS := images images-force clean-images e2e check check-suites check-sanitize \
                check-sanitize-full

ifeq ($(strip $(XDG_RUNTIME_DIR)),)
ifneq ($(filter $(PODMAN_GOALS),$(MAKECMDGOALS)),)
RUN_USER_DIR := /run/user/$(shell id -u)
# a directory of ours, owner rwx, no write for others: 0722 & mode == 0700
RUN_USER_OK  := $(shell set -- $$(stat -Lc '%F %u %a' $(RUN_USER_DIR) 2>/dev/null); \
    [ "$$1" = directory ] && [ "$$2" = "$$(id -u)" ] && [ $$(( 0$$3 & 0722 )) -eq $$(( 0700 )) ] && echo yes)
ifeq ($(RUN_USER_OK),yes)
export XDG_RUNTIME_DIR := $(RUN_USER_DIR)
$(info make: XDG_RUNTIME_DIR is not set; using $(RUN_USER_DIR), as podman does)
else
$(error XDG_RUNTIME_DIR is not set, and $(RUN_USER_DIR) is not a directory of yours with mode 0700, \
    so podman would keep its runtime files in /tmp for good. Log in so that it is set (a desktop, or \
    ssh with pam_systemd), or have root make it once per boot: \
    sudo install -d -m 0700 -o $(shell id -u) -g $(shell id -g) $(RUN_USER_DIR))
endif
endif
endif
