#include "allowlist_of.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

allowlist_t *allowlist_of(const char *text)
{
    allowlist_t *al = NULL;
    as_error_t *err = NULL;
    if (allowlist_parse("list", text, strlen(text), &al, &err) < 0)
        fail_msg("%s", err->msg);
    return al;
}
