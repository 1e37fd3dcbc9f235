/* Paths of the flow network: a node pair's routes, walked through the compiled routing. */
#ifndef PPT_FLOWROUTE_H
#define PPT_FLOWROUTE_H
#include "core.h"
#include "flow.h"

/* The tables a walk reads.  Resource ids: node n's injection is n; output port p of router r is
 * num_nodes + r * radix + p (the flow solver's capacities follow the same numbering). */
typedef struct ppt_flow_topo {
    int32_t num_nodes, radix;
    const int32_t *node_router;     /* [node] */
    const int32_t *port_peer;       /* [router * radix + port]: the router beyond it, -1 for a node port */
    const int32_t *port_peer_port;  /* [router * radix + port]: the port there (the node, at a node port) */
    const double *port_latency_s;   /* [router * radix + port]: its link's latency, s */
    double fixed_latency_s;         /* per message: both NICs, the terminal link and the first router, s */
    double router_delay_s;          /* per router left through a router-to-router link, s */
    int32_t cut_through;            /* 1: the packet network cuts through (net.c, forward()), 0: store-and-forward */
    double header_B;                /* the header a cut-through router waits for, bytes */
} ppt_flow_topo_t;

/* What a path costs beyond sharing: router hops, and of its slowest route (the largest
 * (latency, packet) pair) the fixed latency (s) and the seconds per byte of one packet
 * stored and forwarded on every resource but the slowest (the pipeline's fill time). */
typedef struct ppt_flow_path {
    int32_t path;                   /* the solver's path id, -1 if the routing failed */
    int32_t hops;
    double latency_s;
    double packet_s_per_B;
} ppt_flow_path_t;

/* The most resources one route crosses: a node's injection, 64 router hops and the port to the
 * destination (a walk longer than that is lost, as in topology.channels). */
enum { PPT_FLOW_MAX_ROUTE = 66 };

/* Walk `samples` packets of packet_B bytes (uids uid0, uid0 + 1, ...) from node src to node dst
 * (src != dst) on an idle network and add their distinct routes to `fs` as one path. */
ppt_flow_path_t ppt_flow_route(ppt_flows_t *fs, const ppt_flow_topo_t *topo, const ppt_routing_t *rt,
                               int32_t src, int32_t dst, int32_t samples, uint64_t uid0, int32_t packet_B);

/* Route a message of `chunks` chunks of chunk_B bytes each from node src to node dst (src != dst) at
 * now_s, for a routing that adapts to load: chunk k is walked by one packet of packet_B bytes (uid
 * uid0 + k * npackets / chunks: the uid of its first packet among npackets), which sees as the
 * occupancy of each router's output ports the bytes the flows of `fs` still have to move through
 * them plus the bytes of chunks 0 .. k-1 routed through them -- the committed bytes that UGAL-L
 * compares.  Writes the routes one after another into rids (room for chunks * PPT_FLOW_MAX_ROUTE
 * ids) and their lengths into len[chunks]; adds no path to `fs`.  Returns the cost of the slowest
 * route as ppt_flow_route does, with path 0, or -1 if the routing failed. */
ppt_flow_path_t ppt_flow_route_chunks(const ppt_flows_t *fs, const ppt_flow_topo_t *topo, const ppt_routing_t *rt,
                                      int32_t src, int32_t dst, int32_t chunks, double chunk_B, int32_t packet_B,
                                      uint64_t uid0, int32_t npackets, double now_s, int32_t *rids, int32_t *len);
#endif
