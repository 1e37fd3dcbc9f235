/* Shared helpers of the packet core: hashing (core.h) and memory (_util.h). */
#include <stdio.h>
#include <stdlib.h>
#include "core.h"
#include "_util.h"

uint64_t ppt_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

uint64_t ppt_rand(const ppt_routing_t *rt, const ppt_packet_t *pkt, uint64_t salt)
{
    return ppt_mix64((rt->seed * 1000003ULL + pkt->uid) * 131ULL + salt);
}

_Noreturn void ppt_out_of_memory(size_t bytes)
{
    fprintf(stderr, "ppt: out of memory in the packet core (%zu more bytes)\n", bytes);
    abort();
}

void *ppt_alloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size);
    if (!p)
        ppt_out_of_memory((count ? count : 1) * size);
    return p;
}

void *ppt_grow(void *p, int64_t *cap, size_t item, int64_t need)
{
    if (need <= *cap)
        return p;
    int64_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(p, (size_t)n * item);
    if (!q)
        ppt_out_of_memory((size_t)n * item);
    *cap = n;
    return q;
}
