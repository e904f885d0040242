/* How `doctor` shows a check: one line "LEVEL name: detail", its fix below,
 * and the count by level that decides its exit status. Shared by both parts
 * of doctor (cmd_doctor.c, doctor_checks.c), which call nothing of each
 * other's but through doctor.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"
#include "base/escape.h"

static const char *const level_names[] = { [CHECK_OK] = "OK", [CHECK_WARN] = "WARN", [CHECK_FAIL] = "FAIL" };

void doctor_show(doctor_t *d, const char *name, check_t *c, int r)
{
    if (r < 0 && c->detail == NULL) {
        c->level = CHECK_FAIL;
        c->detail = strdup("out of memory");
    }
    d->count[c->level]++;
    /* one line per check: a message of several lines is joined */
    for (char *p = c->detail; p != NULL && *p != '\0'; p++)
        if (*p == '\n')
            *p = ' ';
    /* what doctor shows may name paths of anyone's choosing: escaped */
    printf("%-4s  %s: ", level_names[c->level], name);
    if (c->detail != NULL)
        text_put_escaped(stdout, c->detail, strlen(c->detail));
    if (c->fix != NULL && c->level != CHECK_OK) {
        fputs("\n      fix: ", stdout);
        text_put_escaped(stdout, c->fix, strlen(c->fix));
    }
    fputc('\n', stdout);
    check_clear(c);
}

void doctor_error(doctor_t *d, const char *name, check_level_t level, const char *fix, as_error_t **err)
{
    check_t c = {0};
    int r = check_set(&c, level, fix, "%s", *err != NULL && (*err)->msg != NULL ? (*err)->msg : "unknown error");
    as_error_free(err);
    doctor_show(d, name, &c, r);
}
