/* Private to the torus routings: the failure-aware routing (torus_failures.c) that torus.c hands
 * over to when t->port_peer is set, i.e. when some torus links have failed (see torus.py). */
#ifndef PPT_TORUS_PRIVATE_H
#define PPT_TORUS_PRIVATE_H
#include <stddef.h>
#include "torus.h"

/* pkt->route[0], one hash per packet: its bits from PPT_TORUS_PICK_SHIFT up pick among parallel links. */
#define PPT_TORUS_PICK_SHIFT 32
/* VC of the up*-down* escape channel of the dimension-order routing with failed links. */
#define PPT_TORUS_DOR_ESCAPE_VC 4

void ppt_torus_fail_dor_inject(const ppt_routing_t *rt, ppt_packet_t *pkt);
int32_t ppt_torus_fail_dor_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc);
int32_t ppt_torus_fail_adaptive_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc);
/* The port of the escape path (up*-down* over the surviving links) from router towards target,
 * which must be in router's connected component; the parallel link is chosen by key. */
int32_t ppt_torus_escape_port(const ppt_torus_t *t, uint64_t key, int32_t router, int32_t target);

/* The productive moves of a minimally adaptive packet at a router: ring directions it may take
 * next, each with its first port, parallel links and dateline VC bit. */
enum { PPT_TORUS_MAX_MOVES = 16 };
typedef struct ppt_torus_moves {
    int32_t port[PPT_TORUS_MAX_MOVES], links[PPT_TORUS_MAX_MOVES], dateline[PPT_TORUS_MAX_MOVES];
    int32_t count;
    int32_t finished;       /* rings already at the destination coordinate */
} ppt_torus_moves_t;
/* Whether a packet at router may enter a ring through ports [first, first + links), `hops` hops to
 * go along it. */
typedef int (*ppt_torus_enter_fn)(const ppt_torus_t *t, int32_t router, int32_t first, int32_t links,
                                  int32_t hops);

/* The productive moves of pkt at router (not target): the way it is going along a ring it has
 * entered, else a minimal way into each ring not finished that may_enter (NULL: any) allows. */
static inline void ppt_torus_adaptive_moves(const ppt_torus_t *t, const ppt_packet_t *pkt, int32_t router,
                                            int32_t target, ppt_torus_enter_fn may_enter, ppt_torus_moves_t *moves)
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

/* The least occupied port with a working link among the moves' (ties split by key), and its VC
 * (*vc: 2 * finished + dateline); -1 (and VC 0) if no such port. */
static inline int32_t ppt_torus_least_occupied(const ppt_routing_t *rt, const ppt_torus_moves_t *moves,
                                               int32_t router, uint64_t key, int32_t *vc)
{
    const ppt_torus_t *t = rt->topo;
    const int32_t *peer = t->port_peer ? &t->port_peer[(int64_t)router * t->radix] : NULL;   /* NULL: all work */
    double least = 0.0;
    int32_t ties = 0;
    for (int32_t m = 0; m < moves->count; m++)
        for (int32_t l = 0; l < moves->links[m]; l++) {
            if (peer && peer[moves->port[m] + l] < 0)
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
            if ((!peer || peer[moves->port[m] + l] >= 0) && ppt_occupancy(rt, router, moves->port[m] + l) == least
                && pick-- == 0) {
                *vc = 2 * moves->finished + moves->dateline[m];
                return moves->port[m] + l;
            }
    return -1;                      /* unreachable: `ties` ports passed */
}
#endif
