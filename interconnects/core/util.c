/* Shared helpers of the packet core: hashing. */
#include "core.h"

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
