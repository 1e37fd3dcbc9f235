/* Failure-aware routing of the grouped topologies: legal paths over surviving links only.
 *
 * Failed links are unused slots in the tables (port_peer -1, absent from gw_*), so no choice can
 * cross one.  What failures change is distance: local legs may grow past the fault-free local
 * diameter L, which fixes the VCs.  The routings stay within the VC scheme of grouped.c by taking
 * only legs that fit: a leg inside one phase has at most L surviving local hops (router_dist), a
 * global link is chosen only if its own local legs fit, and a route inside a group that needs more
 * than L local hops changes phase at a turn router, as Valiant's intra-group route does.  Each hop
 * thus still takes the VC of its place in the phase scheme, every packet's channel rank still
 * rises strictly hop by hop, and the channel dependency graph -- a subgraph of the fault-free
 * one's VC ranking -- stays acyclic: failures cannot make the routings deadlock. */
#include "_grouped.h"
#include "_legal.h"

#define GOLDEN 0x9E3779B97F4A7C15ULL

int32_t ppt_gf_hops(const ppt_grouped_t *t, int32_t router, int32_t target)
{
    return t->router_dist[(int64_t)router * t->a + target % t->a];
}

/* A surviving local port of router whose far end is one local hop closer to target. */
static int closer_local(const void *topo, int32_t router, int32_t port, int32_t target)
{
    const ppt_grouped_t *t = topo;
    int32_t peer = t->port_peer[(int64_t)router * t->radix + port];
    return peer >= 0 && ppt_gf_hops(t, peer, target) == ppt_gf_hops(t, router, target) - 1;
}

int32_t ppt_gf_local_port(const ppt_grouped_t *t, uint64_t key, int32_t router, int32_t target)
{
    return ppt_legal_port(t, closer_local, key ^ (uint64_t)target, router, 0, t->local_ports, target);
}

int ppt_gf_min_legal(const ppt_grouped_t *t, int32_t x, int32_t y)
{
    int32_t a = t->a;
    if (x / a == y / a)
        return ppt_gf_hops(t, x, y) <= 2 * t->L;
    int32_t i = x / a * t->g + y / a;
    for (int32_t j = t->gw_start[i]; j < t->gw_start[i] + t->gw_count[i]; j++) {
        int32_t entry = t->port_peer[(int64_t)t->gw_router[j] * t->radix + t->gw_port[j]];
        if (ppt_gf_hops(t, x, t->gw_router[j]) <= t->L && ppt_gf_hops(t, entry, y) <= t->L)
            return 1;
    }
    return 0;
}

/* Whether dst is reached legally from `entry`, the far end of a global link into `entry`'s group. */
static int onward(const ppt_grouped_t *t, int32_t entry, int32_t dst)
{
    return entry / t->a == dst / t->a ? ppt_gf_hops(t, entry, dst) <= t->L : ppt_gf_min_legal(t, entry, dst);
}

int32_t ppt_gf_exit_link(const ppt_grouped_t *t, uint64_t key, int32_t router, int32_t group, int32_t room,
                         int32_t dst, int32_t *port)
{
    const int32_t *row = &t->port_peer[(int64_t)router * t->radix + t->local_ports];
    int32_t own = 0;
    for (int32_t k = 0; k < t->global_ports; k++)
        own += row[k] >= 0 && row[k] / t->a == group && onward(t, row[k], dst);
    if (own) {
        int32_t pick = (int32_t)((key >> 7) % (uint64_t)own);
        for (int32_t k = 0; k < t->global_ports; k++)
            if (row[k] >= 0 && row[k] / t->a == group && onward(t, row[k], dst) && pick-- == 0) {
                *port = t->local_ports + k;
                return router;
            }
    }
    int32_t i = router / t->a * t->g + group, best = -1;
    uint64_t best_w = 0;
    for (int32_t j = t->gw_start[i]; j < t->gw_start[i] + t->gw_count[i]; j++) {
        int32_t gw = t->gw_router[j];
        if (ppt_gf_hops(t, router, gw) > room || !onward(t, t->port_peer[(int64_t)gw * t->radix + t->gw_port[j]], dst))
            continue;
        uint64_t w = ppt_mix64(key ^ ((uint64_t)(j + 1) * GOLDEN));
        if (best < 0 || w > best_w)
            best = j, best_w = w;
    }
    if (best < 0)
        return -1;
    *port = t->gw_port[best];
    return t->gw_router[best];
}

int32_t ppt_gf_turn_router(const ppt_grouped_t *t, uint64_t key, int32_t x, int32_t y)
{
    int32_t a = t->a, first = x - x % a, start = (int32_t)((key >> 11) % (uint64_t)a);
    for (int32_t k = 0; k < a; k++) {
        int32_t z = first + (start + k) % a;
        if (ppt_gf_hops(t, x, z) <= t->L && ppt_gf_hops(t, z, y) <= t->L)
            return z;
    }
    return -1;
}
