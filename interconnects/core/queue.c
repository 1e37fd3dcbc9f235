/* The calendar queue's slow paths: set-up, advancing over empty days, and rebuilding the ring. */
#include <string.h>
#include "_queue.h"

#define SAMPLE 512

void ppt_queue_init(ppt_queue_t *q, int64_t days, double width)
{
    memset(q, 0, sizeof *q);
    q->nepochs = 4;
    while (q->nepochs << EPOCH_BITS < days)
        q->nepochs *= 2;
    q->emask = q->nepochs - 1;
    q->width = width;
    q->per_width = 1.0 / width;
    q->bucket = aligned_alloc(64, EPOCH_DAYS * sizeof(ppt_bucket_t));   /* buckets on cache-line boundaries */
    if (!q->bucket)
        ppt_out_of_memory(EPOCH_DAYS * sizeof(ppt_bucket_t));
    q->epoch_ev = ppt_alloc((size_t)q->nepochs, sizeof(ppt_heap_t));
    for (int64_t i = 0; i < EPOCH_DAYS; i++) {
        q->bucket[i].heap.ev = q->bucket[i].inline_ev;
        q->bucket[i].heap.len = 0;
        q->bucket[i].heap.cap = BUCKET_INLINE;
    }
}

void ppt_queue_free(ppt_queue_t *q)
{
    for (int64_t i = 0; i < EPOCH_DAYS; i++)
        if (q->bucket[i].heap.ev != q->bucket[i].inline_ev)
            free(q->bucket[i].heap.ev);
    for (int64_t e = 0; e < q->nepochs; e++)
        free(q->epoch_ev[e].ev);
    free(q->bucket);
    free(q->epoch_ev);
    free(q->later.ev);
}

/* Move the walk to the first day of `epoch` (later than the current one, whose days are empty):
 * overflow events now within reach join their epoch's array, and that epoch's array is dealt into
 * the days' buckets. */
static void enter_epoch(ppt_queue_t *q, int64_t epoch)
{
    q->epoch = epoch;
    q->today = epoch << EPOCH_BITS;
    while (q->later.len && (queue_day(q, q->later.ev[0].t) >> EPOCH_BITS) - epoch < q->nepochs) {
        ppt_event_t ev;
        heap_pop(&q->later, &ev);
        epoch_append(q, queue_day(q, ev.t) >> EPOCH_BITS, &ev);
    }
    ppt_heap_t *a = &q->epoch_ev[epoch & q->emask];
    for (int64_t i = 0; i < a->len; i++) {
        if (q->hint.base && (q->hint.kinds >> a->ev[i].kind & 1))
            prefetch_record(q->hint.base + a->ev[i].a * q->hint.stride, q->hint.stride);
        day_push(q, queue_day(q, a->ev[i].t), &a->ev[i]);
    }
    q->in_epochs -= a->len;
    a->len = 0;
}

void ppt_queue_advance(ppt_queue_t *q)
{
    while (!q->bucket[q->today & (EPOCH_DAYS - 1)].heap.len) {
        if (q->in_days) {               /* a later day of this epoch holds events */
            q->today++;
            continue;
        }
        int64_t next = q->epoch + 1;
        if (q->in_epochs)
            while (!q->epoch_ev[next & q->emask].len)
                next++;
        else
            next = queue_day(q, q->later.ev[0].t) >> EPOCH_BITS;
        enter_epoch(q, next);
    }
}

static int by_time(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

void ppt_queue_resize(ppt_queue_t *q)
{
    int64_t n = q->len, k = 0;
    ppt_event_t *all = ppt_alloc((size_t)n, sizeof(ppt_event_t));
    double first = INFINITY;
    for (int64_t i = 0; i < EPOCH_DAYS; i++)
        for (int64_t j = 0; j < q->bucket[i].heap.len; j++)
            all[k++] = q->bucket[i].heap.ev[j];
    for (int64_t e = 0; e < q->nepochs; e++)
        for (int64_t j = 0; j < q->epoch_ev[e].len; j++)
            all[k++] = q->epoch_ev[e].ev[j];
    for (int64_t j = 0; j < q->later.len; j++)
        all[k++] = q->later.ev[j];
    /* width: about six events per day where events are densest (between the sample's quartiles) */
    double sample[SAMPLE];
    int64_t m = n < SAMPLE ? n : SAMPLE;
    for (int64_t i = 0; i < m; i++)
        sample[i] = all[i * n / m].t;
    for (int64_t i = 0; i < n; i++)
        if (all[i].t < first)
            first = all[i].t;
    qsort(sample, (size_t)m, sizeof(double), by_time);
    double spread = m ? sample[3 * m / 4] - sample[m / 4] : 0.0;
    if (!(spread > 0.0) && m)
        spread = sample[m - 1] - sample[0];
    double width = spread > 0.0 && n ? 12.0 * spread / (double)n : q->width;
    ppt_queue_hint_t hint = q->hint;
    ppt_queue_free(q);
    ppt_queue_init(q, n / 2, width);
    q->hint = hint;
    if (n) {
        q->today = queue_day(q, first);
        q->epoch = q->today >> EPOCH_BITS;
    }
    for (int64_t i = 0; i < n; i++)
        queue_push(q, &all[i]);
    free(all);
}
