#include "allowlist_merge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static allowlist_entry_t *find(allowlist_t *al, const allowlist_entry_t *e)
{
    for (size_t i = 0; i < al->n_entries; i++)
        if (al->entries[i].wildcard == e->wildcard && strcmp(al->entries[i].name, e->name) == 0)
            return &al->entries[i];
    return NULL;
}

static bool has_port(const allowlist_entry_t *e, uint16_t port)
{
    for (size_t i = 0; i < e->n_ports; i++)
        if (e->ports[i].port == port)
            return true;
    return false;
}

static int add_port(allowlist_entry_t *e, const allowlist_port_t *port)
{
    allowlist_port_t *v = reallocarray(e->ports, e->n_ports + 1, sizeof(*v));
    if (v == NULL)
        return -ENOMEM;
    e->ports = v;
    e->ports[e->n_ports++] = *port;
    return 0;
}

static int add_entry(allowlist_t *into, const allowlist_entry_t *from, as_error_t **err)
{
    allowlist_entry_t *e = find(into, from);
    if (e == NULL) {
        if (into->n_entries >= ALLOWLIST_MAX_ENTRIES)
            return as_error_make(err, E2BIG, "the allowlists together have more than %d entries",
                                 ALLOWLIST_MAX_ENTRIES);
        allowlist_entry_t *v = reallocarray(into->entries, into->n_entries + 1, sizeof(*v));
        if (v == NULL)
            return as_error_make(err, ENOMEM, "out of memory");
        into->entries = v;
        char *name = strdup(from->name);
        if (name == NULL)
            return as_error_make(err, ENOMEM, "out of memory");
        e = &into->entries[into->n_entries++];
        *e = (allowlist_entry_t){ .name = name, .wildcard = from->wildcard, .line = from->line };
    }
    for (size_t i = 0; i < from->n_ports; i++)
        if (!has_port(e, from->ports[i].port) && add_port(e, &from->ports[i]) < 0)
            return as_error_make(err, ENOMEM, "out of memory");
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
