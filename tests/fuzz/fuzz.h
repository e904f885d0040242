/* What every fuzz target shares: the entry point libFuzzer (or the replay
 * driver, tests/fuzz/replay.c) calls, and CHECK, which aborts on a broken
 * invariant so that libFuzzer keeps the input and a replay fails. A target
 * asserts what its parser promises, not only that it does not crash. */
#ifndef AS_FUZZ_H
#define AS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                      \
            abort();                                                             \
        }                                                                        \
    } while (0)

#endif
