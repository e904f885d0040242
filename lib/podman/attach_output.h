/* The agent's output on its way to the user's descriptors (the output side
 * of attach_pump, attach_stream.h): queued in the order it came, written
 * only as much as each descriptor takes now, never blocking the pump. A
 * reader that stops (a paused pager, a full pipe, a terminal nobody reads)
 * then stops the pump's reading of the agent's output once the queue is
 * full, and that back-pressure reaches the agent, as a pipeline's would,
 * while the pump goes on serving signals, `~.` and `stop`.
 *
 * A descriptor is written without blocking by a description of its own
 * where it can stall: a pipe, FIFO or terminal is opened again through
 * /proc/self/fd with O_NONBLOCK (the caller's description, which the shell
 * and the rest of a pipeline share, keeps its flags), a socket is written
 * with MSG_DONTWAIT, a file as it is (it never stalls). Only where none of
 * that can be had is O_NONBLOCK set on the caller's description, for the
 * pump's time alone. */
#ifndef AS_ATTACH_OUTPUT_H
#define AS_ATTACH_OUTPUT_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

/* What the queue holds at most before the pump stops reading. */
#define ATTACH_OUTPUT_MAX (1u << 20)

typedef struct attach_output attach_output_t;

int attach_output_open(int out_fd, int err_fd, attach_output_t **ret, as_error_t **err);
/* Gives the descriptors back as they were; what is still queued is lost. */
void attach_output_close(attach_output_t *o);

/* Queues len bytes for stdout or stderr (to_err), after all queued before;
 * nothing for a descriptor that failed. The queue may pass its bound by
 * what one read brings: the pump asks for room before each read. */
int attach_output_put(attach_output_t *o, bool to_err, const char *data, size_t len);
/* Whether `need` bytes more fit within the bound. */
bool attach_output_room(const attach_output_t *o, size_t need);
/* Bytes queued and not yet written. */
size_t attach_output_pending(const attach_output_t *o);
/* A line of the CLI's for the user (`~.` heard, egress lost), to stderr
 * ahead of the agent's queued output; dropped if stderr does not take it
 * (it is a courtesy: nothing waits for it). */
void attach_output_notice(attach_output_t *o, const char *text);

/* The descriptors to wait on for POLLOUT (fds has room for 2); how many. */
size_t attach_output_pollfds(const attach_output_t *o, struct pollfd *fds);
/* Writes what the descriptors take now. 0, or the -errno of a descriptor
 * that failed (*ret_to_err: stderr's), whose output is dropped from then
 * on; a later call goes on with the other one. */
int attach_output_flush(attach_output_t *o, bool *ret_to_err);
/* Drops what is queued (the session ends and its reader has stopped);
 * the count of bytes dropped so far, this call's included. */
size_t attach_output_drop(attach_output_t *o);

#endif
