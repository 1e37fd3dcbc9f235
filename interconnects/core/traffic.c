/* Synthetic traffic: open-loop packet sources on the NICs of this rank.
 *
 * Every member node of a source configuration (every node, or a job's nodes)
 * creates messages of `packets` packets at an offered load (a fraction of
 * its injection bandwidth) with exponential or slotted Bernoulli gaps.
 * Packets are created lazily when the NIC can take them, so an overloaded
 * source costs no memory; a packet's latency counts from its message's
 * creation (source queueing included).  Random choices hash (seed, node, packet
 * count), so runs are deterministic and serial and parallel runs agree.
 */
#include "_net.h"

static double uniform(uint64_t x)           /* in (0, 1] */
{
    return ((double)x + 1.0) * 0x1p-64;
}

static void advance(ppt_net_t *net, int32_t node)
{
    source_t *s = &net->sources[node];
    const ppt_traffic_config_t *t = s->cfg;
    uint64_t h = ppt_mix64(t->seed_key ^ ((uint64_t)node << 24) ^ (uint64_t)s->count);
    if (t->bernoulli) {
        int64_t slots = 1;
        while (uniform(h) > t->load) {
            slots++;
            h = ppt_mix64(h);
        }
        s->arrival_s += slots * t->slot_s;
    } else {
        s->arrival_s += -log(uniform(h)) * t->mean_gap_s;
    }
    if (s->arrival_s >= s->stop_s)
        s->arrival_s = INFINITY;
}

/* Another of the n members, uniformly, for the member at place i. */
static int32_t uniform_random(int32_t n, int32_t i, uint64_t rand)
{
    int32_t dst = (int32_t)(rand % (uint64_t)(n - 1));
    return dst + (dst >= i);
}

/* A node on a random neighbouring router (the same slot where possible). */
static int32_t nearest_neighbour(const ppt_net_t *net, const ppt_traffic_config_t *t, int32_t node, uint64_t rand)
{
    int32_t radix = net->radix, router = net->cfg.node_router[node], peers = 0;
    const int32_t *row = &net->cfg.port_peer[(int64_t)router * radix];
    for (int32_t p = 0; p < radix; p++)
        peers += row[p] >= 0;
    int32_t pick = (int32_t)(rand % (uint64_t)peers), target = -1;
    for (int32_t p = 0; p < radix && target < 0; p++)
        if (row[p] >= 0 && pick-- == 0)
            target = row[p];
    int32_t first = t->router_nodes_start[target], count = t->router_nodes_start[target + 1] - first;
    if (!count)
        return uniform_random(net->cfg.num_nodes, node, rand >> 20);
    return t->router_nodes[first + node % count];
}

/* The destination node of a packet of the member at place i (its node: `node`). */
static int32_t destination(const ppt_net_t *net, const ppt_traffic_config_t *t, int32_t i, int32_t node,
                           uint64_t rand)
{
    int32_t n = t->num_members, place;
    switch (t->pattern) {
    case PPT_PATTERN_NN:
        return nearest_neighbour(net, t, node, rand);
    case PPT_PATTERN_TABLE:
        return t->table_first[node] + (int32_t)(rand % (uint64_t)t->table_count[node]);
    case PPT_PATTERN_UR:
        place = uniform_random(n, i, rand);
        break;
    case PPT_PATTERN_BITCOMP:
        place = n - 1 - i;
        break;
    case PPT_PATTERN_HOTSPOT:                   /* every member to the first (which sends nothing) */
        place = 0;
        break;
    case PPT_PATTERN_TRANSPOSE: {
        int32_t side = (int32_t)llround(sqrt((double)n));
        place = (i % side) * side + i / side;
        break;
    }
    default:                                    /* tornado */
        place = (i + (n + 1) / 2 - 1) % n;
    }
    return t->members ? t->members[place] : place;
}

int32_t ppt_traffic_take(ppt_net_t *net, int32_t node, double now)
{
    source_t *s = &net->sources[node];
    const ppt_traffic_config_t *t = s->cfg;
    while (!s->left && s->arrival_s <= now) {
        s->next_s = s->arrival_s;               /* the new message's creation time */
        s->count++;
        uint64_t rand = ppt_mix64(t->seed_key * 31 + ((uint64_t)node << 32) + (uint64_t)s->count);
        int32_t dst = destination(net, t, s->index, node, rand);
        advance(net, node);
        if (dst != node) {                      /* fixed points of permutations send nothing */
            s->left = t->packets;
            s->dst = dst;
        }
    }
    if (!s->left) {
        s->next_s = s->arrival_s;
        return NONE;
    }
    int32_t last = --s->left == 0;
    int32_t p = ppt_packet_new(net);
    ppt_packet_t *pkt = &net->pkts[p];
    pkt->msg_uid = ((uint64_t)node << 32) | SYNTHETIC_BIT | (uint64_t)s->count;
    pkt->uid = (pkt->msg_uid << 24) | (uint64_t)(t->packets - 1 - s->left);
    pkt->src = node;
    pkt->dst = s->dst;
    pkt->size_B = last ? t->last_packet_B : t->packet_B;
    pkt->payload_B = last ? t->last_payload_B : t->payload_B;
    pkt->npackets = t->packets;
    pkt->tclass = t->traffic_class;
    pkt->inject_s = s->next_s;
    ppt_packet_unlinked(pkt);
    if (last)
        s->next_s = s->arrival_s;
    return p;
}

int ppt_net_start_traffic(ppt_net_t *net, const ppt_traffic_config_t *cfg)
{
    int32_t num_nodes = net->cfg.num_nodes;
    if (!net->sources) {
        net->sources = calloc((size_t)num_nodes, sizeof(source_t));
        if (!net->sources)
            return -1;
        for (int32_t node = 0; node < num_nodes; node++)     /* no source: never a packet */
            net->sources[node].next_s = net->sources[node].arrival_s = INFINITY;
    }
    for (int32_t i = 0; i < cfg->num_members; i++)
        if (net->sources[cfg->members ? cfg->members[i] : i].cfg)
            return -2;
    net->traffic_on = 1;
    for (int32_t i = 0; i < cfg->num_members; i++) {
        int32_t node = cfg->members ? cfg->members[i] : i;
        source_t *s = &net->sources[node];
        *s = (source_t){.arrival_s = 0.0, .cfg = cfg, .index = i, .stop_s = cfg->stop_s};
        if (!node_local(net, node))
            continue;
        advance(net, node);
        s->next_s = s->arrival_s;
        ppt_nic_pump(net, node);
    }
    return 0;
}

void ppt_net_stop_traffic(ppt_net_t *net, double stop_s)
{
    for (int32_t node = 0; net->sources && node < net->cfg.num_nodes; node++) {
        source_t *s = &net->sources[node];
        if (s->stop_s > stop_s)
            s->stop_s = stop_s;
        if (s->arrival_s >= stop_s)
            s->arrival_s = INFINITY;
        if (!s->left)
            s->next_s = s->arrival_s;
    }
}
