/* Paths of the flow network (see flowroute.h). */
#include <stdlib.h>
#include <string.h>

#include "flowroute.h"
#include "_util.h"

#define MAX_HOPS (PPT_FLOW_MAX_ROUTE - 2)     /* router hops before a walk is declared lost */
#define MAX_SAMPLES 64

/* What an adaptive walk sees as the occupancy of a router's output ports (see ppt_flow_route_chunks). */
typedef struct load {
    const ppt_flows_t *fs;
    double now_s;
    const int32_t *rids, *len;  /* the message's chunks routed so far, one route after another */
    int32_t routed;
    double chunk_B;
    double *occupancy_B;        /* [radix]: the ports of the router being left */
} load_t;

/* Fill load->occupancy_B for `router`: the bytes the solver's flows still have to move through each
 * output port, plus a chunk's bytes for every chunk of the message already routed through it. */
static void see_load(const load_t *load, const ppt_flow_topo_t *t, int32_t router)
{
    int32_t first = t->num_nodes + router * t->radix;
    for (int32_t p = 0; p < t->radix; p++)
        load->occupancy_B[p] = ppt_flows_backlog_B(load->fs, first + p, load->now_s);
    for (int32_t i = 0, at = 0; i < load->routed; at += load->len[i++])
        for (int32_t h = at; h < at + load->len[i]; h++)
            if (load->rids[h] >= first && load->rids[h] < first + t->radix)
                load->occupancy_B[load->rids[h] - first] += load->chunk_B;
}

/* One packet's route as resource ids (returns their count, 0 if it got lost), its fixed latency and
 * its per-byte store-and-forward time: a message of n packets of p bytes pipelined through stages of
 * bandwidths b_i takes p * sum(1 / b_i) + (n - 1) * p / min(b_i); the flow moves all n * p bytes at
 * (at most) min(b_i), so the rest is p * (sum(1 / b_i) - 1 / min(b_i)).  Under cut-through a packet
 * of p bytes with an h-byte header takes p / b_0 + sum_{i>=1} max(0, p / b_i - (p - h) / b_{i-1})
 * (net.c, forward()): a stage no faster than the one before adds p (1 / b_i - 1 / b_{i-1}) to the
 * per-byte time and h / b_{i-1} to the fixed latency, a faster one nothing (exact unless p is within
 * a few headers of h).  With `load` the routing sees its occupancy at each router (otherwise an idle
 * network); the packet is packet_B bytes. */
static int32_t walk(const ppt_flows_t *fs, const ppt_flow_topo_t *t, const ppt_routing_t *rt, const load_t *load,
                    int32_t src, int32_t dst, uint64_t uid, int32_t packet_B, int32_t *rids, double *latency_s,
                    double *packet_s_per_B)
{
    ppt_routing_t view = *rt;
    ppt_packet_t pkt;
    memset(&pkt, 0, sizeof pkt);
    pkt.uid = uid;
    pkt.src = src;
    pkt.dst = dst;
    pkt.size_B = packet_B;
    pkt.in_port = pkt.from_router = pkt.next = -1;
    pkt.npackets = 1;
    if (rt->inject)
        rt->inject(rt, &pkt);
    int32_t n = 0, router = t->node_router[src], vc;
    rids[n++] = src;
    *latency_s = t->fixed_latency_s;
    double slowest_Bps = ppt_flows_capacity_Bps(fs, src), before_Bps = slowest_Bps;
    *packet_s_per_B = 1.0 / slowest_Bps;
    while (n <= MAX_HOPS + 1) {
        if (load) {
            see_load(load, t, router);
            view.occupancy = load->occupancy_B;
        }
        int32_t port = view.route(&view, &pkt, router, &vc);
        int32_t at = router * t->radix + port, peer = t->port_peer[at];
        rids[n] = t->num_nodes + at;
        double bandwidth_Bps = ppt_flows_capacity_Bps(fs, rids[n++]);
        if (!t->cut_through) {
            *packet_s_per_B += 1.0 / bandwidth_Bps;
        } else if (bandwidth_Bps <= before_Bps) {
            *packet_s_per_B += 1.0 / bandwidth_Bps - 1.0 / before_Bps;
            *latency_s += t->header_B / before_Bps;
        }
        before_Bps = bandwidth_Bps;
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

/* Make a route of n resources, fixed latency latency_s and fill time packet_s_per_B the path's
 * slowest if it is slower (larger (latency, fill) pair) than the slowest so far. */
static void keep_slowest(ppt_flow_path_t *out, int32_t n, double latency_s, double packet_s_per_B)
{
    if (latency_s > out->latency_s || (latency_s == out->latency_s && packet_s_per_B > out->packet_s_per_B)) {
        out->latency_s = latency_s;
        out->packet_s_per_B = packet_s_per_B;
        out->hops = n - 2;
    }
}

ppt_flow_path_t ppt_flow_route(ppt_flows_t *fs, const ppt_flow_topo_t *topo, const ppt_routing_t *rt,
                               int32_t src, int32_t dst, int32_t samples, uint64_t uid0, int32_t packet_B)
{
    ppt_flow_path_t out = {-1, 0, 0.0, 0.0};
    int32_t rids[MAX_SAMPLES * PPT_FLOW_MAX_ROUTE], len[MAX_SAMPLES], routes = 0, used = 0;
    if (samples > MAX_SAMPLES)
        samples = MAX_SAMPLES;
    for (int32_t s = 0; s < samples; s++) {
        double latency_s, packet_s_per_B;
        int32_t n = walk(fs, topo, rt, NULL, src, dst, uid0 + (uint64_t)s, packet_B, rids + used, &latency_s,
                         &packet_s_per_B);
        if (n == 0)
            return out;
        int seen = 0;
        for (int32_t r = 0, at = 0; r < routes && !seen; at += len[r++])
            seen = len[r] == n && !memcmp(rids + at, rids + used, (size_t)n * sizeof(int32_t));
        if (seen)
            continue;
        keep_slowest(&out, n, latency_s, packet_s_per_B);
        len[routes++] = n;
        used += n;
    }
    out.path = ppt_flows_add_path(fs, routes, len, rids);
    return out;
}

ppt_flow_path_t ppt_flow_route_chunks(const ppt_flows_t *fs, const ppt_flow_topo_t *topo, const ppt_routing_t *rt,
                                      int32_t src, int32_t dst, int32_t chunks, double chunk_B, int32_t packet_B,
                                      uint64_t uid0, int32_t npackets, double now_s, int32_t *rids, int32_t *len)
{
    ppt_flow_path_t out = {-1, 0, 0.0, 0.0};
    load_t load = {fs, now_s, rids, len, 0, chunk_B, ppt_alloc((size_t)topo->radix, sizeof(double))};
    for (int32_t used = 0; load.routed < chunks; used += len[load.routed++]) {
        double latency_s, packet_s_per_B;
        uint64_t uid = uid0 + (uint64_t)((int64_t)load.routed * npackets / chunks);
        len[load.routed] = walk(fs, topo, rt, &load, src, dst, uid, packet_B, rids + used, &latency_s,
                                &packet_s_per_B);
        if (len[load.routed] == 0)
            break;
        keep_slowest(&out, len[load.routed], latency_s, packet_s_per_B);
    }
    free(load.occupancy_B);
    out.path = load.routed == chunks ? 0 : -1;
    return out;
}
