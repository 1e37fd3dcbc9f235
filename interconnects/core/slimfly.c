/* Slim Fly routings: MIN, Valiant and UGAL-L on the MMS graphs of Besta & Hoefler, SC14.
 *
 * VC scheme (all three): hop-indexed, VC i on router hop i.  A path has at most 2 hops (MIN)
 * or 2 + 2 (VAL, UGAL), and the VC strictly rises along it, so no cycle of channels can wait
 * on itself: the channel dependency graph is acyclic and the routing deadlock-free with 2 or 4 VCs.
 * pkt->route[0] holds the Valiant intermediate router, -1 once reached (or on the minimal path),
 * and -2 before UGAL has decided at the source router.
 *
 * With failed links (sf->port_peer set) every leg is a shortest surviving path of at most 2 hops
 * and Valiant intermediates are only those both legs reach so; why the VC scheme stays
 * deadlock-free then is told in slimfly_failures.c.
 */
#include "slimfly.h"
#include "_slimfly.h"
#include "ugal.h"

#define UNDECIDED (-2)

int32_t ppt_slimfly_min_step(const ppt_slimfly_t *sf, int32_t r, int32_t t, int32_t *hops)
{
    int32_t q = sf->q, p = sf->p, h = sf->h, q2 = q * q;
    int32_t sr = r / q2, ar = r % q2 / q, br = r % q;
    int32_t st = t / q2, at = t % q2 / q, bt = t % q;
    const int32_t *add = sf->add, *sub = sf->sub, *mul = sf->mul;
    if (sr == st) {
        if (ar == at) {                                 /* one column: intra links only */
            int32_t diff = sub[bt * q + br], i = sf->pos[sr][diff];
            if (i >= 0) {
                *hops = 1;
                return p + i;
            }
            *hops = 2;
            return p + sf->pos[sr][sf->two[sr][diff]];
        }
        /* two columns of one subgraph meet at the one router of the other subgraph on both */
        *hops = 2;
        if (sr == 0)                                    /* (0,x,y) -> (0,x',y'): m = (y - y') / (x - x') */
            return p + h + mul[sub[br * q + bt] * q + sf->inv[sub[ar * q + at]]];
        return p + h + mul[sub[bt * q + br] * q + sf->inv[sub[ar * q + at]]];   /* x = (c' - c) / (m - m') */
    }
    if (sr == 0) {                                      /* (0,x,y) -> (1,m,c) */
        int32_t x = ar, y = br, m = at, c = bt;
        int32_t on_line = add[mul[m * q + x] * q + c];  /* (0, x, m*x + c) is t's neighbour */
        if (on_line == y) {
            *hops = 1;
            return p + h + m;
        }
        *hops = 2;
        int32_t i = sf->pos[0][sub[on_line * q + y]];
        return i >= 0 ? p + i : p + h + m;              /* else via (1, m, y - m*x) */
    }
    int32_t m = ar, c = br, x = at, y = bt;             /* (1,m,c) -> (0,x,y) */
    int32_t mx = mul[m * q + x];
    if (add[mx * q + c] == y) {
        *hops = 1;
        return p + h + x;
    }
    *hops = 2;
    int32_t i = sf->pos[1][sub[sub[y * q + mx] * q + c]];   /* via (1, m, y - m*x) */
    return i >= 0 ? p + i : p + h + x;                  /* else via (0, x, m*x + c) */
}

/* Router hops of the minimal path from r to t (over surviving links where some have failed). */
static int32_t distance(const ppt_slimfly_t *sf, int32_t r, int32_t t)
{
    int32_t hops = 0;
    if (sf->port_peer)
        return ppt_sff_hops(sf, r, t);
    if (r != t)
        ppt_slimfly_min_step(sf, r, t, &hops);
    return hops;
}

/* First port of pkt's minimal leg from router r to router t != r. */
static int32_t step(const ppt_routing_t *rt, const ppt_packet_t *pkt, int32_t r, int32_t t)
{
    const ppt_slimfly_t *sf = rt->topo;
    int32_t hops;
    if (sf->port_peer)
        return ppt_sff_step(sf, ppt_rand(rt, pkt, 0), r, t);
    return ppt_slimfly_min_step(sf, r, t, &hops);
}

int32_t ppt_slimfly_min_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc)
{
    const ppt_slimfly_t *sf = rt->topo;
    int32_t target = pkt->dst / sf->p;
    if (router == target) {
        *vc = pkt->vc;
        return pkt->dst % sf->p;
    }
    *vc = pkt->hops;
    return step(rt, pkt, router, target);
}

void ppt_slimfly_val_inject(const ppt_routing_t *rt, ppt_packet_t *pkt)
{
    const ppt_slimfly_t *sf = rt->topo;
    int32_t mid = (int32_t)(ppt_rand(rt, pkt, 1) % (uint64_t)sf->num_routers);
    if (sf->port_peer)
        mid = ppt_sff_mid(sf, mid, pkt->src / sf->p, pkt->dst / sf->p);
    pkt->route[0] = mid;
}

int32_t ppt_slimfly_val_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc)
{
    if (pkt->route[0] == router)
        pkt->route[0] = -1;
    if (pkt->route[0] < 0)
        return ppt_slimfly_min_route(rt, pkt, router, vc);
    *vc = pkt->hops;
    return step(rt, pkt, router, (int32_t)pkt->route[0]);
}

void ppt_slimfly_ugal_inject(const ppt_routing_t *rt, ppt_packet_t *pkt)
{
    (void)rt;
    pkt->route[0] = UNDECIDED;          /* decided at the source router, where the queues are seen */
}

/* The intermediate router of the cheapest of the minimal path and `candidates` Valiant paths
 * (-1: minimal); a Valiant path's cost is scaled by c_SF.  With failures, each candidate is the
 * first legal intermediate from its random pick on, and where the minimal path is not legal the
 * cheapest candidate is taken. */
static int64_t choose(const ppt_routing_t *rt, const ppt_packet_t *pkt, int32_t router)
{
    const ppt_slimfly_t *sf = rt->topo;
    int32_t target = pkt->dst / sf->p;
    if (router == target)
        return -1;
    enum { MAX_PATHS = 17 };
    int32_t port[MAX_PATHS], hops[MAX_PATHS], mid[MAX_PATHS], n = 1;
    hops[0] = distance(sf, router, target);
    int minimal_legal = hops[0] <= 2;
    port[0] = minimal_legal ? step(rt, pkt, router, target) : -1;
    mid[0] = -1;
    for (int32_t i = 0; i < rt->candidates && n < MAX_PATHS; i++) {
        int32_t m = (int32_t)(ppt_rand(rt, pkt, 2 + (uint64_t)i) % (uint64_t)sf->num_routers);
        if (sf->port_peer)
            m = ppt_sff_mid(sf, m, router, target);
        if (m < 0 || m == router || m == target)
            continue;
        port[n] = step(rt, pkt, router, m);
        hops[n] = distance(sf, router, m) + distance(sf, m, target);
        mid[n++] = m;
    }
    return mid[ppt_ugal_pick(rt, pkt, router, n, port, hops, rt->c_sf, minimal_legal)];
}

int32_t ppt_slimfly_ugal_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc)
{
    if (pkt->route[0] == UNDECIDED)
        pkt->route[0] = choose(rt, pkt, router);
    return ppt_slimfly_val_route(rt, pkt, router, vc);
}
