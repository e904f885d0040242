/* The labels agent-sandbox puts on what it makes in podman, in one place
 * because several readers must agree on them: the session executor sets
 * them, the stale sweep and `cleanup` find resources by them, and the
 * transport reads them back. */
#ifndef AS_LABELS_H
#define AS_LABELS_H

/* Every resource of a session carries its id and the pid of the CLI that
 * owns it. */
#define LABEL_SESSION  "agent-sandbox.session"
#define LABEL_PID      "agent-sandbox.pid"
/* The shared egress network carries this one: it is made on demand and
 * kept, so the sweep must tell it from a session's. */
#define LABEL_EGRESS   "agent-sandbox.egress"
/* Home and login volumes (lib/session/home_volume.h) carry this one, and
 * the sweep never removes them. */
#define LABEL_HOME     "agent-sandbox.home"
/* The launch tree a per-project home belongs to, so that two trees never
 * share a home by a clash of names. */
#define LABEL_HOME_FOR "agent-sandbox.home-for"
/* Images built by `make images` carry these, with their release. */
#define LABEL_IMAGE    "agent-sandbox.image"
#define LABEL_VERSION  "agent-sandbox.version"

#endif
