/* A stub libpod server for unit tests: real HTTP on a unix socket, through
 * the real client, with scripted answers. By default it answers as a
 * healthy podman would (networks with a subnet, containers named as
 * created, removals done, the forwarder ready); rules replace the answer to
 * matching requests, so a test can fail any step. Every request is logged,
 * so a test can check what was asked, and in which order. */
#ifndef STUB_LIBPOD_H
#define STUB_LIBPOD_H

#include <stdbool.h>
#include <stddef.h>

typedef struct stub_libpod stub_libpod_t;

/* An attach to a container: the test writes the stream (after the 101
 * answer); fd closes when it returns. input_only: the stdin-only attach. */
typedef void (*stub_attach_fn)(stub_libpod_t *stub, int fd, const char *container, bool input_only,
                               void *ctx);

int stub_libpod_start(stub_libpod_t **ret);
/* Listening on a given socket path instead (a fake `podman system service`). */
int stub_libpod_start_at(const char *socket_path, stub_libpod_t **ret);
/* Every client connection must be closed first. */
void stub_libpod_stop(stub_libpod_t *stub);
const char *stub_libpod_socket(const stub_libpod_t *stub);
/* A directory of its own, removed (with what it holds) at stop. */
const char *stub_libpod_dir(const stub_libpod_t *stub);

/* Requests whose method is `method` (NULL: any), whose path contains `path`
 * and whose body contains `body` (NULL: any) get `status` and `answer`
 * (libpod's error shape when NULL and status >= 400), the first `times`
 * matches (0: every one). Later rules win. */
void stub_libpod_rule(stub_libpod_t *stub, const char *method, const char *path, const char *body,
                      int status, const char *answer, int times);
/* What attaches to containers whose name contains `container` get. */
void stub_libpod_on_attach(stub_libpod_t *stub, const char *container, stub_attach_fn fn, void *ctx);
/* The body of each container's /wait answer: its exit code (default 0). */
void stub_libpod_exit_code(stub_libpod_t *stub, int code);

/* How many requests matched (method NULL: any; path a substring). */
int stub_libpod_count(stub_libpod_t *stub, const char *method, const char *path);
/* The log, "METHOD PATH" per line, in arrival order (malloc'd). */
char *stub_libpod_log(stub_libpod_t *stub);
/* Waits up to `seconds` until `count` requests matched. */
bool stub_libpod_wait_count(stub_libpod_t *stub, const char *method, const char *path, int count,
                            int seconds);

/* Helpers for attach functions. */
void stub_send(int fd, const void *data, size_t len);
void stub_send_upgrade(int fd);
/* A frame of a multiplexed stream (1 stdout, 2 stderr). */
void stub_send_frame(int fd, int stream, const char *text);

#endif
