#include "allowlist_merge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/strv.h"

static bool has_port(const allowlist_entry_t *e, uint16_t port)
{
    for (size_t i = 0; i < e->n_ports; i++)
        if (e->ports[i].port == port)
            return true;
    return false;
}

static int add_port(allowlist_entry_t *e, const allowlist_port_t *port, const char *file)
{
    allowlist_port_t *v = reallocarray(e->ports, e->n_ports + 1, sizeof(*v));
    if (v == NULL)
        return -ENOMEM;
    e->ports = v;
    e->ports[e->n_ports] = *port;
    e->ports[e->n_ports++].file = file;
    return 0;
}

/* `into`'s own copy of a file's name, so that a port's file outlives the
 * list it came from. */
static int own_file(allowlist_t *into, const char *file, const char **ret)
{
    *ret = NULL;
    if (file == NULL)
        return 0;
    for (size_t i = 0; into->files != NULL && into->files[i] != NULL; i++)
        if (strcmp(into->files[i], file) == 0)
            return *ret = into->files[i], 0;
    if (strv_push(&into->files, file) < 0)
        return -ENOMEM;
    *ret = into->files[strv_length(into->files) - 1];
    return 0;
}

/* A new entry as allowlist_append adds it; one listed already gets the
 * ports it lacks. Each port keeps the file and line it came from. */
static int add_entry(allowlist_t *into, const allowlist_entry_t *from, as_error_t **err)
{
    const allowlist_entry_t *found = allowlist_find(into, from->name, from->wildcard);
    int r;
    if (found == NULL) {
        if ((r = allowlist_append(into, from, err)) < 0)
            return r;
        found = allowlist_find(into, from->name, from->wildcard);
        allowlist_entry_t *added = &into->entries[found - into->entries];
        for (size_t i = 0; i < from->n_ports; i++) {
            if (own_file(into, from->ports[i].file, &added->ports[i].file) < 0)
                return as_error_make(err, ENOMEM, "out of memory");
            added->ports[i].line = from->ports[i].line;
        }
        return 0;
    }
    allowlist_entry_t *e = &into->entries[found - into->entries];
    for (size_t i = 0; i < from->n_ports; i++) {
        const char *file = NULL;
        if (!has_port(e, from->ports[i].port) &&
            (own_file(into, from->ports[i].file, &file) < 0 || add_port(e, &from->ports[i], file) < 0))
            return as_error_make(err, ENOMEM, "out of memory");
    }
    return 0;
}

static int add_net(allowlist_t *into, const allowlist_net_t *net, as_error_t **err)
{
    for (size_t i = 0; i < into->n_nets; i++)
        if (into->nets[i].net.addr == net->net.addr && into->nets[i].net.prefix == net->net.prefix)
            return 0;
    if (into->n_nets >= ALLOWLIST_MAX_NETS)
        return as_error_make(err, E2BIG, "the allowlists together have more than %d upstream networks",
                             ALLOWLIST_MAX_NETS);
    allowlist_net_t *v = reallocarray(into->nets, into->n_nets + 1, sizeof(*v));
    if (v == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    into->nets = v;
    into->nets[into->n_nets++] = *net;
    return 0;
}

int allowlist_merge(allowlist_t *into, const allowlist_t *from, as_error_t **err)
{
    int r = 0;
    for (size_t i = 0; r == 0 && i < from->n_entries; i++)
        r = add_entry(into, &from->entries[i], err);
    for (size_t i = 0; r == 0 && i < from->n_nets; i++)
        r = add_net(into, &from->nets[i], err);
    return r;
}
