/* The bare compiled event loop that `ppt bench network` compares the packet core with. */
#ifndef PPT_BENCH_H
#define PPT_BENCH_H
#include <stdint.h>

/* Keep `depth` events pending in the core's own queue and run `events` of them, each scheduling
 * one successor a random time later (a PHOLD-style hold model).  Returns a checksum. */
uint64_t ppt_bare_loop(int64_t depth, int64_t events, uint64_t seed);

/* Pop the core's event queue `events` times beside a plain binary heap fed the same pushes: before
 * each pop, events up to `spread` seconds after the last popped time (one in seven at that very time,
 * with `far` > 0 one in `far` 1,000 times further) top the queue up to `depth` pending, or to a tenth
 * of it in alternate quarters of the run, so the queue resizes.  Returns the pops that differ. */
int64_t ppt_queue_check(int64_t depth, int64_t events, double spread, int64_t far, uint64_t seed);
#endif
