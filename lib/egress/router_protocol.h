/* The protocol between the CLI and the router image's scripts
 * (router-image/bin/), written down once: docs/router-protocol.md says what
 * each string means. tests/unit/test_router_protocol.c reads the scripts and
 * checks that they carry these same strings. */
#ifndef AS_ROUTER_PROTOCOL_H
#define AS_ROUTER_PROTOCOL_H

/* The entry points, in the router image. */
#define ROUTER_PROTO_ROUTER_BIN     "/usr/local/bin/agent-sandbox-router"
#define ROUTER_PROTO_FORWARDER_BIN  "/usr/local/bin/agent-sandbox-forwarder"

/* The forwarder's arguments:
 *   --probe DENIED [NAME IP] -- LISTEN_IP:PORT=TARGET_IP:PORT...
 * and what it prints on its stdout: the ready line once the probe passed,
 * or one "not ready: <why>" line before it exits. */
#define ROUTER_PROTO_PROBE_FLAG     "--probe"
#define ROUTER_PROTO_ARGS_END       "--"
#define ROUTER_PROTO_READY_LINE     "agent-sandbox-forwarder: ready"
#define ROUTER_PROTO_NOT_READY      "agent-sandbox-forwarder: not ready: "
/* A name nothing may resolve: the probe's denied name. Its lookups are told
 * apart from the agent's by when they came (the mark below), never by this
 * name: an agent that uses it is shown like any other. */
#define ROUTER_PROTO_PROBE_DENIED   "denied-probe.agent-sandbox.invalid"
/* The pod's loopback address of every name without extra ports; the probe
 * asks the router's proxy there for its own 403. */
#define ROUTER_PROTO_SHARED_IP      "127.0.0.2"

/* Where the router's second dnsmasq listens (UDP, on the router's own
 * loopback): it answers every name it is asked with ROUTER_PROTO_SHARED_IP;
 * the first one asks it for the allowed wildcards' names only. */
#define ROUTER_WILDCARD_DNS_ADDR    "127.0.0.1"
#define ROUTER_WILDCARD_DNS_PORT    "5354"

/* The router's mounts, its configuration files and its logs. */
#define ROUTER_CONF_DIR             "/etc/agent-sandbox-router"
#define ROUTER_LOG_DIR              "/var/log/agent-sandbox"
#define ROUTER_RUN_DIR              "/run/agent-sandbox/nginx"
/* The servers log into pipes here; the router's bounded writers copy at most
 * ROUTER_LOG_MAX_BYTES (session_logs.h, the router's one argument) of each
 * into ROUTER_LOG_DIR. */
#define ROUTER_LOG_PIPES            ROUTER_RUN_DIR "/log-pipes"
#define ROUTER_FILE_DNSMASQ         "dnsmasq.conf"
#define ROUTER_FILE_NGINX           "nginx.conf"
#define ROUTER_FILE_IPTABLES        "iptables.rules"
#define ROUTER_FILE_IP6TABLES       "ip6tables.rules"
/* dnsmasq's exact names (re-read on SIGHUP), and the number of the last
 * change of the files (docs/router-protocol.md, "Live changes") */
#define ROUTER_FILE_DNS_HOSTS       "hosts"
#define ROUTER_FILE_DNS_WILDCARDS   "wildcards"
#define ROUTER_FILE_GENERATION      "generation"
/* With held secrets (docs/secrets.md): the router's certificate, the CAs
 * it verifies upstreams with, and the mark that its stdin brings the
 * rest (the key and the value maps, into its tmpfs). */
#define ROUTER_FILE_TLS_CERT        "tls-cert.pem"
#define ROUTER_FILE_UPSTREAM_CA     "upstream-ca.pem"
#define ROUTER_FILE_HELD            "held"
#define ROUTER_HELD_BEGIN           "agent-sandbox-held-begin"
#define ROUTER_HELD_VALUES_LINE     "agent-sandbox-held-values"
#define ROUTER_HELD_END             "agent-sandbox-held-end"
/* The njs module the checks of terminated names read the request's header
 * lines with (router-image/njs/, installed here by the image's build), and
 * its function: "\n", then "name:value\n" for each header line as sent. */
#define ROUTER_PROTO_HEADER_LINES_JS "/usr/local/lib/agent-sandbox-router/header-lines.js"
#define ROUTER_PROTO_HEADER_LINES_FN "lines"
#define ROUTER_LOG_DNS              "dns.log"
#define ROUTER_LOG_EGRESS           "egress.log"
#define ROUTER_LOG_NGINX_ERROR      "nginx-error.log"
/* The router's answer to a change: "GENERATION ok" once its servers run
 * with the files of that generation, "GENERATION failed: WHY" when they
 * kept the ones before; "0 ok" once it runs and takes changes. */
#define ROUTER_LOG_RELOAD           "reload"
#define ROUTER_RELOAD_OK            "ok"
#define ROUTER_RELOAD_FAILED        "failed: "

/* Whose events follow (docs/router-protocol.md, "Whose events"). Once the
 * forwarder is ready, before the agent starts, the CLI sends the router
 * one of these signals; the router writes ROUTER_MARK_LINE and the word
 * into the pipes of dns.log and egress.log, behind every line logged
 * before, then the word into ROUTER_LOG_STARTED. Every event before the
 * first mark is the sandbox's own (the readiness probe's); after it, the
 * agent's, or verify's probes' in verify's session. The agent cannot
 * signal the router, and cannot write a line before the mark: it does not
 * run yet. */
#define ROUTER_MARK_AGENT_SIGNAL    SIGUSR1
#define ROUTER_MARK_VERIFY_SIGNAL   SIGUSR2
#define ROUTER_MARK_LINE            "agent-sandbox-router: from here on: "
#define ROUTER_MARK_AGENT           "agent"
#define ROUTER_MARK_VERIFY          "verify"
#define ROUTER_LOG_STARTED          "started"

/* The forwarder's own tmpfs, where it writes its relay's configuration. */
#define FORWARDER_RUN_DIR           "/run/agent-sandbox"

#endif
