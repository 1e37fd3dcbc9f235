/* Dragonfly, Megafly and Aries routings: MIN, Valiant, UGAL-L and PAR (Kim, Dally, Scott & Abts, ISCA 2008;
 * Jiang, Kim & Dally, ISCA 2009).
 *
 * VC scheme (all four): a path is cut into phases -- a phase ends with a global hop, on reaching an
 * intra-group Valiant router, or where PAR diverts a packet after local hops.  A phase holds at most
 * L local hops; local hop l of phase f uses VC L*f + l and the global hop ending phase f uses VC
 * L*f + L - 1.  Ranking channels by (VC, local before global), every packet's rank strictly rises
 * hop by hop, so the channel dependency graph is acyclic: deadlock-free with L x 2 (MIN),
 * 3 (VAL, UGAL) or 4 (PAR) VCs.
 *
 * With failed links (t->router_dist set) the same plans take legal paths only; why the VC scheme
 * stays deadlock-free then is told in grouped_failures.c.
 *
 * pkt->route holds the plan: [0] mode (MIN, Valiant via a group, via a router), [1] the
 * intermediate group or router, [2] the extra phase of a PAR diversion, [3] the packet's random key.
 */
#include "grouped.h"
#include "_grouped.h"
#include "ugal.h"

enum { MIN, VAL_GROUP, VAL_ROUTER };
#define GOLDEN 0x9E3779B97F4A7C15ULL

typedef struct plan {
    int64_t mode, mid, bump;
    uint64_t key;
} plan_t;

static plan_t plan_of(const ppt_packet_t *pkt)
{
    plan_t p = {pkt->route[0], pkt->route[1], pkt->route[2], (uint64_t)pkt->route[3]};
    return p;
}

static void set_plan(ppt_packet_t *pkt, plan_t p)
{
    pkt->route[0] = p.mode;
    pkt->route[1] = p.mid;
    pkt->route[2] = p.bump;
    pkt->route[3] = (int64_t)p.key;
}

/* The global link from router's group to `group` for `key`: a router owning links to `group` uses
 * one of its own; otherwise the choice depends only on key and group, so every router of the
 * group sends the packet towards the same link.  With failures, only a link legal for a packet to
 * router dst with `room` local hops left in its phase.  Returns the link's router, *port its port. */
static int32_t exit_link(const ppt_grouped_t *t, uint64_t key, int32_t router, int32_t group, int32_t room,
                         int32_t dst, int32_t *port)
{
    if (t->router_dist)
        return ppt_gf_exit_link(t, key, router, group, room, dst, port);
    const int32_t *row = &t->port_peer[(int64_t)router * t->radix + t->local_ports];
    int32_t own = 0;
    for (int32_t k = 0; k < t->global_ports; k++)
        own += row[k] >= 0 && row[k] / t->a == group;
    if (own) {
        int32_t pick = (int32_t)((key >> 7) % (uint64_t)own);
        for (int32_t k = 0; k < t->global_ports; k++)
            if (row[k] >= 0 && row[k] / t->a == group && pick-- == 0) {
                *port = t->local_ports + k;
                return router;
            }
    }
    int32_t i = router / t->a * t->g + group;
    int32_t j = t->gw_start[i] + (int32_t)(((key ^ ((uint64_t)group * GOLDEN)) >> 17) % (uint64_t)t->gw_count[i]);
    *port = t->gw_port[j];
    return t->gw_router[j];
}

static int32_t local_port(const ppt_grouped_t *t, uint64_t key, int32_t router, int32_t target)
{
    if (t->router_dist)
        return ppt_gf_local_port(t, key, router, target);
    int32_t pair = router % t->a * t->a + target % t->a;
    int32_t first = t->local_next_start[pair], n = t->local_next_start[pair + 1] - first;
    return t->local_next[first + (int32_t)((key ^ (uint64_t)target) % (uint64_t)n)];
}

static int32_t local_hops(const ppt_grouped_t *t, int32_t router, int32_t target)
{
    if (t->router_dist)
        return ppt_gf_hops(t, router, target);
    return t->local_dist[router % t->a * t->a + target % t->a];
}

/* Port and VC of the next hop of plan p from router (no side effects). */
static int32_t next_hop(const ppt_grouped_t *t, const ppt_packet_t *pkt, int32_t router, plan_t p, int32_t *vc)
{
    int32_t a = t->a, L = t->L, dst = t->node_router[pkt->dst];
    int32_t group = -1, phase, target = dst;
    if (p.mode == VAL_ROUTER) {
        if (router == p.mid || (pkt->hops && pkt->vc >= L))
            phase = 1;
        else
            phase = 0, target = (int32_t)p.mid;
    } else {
        int32_t here = router / a, src_g = t->node_router[pkt->src] / a, dst_g = dst / a;
        if (here == dst_g)
            phase = here == src_g ? 0 : (int32_t)(p.bump + 1 + p.mode);
        else if (here == src_g)
            phase = (int32_t)p.bump, group = p.mode == VAL_GROUP ? (int32_t)p.mid : dst_g;
        else
            phase = (int32_t)p.bump + 1, group = dst_g;
    }
    int32_t base = L * phase, port, used = pkt->hops && pkt->vc >= base ? pkt->vc - base + 1 : 0;
    if (group >= 0) {
        target = exit_link(t, p.key, router, group, L - used, dst, &port);
        if (target == router) {
            *vc = base + L - 1;
            return port;
        }
    } else if (router == target) {
        *vc = pkt->vc;
        return t->node_port[pkt->dst];
    }
    *vc = base + used;
    return local_port(t, p.key, router, target);
}

/* Router hops plan p takes from router on an idle network. */
static int32_t plan_hops(const ppt_grouped_t *t, const ppt_packet_t *pkt, int32_t router, plan_t p)
{
    int32_t dst = t->node_router[pkt->dst];
    if (p.mode == VAL_ROUTER)
        return local_hops(t, router, (int32_t)p.mid) + local_hops(t, (int32_t)p.mid, dst);
    int32_t groups[2] = {(int32_t)p.mid, dst / t->a}, hops = 0, port;
    for (int32_t k = p.mode == VAL_GROUP ? 0 : 1; k < 2; k++) {
        if (router / t->a == groups[k])
            continue;
        int32_t gw = exit_link(t, p.key, router, groups[k], t->L, dst, &port);
        hops += local_hops(t, router, gw) + 1;
        router = t->port_peer[(int64_t)gw * t->radix + port];
    }
    return hops + local_hops(t, router, dst);
}

/* Whether a Valiant route (plan key `key`) from router via intermediate group (across) or router
 * mid to router dst is legal with `room` local hops left in the current phase: over surviving
 * links, and its first local leg fits (always true from the start of a phase without failures). */
static int valiant_legal(const ppt_grouped_t *t, uint64_t key, int32_t router, int across, int32_t mid,
                         int32_t dst, int32_t room)
{
    int32_t port;
    if (!t->router_dist && room >= t->L)
        return 1;
    if (across) {
        int32_t gw = exit_link(t, key, router, mid, room, dst, &port);
        return gw >= 0 && local_hops(t, router, gw) <= room;
    }
    return local_hops(t, router, mid) <= room && local_hops(t, mid, dst) <= t->L;
}

/* A Valiant plan from router (a random group, or a random router of a shared group if the topology
 * takes local Valiant; the first legal one from there on with `room` local hops left in the
 * phase); 0 if there is none. */
static int valiant(const ppt_routing_t *rt, const ppt_packet_t *pkt, int32_t router, uint64_t key, int64_t bump,
                   uint64_t salt, int32_t room, plan_t *out)
{
    const ppt_grouped_t *t = rt->topo;
    int32_t a = t->a, src = t->node_router[pkt->src], dst = t->node_router[pkt->dst];
    uint64_t pick = ppt_rand(rt, pkt, salt);
    int32_t count, low, high, across = src / a != dst / a;
    if (across && t->g >= 3) {
        count = t->g - 2;
        low = src / a < dst / a ? src / a : dst / a;
        high = src / a < dst / a ? dst / a : src / a;
    } else if (!across && src != dst && a >= 3 && t->local_valiant) {
        count = a - 2;
        low = src % a < dst % a ? src % a : dst % a;
        high = src % a < dst % a ? dst % a : src % a;
    } else {
        return 0;
    }
    for (int32_t k = 0; k < count; k++) {
        int32_t mid = (int32_t)((pick + (uint64_t)k) % (uint64_t)count);
        mid += mid >= low;
        mid += mid >= high;
        mid = across ? mid : src - src % a + mid;
        if (valiant_legal(t, key, router, across, mid, dst, room)) {
            out->mode = across ? VAL_GROUP : VAL_ROUTER;
            out->mid = mid;
            out->bump = bump;
            out->key = key;
            return 1;
        }
    }
    return 0;
}

/* UGAL-L: keep plan p unless one of `candidates` Valiant plans, legal with `room` local hops left
 * in the phase, is cheaper (see ugal.c).  Where failed links leave no legal MIN path from router,
 * the cheapest legal Valiant plan. */
static plan_t choose(const ppt_routing_t *rt, const ppt_packet_t *pkt, int32_t router, plan_t p, int64_t bump,
                     uint64_t salt, int32_t room)
{
    const ppt_grouped_t *t = rt->topo;
    enum { MAX_PATHS = 17 };
    plan_t plans[MAX_PATHS];
    int32_t port[MAX_PATHS], hops[MAX_PATHS], vc, n = 1;
    int minimal_legal = !t->router_dist || ppt_gf_min_legal(t, router, t->node_router[pkt->dst]);
    plans[0] = p;
    port[0] = minimal_legal ? next_hop(t, pkt, router, p, &vc) : -1;
    hops[0] = minimal_legal ? plan_hops(t, pkt, router, p) : 0;
    for (int32_t i = 0; i < rt->candidates && n < MAX_PATHS; i++, n++) {
        if (!valiant(rt, pkt, router, p.key, bump, salt + 16 * (uint64_t)i, room, &plans[n]))
            break;
        port[n] = next_hop(t, pkt, router, plans[n], &vc);
        hops[n] = plan_hops(t, pkt, router, plans[n]);
    }
    return plans[ppt_ugal_pick(rt, pkt, router, n, port, hops, 1.0, minimal_legal)];
}

/* MIN; with failures, a route inside a group that needs over L local hops turns phase on the way. */
void ppt_grouped_min_inject(const ppt_routing_t *rt, ppt_packet_t *pkt)
{
    const ppt_grouped_t *t = rt->topo;
    plan_t p = {MIN, -1, 0, ppt_rand(rt, pkt, 0)};
    int32_t src = t->node_router[pkt->src], dst = t->node_router[pkt->dst];
    if (t->router_dist && src / t->a == dst / t->a && ppt_gf_hops(t, src, dst) > t->L)
        p.mode = VAL_ROUTER, p.mid = ppt_gf_turn_router(t, p.key, src, dst);
    set_plan(pkt, p);
}

int32_t ppt_grouped_min_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc)
{
    return next_hop(rt->topo, pkt, router, plan_of(pkt), vc);
}

void ppt_grouped_val_inject(const ppt_routing_t *rt, ppt_packet_t *pkt)
{
    const ppt_grouped_t *t = rt->topo;
    ppt_grouped_min_inject(rt, pkt);
    plan_t p = plan_of(pkt);
    if (valiant(rt, pkt, t->node_router[pkt->src], p.key, 0, 1, t->L, &p))
        set_plan(pkt, p);
}

/* Whether router owns a surviving global link. */
static int owns_global(const ppt_grouped_t *t, int32_t router)
{
    const int32_t *row = &t->port_peer[(int64_t)router * t->radix + t->local_ports];
    for (int32_t k = 0; k < t->global_ports; k++)
        if (row[k] >= 0)
            return 1;
    return 0;
}

/* UGAL-L decides at the source router and, where that owns no global link (a Megafly leaf), once
 * more at the next router if the packet is still minimal there: the leaf's queues to its spines
 * look alike, and the spine's global queues are the ones worth comparing.  Deciding there leaves
 * the phase L - 1 local hops, so only Valiant plans leaving by one of the spine's own global links
 * (or within that room) are legal, and the packet keeps the VCs of a path decided at the source. */
static int ugal_decides(const ppt_grouped_t *t, const ppt_packet_t *pkt, int32_t router)
{
    int32_t src = t->node_router[pkt->src];
    return pkt->hops == 0
        || (pkt->hops == 1 && pkt->route[0] == MIN && router / t->a == src / t->a && !owns_global(t, src));
}

int32_t ppt_grouped_ugal_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc)
{
    const ppt_grouped_t *t = rt->topo;
    if (ugal_decides(t, pkt, router))
        set_plan(pkt, choose(rt, pkt, router, plan_of(pkt), 0, 1, t->L - pkt->hops));
    return next_hop(t, pkt, router, plan_of(pkt), vc);
}

/* PAR: the UGAL-L choice, re-made at each source-group router while the packet follows MIN. */
int32_t ppt_grouped_par_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc)
{
    const ppt_grouped_t *t = rt->topo;
    plan_t p = plan_of(pkt);
    if (pkt->hops == 0) {
        set_plan(pkt, choose(rt, pkt, router, p, 0, 1, t->L));
    } else if (p.mode == MIN) {
        int32_t a = t->a, src_g = t->node_router[pkt->src] / a, dst_g = t->node_router[pkt->dst] / a;
        if (router / a == src_g && src_g != dst_g)
            set_plan(pkt, choose(rt, pkt, router, p, 1, 2 + (uint64_t)pkt->hops, t->L));
    }
    return next_hop(t, pkt, router, plan_of(pkt), vc);
}
