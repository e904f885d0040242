/* The one escaper for text the host prints that the agent (or any file)
 * controls. */
#ifndef AS_ESCAPE_H
#define AS_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* The one escaper for everything the host prints that the agent (or any
 * file) controls: paths in reports and messages, names from the router's
 * logs. Writes n bytes of s so that nothing reaches the terminal as a
 * control: C0 bytes, DEL, raw bytes 0x80-0xff that are not valid UTF-8 (C1
 * controls among them) as \xNN; UTF-8 encoded C1 controls (U+0080-U+009F),
 * bidi controls and invisible format characters (U+00AD, U+061C, U+180E,
 * U+200B-U+200F, U+2028-U+202E, U+2060-U+206F, U+FEFF, U+FFF9-U+FFFB, the
 * tags U+E0000-U+E007F) as \u{XXXX}. Everything else is copied, so the
 * output is printable and idempotent: escaping it again changes nothing. */
void path_put_escaped(FILE *f, const char *s, size_t n);

/* The same, but newlines are kept: for a whole message whose parts were
 * escaped where they were put together, as a last net before the terminal. */
void text_put_escaped(FILE *f, const char *s, size_t n);

/* path_put_escaped into a new string; NULL when out of memory. */
char *path_escaped(const char *s);

#endif
