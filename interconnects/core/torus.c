/* Torus routings: dimension order and minimal adaptive.
 *
 * pkt->route[0] is one hash per packet: its low bits break direction ties (bit d for dimension d,
 * when the destination is exactly half-way round) and its high bits pick among parallel links.
 */
#include "torus.h"
#include "_torus.h"

#define PICK_SHIFT 32

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
    return first + (int32_t)(((hash >> PICK_SHIFT) + (uint64_t)pkt->hops) % (uint64_t)t->links[j]);
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
    const int32_t *here = &t->coord[(int64_t)router * t->nrings], *there = &t->coord[(int64_t)target * t->nrings];
    const int32_t *source = &t->coord[(int64_t)t->node_router[pkt->src] * t->nrings];
    enum { MAX_MOVES = 16 };
    int32_t move_port[MAX_MOVES], move_links[MAX_MOVES], move_vc[MAX_MOVES], moves = 0, finished = 0, along = 0;
    for (int32_t j = 0; j < t->nrings; j++) {
        int32_t k = t->k[j], c = here[j], start = source[j], ahead = ((there[j] - c) % k + k) % k;
        if (c == there[j]) {
            finished++;
        } else if (!along) {
            if (c != start) {       /* part-way along this ring: keep going the way it started */
                along = 1;
                moves = 1;
                if (2 * ahead < k)
                    move_port[0] = t->plus[j], move_vc[0] = c < start || c == k - 1;
                else
                    move_port[0] = t->minus[j], move_vc[0] = c > start || c == 0;
                move_links[0] = t->links[j];
            } else {
                if (2 * ahead <= k && moves < MAX_MOVES)
                    move_port[moves] = t->plus[j], move_vc[moves] = c == k - 1, move_links[moves++] = t->links[j];
                if (2 * ahead >= k && moves < MAX_MOVES)
                    move_port[moves] = t->minus[j], move_vc[moves] = c == 0, move_links[moves++] = t->links[j];
            }
        }
    }
    /* the least occupied port of all productive moves; ties split by the packet's hash */
    double least = 0.0;
    int32_t ties = 0;
    for (int32_t m = 0; m < moves; m++)
        for (int32_t l = 0; l < move_links[m]; l++) {
            double load = ppt_occupancy(rt, router, move_port[m] + l);
            if (!ties || load < least)
                least = load, ties = 1;
            else if (load == least)
                ties++;
        }
    int32_t pick = (int32_t)((((uint64_t)pkt->route[0] >> PICK_SHIFT) + (uint64_t)pkt->hops) % (uint64_t)ties);
    for (int32_t m = 0; m < moves; m++)
        for (int32_t l = 0; l < move_links[m]; l++)
            if (ppt_occupancy(rt, router, move_port[m] + l) == least && pick-- == 0) {
                *vc = 2 * finished + move_vc[m];
                return move_port[m] + l;
            }
    *vc = 0;
    return -1;      /* unreachable: a packet short of its router always has a productive move */
}
