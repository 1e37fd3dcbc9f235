/* Torus routings: dimension order and minimal adaptive.
 *
 * pkt->route[0] is one hash per packet: its low bits break direction ties (bit d for dimension d,
 * when the destination is exactly half-way round) and its high bits pick among parallel links.
 */
#include "torus.h"
#include "_torus.h"

void ppt_torus_inject(const ppt_routing_t *rt, ppt_packet_t *pkt)
{
    pkt->route[0] = (int64_t)ppt_rand(rt, pkt, 0);
    if (((const ppt_torus_t *)rt->topo)->port_peer)
        ppt_torus_fail_dor_inject(rt, pkt);
}

void ppt_torus_adaptive_inject(const ppt_routing_t *rt, ppt_packet_t *pkt)
{
    pkt->route[0] = (int64_t)ppt_rand(rt, pkt, 0);
    pkt->route[1] = 0;      /* with failed links: set once the packet takes the escape channel */
}

/* Dimension order, dateline VCs (Dally & Seitz): dimensions are corrected in index order, each the
 * shorter way round.  The wraparound link of each ring is its dateline: a packet that has crossed
 * it (its coordinate passed the ring's end since it entered the ring) travels on VC 1, else VC 0.
 * Dependencies only go to a later dimension, or further along one ring on a VC that never falls,
 * and no ring's VC-0 channels can wait in a cycle (none crosses the dateline), so the channel
 * dependency graph is acyclic with 2 VCs. */
int32_t ppt_torus_dor_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc)
{
    const ppt_torus_t *t = rt->topo;
    if (t->port_peer)
        return ppt_torus_fail_dor_route(rt, pkt, router, vc);
    int32_t target = t->node_router[pkt->dst];
    if (router == target) {
        *vc = 0;
        return t->node_port[pkt->dst];
    }
    const int32_t *here = &t->coord[(int64_t)router * t->nrings], *there = &t->coord[(int64_t)target * t->nrings];
    int32_t j = 0;
    while (here[j] == there[j])
        j++;
    int32_t k = t->k[j], c = here[j], start = t->coord[(int64_t)t->node_router[pkt->src] * t->nrings + j];
    int32_t ahead = ((there[j] - c) % k + k) % k;
    uint64_t hash = (uint64_t)pkt->route[0];
    int32_t first;
    if (2 * ahead < k || (2 * ahead == k && !((hash >> t->dim[j]) & 1))) {
        first = t->plus[j];
        *vc = c < start || c == k - 1;
    } else {
        first = t->minus[j];
        *vc = c > start || c == 0;
    }
    if (t->links[j] == 1)
        return first;
    return first + (int32_t)(((hash >> PPT_TORUS_PICK_SHIFT) + (uint64_t)pkt->hops) % (uint64_t)t->links[j]);
}

/* Minimal adaptive: a packet finishes the dimension it is travelling in, then picks the next
 * dimension, its direction (when half-way round) and the parallel link by the least occupied
 * output port.  It uses VC 2 * finished + dateline, `finished` counting the dimensions already at
 * the destination coordinate: that count never falls along a path and within one count a packet
 * moves along one ring only, so the channel dependency graph is acyclic with 2n VCs. */
int32_t ppt_torus_adaptive_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc)
{
    const ppt_torus_t *t = rt->topo;
    if (t->port_peer)
        return ppt_torus_fail_adaptive_route(rt, pkt, router, vc);
    int32_t target = t->node_router[pkt->dst];
    if (router == target) {
        *vc = 0;
        return t->node_port[pkt->dst];
    }
    ppt_torus_moves_t moves;
    ppt_torus_adaptive_moves(t, pkt, router, target, NULL, &moves);
    uint64_t key = ((uint64_t)pkt->route[0] >> PPT_TORUS_PICK_SHIFT) + (uint64_t)pkt->hops;
    return ppt_torus_least_occupied(rt, &moves, router, key, vc);     /* a packet short of its router
                                                                         * always has a move: never -1 */
}
