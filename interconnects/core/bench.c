/* The bare compiled event loop: the same queue and event records as the packet core, no model. */
#include <stdlib.h>
#include "bench.h"
#include "core.h"
#include "_queue.h"

uint64_t ppt_bare_loop(int64_t depth, int64_t events, uint64_t seed)
{
    ppt_queue_t heap;
    ppt_queue_init(&heap, 1024, 1e-9);
    uint64_t state = seed, sum = 0;
    for (int64_t i = 0; i < depth; i++) {
        state = ppt_mix64(state);
        ppt_event_t ev = {(double)(state >> 11) * 0x1p-53, (uint64_t)i, 1, (int32_t)i, 0, 0};
        queue_push(&heap, &ev);
    }
    ppt_event_t ev;
    for (int64_t i = 0; i < events && heap.len; i++) {
        queue_pop(&heap, &ev);
        state = ppt_mix64(state ^ ev.key);
        sum += (uint64_t)ev.target;
        ev.t += (double)(state >> 11) * 0x1p-53;
        ev.key += (uint64_t)depth;
        queue_push(&heap, &ev);
    }
    ppt_queue_free(&heap);
    return sum;
}

int64_t ppt_queue_check(int64_t depth, int64_t events, double spread, int64_t far, uint64_t seed)
{
    ppt_queue_t q;
    ppt_heap_t ref = {0};
    ppt_queue_init(&q, 1024, 1e-9);
    uint64_t state = seed, key = 0;
    double now = 0.0;
    int64_t wrong = 0, target = depth;
    for (int64_t i = 0; i < events; i++) {
        while (q.len < target) {
            state = ppt_mix64(state);
            double ahead = (double)(state >> 11) * 0x1p-53 * spread;
            if (far > 0 && state % (uint64_t)far == 0)
                ahead *= 1000.0;
            if (state % 7 == 0)
                ahead = 0.0;                            /* ties in time: the key decides */
            ppt_event_t ev = {now + ahead, key++, 1, (int32_t)i, 0, 0};
            queue_push(&q, &ev);
            heap_push(&ref, &ev);
        }
        if (i % (events / 4 + 1) == 0)                  /* swing the depth: the queue grows and shrinks */
            target = target == depth ? depth / 10 + 1 : depth;
        ppt_event_t a, b;
        queue_pop(&q, &a);
        heap_pop(&ref, &b);
        wrong += a.t != b.t || a.key != b.key;
        now = b.t;
    }
    ppt_queue_free(&q);
    free(ref.ev);
    return wrong;
}
