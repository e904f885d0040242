#include "names.h"

#include <ctype.h>
#include <string.h>

bool image_ref_valid(const char *ref)
{
    if (ref == NULL || ref[0] == '\0' || strlen(ref) > 255 || ref[0] == '-' || ref[0] == '/')
        return false;
    for (const char *c = ref; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              strchr("._/:@-", *c) != NULL))
            return false;
    return strstr(ref, "..") == NULL;
}

bool network_name_valid(const char *name)
{
    if (name == NULL || name[0] == '\0' || strlen(name) > 200 || !isalnum((unsigned char)name[0]))
        return false;
    for (const char *c = name; *c; c++)
        if (!isalnum((unsigned char)*c) && strchr("_.-", *c) == NULL)
            return false;
    return true;
}
