/* Private to the C sources: the core's event queue, a 4-ary min-heap of events on (time, key). */
#ifndef PPT_HEAP_H
#define PPT_HEAP_H
#include <stddef.h>
#include <stdint.h>

typedef struct ppt_event {
    double t;
    uint64_t key;       /* creating entity id << 40 | its running count: ties never depend on placement */
    int32_t kind, target, a, b;
} ppt_event_t;

typedef struct ppt_heap {
    ppt_event_t *ev;
    int64_t len, cap;
} ppt_heap_t;

/* Room for `need` items of `item` bytes in the array p of *cap items (doubling; aborts when memory runs out). */
void *ppt_grow(void *p, int64_t *cap, size_t item, int64_t need);

static inline int ev_less(const ppt_event_t *x, const ppt_event_t *y)
{
    return x->t < y->t || (x->t == y->t && x->key < y->key);
}

static inline void heap_push(ppt_heap_t *heap, const ppt_event_t *ev)
{
    if (heap->len == heap->cap)
        heap->ev = ppt_grow(heap->ev, &heap->cap, sizeof(ppt_event_t), heap->len + 1);
    ppt_event_t *h = heap->ev;
    int64_t i = heap->len++;
    while (i > 0) {
        int64_t parent = (i - 1) >> 2;
        if (!ev_less(ev, &h[parent]))
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = *ev;
}

static inline void heap_pop(ppt_heap_t *heap, ppt_event_t *top)
{
    ppt_event_t *h = heap->ev;
    *top = h[0];
    ppt_event_t last = h[--heap->len];
    int64_t n = heap->len, i = 0;
    for (;;) {
        int64_t child = 4 * i + 1;
        if (child >= n)
            break;
        int64_t best = child, end = child + 4 < n ? child + 4 : n;
        for (int64_t c = child + 1; c < end; c++)
            if (ev_less(&h[c], &h[best]))
                best = c;
        if (!ev_less(&h[best], &last))
            break;
        h[i] = h[best];
        i = best;
    }
    if (n)
        h[i] = last;
}

#endif
