/* Shared helpers of the packet core: hashing (core.h) and memory (_util.h). */
#define _DEFAULT_SOURCE          /* madvise, MADV_HUGEPAGE */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
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

/* Tables of many megabytes (a million-node network's ports, credits and packets) are read at random,
 * one record per event: on 4 KiB pages nearly every access also misses the TLB.  Such a block asks
 * the kernel for transparent huge pages (2 MiB), where it grants them; a hint, never an error. */
#define HUGE_PAGE_B ((size_t)2 << 20)

static void advise_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (bytes < 4 * HUGE_PAGE_B)
        return;
    uintptr_t first = ((uintptr_t)p + HUGE_PAGE_B - 1) & ~(uintptr_t)(HUGE_PAGE_B - 1);
    uintptr_t end = ((uintptr_t)p + bytes) & ~(uintptr_t)(HUGE_PAGE_B - 1);
    if (end > first)
        madvise((void *)first, end - first, MADV_HUGEPAGE);
#else
    (void)p, (void)bytes;
#endif
}

void *ppt_alloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size);
    if (!p)
        ppt_out_of_memory((count ? count : 1) * size);
    advise_huge(p, (count ? count : 1) * size);
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
    advise_huge(q, (size_t)n * item);
    return q;
}
