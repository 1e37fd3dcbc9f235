/* The bare compiled event loop that `ppt bench network` compares the packet core with. */
#ifndef PPT_BENCH_H
#define PPT_BENCH_H
#include <stdint.h>

/* Keep `depth` events pending in the core's own queue and run `events` of them, each scheduling
 * one successor a random time later (a PHOLD-style hold model).  Returns a checksum. */
uint64_t ppt_bare_loop(int64_t depth, int64_t events, uint64_t seed);
#endif
