/* Small helpers shared by every module: scoped cleanup and ownership transfer,
 * in the style of systemd and crun. */
#ifndef AS_UTIL_H
#define AS_UTIL_H

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <stdio.h>
#include <time.h>

static inline void freep(void *p) { free(*(void **)p); }
static inline void closep(int *fd) { if (*fd >= 0) { int e = errno; close(*fd); errno = e; } }
static inline void fclosep(FILE **f) { if (*f) fclose(*f); }

/* free() for a secret, or any copy or encoding of one: its bytes wiped
 * first, so that no freed block still holds it. */
static inline void free_wiped(char *s)
{
    if (s != NULL)
        explicit_bzero(s, strlen(s));
    free(s);
}
static inline void free_wipedp(char **p) { free_wiped(*p); }

#define _cleanup_free_  __attribute__((cleanup(freep)))
#define _cleanup_wipe_  __attribute__((cleanup(free_wipedp)))
#define _cleanup_close_ __attribute__((cleanup(closep)))
#define _cleanup_fclose_ __attribute__((cleanup(fclosep)))
#define _cleanup_(f) __attribute__((cleanup(f)))

/* Typed cleanup for the project's own types, next to each destructor:
 * DEFINE_CLEANUP_FUNC(type_t, type_free) defines type_freep(type_t **) for
 * `_cleanup_(type_freep) type_t *x = NULL;`, which frees x at the end of
 * its scope unless ownership was handed over with steal_pointer(&x).
 * Destructors accept NULL (the project's convention), so a variable that
 * was stolen or never set costs nothing. */
#define DEFINE_CLEANUP_FUNC(type, func) \
    static inline void func##p(type **p) { func(*p); }
/* The same for a destructor that takes the variable's address itself,
 * `void type_free(type_t **)` (as_error_free): it also leaves NULL behind. */
#define DEFINE_CLEANUP_FUNC_REF(type, func) \
    static inline void func##p(type **p) { func(p); }

/* Hand ownership over: returns *pp and leaves NULL behind. */
#define steal_pointer(pp) ({ __typeof__(*(pp)) _p = *(pp); *(pp) = NULL; _p; })
#define steal_fd(fdp) ({ int _fd = *(fdp); *(fdp) = -1; _fd; })

/* Milliseconds on the monotonic clock, for deadlines. */
/* The word for n of a thing: plural(n, "directory", "directories"). */
static inline const char *plural(size_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

static inline long monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
