/* Torus routings over surviving links only, when some torus links have failed.
 *
 * Failed links are -1 in t->port_peer, and every choice below takes a port whose link survives.
 * Where parallel links join two routers (Gemini's X and Z), a direction is usable while one of
 * them survives and the packet's hash picks among the survivors.
 *
 * The escape channel (every routing): up*-down* over the surviving links.  Each connected
 * component of the surviving graph has a breadth-first spanning tree (torus.py), rooted at its
 * lowest router; routers are ranked by (depth, id), and a hop to a lower rank is "up", to a higher
 * rank "down".  From a router whose tree subtree holds the destination the packet descends the
 * tree; otherwise it takes a surviving link to a neighbour whose subtree holds the destination (the
 * deepest such), or else climbs one level.  A packet thus climbs, turns once and descends: every
 * escape path is up*-down*, and it exists between any two routers of one component (at worst via
 * the root).  Why one VC is deadlock-free: a channel dependency between two up hops leads to a
 * strictly lower rank, between two down hops to a strictly higher rank, and no dependency leads
 * from a down hop to an up hop, so ordering up channels (by falling rank) before down channels (by
 * rising rank) numbers the escape channels so that every dependency rises: no cycle.
 *
 * Dimension order (VCs 0-4): at injection a packet fixes a plan (pkt->route[1]).
 *   - direct: its dimension-order path survives -- VCs 0/1 by the dateline rule, as without failures;
 *   - via m: it does not, but the dimension-order paths to an intermediate router m and from m on
 *     both survive (m tried first inside the minimal box, so the detour often costs no hop, then
 *     anywhere) -- VCs 0/1 to m, then VCs 2/3 from m, each leg by the dateline rule from its start;
 *   - escape: neither -- VC 4 from the source on.
 * Why deadlock-free: VCs 0/1 carry dimension-order paths only, as do VCs 2/3, and each set's
 * dependency graph is acyclic by Dally & Seitz's argument (dependencies go to a later dimension or
 * further along one ring on a dateline VC that never falls), whichever surviving links the paths
 * use; VC 4 is the escape channel above.  A packet's VC set never falls (0/1, then 2/3; or 4 only),
 * so dependencies between the sets run one way and the whole graph has no cycle.
 *
 * Minimal adaptive (VCs 0..2n+4): as without failures (VC 2 * finished + dateline) over surviving
 * productive links, entering a ring only the way whose every hop to the target coordinate survives
 * (a packet must finish a ring it has entered).  A packet left with no productive move plans, from
 * where it stands, as dimension order does at injection and keeps to the plan: the dimension-order
 * path on VCs 2n/2n+1, or its two legs through an intermediate on VCs 2n/2n+1 then 2n+2/2n+3, or
 * the escape channel, VC 2n+4.  Why deadlock-free: the adaptive VCs' graph is acyclic as without
 * failures (failures only remove channels), each dimension-order pair's by Dally & Seitz, the
 * escape VC's as above, and a packet's VC only rises from one of these sets to a later one, so
 * dependencies between the sets run one way. */
#include "_torus.h"
/* Intermediate routers tried for a dimension-order detour: inside the minimal box, then anywhere. */
#define BOX_TRIES 8
#define ANY_TRIES 8
enum { PLAN_DIRECT = -1, PLAN_ESCAPE = -2 };
/* pkt->route[1] of the adaptive routing: adapting, then for good a leg of a dimension-order detour
 * (route[2]: the router where it began, route[3]: its plan) or the escape channel. */
enum { ADAPTIVE = 0, ADAPTIVE_ESCAPE = 1, ADAPTIVE_LEG1 = 2, ADAPTIVE_LEG2 = 3 };

static inline const int32_t *coords(const ppt_torus_t *t, int32_t router)
{
    return &t->coord[(int64_t)router * t->nrings];
}

static inline int32_t peer_of(const ppt_torus_t *t, int32_t router, int32_t port)
{
    return t->port_peer[(int64_t)router * t->radix + port];
}

/* Surviving links among ports [first, first + links) of router. */
static int32_t live_links(const ppt_torus_t *t, int32_t router, int32_t first, int32_t links)
{
    int32_t n = 0;
    for (int32_t l = 0; l < links; l++)
        n += peer_of(t, router, first + l) >= 0;
    return n;
}

/* The (key mod n)-th of the n surviving ports among [first, first + links); -1 if none survives.
 * With every link up this is first + key mod links, the choice of the fault-free routing. */
static int32_t pick_live(const ppt_torus_t *t, uint64_t key, int32_t router, int32_t first, int32_t links)
{
    int32_t n = live_links(t, router, first, links);
    if (n == 0)
        return -1;
    int32_t pick = (int32_t)(key % (uint64_t)n);
    for (int32_t l = 0; l < links; l++)
        if (peer_of(t, router, first + l) >= 0 && pick-- == 0)
            return first + l;
    return -1;
}

/* The dimension-order move from router (!= goal) towards goal on a leg that began at router start:
 * the first port of its direction (returned), its ring (*ring) and dateline VC bit (*dateline).
 * Half-way round either way is minimal: the hash picks, unless its way has no surviving link. */
static int32_t dor_first(const ppt_torus_t *t, uint64_t hash, int32_t start, int32_t router, int32_t goal,
                         int32_t *ring, int32_t *dateline)
{
    const int32_t *here = coords(t, router), *there = coords(t, goal);
    int32_t j = 0;
    while (here[j] == there[j])
        j++;
    int32_t k = t->k[j], c = here[j], s = coords(t, start)[j];
    int32_t ahead = ((there[j] - c) % k + k) % k;
    int plus = 2 * ahead < k || (2 * ahead == k && !((hash >> t->dim[j]) & 1));
    if (2 * ahead == k && !live_links(t, router, plus ? t->plus[j] : t->minus[j], t->links[j]))
        plus = !plus;
    *ring = j;
    if (plus) {
        *dateline = c < s || c == k - 1;
        return t->plus[j];
    }
    *dateline = c > s || c == 0;
    return t->minus[j];
}

/* Whether the dimension-order leg from router `from` to router `to` crosses surviving links only. */
static int leg_survives(const ppt_torus_t *t, uint64_t hash, int32_t from, int32_t to)
{
    int32_t router = from;
    while (router != to) {
        int32_t j, dateline, first = dor_first(t, hash, from, router, to, &j, &dateline);
        int32_t port = pick_live(t, 0, router, first, t->links[j]);
        if (port < 0)
            return 0;
        router = peer_of(t, router, port);
    }
    return 1;
}

/* Whether `hops` hops from router through ports [first, first + links) (one direction of one ring)
 * all have a surviving link. */
static int segment_survives(const ppt_torus_t *t, int32_t router, int32_t first, int32_t links, int32_t hops)
{
    for (int32_t h = 0; h < hops; h++) {
        int32_t port = pick_live(t, 0, router, first, links);
        if (port < 0)
            return 0;
        router = peer_of(t, router, port);
    }
    return 1;
}

/* A router of the minimal box between src and dst (each ring's coordinate drawn between theirs
 * along the way the hash sends the packet), from the random word r. */
static int32_t box_router(const ppt_torus_t *t, uint64_t r, uint64_t hash, int32_t src, int32_t dst)
{
    const int32_t *a = coords(t, src), *b = coords(t, dst);
    int64_t router = src;
    for (int32_t j = 0; j < t->nrings; j++) {
        int32_t k = t->k[j], ahead = ((b[j] - a[j]) % k + k) % k;
        int plus = 2 * ahead < k || (2 * ahead == k && !((hash >> t->dim[j]) & 1));
        int32_t span = plus ? ahead : k - ahead;
        int32_t step = (int32_t)(r % (uint64_t)(span + 1));
        r = ppt_mix64(r);
        int32_t c = ((plus ? a[j] + step : a[j] - step) % k + k) % k;
        router += (int64_t)(c - a[j]) * t->stride[j];
    }
    return (int32_t)router;
}

/* How a packet goes from router `from` to router `to` in dimension order over surviving links:
 * PLAN_DIRECT (that path survives), an intermediate router m (both legs through m survive), or
 * PLAN_ESCAPE (neither was found). */
static int64_t plan_legs(const ppt_routing_t *rt, const ppt_packet_t *pkt, int32_t from, int32_t to)
{
    const ppt_torus_t *t = rt->topo;
    uint64_t hash = (uint64_t)pkt->route[0];
    if (from == to || leg_survives(t, hash, from, to))
        return PLAN_DIRECT;
    for (int32_t i = 0; i < BOX_TRIES + ANY_TRIES; i++) {
        uint64_t r = ppt_rand(rt, pkt, 1 + (uint64_t)i);
        int32_t m = i < BOX_TRIES ? box_router(t, r, hash, from, to) : (int32_t)(r % (uint64_t)t->num_routers);
        if (m != from && m != to && leg_survives(t, hash, from, m) && leg_survives(t, hash, m, to))
            return m;
    }
    return PLAN_ESCAPE;
}

void ppt_torus_fail_dor_inject(const ppt_routing_t *rt, ppt_packet_t *pkt)
{
    const ppt_torus_t *t = rt->topo;
    pkt->route[1] = plan_legs(rt, pkt, t->node_router[pkt->src], t->node_router[pkt->dst]);
    pkt->route[2] = 0;                              /* 1 once a detour has reached its intermediate */
}

int32_t ppt_torus_fail_dor_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc)
{
    const ppt_torus_t *t = rt->topo;
    int32_t target = t->node_router[pkt->dst];
    if (router == target) {
        *vc = 0;
        return t->node_port[pkt->dst];
    }
    uint64_t hash = (uint64_t)pkt->route[0], key = (hash >> PPT_TORUS_PICK_SHIFT) + (uint64_t)pkt->hops;
    int64_t plan = pkt->route[1];
    if (plan == PLAN_ESCAPE) {
        *vc = PPT_TORUS_DOR_ESCAPE_VC;
        return ppt_torus_escape_port(t, key, router, target);
    }
    int32_t start = t->node_router[pkt->src], goal = target, base = 0;
    if (plan >= 0) {
        if (router == plan)
            pkt->route[2] = 1;
        if (pkt->route[2])
            start = (int32_t)plan, base = 2;
        else
            goal = (int32_t)plan;
    }
    int32_t j, dateline, first = dor_first(t, hash, start, router, goal, &j, &dateline);
    *vc = base + dateline;
    return pick_live(t, key, router, first, t->links[j]);
}

static inline int below(const ppt_torus_t *t, int32_t u, int32_t x)
{
    return t->esc_pre[u] <= t->esc_pre[x] && t->esc_pre[x] < t->esc_end[u];
}

int32_t ppt_torus_escape_port(const ppt_torus_t *t, uint64_t key, int32_t router, int32_t target)
{
    const int32_t *peer = &t->port_peer[(int64_t)router * t->radix];
    int32_t want, turn = 1;                 /* the depth of the next router; whether it must hold target below */
    if (below(t, router, target)) {
        want = t->esc_depth[router] + 1;    /* descend the tree */
    } else {
        want = -1;                          /* turn towards the deepest neighbour holding target below */
        for (int32_t p = 0; p < t->radix; p++)
            if (peer[p] >= 0 && below(t, peer[p], target) && t->esc_depth[peer[p]] > want)
                want = t->esc_depth[peer[p]];
        if (want < 0)
            want = t->esc_depth[router] - 1, turn = 0;      /* none: climb */
    }
    int32_t n = 0;
    for (int32_t p = 0; p < t->radix; p++)
        n += peer[p] >= 0 && t->esc_depth[peer[p]] == want && (!turn || below(t, peer[p], target));
    if (n == 0)
        return -1;                          /* unreachable: target is in router's component */
    int32_t pick = (int32_t)(key % (uint64_t)n);
    for (int32_t p = 0; p < t->radix; p++)
        if (peer[p] >= 0 && t->esc_depth[peer[p]] == want && (!turn || below(t, peer[p], target)) && pick-- == 0)
            return p;
    return -1;
}

int32_t ppt_torus_fail_adaptive_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc)
{
    const ppt_torus_t *t = rt->topo;
    int32_t target = t->node_router[pkt->dst];
    if (router == target) {
        *vc = 0;
        return t->node_port[pkt->dst];
    }
    uint64_t key = ((uint64_t)pkt->route[0] >> PPT_TORUS_PICK_SHIFT) + (uint64_t)pkt->hops;
    if (!pkt->route[1]) {
        ppt_torus_moves_t moves;        /* entering a ring only a way whose every hop to the target survives */
        ppt_torus_adaptive_moves(t, pkt, router, target, segment_survives, &moves);
        int32_t port = ppt_torus_least_occupied(rt, &moves, router, key, vc);
        if (port >= 0)
            return port;
        /* no productive move: dimension order from here, maybe through an intermediate, else escape */
        int64_t plan = plan_legs(rt, pkt, router, target);
        pkt->route[1] = plan == PLAN_ESCAPE ? ADAPTIVE_ESCAPE : ADAPTIVE_LEG1;
        pkt->route[2] = router;
        pkt->route[3] = plan;
    }
    if (pkt->route[1] == ADAPTIVE_LEG1 && router == pkt->route[3])
        pkt->route[1] = ADAPTIVE_LEG2;
    if (pkt->route[1] != ADAPTIVE_ESCAPE) {
        int leg2 = pkt->route[1] == ADAPTIVE_LEG2;
        int32_t start = (int32_t)pkt->route[leg2 ? 3 : 2], goal = pkt->route[3] >= 0 && !leg2 ? (int32_t)pkt->route[3] : target;
        int32_t j, dateline, first = dor_first(t, (uint64_t)pkt->route[0], start, router, goal, &j, &dateline);
        *vc = 2 * t->nrings + 2 * leg2 + dateline;
        return pick_live(t, key, router, first, t->links[j]);
    }
    *vc = 2 * t->nrings + 4;
    return ppt_torus_escape_port(t, key, router, target);
}
