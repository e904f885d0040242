/* Shared by the subcommands: exit codes, reporting, and the steps every
 * command that talks to podman takes (session dir, private service). */
#ifndef AS_CLI_H
#define AS_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "podman/podman_api.h"
#include "podman/service.h"
#include "session/session_dir.h"
#include "base/signal_source.h"

/* The CLI's own failures; the agent's exit code is passed through as is.
 * Kept apart from the shell's 126/127 and 128+N, and documented in README
 * and in --help (usage()): one table, kept in step with tests/e2e. */
enum {
    EXIT_USAGE         = 64,  /* bad arguments */
    EXIT_CONFIG        = 65,  /* a config file is unreadable or malformed */
    EXIT_NO_IMAGE      = 66,  /* the sandbox or router image is missing */
    EXIT_NO_SERVICE    = 69,  /* the private podman service did not start */
    EXIT_INTERNAL      = 70,  /* a bug or an unexpected answer */
    EXIT_SETUP         = 71,  /* the confinement could not be set up */
    EXIT_OUTPUT        = 74,  /* the agent's output could not be written (ENOSPC, EIO) */
    EXIT_SERVICE_LOST  = 75,  /* the agent's exit status is lost: the podman service or its conmon died */
    EXIT_AGENT_REMOVED = 76,  /* the agent's container was removed from outside the session */
    EXIT_REFUSED       = 77,  /* the launch directory was refused */
    EXIT_NO_RUNTIME_DIR = 78, /* no usable XDG_RUNTIME_DIR, nor /run/user/UID */
    EXIT_NOT_FOUND     = 127, /* the command does not exist in the sandbox */
    EXIT_NOT_EXEC      = 126, /* the command exists but cannot be executed */
};

#define SERVICE_START_TIMEOUT_MS 30000L
#define SERVICE_STOP_TIMEOUT_MS  10000L

/* AGENT_SANDBOX_TRACE=1: every API call with its time, on stderr. */
void trace_enable(void);

void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A progress line for a slow step, on a terminal only (cmd/progress.c);
 * erased by the next report and before the agent starts. */
void progress_show(const char *what, void *ctx);
void progress_clear(void);
/* Prints "agent-sandbox: error: <err>" and frees it. */
void report_error(as_error_t **err);
/* After a failure this host may be the cause of: where to look. */
void report_doctor_hint(void);

/* A session directory and a private service listening in it (once started:
 * a launch the policy refuses never starts one). */
typedef struct cli_backend {
    session_dir_t *dir;
    podman_service_t *service;       /* NULL until backend_service */
    podman_api_t *api;
    const signal_source_t *signals;  /* interrupt the service's start; may be NULL */
} cli_backend_t;

/* Settles the runtime directory before anything else needs it: a set
 * XDG_RUNTIME_DIR must be the caller's directory; an unset one falls back to
 * /run/user/UID where podman would, exported for the service, with one line
 * saying so. 0, or an exit code after reporting (EXIT_NO_RUNTIME_DIR). */
int runtime_dir_settle(void);

/* The session directory alone; then the service in it (a no-op once it
 * runs); backend_start does both. */
int backend_open(const char *id, const signal_source_t *signals, cli_backend_t *ret, as_error_t **err);
int backend_service(cli_backend_t *b, as_error_t **err);
int backend_start(const char *id, const signal_source_t *signals, cli_backend_t *ret, as_error_t **err);
/* Whether the service still answers (it may be dying unreaped). */
bool backend_usable(cli_backend_t *b);
/* Restart the service in the same directory (the first one died). */
int backend_restart(cli_backend_t *b, as_error_t **err);
/* Stops the service and removes the directory; reports what it cannot do. */
void backend_stop(cli_backend_t *b);

/* Whether `image` is in podman's storage and the version it was built
 * for (its agent-sandbox.version label; NULL when it has none). */
int image_status(podman_api_t *api, const char *image, bool *ret_present, char **ret_version,
                 as_error_t **err);

/* Sweeps dead sessions; says what it removed when `verbose`. */
void sweep_stale(cli_backend_t *b, bool verbose);

/* Applies the launch policy to the current directory, and checks that
 * podman can mount it (a path within PATH_MAX, the same directory in
 * podman's mount namespace). The private service is started only when the
 * decision needs podman (no cached storage location, or a refusal that
 * rests on the cached one) or once the launch is allowed: a refused launch
 * the cache can answer starts no podman. 0 and the resolved directory (to
 * mount) when allowed, with the service running; otherwise an exit code,
 * reported. */
int launch_check(cli_backend_t *b, char **ret_dir);

/* A packaged default (DATADIR/REL, or config/REL of the source tree next to
 * a development build), or NULL when there is none. */
char *packaged_file(const char *rel);

/* The session's agent: `requested` (--agent), else the settings file's
 * (read at settings_path), else Claude Code; its profile read and checked.
 * 0, or an exit code after reporting. */
struct agent_profile;
struct user_settings;
int agent_config_load(const char *requested, const struct user_settings *settings, const char *settings_path,
                      struct agent_profile **ret);

/* The session's allowlist: AGENT_SANDBOX_ALLOWLIST as is, else the user's
 * file with the agent's merged in (each copied into place from the
 * packaged default on first use), and in ret_path (when not NULL) the file
 * `allow --save` appends to. 0, or an exit code after reporting (every
 * error of a file, one per line). */
struct allowlist;
int allowlist_config_load(const struct agent_profile *agent, struct allowlist **ret, char **ret_path);
/* Only that file's path (the default copied into place on first run). */
int allowlist_config_path(char **ret_path);
/* Reports an error whose message holds one error per line (a config
 * file's), each as a line of its own, and frees it. */
void report_config_errors(as_error_t **err);

struct session_plan;

/* One session: the command, its environment and where its I/O goes. */
typedef struct run_request {
    const char *agent;       /* --agent NAME, or NULL (agent_config_load) */
    bool exec;               /* command replaces the agent's; else it is its arguments */
    char **command;          /* NULL-terminated; may be NULL without exec */
    char **env;              /* KEY=VALUE, NULL-terminated, may be NULL */
    bool dry_run;
    int in_fd, out_fd, err_fd;   /* in_fd -1: no input */
    bool allow_tty;          /* a TTY when in_fd and out_fd are terminals */
    bool private_home;       /* an empty home of its own, no volume (verify) */
    bool no_notices;         /* no desktop notifications (verify: its probes are refused on purpose) */
    const char *memory, *pids, *cpus;   /* command-line limits, or NULL */
    const struct publish *publish;      /* --publish, n_publish of them */
    size_t n_publish;
    const char *ps_command;  /* what `ps` shows instead of the command, or NULL */
    /* Called with the complete plan before set-up (verify derives what it
     * expects from it); may be NULL. */
    void (*on_plan)(const struct session_plan *plan, void *ctx);
    void *on_plan_ctx;
} run_request_t;

/* Runs a session to its end; returns the agent's exit code or the CLI's. */
int run_session(const run_request_t *req);

/* Limits from the defaults, the limits file and the command line (NULL when
 * not given); says which cannot be enforced here. 0 or an exit code. */
#include "config/resource_limits.h"
int limits_config_load(const char *memory, const char *pids, const char *cpus, limits_t *ret,
                       cgroup_caps_t *ret_caps);

/* The path of a file of the config directory. 0, or an exit code after
 * reporting. */
int user_config_path(const char *name, char **ret_path);

/* What the sandbox gets of the host user: the name for the agent's passwd
 * entry, and the git identity as git config text (or NULL: none, or turned
 * off). 0 or an exit code, reported; an unreadable identity is a warning. */
typedef struct host_identity {
    char *user_name;
    char *git_config;
} host_identity_t;
int host_identity_load(const struct user_settings *settings, const char *settings_path, host_identity_t *ret);
void host_identity_clear(host_identity_t *h);

/* After a session: its router's logs kept in the state directory, and
 * what they say in a few lines (cmd/egress_report.c): what was blocked
 * and how to allow it, what could not be reached upstream, how many log
 * lines were dropped. Names are the agent's: escaped. */
void egress_report_end(const session_dir_t *dir);

/* Desktop notifications of a running session's refusals (cmd/egress_notify.c),
 * on a thread of their own; NULL when they cannot be had (silently). */
typedef struct egress_notices egress_notices_t;
egress_notices_t *egress_notices_start(const session_dir_t *dir);
void egress_notices_stop(egress_notices_t *n);

/* The settings file (lib/config/user_settings.h), or its defaults when there is
 * none, and its path. A session reads it once (read_inputs) and hands it
 * on. settings_config_load: 0, or an exit code after reporting.
 * settings_config_read: the same without a report, for doctor: -ENOENT
 * (defaults filled in) when there is no file, ret_path set when known. */
#include "config/user_settings.h"
int settings_config_load(user_settings_t *ret, char **ret_path);
int settings_config_read(user_settings_t *ret, char **ret_path, as_error_t **err);
/* The running sessions (lib/session/session_registry.h), oldest first. 0 or an
 * exit code, reported. */
#include "session/session_registry.h"
int sessions_load(session_entry_t ***ret, size_t *ret_n);
/* How the commands show a session's parts, escaped: the launch directory
 * ("~" for $HOME), the command, the age ("5m03s"); and the whole session
 * in one phrase ("session ID (PID N, in DIR, started AGE ago)"). */
#include <stdio.h>
void session_put_dir(FILE *f, const char *dir);
void session_put_command(FILE *f, char *const *command);
long long session_age(const session_entry_t *e);
void session_put_age(FILE *f, long long seconds);
char *session_describe(const session_entry_t *e);

/* The subcommands (cmd/main.c): each one's --help is its synopsis and help. */
typedef struct cli_command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *synopsis;    /* after "agent-sandbox NAME " */
    const char *summary;     /* one line in the tool's --help */
    const char *help;        /* what it does, and its options */
} cli_command_t;
extern const cli_command_t cli_commands[];
extern const size_t cli_n_commands;

/* The tool's --help; one command's (cmd/usage.c). */
void cli_usage(FILE *f);
void cli_command_usage(FILE *f, const cli_command_t *c);
/* --version: the tool's, the images' and the agents' pins. */
int cmd_version(void);

int cmd_run(int argc, char **argv);
int cmd_cleanup(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_allow(int argc, char **argv);
int cmd_deny(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_ps(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_doctor(int argc, char **argv);

#endif
