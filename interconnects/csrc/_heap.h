/* Private to the C sources: the core's event queue.
 *
 * Events leave in (time, key) order; keys are unique, so the order is total
 * and any correct queue gives the same run.  The queue is a calendar queue
 * (R. Brown, "Calendar queues", CACM 31(10), 1988): a ring of buckets of
 * `width` seconds each covers the near future, every bucket a small binary
 * heap, and events beyond the ring wait in an overflow heap until the ring
 * reaches them.  Push and pop cost O(1) on average when a bucket holds a few
 * events; the ring is rebuilt with a new width when the number of pending
 * events outgrows or undershoots it.
 */
#ifndef PPT_HEAP_H
#define PPT_HEAP_H
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct ppt_event {
    double t;
    uint64_t key;       /* creating entity id << 40 | its running count: ties never depend on placement */
    int32_t kind, target, a, b;
} ppt_event_t;

/* Room for `need` items of `item` bytes in the array p of *cap items (doubling; aborts when memory runs out). */
void *ppt_grow(void *p, int64_t *cap, size_t item, int64_t need);

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

/* A bucket: a small heap whose first BUCKET_INLINE events live beside its header (four cache lines,
 * aligned), moving to an array of their own only when the bucket overflows. */
#define BUCKET_INLINE 7
typedef struct ppt_bucket {
    ppt_heap_t heap;
    ppt_event_t inline_ev[BUCKET_INLINE];
    char pad[8];
} ppt_bucket_t;

static inline void bucket_push(ppt_bucket_t *b, const ppt_event_t *ev)
{
    if (b->heap.len == b->heap.cap && b->heap.ev == b->inline_ev) {
        b->heap.ev = NULL;
        b->heap.cap = 0;
        b->heap.ev = ppt_grow(NULL, &b->heap.cap, sizeof(ppt_event_t), 2 * BUCKET_INLINE);
        for (int64_t i = 0; i < b->heap.len; i++)
            b->heap.ev[i] = b->inline_ev[i];
    }
    heap_push(&b->heap, ev);
}

/* Pushes to later days wait in a short FIFO while their bucket is fetched into the cache: the ring
 * is larger than the caches, so a push straight into its bucket would stall on memory. */
#define STAGE 8
typedef struct ppt_staged {
    ppt_event_t ev;
    int64_t day;
} ppt_staged_t;

typedef struct ppt_queue {
    ppt_bucket_t *bucket;   /* ring of nbuckets; bucket of day d is bucket[d & mask] */
    int64_t nbuckets, mask;
    double width;           /* seconds per bucket */
    double per_width;       /* 1 / width */
    int64_t today;          /* day (floor(t / width)) of the current bucket */
    int64_t in_ring;        /* events in the ring, staged ones included */
    ppt_heap_t later;       /* events of days >= today + nbuckets */
    int64_t len;            /* all pending events */
    int64_t staged, stage_head;             /* staged events: stage[(stage_head + i) % STAGE] */
    ppt_staged_t stage[STAGE];              /* ring events of days after today, not yet in their bucket */
} ppt_queue_t;

static inline int64_t queue_day(const ppt_queue_t *q, double t)
{
    return (int64_t)(t * q->per_width);     /* times are never negative: truncation is floor */
}

void ppt_queue_init(ppt_queue_t *q, int64_t nbuckets, double width);
void ppt_queue_free(ppt_queue_t *q);
/* Rebuild the ring for the pending events (new bucket count and width). */
void ppt_queue_resize(ppt_queue_t *q);
/* Bring the ring to the first non-empty day (overflow events move in as it advances). */
void ppt_queue_advance(ppt_queue_t *q);
/* Put every staged event into its bucket. */
void ppt_queue_unstage(ppt_queue_t *q);

static inline void queue_push(ppt_queue_t *q, const ppt_event_t *ev)
{
    int64_t day = queue_day(q, ev->t);
    if (day <= q->today) {          /* today's bucket (before the first pop, the earliest event's) */
        bucket_push(&q->bucket[q->today & q->mask], ev);
        q->in_ring++;
    } else if (day - q->today < q->nbuckets) {
        if (q->staged == STAGE) {   /* the oldest staged event's bucket has had time to arrive */
            ppt_staged_t *old = &q->stage[q->stage_head];
            bucket_push(&q->bucket[old->day & q->mask], &old->ev);
            q->stage_head = (q->stage_head + 1) % STAGE;
            q->staged--;
        }
        ppt_bucket_t *b = &q->bucket[day & q->mask];
        __builtin_prefetch(b, 1);
        __builtin_prefetch((char *)b + 64, 1);
        __builtin_prefetch((char *)b + 128, 1);
        ppt_staged_t *s = &q->stage[(q->stage_head + q->staged++) % STAGE];
        s->ev = *ev;
        s->day = day;
        q->in_ring++;
    } else {
        heap_push(&q->later, ev);
    }
    if (++q->len > 8 * q->nbuckets)
        ppt_queue_resize(q);
}

/* The earliest event, or NULL when none is pending. */
static inline const ppt_event_t *queue_peek(ppt_queue_t *q)
{
    if (!q->len)
        return NULL;
    if (!q->bucket[q->today & q->mask].heap.len)
        ppt_queue_advance(q);
    return &q->bucket[q->today & q->mask].heap.ev[0];
}

static inline void queue_pop(ppt_queue_t *q, ppt_event_t *top)
{
    queue_peek(q);
    heap_pop(&q->bucket[q->today & q->mask].heap, top);
    q->in_ring--;
    if (--q->len < q->nbuckets / 4 && q->nbuckets > 1024)
        ppt_queue_resize(q);
}
#endif
