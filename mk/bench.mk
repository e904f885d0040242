# Benchmarks (bench/README.md). Run as the rootless user, like the e2e suite:
#
#   make bench                           every benchmark; results into
#                                        BENCHMARKS.md (machine, date, command)
#   make bench BENCH_RUNS=20             more rounds
#   make bench BENCH_COMPARE='REV=NAME'  also the CLI and router image of git
#                                        revision REV, in every round
#   make bench BENCH_ONLY=egress         some of them
#   BENCH_COMPARE_EGRESS, BENCH_STEPS: bench/run-all.sh, bench/egress.sh
#   sudo make bench-podmans              startup and loop on this machine's
#                                        podman and in the podman 5 test bed
#                                        (bench/podmans.sh)

BENCH_RUNS ?= 10
BENCH_ENV := AGENT_SANDBOX_BIN=$(abspath $(BIN)) BENCH_RUNS=$(BENCH_RUNS) BENCH_COMMAND='make bench'
# the settings of bench/run-all.sh given to make, passed on when set
BENCH_VARS := BENCH_COMPARE BENCH_COMPARE_EGRESS BENCH_STEPS BENCH_ONLY
BENCH_ENV  += $(foreach v,$(BENCH_VARS),$(if $($(v)),$(v)='$($(v))'))

.PHONY: bench bench-podmans
bench-podmans:
	BENCH_RUNS=$(BENCH_RUNS) bench/podmans.sh
bench: $(BIN) images
	env $(BENCH_ENV) bench/run-all.sh
