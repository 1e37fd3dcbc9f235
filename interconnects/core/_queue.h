/* Private to the C sources: the core's event queue.
 *
 * Events (heap.h) leave in (time, key) order.  The queue is a calendar queue
 * (R. Brown, "Calendar queues", CACM 31(10), 1988) of days `width` seconds
 * long, in two tiers (as a ladder queue has rungs: W. T. Tang, R. S. M. Goh,
 * I. L.-J. Thng, "Ladder queue", ACM TOMACS 15(3), 2005): the days of the
 * current epoch are buckets, each a small binary heap; each later epoch
 * within reach is an unsorted array dealt into the buckets when the walk
 * reaches it; events beyond reach wait in an overflow heap.  Push and pop
 * cost O(1) on average when a day holds a few events; the calendar is
 * rebuilt with a new width when the number of pending events outgrows or
 * undershoots it.
 */
#ifndef PPT_QUEUE_H
#define PPT_QUEUE_H
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "heap.h"
#include "_util.h"

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

/* The calendar has two tiers.  The days of the current epoch (EPOCH_DAYS days) are a ring of
 * buckets small enough to stay in the cache.  Each later epoch within reach is a plain array that
 * pushes append to, in any order; when the walk reaches that epoch, its array is dealt into the
 * ring.  A push to a later day thus writes at the end of one of a few hundred arrays, whose ends stay
 * in the cache, instead of into a bucket of a ring larger than the caches.  Epochs beyond reach wait
 * in the overflow heap. */
#define EPOCH_BITS 8
#define EPOCH_DAYS (1 << EPOCH_BITS)

/* Fetch the `size`-byte record at `record` into the cache: both lines, since a record need not sit
 * within one (96-byte packet records cross a line boundary every other slot). */
static inline void prefetch_record(const void *record, int64_t size)
{
    __builtin_prefetch(record);
    __builtin_prefetch((const char *)record + size - 1);
}

/* Records the events of an epoch will touch, fetched into the cache while the epoch is dealt: an
 * event whose kind is in the bit set `kinds` touches base + a * stride (its field a). */
typedef struct ppt_queue_hint {
    const char *base;
    int64_t stride;
    uint32_t kinds;
} ppt_queue_hint_t;

typedef struct ppt_queue {
    ppt_bucket_t *bucket;   /* the current epoch's days: bucket of day d is bucket[d & (EPOCH_DAYS - 1)] */
    ppt_heap_t *epoch_ev;   /* ring of nepochs arrays: epoch e's events in epoch_ev[e & emask], unordered */
    int64_t nepochs, emask;
    double width;           /* seconds per day */
    double per_width;       /* 1 / width */
    int64_t today;          /* day (floor(t / width)) of the current bucket */
    int64_t epoch;          /* today >> EPOCH_BITS, but for the days before the first pop */
    int64_t in_days;        /* events in the current epoch's buckets */
    int64_t in_epochs;      /* events in the later epochs' arrays */
    ppt_heap_t later;       /* events of epochs >= epoch + nepochs */
    int64_t len;            /* all pending events */
    ppt_queue_hint_t hint;
} ppt_queue_t;

static inline int64_t queue_day(const ppt_queue_t *q, double t)
{
    return (int64_t)(t * q->per_width);     /* times are never negative: truncation is floor */
}

/* An empty queue whose days are `width` seconds, reaching about `days` days ahead. */
void ppt_queue_init(ppt_queue_t *q, int64_t days, double width);
void ppt_queue_free(ppt_queue_t *q);
/* Rebuild the calendar for the pending events (new width and reach). */
void ppt_queue_resize(ppt_queue_t *q);
/* Bring the walk to the first non-empty day (dealing later epochs into the ring as it goes). */
void ppt_queue_advance(ppt_queue_t *q);

/* Into the bucket of `day` of the current epoch; a day before today goes into today's bucket (before
 * the first pop, today is the earliest event's day). */
static inline void day_push(ppt_queue_t *q, int64_t day, const ppt_event_t *ev)
{
    bucket_push(&q->bucket[(day < q->today ? q->today : day) & (EPOCH_DAYS - 1)], ev);
    q->in_days++;
}

/* Onto the array of a later epoch within reach. */
static inline void epoch_append(ppt_queue_t *q, int64_t epoch, const ppt_event_t *ev)
{
    ppt_heap_t *a = &q->epoch_ev[epoch & q->emask];
    if (a->len == a->cap)
        a->ev = ppt_grow(a->ev, &a->cap, sizeof(ppt_event_t), a->len + 1);
    a->ev[a->len++] = *ev;
    q->in_epochs++;
}

static inline void queue_push(ppt_queue_t *q, const ppt_event_t *ev)
{
    int64_t day = queue_day(q, ev->t);
    int64_t ahead = (day >> EPOCH_BITS) - q->epoch;     /* today is always in the current epoch */
    if (ahead <= 0)
        day_push(q, day, ev);
    else if (ahead < q->nepochs)
        epoch_append(q, day >> EPOCH_BITS, ev);
    else
        heap_push(&q->later, ev);
    if (++q->len > 8 * (q->nepochs << EPOCH_BITS))
        ppt_queue_resize(q);
}

/* The earliest event, or NULL when none is pending. */
static inline const ppt_event_t *queue_peek(ppt_queue_t *q)
{
    if (!q->len)
        return NULL;
    if (!q->bucket[q->today & (EPOCH_DAYS - 1)].heap.len)
        ppt_queue_advance(q);
    return &q->bucket[q->today & (EPOCH_DAYS - 1)].heap.ev[0];
}

static inline void queue_pop(ppt_queue_t *q, ppt_event_t *top)
{
    queue_peek(q);
    heap_pop(&q->bucket[q->today & (EPOCH_DAYS - 1)].heap, top);
    q->in_days--;
    if (--q->len < (q->nepochs << EPOCH_BITS) / 4 && q->nepochs > 4)
        ppt_queue_resize(q);
}
#endif
