/* The packet network: routers, NICs and their events, run by the core's own event queue.
 *
 * Python builds a ppt_net_config_t from the topology's tables, creates the
 * network with ppt_net_new(), hands it messages (ppt_net_send) at the current
 * simulated time and runs it (ppt_net_run) up to the time of its own next
 * event; the core stops after any event that Python must see (a message
 * delivered at its destination, or its last byte sent at the source) and
 * leaves it in the output list.  Times in seconds, sizes in bytes.
 */
#ifndef PPT_NET_API_H
#define PPT_NET_API_H
#include "core.h"

typedef struct ppt_net ppt_net_t;

/* Event keys are (creating entity id << PPT_KEY_BITS | its running count): the layout of the engine's
 * own keys (ppt/engine/entity.py), since the core's outputs run as engine events under their keys. */
enum { PPT_KEY_BITS = 40 };

typedef struct ppt_net_config {
    int32_t num_routers, num_nodes, radix, num_vcs;
    const int32_t *port_peer;       /* [router * radix + port]: peer router, -1 terminal/unused */
    const int32_t *port_peer_port;  /* port at the peer router; node id on a terminal port */
    const int8_t *port_class;       /* link class of the port, -1 unused */
    const double *class_bandwidth_Bps, *class_latency_s;
    const int32_t *node_router, *node_port;
    const int64_t *router_eid, *nic_eid;   /* entity ids: event keys never depend on placement */
    double router_delay_s;          /* added to every arrival at a router */
    double nic_bandwidth_Bps;       /* the NIC injects at min(this, its terminal link) */
    double nic_latency_s;           /* charged at the source NIC and again at the destination */
    int32_t cut_through;            /* 1: virtual cut-through (a packet moves on once its header is in), 0: store-and-forward */
    int64_t vc_capacity_B;          /* bytes per (input port, VC); 0: unbounded buffers */
    int32_t header_B, max_payload_B, chunk_B, response_B;
    int32_t rank, num_ranks;        /* this simulation rank; routers are split in blocks */
    const int32_t *router_starts;   /* [num_ranks + 1]: first router of each rank's block; NULL: even blocks */
    /* Multi-plane, multi-rail: `planes` identical router planes, router r of plane k being router
     * r * planes + k (the tables above hold all planes; node_router names the node's plane-0 router);
     * every node has one rail (NIC port, with its own queue, credits and wire) into each plane.
     * nic_bandwidth_Bps is per rail.  Blocks of routers per rank hold whole plane sets. */
    int32_t planes;                 /* >= 1 */
    int32_t rail_policy;            /* PPT_RAIL_*: the rail of each message or packet (planes > 1) */
    int32_t rail_unit;              /* PPT_RAIL_PER_MESSAGE or PPT_RAIL_PER_PACKET */
    /* Traffic classes (0 or 1: none).  Class c owns VCs [c * V, (c + 1) * V) of every port, V =
     * num_vcs / classes, a copy of the routing's VC set; an output port shares its wire among the
     * classes with packets waiting by class_priority (higher first) and, within a priority, by
     * class_share (start-time fair queueing, net.c).  Bounded buffers (vc_capacity_B > 0) required. */
    int32_t classes;
    const double *class_share;      /* [class] guaranteed fraction of every port's bandwidth, summing to 1 */
    const int32_t *class_priority;  /* [class] strict priority level, higher served first; NULL: all equal */
    /* Congestion control (net.c): cc_scheme PPT_CC_NONE, PPT_CC_IB (InfiniBand, IBTA annex A10: the cc_ and
     * ccti_ fields) or PPT_CC_DCQCN (Zhu et al., SIGCOMM 2015: the red_ and dcqcn_ fields). */
    int32_t cc_scheme;
    double cc_threshold_B;          /* a port with this many bytes waiting marks arriving packets (FECN) */
    int32_t cc_marking_rate;        /* of the packets eligible for a mark, one in this many gets it */
    int32_t cc_min_packet_B;        /* packets smaller than this are never marked */
    int32_t ccti_increase;          /* CCT index added per BECN received */
    int32_t ccti_limit;             /* largest CCT index */
    double ccti_timer_s;            /* the index drops by 1 every this many seconds while above 0 */
    double cct_step_s;              /* CCT: index i delays the next packet i * cct_step_s after the last, s */
    double red_kmin_B, red_kmax_B;  /* ECN marking: probability 0 up to kmin bytes waiting, red_pmax at kmax, */
    double red_pmax;                /* 1 beyond */
    double dcqcn_g;                 /* gain of the congestion estimate alpha */
    double dcqcn_period_s;          /* alpha decay and rate increase period, s */
    double dcqcn_ai_Bps;            /* additive increase of the target rate, bytes/s */
    double dcqcn_min_rate_Bps;      /* the rate is never cut below this, bytes/s */
    double dcqcn_cnp_interval_s;    /* at most one rate cut per this many seconds, s */
    int32_t dcqcn_fast_stages;      /* periods of fast recovery (rate halfway to target) before additive increase */
} ppt_net_config_t;

enum { PPT_RAIL_RANDOM, PPT_RAIL_ROUND_ROBIN, PPT_RAIL_CONGESTION, PPT_RAIL_DEDICATED, PPT_RAIL_SHORTEST };
enum { PPT_RAIL_PER_MESSAGE, PPT_RAIL_PER_PACKET };
enum { PPT_CC_NONE, PPT_CC_IB, PPT_CC_DCQCN };

/* What Python must see: a message delivered (at its destination node) or sent (at its source node). */
enum { PPT_OUT_DELIVER = 1, PPT_OUT_SENT = 2 };
typedef struct ppt_output {
    double t;
    uint64_t key;       /* the core event's key: the engine orders the hand-over by it */
    uint64_t uid;
    int32_t kind, node;
} ppt_output_t;

/* An event for a router on another simulation rank (a packet, or credits returned). */
typedef struct ppt_remote {
    double t;
    uint64_t key;
    int32_t kind, target, a, b;
    ppt_packet_t pkt;
} ppt_remote_t;

typedef struct ppt_counters {
    int64_t injected, delivered, hops_sum, hops_max, bytes_delivered;
    int64_t messages_sent, messages_delivered, responses, router_traversals, events;
    int64_t queue_depth_sum;        /* sum over events of the queue length before each: mean depth */
    uint64_t latency_sum_as_hi, latency_sum_as_lo;   /* sum of packet latencies, attoseconds */
    uint64_t injected_uid_hash, delivered_uid_hash;   /* sums of mix64(uid): equal iff each packet arrived once */
    double latency_max_s;
    int64_t fecn_marked, becn_received;     /* congestion control: packets marked, notifications back at sources */
} ppt_counters_t;

typedef struct ppt_link_summary {
    int64_t count, bytes, max_queue_B;
    int32_t busiest_router, busiest_port;     /* -1 when no link carried bytes */
    int64_t busiest_bytes;
    double busiest_busy_s;
    int64_t busiest_max_queue_B;
} ppt_link_summary_t;

/* Packets of one traffic class delivered at this rank's NICs (responses count in their request's class);
 * read with ppt_net_class_counters (observe.h). */
typedef struct ppt_class_counters {
    int64_t delivered;              /* packets */
    int64_t bytes_delivered;        /* wire bytes */
    int64_t latency_sum_ps;         /* creation at the source NIC to arrival, picoseconds */
} ppt_class_counters_t;

/* Synthetic traffic: open-loop sources on the local NICs of `members` (NULL: every node), sending to
 * members only; patterns other than the table and nn act on a node's place in the member list. */
enum { PPT_PATTERN_UR, PPT_PATTERN_NN, PPT_PATTERN_BITCOMP, PPT_PATTERN_TRANSPOSE,
       PPT_PATTERN_TORNADO, PPT_PATTERN_TABLE, PPT_PATTERN_HOTSPOT };
typedef struct ppt_traffic_config {
    int32_t pattern;
    int32_t bernoulli;              /* 1: slotted Bernoulli arrivals, 0: exponential gaps */
    double load;                    /* offered fraction of injection bandwidth, (0, 1] */
    uint64_t seed_key;
    double stop_s;                  /* no packet is created at or after this time */
    double slot_s, mean_gap_s;      /* a message's wire time, and the mean gap between messages, s */
    int32_t packets;                /* packets per message */
    int32_t payload_B, packet_B;    /* payload and wire bytes of each packet but the last */
    int32_t last_payload_B, last_packet_B;
    const int32_t *table_first, *table_count;   /* PPT_PATTERN_TABLE: dst = first + rand % count */
    const int32_t *router_nodes_start, *router_nodes;   /* nodes of each router (for nn) */
    const int32_t *members;         /* the nodes with sources, ascending; NULL: every node */
    int32_t num_members;            /* their count (the node count when members is NULL) */
    int32_t traffic_class;          /* class of its packets (see ppt_net_config_t.classes) */
} ppt_traffic_config_t;

ppt_net_t *ppt_net_new(const ppt_net_config_t *cfg, const ppt_routing_t *routing);
void ppt_net_free(ppt_net_t *net);

/* A message of nbytes from node src to node dst handed over at time now_s; returns its uid. */
uint64_t ppt_net_send(ppt_net_t *net, int32_t src, int32_t dst, int64_t nbytes, int32_t notify_sent, double now_s);
/* The same in traffic class tclass (in [0, classes)), or in the node's class (tclass -1: as ppt_net_send). */
uint64_t ppt_net_send_class(ppt_net_t *net, int32_t src, int32_t dst, int64_t nbytes, int32_t notify_sent,
                            double now_s, int32_t tclass);
/* Run events with time < until_s, at most max_events of them; once an event has output (see
 * ppt_net_outputs) at time t, only those before t + nic_latency_s, when a message Python sends in
 * reply could first reach the core.  Returns the number of events run. */
int64_t ppt_net_run(ppt_net_t *net, double until_s, int64_t max_events);
double ppt_net_next_time(ppt_net_t *net);
/* Time of the last event run, s (0 before any). */
double ppt_net_now(const ppt_net_t *net);
int64_t ppt_net_outputs(ppt_net_t *net, ppt_output_t **out);
void ppt_net_clear_outputs(ppt_net_t *net);

/* Parallel runs: events for routers of other simulation ranks, and their arrival here. */
int64_t ppt_net_outbox(ppt_net_t *net, int32_t rank, ppt_remote_t **events);
double ppt_net_outbox_min_time(const ppt_net_t *net);
void ppt_net_clear_outbox(ppt_net_t *net);
void ppt_net_receive(ppt_net_t *net, const ppt_remote_t *events, int64_t count);

void ppt_net_counters(const ppt_net_t *net, ppt_counters_t *out);
void ppt_net_link_summary(const ppt_net_t *net, ppt_link_summary_t *out);
int64_t ppt_net_packets_in_flight(const ppt_net_t *net);

/* Start sources on the local member nodes of `cfg` (which must outlive the network; several configs
 * may run on disjoint node sets).  0, -1 out of memory, -2 a member already has a source. */
int ppt_net_start_traffic(ppt_net_t *net, const ppt_traffic_config_t *cfg);
/* No synthetic packet is created at or after stop_s (packets in flight still arrive). */
void ppt_net_stop_traffic(ppt_net_t *net, double stop_s);

/* The traffic class of the messages Python hands over from each node (num_nodes entries, copied; each in
 * [0, classes)); all 0 by default. */
void ppt_net_set_node_classes(ppt_net_t *net, const int32_t *node_class);

/* PPT_RAIL_DEDICATED: the plane of every node (num_nodes entries, copied; each in [0, planes)); all 0 by default. */
void ppt_net_set_node_planes(ppt_net_t *net, const int32_t *node_plane);
/* Plane `plane` (>= 1) routes with `routing` (copied), whose tables are that plane's own (its own
 * failure map); by default every plane runs plane 0's routing. */
void ppt_net_set_plane_routing(ppt_net_t *net, int32_t plane, const ppt_routing_t *routing);
/* Each plane's legal path length per router pair, from its static failure map (railpick.py):
 * hops[(s * R + d) * planes + k] for plane-local routers s, d (R = num_routers / planes) is the hop
 * count of plane k's shortest legal path from s to d, PPT_PLANE_DETOUR if only a non-minimal
 * (Valiant) path is legal there, PPT_PLANE_NONE if none is.  Copied.  Every rail choice skips planes
 * marked NONE for the pair; PPT_RAIL_SHORTEST prefers the planes with the fewest hops.  Not set
 * (the default): every plane serves every pair equally. */
enum { PPT_PLANE_DETOUR = 254, PPT_PLANE_NONE = 255 };
void ppt_net_set_plane_hops(ppt_net_t *net, const uint8_t *hops);
#endif
