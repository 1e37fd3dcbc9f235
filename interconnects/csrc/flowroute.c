/* Paths of the flow network (see flowroute.h). */
#include <string.h>

#include "flowroute.h"

#define MAX_HOPS 64         /* router hops before a walk is declared lost (as topology.channels) */
#define MAX_SAMPLES 64

/* One packet's route as resource ids (returns their count, 0 if it got lost), its fixed latency and
 * its per-byte store-and-forward time: a message of n packets of p bytes pipelined through stages of
 * bandwidths b_i takes p * sum(1 / b_i) + (n - 1) * p / min(b_i); the flow moves all n * p bytes at
 * (at most) min(b_i), so the rest is p * (sum(1 / b_i) - 1 / min(b_i)). */
static int32_t walk(const ppt_flows_t *fs, const ppt_flow_topo_t *t, const ppt_routing_t *rt, int32_t src,
                    int32_t dst, uint64_t uid, int32_t *rids, double *latency_s, double *packet_s_per_B)
{
    ppt_packet_t pkt;
    memset(&pkt, 0, sizeof pkt);
    pkt.uid = uid;
    pkt.src = src;
    pkt.dst = dst;
    pkt.size_B = 64;
    pkt.in_port = pkt.from_router = pkt.next = -1;
    pkt.npackets = 1;
    if (rt->inject)
        rt->inject(rt, &pkt);
    int32_t n = 0, router = t->node_router[src], vc;
    rids[n++] = src;
    *latency_s = t->fixed_latency_s;
    double slowest_Bps = ppt_flows_capacity_Bps(fs, src);
    *packet_s_per_B = 1.0 / slowest_Bps;
    while (n <= MAX_HOPS + 1) {
        int32_t port = rt->route(rt, &pkt, router, &vc);
        int32_t at = router * t->radix + port, peer = t->port_peer[at];
        rids[n] = t->num_nodes + at;
        double bandwidth_Bps = ppt_flows_capacity_Bps(fs, rids[n++]);
        *packet_s_per_B += 1.0 / bandwidth_Bps;
        slowest_Bps = bandwidth_Bps < slowest_Bps ? bandwidth_Bps : slowest_Bps;
        *latency_s += t->port_latency_s[at];
        if (peer < 0) {
            *packet_s_per_B -= 1.0 / slowest_Bps;
            return t->port_peer_port[at] == dst ? n : 0;
        }
        *latency_s += t->router_delay_s;
        pkt.vc = vc;
        pkt.in_port = t->port_peer_port[at];
        pkt.from_router = router;
        pkt.hops++;
        router = peer;
    }
    return 0;
}

ppt_flow_path_t ppt_flow_route(ppt_flows_t *fs, const ppt_flow_topo_t *topo, const ppt_routing_t *rt,
                               int32_t src, int32_t dst, int32_t samples, uint64_t uid0)
{
    ppt_flow_path_t out = {-1, 0, 0.0, 0.0};
    int32_t rids[MAX_SAMPLES * (MAX_HOPS + 2)], len[MAX_SAMPLES], routes = 0, used = 0;
    if (samples > MAX_SAMPLES)
        samples = MAX_SAMPLES;
    for (int32_t s = 0; s < samples; s++) {
        double latency_s, packet_s_per_B;
        int32_t n = walk(fs, topo, rt, src, dst, uid0 + (uint64_t)s, rids + used, &latency_s, &packet_s_per_B);
        if (n == 0)
            return out;
        int seen = 0;
        for (int32_t r = 0, at = 0; r < routes && !seen; at += len[r++])
            seen = len[r] == n && !memcmp(rids + at, rids + used, (size_t)n * sizeof(int32_t));
        if (seen)
            continue;
        if (latency_s > out.latency_s || (latency_s == out.latency_s && packet_s_per_B > out.packet_s_per_B)) {
            out.latency_s = latency_s;
            out.packet_s_per_B = packet_s_per_B;
            out.hops = n - 2;
        }
        len[routes++] = n;
        used += n;
    }
    out.path = ppt_flows_add_path(fs, routes, len, rids);
    return out;
}
