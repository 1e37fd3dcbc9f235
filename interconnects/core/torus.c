/* Torus routings: dimension order and minimal adaptive.
 *
 * pkt->route[0] is one hash per packet: its low bits break direction ties (bit d for dimension d,
 * when the destination is exactly half-way round) and its high bits pick among parallel links.
 */
#include <stddef.h>
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

void ppt_torus_adaptive_moves(const ppt_torus_t *t, const ppt_packet_t *pkt, int32_t router, int32_t target,
                              ppt_torus_enter_fn may_enter, ppt_torus_moves_t *moves)
{
    const int32_t *here = &t->coord[(int64_t)router * t->nrings], *there = &t->coord[(int64_t)target * t->nrings];
    const int32_t *source = &t->coord[(int64_t)t->node_router[pkt->src] * t->nrings];
    int32_t n = 0, finished = 0, along = 0;
    for (int32_t j = 0; j < t->nrings; j++) {
        int32_t k = t->k[j], c = here[j], start = source[j], ahead = ((there[j] - c) % k + k) % k;
        if (c == there[j]) {
            finished++;
        } else if (!along) {
            if (c != start) {       /* part-way along this ring: keep going the way it started */
                along = 1;
                n = 1;
                if (2 * ahead < k)
                    moves->port[0] = t->plus[j], moves->dateline[0] = c < start || c == k - 1;
                else
                    moves->port[0] = t->minus[j], moves->dateline[0] = c > start || c == 0;
                moves->links[0] = t->links[j];
            } else {
                if (2 * ahead <= k && n < PPT_TORUS_MAX_MOVES
                    && (!may_enter || may_enter(t, router, t->plus[j], t->links[j], ahead)))
                    moves->port[n] = t->plus[j], moves->dateline[n] = c == k - 1, moves->links[n++] = t->links[j];
                if (2 * ahead >= k && n < PPT_TORUS_MAX_MOVES
                    && (!may_enter || may_enter(t, router, t->minus[j], t->links[j], k - ahead)))
                    moves->port[n] = t->minus[j], moves->dateline[n] = c == 0, moves->links[n++] = t->links[j];
            }
        }
    }
    moves->count = n;
    moves->finished = finished;
}

/* Whether output `port` of router has a working link (every port does when no link has failed). */
static inline int link_works(const ppt_torus_t *t, int32_t router, int32_t port)
{
    return !t->port_peer || t->port_peer[(int64_t)router * t->radix + port] >= 0;
}

int32_t ppt_torus_least_occupied(const ppt_routing_t *rt, const ppt_torus_moves_t *moves, int32_t router,
                                 uint64_t key, int32_t *vc)
{
    const ppt_torus_t *t = rt->topo;
    double least = 0.0;
    int32_t ties = 0;
    for (int32_t m = 0; m < moves->count; m++)
        for (int32_t l = 0; l < moves->links[m]; l++) {
            if (!link_works(t, router, moves->port[m] + l))
                continue;
            double load = ppt_occupancy(rt, router, moves->port[m] + l);
            if (!ties || load < least)
                least = load, ties = 1;
            else if (load == least)
                ties++;
        }
    *vc = 0;
    if (!ties)
        return -1;
    int32_t pick = (int32_t)(key % (uint64_t)ties);
    for (int32_t m = 0; m < moves->count; m++)
        for (int32_t l = 0; l < moves->links[m]; l++)
            if (link_works(t, router, moves->port[m] + l) && ppt_occupancy(rt, router, moves->port[m] + l) == least
                && pick-- == 0) {
                *vc = 2 * moves->finished + moves->dateline[m];
                return moves->port[m] + l;
            }
    return -1;                      /* unreachable: `ties` ports passed */
}
