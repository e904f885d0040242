/* The labels agent-sandbox puts on what it makes in podman, in one place:
 * the session executor sets them, the stale sweep and `cleanup` find
 * resources by them, the transport reads them back. */
#ifndef AS_LABELS_H
#define AS_LABELS_H

/* Every resource of a session: its id, and the pid of the CLI that owns it. */
#define LABEL_SESSION  "agent-sandbox.session"
#define LABEL_PID      "agent-sandbox.pid"
/* The shared egress network, made on demand and kept. */
#define LABEL_EGRESS   "agent-sandbox.egress"
/* Home and login volumes (lib/session/home_volume.h): never swept. */
#define LABEL_HOME     "agent-sandbox.home"
/* The launch tree a per-project home belongs to. */
#define LABEL_HOME_FOR "agent-sandbox.home-for"
/* Images built by `make images`, and their release. */
#define LABEL_IMAGE    "agent-sandbox.image"
#define LABEL_VERSION  "agent-sandbox.version"

#endif
