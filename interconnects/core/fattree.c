/* Fat-tree routing: the switch forwarding rule of Lin, Chung & Huang's m-port n-tree LID scheme
 * on a destination LID the source chooses (pkt->route[0]), which fixes the up-path.
 *
 * VC scheme: one VC.  Every path climbs to the lowest common ancestor and then only descends
 * (the up*-down* rule), so a channel dependency never leads from a down channel to an up channel and
 * no cycle of channels exists.
 *
 * With failed links (t->reach set) a packet climbs until its destination's leaf switch lies below
 * over surviving links, then descends on the one down path, which survives; climbing, it keeps the
 * up port of its LID where the destination is still reached from there (t->reach), otherwise the
 * legal up port its LID picks, so the choice stays a function of (switch, LID): a forwarding table
 * as a subnet manager would reroute it.  A path may then climb above the lowest common ancestor,
 * but it still turns down once and never up again: up channels depend only on channels one level
 * higher, down channels only on channels one level lower, and the channel dependency graph stays
 * acyclic whatever links fail -- one VC still suffices. */
#include "fattree.h"
#include "_legal.h"

static int64_t power(int64_t base, int32_t exponent)
{
    int64_t result = 1;
    while (exponent-- > 0)
        result *= base;
    return result;
}

/* Length of the common prefix of two node labels: the level of their lowest common ancestor. */
static int32_t common_prefix(const ppt_fattree_t *t, int64_t a, int64_t b)
{
    for (int32_t length = 1; length <= t->levels; length++) {
        int64_t div = power(t->half, t->levels - length);
        if (a / div != b / div)
            return length - 1;
    }
    return t->levels;
}

/* MLID: the source's rank inside the subtree below the lowest common ancestor picks the LID,
 * so sources spread over distinct up-links and roots. */
void ppt_fattree_mlid_inject(const ppt_routing_t *rt, ppt_packet_t *pkt)
{
    const ppt_fattree_t *t = rt->topo;
    int32_t below = t->levels - 1 - common_prefix(t, pkt->src, pkt->dst);
    pkt->route[0] = (int64_t)pkt->dst * t->lids_per_node + 1 + pkt->src % power(t->half, below > 0 ? below : 0);
}

/* D-mod-K: one LID per destination, so every path to it climbs towards the same root. */
void ppt_fattree_dmodk_inject(const ppt_routing_t *rt, ppt_packet_t *pkt)
{
    const ppt_fattree_t *t = rt->topo;
    pkt->route[0] = (int64_t)pkt->dst * t->lids_per_node + 1 + pkt->dst % t->lids_per_node;
}

/* Whether up port `port` of router leads, over a surviving link, to a switch that still reaches
 * leaf switch `leaf` (climbing, then descending). */
static int up_legal(const void *topo, int32_t router, int32_t port, int32_t leaf)
{
    const ppt_fattree_t *t = topo;
    int32_t parent = t->port_peer[(int64_t)router * 2 * t->half + port];
    return parent >= 0 && t->reach[(int64_t)parent * t->leaves + leaf] != 0;
}

int32_t ppt_fattree_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc)
{
    const ppt_fattree_t *t = rt->topo;
    *vc = 0;
    int below = t->reach ? t->reach[(int64_t)router * t->leaves + pkt->dst / t->half] == PPT_FT_DOWN
                         : pkt->dst / t->below_div[router] == t->prefix[router];
    if (below)
        return (int32_t)(pkt->dst / t->digit_div[router] % t->digit_mod[router]);
    int32_t port = t->half + (int32_t)((pkt->route[0] - 1) / t->digit_div[router] % t->half);
    if (!t->reach || up_legal(t, router, port, (int32_t)(pkt->dst / t->half)))
        return port;
    return ppt_legal_port(t, up_legal, ppt_mix64((uint64_t)pkt->route[0]), router, t->half, 2 * t->half,
                          (int32_t)(pkt->dst / t->half));
}
