/* The record a walk makes (workspace_int.h, struct workspace_snapshot):
 * sorted by path, looked up, compared item by item, freed. */
#include "workspace_int.h"

#include <stdlib.h>
#include <string.h>

void ws_snapshot_free(workspace_snapshot_t *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].rel);
        free(s->v[i].link);
    }
    for (size_t i = 0; i < s->n_unexamined; i++)
        free(s->unexamined[i].rel);
    for (size_t i = 0; i < s->n_opened; i++)
        free(s->opened[i].rel);
    free(s->v);
    free(s->unexamined);
    free(s->opened);
    free(s);
}

static int item_cmp(const void *a, const void *b)
{
    return strcmp(((const ws_item_t *)a)->rel, ((const ws_item_t *)b)->rel);
}

void ws_snapshot_sort(workspace_snapshot_t *s)
{
    if (s->n > 0)
        qsort(s->v, s->n, sizeof(ws_item_t), item_cmp);
}

const ws_item_t *ws_snapshot_find(const workspace_snapshot_t *s, const char *rel)
{
    if (s == NULL || s->n == 0)
        return NULL;
    ws_item_t key = { .rel = (char *)rel };
    return bsearch(&key, s->v, s->n, sizeof(ws_item_t), item_cmp);
}

bool ws_item_same(const ws_item_t *a, const ws_item_t *b)
{
    return a->mode == b->mode && a->size == b->size && a->dev == b->dev && a->ino == b->ino &&
           a->ctim.tv_sec == b->ctim.tv_sec && a->ctim.tv_nsec == b->ctim.tv_nsec &&
           (a->link == NULL) == (b->link == NULL) && (a->link == NULL || strcmp(a->link, b->link) == 0);
}
