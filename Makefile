# agent-sandbox build. `make` builds the CLI, `make images` the two container
# images, `make check` runs the unit and end-to-end suites.
# Sources are found by wildcard: a new lib/FOLDER/*.c or tests/unit/test_*.c
# needs no edit here (docs/architecture.md: what each folder of lib/ holds). Images, tests and packaging live in mk/*.mk.

VERSION := $(shell cat VERSION)
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/agent-sandbox
MANDIR  ?= $(PREFIX)/share/man
# README.md, and docs/*.md under DOCDIR/docs/ (the README's links hold
# there too): messages name a document by its path here (lib/base/doc_path.h).
DOCDIR  ?= $(PREFIX)/share/doc/agent-sandbox
DESTDIR ?=

CC      ?= gcc
PKGS    := libcurl yajl libsystemd libcrypto
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu17 -Wall -Wextra -Wformat=2 -Wshadow -Wno-missing-field-initializers -Werror \
           -D_GNU_SOURCE -Ilib $(shell pkg-config --cflags $(PKGS)) \
           -DAS_VERSION='"$(VERSION)"' -DAS_DATADIR='"$(DATADIR)"' -DAS_DOCDIR='"$(DOCDIR)"'
LDLIBS  += $(shell pkg-config --libs $(PKGS)) -pthread

ifeq ($(SANITIZE),1)
BUILD   := build/sanitize
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
else
BUILD   := build
endif

LIB_SRCS  := $(sort $(wildcard lib/*/*.c))
CMD_SRCS  := $(sort $(wildcard cmd/*.c cmd/*/*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
CMD_OBJS  := $(CMD_SRCS:%.c=$(BUILD)/obj/%.o)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
# Helpers the unit tests share (the stub libpod server): every other .c there.
UNIT_HELPER_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(filter-out $(UNIT_SRCS),$(sort $(wildcard tests/unit/*.c))))
UNIT_HELPERS := $(BUILD)/libunithelpers.a
LIBAS     := $(BUILD)/libagentsandbox.a
BIN       := $(BUILD)/agent-sandbox

.PHONY: all clean install uninstall unit check
all: $(BIN) $(UNIT_BINS)

# The verify probe script, compiled into the CLI as a string.
$(BUILD)/gen/verify_probe.inc: lib/verify/verify_probe.sh
	@mkdir -p $(@D)
	sed -e 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$$/\\n"/' $< >$@
$(BUILD)/obj/lib/verify/verify.o: $(BUILD)/gen/verify_probe.inc
# The agents' pins and images, compiled in (lib/images/agent_pins.h).
$(BUILD)/gen/agent_pins.inc: scripts/gen-agent-pins $(wildcard sandbox-image/agents/*.version) $(wildcard config/agents/*)
	@mkdir -p $(@D)
	scripts/gen-agent-pins sandbox-image/agents config/agents >$@.tmp && mv $@.tmp $@
$(BUILD)/obj/lib/images/agent_pins.o: $(BUILD)/gen/agent_pins.inc
# The toolchains' names, compiled in (lib/images/toolchains.h).
$(BUILD)/gen/toolchains.inc: scripts/gen-toolchains $(wildcard sandbox-image/toolchains/*.toolchain)
	@mkdir -p $(@D)
	scripts/gen-toolchains sandbox-image/toolchains >$@.tmp && mv $@.tmp $@
$(BUILD)/obj/lib/images/toolchains.o: $(BUILD)/gen/toolchains.inc
# The files host tools read from a project directory, compiled in
# (lib/workspace/tool_configs.h; the table is data: its format at its top).
$(BUILD)/gen/tool_configs.inc: scripts/gen-tool-configs lib/workspace/tool_configs.table
	@mkdir -p $(@D)
	scripts/gen-tool-configs lib/workspace/tool_configs.table >$@.tmp && mv $@.tmp $@
$(BUILD)/obj/lib/workspace/tool_configs.o: $(BUILD)/gen/tool_configs.inc
CFLAGS += -I$(BUILD)/gen

# cmd/'s files spell the headers of another cmd/ folder from cmd/
# ("shared/cli.h"), as lib/'s spell lib/'s.
$(CMD_OBJS): CFLAGS += -Icmd

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(LIBAS): $(LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(BIN): $(CMD_OBJS) $(LIBAS)
	$(CC) $(LDFLAGS) -o $@ $(CMD_OBJS) $(LIBAS) $(LDLIBS)

$(UNIT_HELPERS): $(UNIT_HELPER_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

# The tests that read the source tree (the router image's scripts) find it here.
$(BUILD)/tests/%: tests/unit/%.c $(LIBAS) $(UNIT_HELPERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -DAS_SOURCE_DIR='"$(CURDIR)"' -MMD -MP -o $@ $< $(UNIT_HELPERS) $(LIBAS) $(LDFLAGS) $(LDLIBS) -lcmocka

# test_router_query evaluates the router's maps with PCRE2, as nginx does.
$(BUILD)/tests/test_router_query: LDLIBS += $(shell pkg-config --libs libpcre2-8)
# This test looks into every block freed (tests/unit/test_secret_wipe.c).
$(BUILD)/tests/test_secret_wipe: LDFLAGS += -Wl,--wrap=free
# This test cuts chosen listings short (tests/unit/test_listing_cut_short.c).
$(BUILD)/tests/test_listing_cut_short: LDFLAGS += -Wl,--wrap=readdir
# This one records what is synced and renamed, in order (test_file_write.c).
$(BUILD)/tests/test_file_write: LDFLAGS += -Wl,--wrap=fsync -Wl,--wrap=rename
# This one swaps a directory for a link right after apply makes it (test_review_apply.c).
$(BUILD)/tests/test_review_apply: LDFLAGS += -Wl,--wrap=mkdirat

# Unit tests; VALGRIND=1 runs each under memcheck and fails on any leak.
unit: $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do \
	    if [ "$(VALGRIND)" = 1 ]; then \
	        valgrind -q --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all --error-exitcode=99 $$t; \
	    else $$t; fi; \
	done

# Installs the CLI, the default config (the allowlist, and each agent's
# profile and allowlist: DATADIR/agents/, DATADIR/allowed-hosts.d/), the
# build contexts of both images
# (DATADIR/images/{sandbox,router}/, so the CLI can build missing images), the
# README, the docs (DOCDIR/docs/*.md) and license, and the man page (docs/agent-sandbox.1) and shell
# completions (completions/agent-sandbox.bash, _agent-sandbox,
# agent-sandbox.fish) when they exist. Executable files in the image contexts
# stay executable. packaging/agent-sandbox.spec.in lists the same paths.
LICENSEDIR ?= $(PREFIX)/share/licenses/agent-sandbox
COMPLETIONS_BASH ?= $(PREFIX)/share/bash-completion/completions/agent-sandbox
COMPLETIONS_ZSH  ?= $(PREFIX)/share/zsh/site-functions/_agent-sandbox
COMPLETIONS_FISH ?= $(PREFIX)/share/fish/vendor_completions.d/agent-sandbox.fish

install: $(BIN)
	install -D -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/agent-sandbox
	install -D -m 0644 config/allowed-hosts $(DESTDIR)$(DATADIR)/allowed-hosts
	@set -e; for f in config/agents/* config/allowed-hosts.d/*; do \
	    echo "install -D -m 0644 $$f $(DESTDIR)$(DATADIR)/$${f#config/}"; \
	    install -D -m 0644 "$$f" "$(DESTDIR)$(DATADIR)/$${f#config/}"; \
	done
	@set -e; for img in sandbox router; do \
	    [ -d $$img-image ] || continue; \
	    (cd $$img-image && find . \( -type f -o -type l \) -print) | sort | while IFS= read -r f; do \
	        if [ -x "$$img-image/$$f" ]; then m=0755; else m=0644; fi; \
	        echo "install -D -m $$m $$img-image/$${f#./} $(DESTDIR)$(DATADIR)/images/$$img/$${f#./}"; \
	        install -D -m $$m "$$img-image/$$f" "$(DESTDIR)$(DATADIR)/images/$$img/$${f#./}"; \
	    done; \
	done
	install -D -m 0644 LICENSE $(DESTDIR)$(LICENSEDIR)/LICENSE
	install -D -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	for f in docs/*.md; do install -D -m 0644 "$$f" "$(DESTDIR)$(DOCDIR)/$$f"; done
	if [ -f docs/agent-sandbox.1 ]; then install -D -m 0644 docs/agent-sandbox.1 $(DESTDIR)$(MANDIR)/man1/agent-sandbox.1; fi
	if [ -f completions/agent-sandbox.bash ]; then install -D -m 0644 completions/agent-sandbox.bash $(DESTDIR)$(COMPLETIONS_BASH); fi
	if [ -f completions/_agent-sandbox ]; then install -D -m 0644 completions/_agent-sandbox $(DESTDIR)$(COMPLETIONS_ZSH); fi
	if [ -f completions/agent-sandbox.fish ]; then install -D -m 0644 completions/agent-sandbox.fish $(DESTDIR)$(COMPLETIONS_FISH); fi

# Removes what `install` put there: DATADIR, DOCDIR and LICENSEDIR are
# agent-sandbox's own directories; shared ones (man1, completions) are kept.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/agent-sandbox
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(LICENSEDIR)
	rm -f $(DESTDIR)$(MANDIR)/man1/agent-sandbox.1 $(DESTDIR)$(COMPLETIONS_BASH) \
	      $(DESTDIR)$(COMPLETIONS_ZSH) $(DESTDIR)$(COMPLETIONS_FISH)

clean:
	rm -rf build

-include $(LIB_OBJS:.o=.d) $(CMD_OBJS:.o=.d) $(UNIT_HELPER_OBJS:.o=.d) $(UNIT_BINS:=.d)
include $(sort $(wildcard mk/*.mk))
