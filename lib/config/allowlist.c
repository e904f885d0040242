/* The allowlist as a model: its entries found by name (through an index,
 * since a list may have thousands), the wildcard that covers a name, entries
 * added and removed, the list written back as text. Parsing a file into a
 * list is allowlist_parse.c's. */
#include "allowlist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash_index.h"
#include "base/msg.h"
#include "base/strv.h"

/* ---- the index -------------------------------------------------------- */

/* The entries' numbers by name, the exact names and the wildcards apart,
 * since "example.com" and ".example.com" are two entries. */
struct allowlist_index {
    hash_index_t *names[2];        /* [wildcard] */
};

static size_t index_len(const allowlist_index_t *ix)
{
    return hash_index_len(ix->names[0]) + hash_index_len(ix->names[1]);
}

allowlist_index_t *allowlist_index_new(void)
{
    allowlist_index_t *ix = calloc(1, sizeof(*ix));
    if (ix == NULL)
        return NULL;
    ix->names[0] = hash_index_new();
    ix->names[1] = hash_index_new();
    if (ix->names[0] == NULL || ix->names[1] == NULL) {
        allowlist_index_free(ix);
        return NULL;
    }
    return ix;
}

void allowlist_index_free(allowlist_index_t *ix)
{
    if (ix == NULL)
        return;
    hash_index_free(ix->names[0]);
    hash_index_free(ix->names[1]);
    free(ix);
}

int allowlist_index_add(allowlist_index_t *ix, const allowlist_t *al, size_t i,
                        const allowlist_entry_t **ret_earlier)
{
    const allowlist_entry_t *e = &al->entries[i];
    size_t *number = NULL;
    bool added = false;
    if (hash_index_add(ix->names[e->wildcard], e->name, &number, &added) < 0)
        return -ENOMEM;
    if (added)
        *number = i;
    *ret_earlier = added ? NULL : &al->entries[*number];
    return 0;
}

const allowlist_entry_t *allowlist_index_find(const allowlist_index_t *ix, const allowlist_t *al,
                                              const char *name, bool wildcard)
{
    size_t i = 0;
    return hash_index_find(ix->names[wildcard], name, &i) ? &al->entries[i] : NULL;
}

/* The list's own index, when it holds every entry (a list made by hand, or
 * changed by allowlist_remove, has none: it is looked through instead). */
static const allowlist_index_t *list_index(const allowlist_t *al)
{
    return al->index != NULL && index_len(al->index) == al->n_entries ? al->index : NULL;
}

/* Gives the list an index of every entry, when memory allows. */
static void index_list(allowlist_t *al)
{
    if (list_index(al) != NULL)
        return;
    allowlist_index_free(al->index);
    al->index = allowlist_index_new();
    const allowlist_entry_t *earlier = NULL;
    for (size_t i = 0; al->index != NULL && i < al->n_entries; i++)
        if (allowlist_index_add(al->index, al, i, &earlier) < 0) {
            allowlist_index_free(al->index);
            al->index = NULL;
        }
}

/* Entry i, the newest, joins the list's index (which goes when memory runs out). */
static void index_newest(allowlist_t *al)
{
    const allowlist_entry_t *earlier = NULL;
    if (al->index != NULL && index_len(al->index) + 1 == al->n_entries &&
        allowlist_index_add(al->index, al, al->n_entries - 1, &earlier) < 0) {
        allowlist_index_free(al->index);
        al->index = NULL;
    }
}

/* ---- entries ---------------------------------------------------------- */

static allowlist_entry_t *find_entry(const allowlist_t *al, const char *name, bool wildcard)
{
    const allowlist_index_t *ix = list_index(al);
    if (ix != NULL) {
        const allowlist_entry_t *e = allowlist_index_find(ix, al, name, wildcard);
        return e != NULL ? &al->entries[e - al->entries] : NULL;
    }
    for (size_t i = 0; i < al->n_entries; i++)
        if (al->entries[i].wildcard == wildcard && strcmp(al->entries[i].name, name) == 0)
            return &al->entries[i];
    return NULL;
}

/* Whether `name` is `apex` or a subdomain of it. */
static bool covered_by(const char *name, const char *apex)
{
    size_t n = strlen(name), a = strlen(apex);
    if (n == a)
        return strcmp(name, apex) == 0;
    return n > a && name[n - a - 1] == '.' && strcmp(name + n - a, apex) == 0;
}

/* The domain above `name` ("b.c" of "a.b.c"), or NULL. */
static const char *parent(const char *name)
{
    const char *dot = strchr(name, '.');
    return dot != NULL ? dot + 1 : NULL;
}

/* ---- the list's queries and changes ----------------------------------- */

const allowlist_entry_t *allowlist_find(const allowlist_t *al, const char *name, bool wildcard)
{
    return find_entry(al, name, wildcard);
}

/* The name itself and then each of its parent domains is looked up; a list
 * without index is looked through. */
const allowlist_entry_t *allowlist_covering(const allowlist_t *al, const char *name)
{
    const allowlist_index_t *ix = list_index(al);
    if (ix == NULL) {
        const allowlist_entry_t *best = NULL;
        for (size_t j = 0; j < al->n_entries; j++) {
            const allowlist_entry_t *w = &al->entries[j];
            if (w->wildcard && covered_by(name, w->name) &&
                (best == NULL || strlen(w->name) > strlen(best->name)))
                best = w;
        }
        return best;
    }
    for (const char *apex = name; apex != NULL; apex = parent(apex)) {
        const allowlist_entry_t *w = allowlist_index_find(ix, al, apex, true);
        if (w != NULL)
            return w;
    }
    return NULL;
}

int allowlist_append(allowlist_t *al, const allowlist_entry_t *e, as_error_t **err)
{
    if (!hostname_is_canonical(e->name) || (e->wildcard && e->n_ports > 0))
        return as_error_make(err, EINVAL, "internal error: not an entry of an allowlist");
    index_list(al);
    if (find_entry(al, e->name, e->wildcard) != NULL)
        return as_error_make(err, EEXIST, "%s%s is listed already", e->wildcard ? "." : "", e->name);
    if (al->n_entries >= ALLOWLIST_MAX_ENTRIES)
        return as_error_make(err, E2BIG, "the allowlist has %d entries, its limit",
                             ALLOWLIST_MAX_ENTRIES);
    allowlist_entry_t *v = reallocarray(al->entries, al->n_entries + 1, sizeof(*v));
    if (v == NULL)
        return as_error_make(err, ENOMEM, "out of memory");
    al->entries = v;
    allowlist_entry_t copy = { .wildcard = e->wildcard, .line = 0, .n_ports = e->n_ports };
    copy.name = strdup(e->name);
    copy.ports = e->n_ports > 0 ? calloc(e->n_ports, sizeof(*copy.ports)) : NULL;
    if (copy.name == NULL || (e->n_ports > 0 && copy.ports == NULL)) {
        free(copy.name);
        free(copy.ports);
        return as_error_make(err, ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < e->n_ports; i++)
        copy.ports[i] = (allowlist_port_t){ .port = e->ports[i].port, .line = 0 };
    al->entries[al->n_entries++] = copy;
    index_newest(al);
    return 0;
}

bool allowlist_remove(allowlist_t *al, const char *name, bool wildcard)
{
    allowlist_entry_t *e = find_entry(al, name, wildcard);
    if (e == NULL)
        return false;
    free(e->name);
    free(e->ports);
    size_t i = (size_t)(e - al->entries);
    memmove(e, e + 1, (al->n_entries - i - 1) * sizeof(*e));
    al->n_entries--;
    allowlist_index_free(al->index);      /* its entry numbers moved; the next append makes one */
    al->index = NULL;
    return true;
}

/* ---- the list as text ------------------------------------------------- */

void allowlist_put_entry(FILE *f, const allowlist_entry_t *e)
{
    if (e->n_ports == 0) {
        fprintf(f, "%s%s\n", e->wildcard ? "." : "", e->name);
        return;
    }
    for (size_t j = 0; j < e->n_ports; j++)
        fprintf(f, "%s:%u\n", e->name, e->ports[j].port);
}

int allowlist_format(const allowlist_t *al, char **ret_text, as_error_t **err)
{
    msg_t m;
    int r = msg_open(&m, err);
    if (r < 0)
        return r;
    for (size_t i = 0; i < al->n_entries; i++)
        allowlist_put_entry(m.f, &al->entries[i]);
    for (size_t i = 0; i < al->n_nets; i++) {
        char net[IPV4_NET_TEXT_MAX];
        ipv4_net_format(al->nets[i].net, net, sizeof(net));
        fprintf(m.f, "%s %s\n", ALLOWLIST_UPSTREAM_NET, net);
    }
    return msg_close(&m, ret_text, err);
}

void allowlist_free(allowlist_t *al)
{
    if (al == NULL)
        return;
    for (size_t i = 0; i < al->n_entries; i++) {
        free(al->entries[i].name);
        free(al->entries[i].ports);
    }
    free(al->entries);
    allowlist_index_free(al->index);
    free(al->nets);
    for (size_t i = 0; i < al->n_warnings; i++)
        free(al->warnings[i]);
    free(al->warnings);
    strv_free(al->files);
    free(al);
}
