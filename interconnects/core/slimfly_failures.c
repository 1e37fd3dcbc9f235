/* Failure-aware Slim Fly routing: legal paths over surviving links only.
 *
 * Failed links are -1 in sf->port_peer, so no choice can cross one.  The MMS graph keeps its
 * closed form (slimfly.c): r and t are adjacent when the fault-free minimal path is one hop, and
 * that link survives when port_peer still names t; a 2-hop path survives through a surviving
 * neighbour n of r adjacent to t over a surviving link.  So a legality check scans one router's
 * k' network ports and needs no all-pairs table (53,138 routers of the 1m preset would need 2.8 GB).
 *
 * Why the VC scheme stays deadlock-free: a leg is taken only where it is at most 2 surviving hops
 * long and each hop moves one surviving hop closer, so MIN still takes at most 2 hops and Valiant
 * (two legs) at most 4; the VC is still the hop index, strictly rising along every path, and the
 * channel dependency graph stays acyclic whatever links fail. */
#include "_slimfly.h"
#include "_legal.h"

/* Whether routers n != t share a surviving link. */
static int adjacent(const ppt_slimfly_t *sf, int32_t n, int32_t t)
{
    int32_t hops, port = ppt_slimfly_min_step(sf, n, t, &hops);
    return hops == 1 && sf->port_peer[(int64_t)n * sf->radix + port] == t;
}

/* Port of router r to a surviving neighbour adjacent to t over a surviving link. */
static int via_middle(const void *topo, int32_t r, int32_t port, int32_t t)
{
    const ppt_slimfly_t *sf = topo;
    int32_t n = sf->port_peer[(int64_t)r * sf->radix + port];
    return n >= 0 && n != t && adjacent(sf, n, t);
}

int32_t ppt_sff_hops(const ppt_slimfly_t *sf, int32_t r, int32_t t)
{
    if (r == t)
        return 0;
    if (adjacent(sf, r, t))
        return 1;
    for (int32_t port = sf->p; port < sf->radix; port++)
        if (via_middle(sf, r, port, t))
            return 2;
    return PPT_SFF_FAR;
}

int32_t ppt_sff_step(const ppt_slimfly_t *sf, uint64_t key, int32_t r, int32_t t)
{
    int32_t hops, port = ppt_slimfly_min_step(sf, r, t, &hops);
    if (hops == 1 && sf->port_peer[(int64_t)r * sf->radix + port] == t)
        return port;
    return ppt_legal_port(sf, via_middle, key ^ (uint64_t)t, r, sf->p, sf->radix, t);
}

int32_t ppt_sff_mid(const ppt_slimfly_t *sf, int32_t start, int32_t src, int32_t dst)
{
    for (int32_t k = 0; k < sf->num_routers; k++) {
        int32_t m = (start + k) % sf->num_routers;
        if (ppt_sff_hops(sf, src, m) <= 2 && ppt_sff_hops(sf, m, dst) <= 2)
            return m;
    }
    return -1;
}
