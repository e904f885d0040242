# Fuzzing: one libFuzzer target per parser of untrusted input, each in
# tests/fuzz/fuzz_NAME.c with its seed corpus in tests/fuzz/corpus/NAME/
# (and tests/fuzz/NAME.dict where one helps):
#   allowlist     the allowlist parser and the renderers of what it accepts
#   config_lines  the line and word reader of every config file
#   egress_log    the router's log lines (dnsmasq, nginx's JSON, the mark)
#   http_head     an HTTP answer's head on a hijacked stream
#   json          the JSON reader, against the generator
#   request_checks the router's regexes of a credential by value (vendor
#                 tokens, credential-shaped values) in a request's header
#                 lines and query, run with PCRE2 against what they stand for
#   tar_scan      an image export's tar stream, fed in pieces of many sizes
#
#   make fuzz                         builds every target with clang
#                                     (-fsanitize=fuzzer,address,undefined) and
#                                     runs each, one after another, for
#                                     FUZZ_TIME seconds
#   make fuzz FUZZ_TARGETS=tar_scan   one target (or a list)
#   make fuzz-replay                  each target's seed corpus, once, through
#                                     tests/fuzz/replay.c: no clang needed
#
# New inputs go to build/fuzz/corpus/NAME/, crashes to build/fuzz/ (NAME-crash-*):
# replay one with build/fuzz/fuzz_NAME FILE, and add it to the seed corpus
# with the fix. `make unit` (so make check and make check-sanitize) runs
# fuzz-replay, built with $(CC) and CFLAGS like the unit tests: under ASan
# and UBSan in the SANITIZE=1 build.
FUZZ_CC      ?= clang
FUZZ_TIME    ?= 60
FUZZ_ALL     := allowlist config_lines egress_log http_head json request_checks tar_scan
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_BUILD   := build/fuzz
# The library is built again with clang and the fuzzer's instrumentation
# (build/fuzz/obj/), with the flags of the ordinary build otherwise, so that
# a target links whatever of it the parser needs. gcc's warnings are the
# gate (make all); clang's differ (an unused _cleanup_ variable), so they
# are shown but do not stop the library's build here.
FUZZ_SAN      := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS    = -g -O1 $(filter-out -O% -g -fsanitize=% -fno-sanitize-recover=%,$(CFLAGS)) \
                 -Itests/fuzz $(FUZZ_SAN)
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=$(FUZZ_BUILD)/obj/%.o)
FUZZ_LIBAS    := $(FUZZ_BUILD)/libagentsandbox.a
FUZZ_LEN_allowlist    := 4096
FUZZ_LEN_config_lines := 4096
FUZZ_LEN_egress_log   := 4096
FUZZ_LEN_http_head    := 2048
FUZZ_LEN_json         := 4096
FUZZ_LEN_request_checks := 4096
FUZZ_LEN_tar_scan     := 16384

$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(filter-out -Werror,$(FUZZ_CFLAGS)) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<
$(FUZZ_BUILD)/obj/lib/verify/verify.o: $(BUILD)/gen/verify_probe.inc
$(FUZZ_BUILD)/obj/lib/images/agent_pins.o: $(BUILD)/gen/agent_pins.inc
$(FUZZ_BUILD)/obj/lib/images/toolchains.o: $(BUILD)/gen/toolchains.inc
$(FUZZ_BUILD)/obj/lib/workspace/tool_configs.o: $(BUILD)/gen/tool_configs.inc

$(FUZZ_LIBAS): $(FUZZ_LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_LIBAS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -MMD -MP -o $@ $< $(FUZZ_LIBAS) $(LDLIBS)

# request_checks runs the router's regexes with PCRE2, nginx's library.
PCRE2_LIBS := $(shell pkg-config --libs libpcre2-8)
$(FUZZ_BUILD)/fuzz_request_checks: LDLIBS += $(PCRE2_LIBS)
$(BUILD)/tests/fuzz_request_checks: LDLIBS += $(PCRE2_LIBS)

.PHONY: fuzz fuzz-replay
# One target after another, never two at once (however many jobs make runs),
# each bounded by FUZZ_TIME; a target that finds something does not stop
# the others, and make fuzz fails at the end.
FUZZ_RUN = mkdir -p $(FUZZ_BUILD)/corpus/$(1) && \
    $(FUZZ_BUILD)/fuzz_$(1) -max_total_time=$(FUZZ_TIME) -max_len=$(FUZZ_LEN_$(1)) \
        $(if $(wildcard tests/fuzz/$(1).dict),-dict=tests/fuzz/$(1).dict) \
        -artifact_prefix=$(FUZZ_BUILD)/$(1)- -print_final_stats=1 \
        $(FUZZ_BUILD)/corpus/$(1) tests/fuzz/corpus/$(1) || failed="$$failed $(1)";
fuzz: $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)
	@failed=; $(foreach t,$(FUZZ_TARGETS),echo "fuzz: $(t), $(FUZZ_TIME) s"; $(call FUZZ_RUN,$(t))) \
	if [ -n "$$failed" ]; then echo "fuzz: found something:$$failed (see $(FUZZ_BUILD)/)" >&2; exit 1; fi

# The replay driver: each target built with $(CC) against the library, run
# over its seed corpus.
FUZZ_REPLAY_BINS := $(FUZZ_ALL:%=$(BUILD)/tests/fuzz_%)
$(BUILD)/tests/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(LIBAS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/fuzz -MMD -MP -o $@ $< tests/fuzz/replay.c $(LIBAS) $(LDFLAGS) $(LDLIBS)

all: $(FUZZ_REPLAY_BINS)
unit: fuzz-replay
fuzz-replay: $(FUZZ_REPLAY_BINS)
	@set -e; for t in $(FUZZ_ALL); do \
	    if [ "$(VALGRIND)" = 1 ]; then \
	        valgrind -q --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all --error-exitcode=99 \
	            $(BUILD)/tests/fuzz_$$t tests/fuzz/corpus/$$t; \
	    else $(BUILD)/tests/fuzz_$$t tests/fuzz/corpus/$$t; fi; \
	done

-include $(FUZZ_REPLAY_BINS:=.d) $(FUZZ_LIB_OBJS:.o=.d) $(FUZZ_ALL:%=$(FUZZ_BUILD)/fuzz_%.d)
