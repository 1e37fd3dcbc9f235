/* The bare compiled event loop: the same queue and event records as the packet core, no model. */
#include <stdlib.h>
#include "bench.h"
#include "core.h"
#include "_heap.h"

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
