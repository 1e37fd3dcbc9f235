/* Events and a binary min-heap of them: the event queue of the MPI engine, and the days and overflow
 * of the packet core's calendar queue (_queue.h).
 *
 * Events leave in (time, key) order; keys are unique, so the order is total and any correct queue
 * gives the same run.  The calls are inline code on every event's path, so this header is for C only
 * (cffi's cdef does not read it: interconnects/core/build.py).
 */
#ifndef PPT_HEAP_H
#define PPT_HEAP_H
#include <stdint.h>
#include "alloc.h"

typedef struct ppt_event {
    double t;
    uint64_t key;       /* entity id << PPT_KEY_BITS | its running count (net.h): ties never depend on placement */
    int32_t kind, target, a, b;
} ppt_event_t;

typedef struct ppt_heap {           /* a binary min-heap on (t, key) */
    ppt_event_t *ev;
    int64_t len, cap;
} ppt_heap_t;

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
        int64_t parent = (i - 1) >> 1;
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
        int64_t child = 2 * i + 1;
        if (child >= n)
            break;
        if (child + 1 < n && ev_less(&h[child + 1], &h[child]))
            child++;
        if (!ev_less(&h[child], &last))
            break;
        h[i] = h[child];
        i = child;
    }
    if (n)
        h[i] = last;
}
#endif
