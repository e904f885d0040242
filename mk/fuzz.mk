# libFuzzer target for the allowlist parser and the router renderers.
# `make fuzz` builds it with clang (-fsanitize=fuzzer,address,undefined) and
# runs it for FUZZ_TIME seconds, seeded from tests/fuzz/corpus; new inputs
# go to build/fuzz/corpus, crashes to build/fuzz/crash-*.
FUZZ_CC    ?= clang
FUZZ_TIME  ?= 60
FUZZ_BUILD := build/fuzz
FUZZ_LIB   := lib/config/allowlist.c lib/egress/router_render.c lib/base/error.c lib/base/file_read.c lib/base/paths.c lib/config/ipv4_net.c lib/base/config_lines.c lib/base/msg.c
FUZZ_FLAGS := -g -O1 -std=gnu17 -D_GNU_SOURCE -Ilib -Wall -Wextra -Werror \
              -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined

.PHONY: fuzz
$(FUZZ_BUILD)/fuzz_allowlist: tests/fuzz/fuzz_allowlist.c $(FUZZ_LIB) $(wildcard lib/*/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_allowlist.c $(FUZZ_LIB)

fuzz: $(FUZZ_BUILD)/fuzz_allowlist
	@mkdir -p $(FUZZ_BUILD)/corpus
	$(FUZZ_BUILD)/fuzz_allowlist -max_total_time=$(FUZZ_TIME) -max_len=4096 \
	    -dict=tests/fuzz/allowlist.dict -artifact_prefix=$(FUZZ_BUILD)/ \
	    -print_final_stats=1 $(FUZZ_BUILD)/corpus tests/fuzz/corpus
