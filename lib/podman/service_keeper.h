/* The service's keeper: a process forked by the CLI (never exec'd) that
 * starts `podman system service` as its own child and stops it.
 *
 * The service dies with the keeper (PR_SET_PDEATHSIG), and the keeper
 * lives as long as the write end of its pipe is held somewhere: by the CLI,
 * and by a child the CLI hands a session's removals to after the prompt
 * (lib/session/session_finish.c). So the service, warm, outlives the CLI while that
 * child still removes, and is stopped when the last holder is gone,
 * however it ended. A holder that writes a deadline (a long, in ms) stops
 * it now: SIGTERM, then SIGKILL after the deadline. The keeper then ends
 * as the service ended (its status, or the same signal), and ignores the
 * signals that would end it otherwise: only SIGKILL does, and then the
 * service gets SIGTERM. */
#ifndef AS_SERVICE_KEEPER_H
#define AS_SERVICE_KEEPER_H

/* The deadline when the pipe's last holder is gone without asking. */
#define SERVICE_KEEPER_STOP_MS 10000L

/* In the forked child: `hold_fd` is the pipe's read end; the service's pid
 * is written to `tell_fd` (a pid_t), which is then closed. */
__attribute__((noreturn)) void service_keeper_run(int hold_fd, int tell_fd, const char *socket_path,
                                                  const char *log_path);

#endif
