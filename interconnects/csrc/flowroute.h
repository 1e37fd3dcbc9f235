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

/* Walk `samples` packets (uids uid0, uid0 + 1, ...) from node src to node dst (src != dst) on an idle
 * network and add their distinct routes to `fs` as one path. */
ppt_flow_path_t ppt_flow_route(ppt_flows_t *fs, const ppt_flow_topo_t *topo, const ppt_routing_t *rt,
                               int32_t src, int32_t dst, int32_t samples, uint64_t uid0);
#endif
