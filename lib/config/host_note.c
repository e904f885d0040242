#include "host_note.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/user_dirs.h"
#include "base/file_read.h"
#include "base/file_write.h"
#include "base/util.h"

#define NOTE_MAX (64 * 1024)

/* /etc/machine-id, else the host name: a name safe in a file name. */
static void host_id(char ret[65])
{
    char buf[65] = "";
    _cleanup_free_ char *id = NULL;
    _cleanup_(as_error_freep) as_error_t *err = NULL;
    size_t len = 0;
    if (config_file_read(AT_FDCWD, "/etc/machine-id", CONFIG_FOLLOW, 4096, &id, &len, &err) == 0 &&
        id[0] != '\n' && id[0] != '\0')
        snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(id, "\n"), id);
    else
        gethostname(buf, sizeof(buf) - 1);
    size_t n = 0;
    for (const char *p = buf; *p != '\0' && n < 64; p++)
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-')
            ret[n++] = *p;
    ret[n] = '\0';
    if (n == 0)
        snprintf(ret, 65, "host");
}

int host_note_first(const char *state_dir, const char *name, const char *text, bool *ret_first,
                    as_error_t **err)
{
    char id[65];
    host_id(id);
    _cleanup_free_ char *dir = NULL, *file = NULL, *old = NULL, *content = NULL;
    size_t len = 0;
    *ret_first = true;
    if (asprintf(&dir, "%s/notes", state_dir) < 0 || asprintf(&file, "%s.%s", name, id) < 0 ||
        asprintf(&content, "%s\n", text) < 0)
        return as_error_make(err, ENOMEM, "out of memory");
    _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    as_error_t *read_err = NULL;
    if (dfd >= 0 && config_file_read(dfd, file, CONFIG_NOFOLLOW, NOTE_MAX, &old, &len, &read_err) == 0 &&
        strcmp(old, content) == 0) {
        *ret_first = false;
        return 0;
    }
    as_error_free(&read_err);
    int r = user_dir_create(dir, err);
    if (r < 0)
        return r;
    return file_write_atomic(dir, file, content, 0600, err);
}
