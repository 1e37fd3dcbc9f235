/* The calendar queue's slow paths: set-up, advancing over empty days, and rebuilding the ring. */
#include <stdio.h>
#include <string.h>
#include "_heap.h"

#define MIN_BUCKETS 1024
#define SAMPLE 512

void *ppt_grow(void *p, int64_t *cap, size_t item, int64_t need)
{
    if (need <= *cap)
        return p;
    int64_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(p, (size_t)n * item);
    if (!q) {
        fprintf(stderr, "ppt: out of memory growing a packet-core table to %lld entries\n", (long long)n);
        abort();
    }
    *cap = n;
    return q;
}

void ppt_queue_init(ppt_queue_t *q, int64_t nbuckets, double width)
{
    memset(q, 0, sizeof *q);
    q->nbuckets = nbuckets;
    q->mask = nbuckets - 1;
    q->width = width;
    q->per_width = 1.0 / width;
    q->bucket = aligned_alloc(64, (size_t)nbuckets * sizeof(ppt_bucket_t));
    if (!q->bucket) {
        fprintf(stderr, "ppt: out of memory for the event queue\n");
        abort();
    }
    for (int64_t i = 0; i < nbuckets; i++) {
        q->bucket[i].heap.ev = q->bucket[i].inline_ev;
        q->bucket[i].heap.len = 0;
        q->bucket[i].heap.cap = BUCKET_INLINE;
    }
}

void ppt_queue_free(ppt_queue_t *q)
{
    for (int64_t i = 0; i < q->nbuckets; i++)
        if (q->bucket[i].heap.ev != q->bucket[i].inline_ev)
            free(q->bucket[i].heap.ev);
    free(q->bucket);
    free(q->later.ev);
}

static void into_ring(ppt_queue_t *q, const ppt_event_t *ev)
{
    int64_t day = queue_day(q, ev->t);
    bucket_push(&q->bucket[(day < q->today ? q->today : day) & q->mask], ev);
    q->in_ring++;
}

/* Put the staged events of `day` (all of them when day < 0) into their buckets, keeping the rest in order. */
static void unstage_day(ppt_queue_t *q, int64_t day)
{
    int64_t i, kept = 0;
    ppt_staged_t keep[STAGE];
    for (i = 0; i < q->staged; i++) {
        ppt_staged_t *s = &q->stage[(q->stage_head + i) % STAGE];
        if (day < 0 || s->day == day)
            bucket_push(&q->bucket[s->day & q->mask], &s->ev);
        else
            keep[kept++] = *s;
    }
    for (i = 0; i < kept; i++)
        q->stage[i] = keep[i];
    q->stage_head = 0;
    q->staged = kept;
}

void ppt_queue_unstage(ppt_queue_t *q)
{
    unstage_day(q, -1);
}

/* The earliest day of a staged event (INT64_MAX when none is staged). */
static int64_t first_staged_day(const ppt_queue_t *q)
{
    int64_t first = INT64_MAX;
    for (int64_t i = 0; i < q->staged; i++)
        if (q->stage[(q->stage_head + i) % STAGE].day < first)
            first = q->stage[(q->stage_head + i) % STAGE].day;
    return first;
}

void ppt_queue_advance(ppt_queue_t *q)
{
    int64_t staged_day = first_staged_day(q);
    while (!q->bucket[q->today & q->mask].heap.len) {
        if (q->in_ring)
            q->today++;
        else
            q->today = queue_day(q, q->later.ev[0].t);
        while (q->later.len && queue_day(q, q->later.ev[0].t) < q->today + q->nbuckets) {
            ppt_event_t ev;
            heap_pop(&q->later, &ev);
            into_ring(q, &ev);
        }
        if (q->today >= staged_day) {       /* staged days lie ahead of today: the walk meets them */
            unstage_day(q, q->today);
            staged_day = first_staged_day(q);
        }
    }
}

static int by_time(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

void ppt_queue_resize(ppt_queue_t *q)
{
    ppt_queue_unstage(q);
    int64_t n = q->len, k = 0;
    ppt_event_t *all = malloc((size_t)(n ? n : 1) * sizeof(ppt_event_t));
    if (!all) {
        fprintf(stderr, "ppt: out of memory rebuilding the event queue\n");
        abort();
    }
    double first = INFINITY;
    for (int64_t i = 0; i < q->nbuckets; i++)
        for (int64_t j = 0; j < q->bucket[i].heap.len; j++)
            all[k++] = q->bucket[i].heap.ev[j];
    for (int64_t j = 0; j < q->later.len; j++)
        all[k++] = q->later.ev[j];
    /* width: about six events per bucket where events are densest (between the sample's quartiles);
     * fewer, fuller buckets keep the ring small enough to stay in cache */
    double sample[SAMPLE];
    int64_t m = n < SAMPLE ? n : SAMPLE;
    for (int64_t i = 0; i < m; i++) {
        sample[i] = all[i * n / m].t;
        if (sample[i] < first)
            first = sample[i];
    }
    for (int64_t i = 0; i < n; i++)
        if (all[i].t < first)
            first = all[i].t;
    qsort(sample, (size_t)m, sizeof(double), by_time);
    double spread = m ? sample[3 * m / 4] - sample[m / 4] : 0.0;
    if (!(spread > 0.0) && m)
        spread = sample[m - 1] - sample[0];
    double width = spread > 0.0 && n ? 12.0 * spread / (double)n : q->width;
    int64_t buckets = MIN_BUCKETS;
    while (buckets < n / 2)
        buckets *= 2;
    ppt_queue_free(q);
    ppt_queue_init(q, buckets, width);
    q->today = n ? queue_day(q, first) : 0;
    for (int64_t i = 0; i < n; i++) {
        if (queue_day(q, all[i].t) - q->today < q->nbuckets)
            into_ring(q, &all[i]);
        else
            heap_push(&q->later, &all[i]);
    }
    q->len = n;
    free(all);
}
