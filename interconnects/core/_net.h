/* Private to the C sources: the live network's state, shared by the network's own parts (net.c,
 * traffic.c, observe.c). */
#ifndef PPT_NET_H
#define PPT_NET_H
#include <math.h>
#include <stdlib.h>
#include "core.h"
#include "net.h"
#include "_queue.h"
#include "histogram.h"

#define NONE (-1)          /* no packet, message, router or rail */
/* Message uids are node << 32 | a count; responses and synthetic traffic count in their own ranges,
 * so a message's uid never depends on how far the core ran before Python handed it over. */
#define RESPONSE_BIT (1ULL << 30)
#define SYNTHETIC_BIT (1ULL << 31)

/* Event kinds of the core's queue. */
enum {
    EV_ARRIVE = 1,      /* a packet (a) has fully arrived at router target */
    EV_PORT_FREE,       /* output port a of router target may start its next packet */
    EV_CREDIT,          /* b bytes of buffer back for output port (a & 0xffff), VC (a >> 16) */
    EV_NIC_QUEUE,       /* message slot a enters the queue of NIC target */
    EV_NIC_WAKE,        /* NIC target looks at its queues again */
    EV_NIC_CREDIT,      /* b bytes of router buffer back for NIC target */
    EV_NIC_RECEIVE,     /* a packet (a) has fully arrived at NIC target */
    EV_DELIVER,         /* message uid (a, b) is handed to the host at node target */
    EV_SENT,            /* the last byte of message uid (a, b) has left NIC target */
    EV_CUT,             /* cut-through: packet a, routed to port (b & 0xffff), VC (b >> 16), may go on at router target */
    EV_CC_TIMER,        /* congestion control: the timer of NIC target's class a (CCTI decrease, DCQCN period) */
};


typedef struct message {
    uint64_t uid;
    int64_t nbytes;
    int32_t src, dst, npackets, cut, next, notify_sent, tclass;
} message_t;

typedef struct source {     /* a synthetic traffic source of one NIC */
    double next_s;                      /* creation time of its next packet (inf: none), s */
    double arrival_s;                   /* creation time of its next message, s */
    double stop_s;                      /* no message created at or after it, s */
    int64_t count;                      /* messages created */
    const ppt_traffic_config_t *cfg;    /* NULL: the node has no source */
    int32_t index;                      /* the node's place among cfg's members */
    int32_t left, dst;                  /* packets of the current message still to create, and its node */
} source_t;

/* Open-addressing map: message uid -> packets still missing at its destination. */
typedef struct msgmap {
    uint64_t *keys;         /* 0: empty slot (uids are never 0: node << 32 | seq with seq >= 1) */
    int32_t *left;
    int64_t mask, used;
} msgmap_t;

/* One output port of a router: everything a hop touches, in one 64-byte record. */
typedef struct port {
    double free_at;         /* when the packet on the wire finishes serializing, s */
    double inv_bw;          /* s per byte; 0 on an unused slot */
    double arrive_s;        /* link latency (+ router delay towards a router), s */
    int64_t bytes_out, max_queued_B;
    int32_t peer, peer_port;    /* peer router and its port; -1 and the node on a terminal port */
    int64_t queued_B;       /* bytes waiting for this port (credit flow control) */
    double wake_s;          /* time of the pending PORT_FREE event, inf: none */
} port_t;

struct ppt_net {
    ppt_net_config_t cfg;
    ppt_routing_t routing;                  /* plane 0's routing (the only one when planes == 1) */
    ppt_routing_t *plane_routing;           /* [plane]: each plane's routing, seeing plane-local routers */
    int32_t planes, rail_policy, rail_unit;
    const int32_t *node_plane;              /* PPT_RAIL_DEDICATED: plane per node (owned copy), or NULL: 0 */
    uint8_t *plane_hops;                    /* legal hops per (router pair, plane), owned copy; NULL: all equal */
    int32_t radix, num_vcs, credit_on, cut_through;
    int32_t router_lo, router_hi;           /* routers of this rank: [lo, hi) */
    int32_t *router_rank;                   /* owning rank of every router */
    double now;
    port_t *ports;                          /* [router * radix + port] */
    double *link_s;                         /* link latency per port (credits travel back on it), s */
    int32_t *rr;                            /* round-robin VC pointer per port */
    /* per (router, port, vc) with credits */
    int64_t *credits;
    int32_t *q_head, *q_tail;
    uint64_t *router_key;                   /* last event key of each router: eid << PPT_KEY_BITS | count */
    /* per rail [node * planes + plane]: a NIC port with its own wire, credits, queue and wake-up */
    double *nic_inv_bw, *nic_arrive_s, *nic_free_at, *nic_wake_s;
    int64_t *nic_credit_B;
    int32_t *nic_out_head, *nic_out_tail, *nic_pending;    /* messages sent whole over this rail */
    int64_t *rail_queued_B;                 /* bytes of those messages not yet cut into packets */
    /* per node */
    int64_t *nic_injected_B, *nic_ejected_B;    /* bytes on the wire, cumulative */
    int32_t *nic_resp_head, *nic_resp_tail;
    int32_t *nic_shared_head, *nic_shared_tail; /* messages whose packets each choose a rail (planes > 1) */
    int32_t *nic_held, *nic_held_rail;      /* a cut packet waiting for the busy rail chosen for it */
    uint64_t *nic_rail_count;               /* PPT_RAIL_ROUND_ROBIN: rail choices made so far */
    uint64_t *nic_msg_seq;                  /* messages handed over by Python, per source node */
    uint64_t *nic_resp_seq;                 /* response packets made by the core, per node */
    uint64_t *nic_key;                      /* last key of the NIC's own (core) events */
    uint64_t *nic_send_key;                 /* last key of events made by Python's hand-overs */
    ppt_queue_t queue;
    /* packet pool and message slots, with free lists */
    ppt_packet_t *pkts;
    int32_t pkt_cap, pkt_free, pkts_live;
    message_t *msgs;
    int32_t msg_cap, msg_free;
    msgmap_t partial;
    /* outputs for Python, and events for other ranks */
    ppt_output_t *out;
    int64_t out_len, out_cap;
    ppt_remote_t **outbox;
    int64_t *outbox_len, *outbox_cap;
    /* synthetic traffic */
    int32_t traffic_on;
    source_t *sources;
    ppt_counters_t c;
    ppt_histogram_t packet_latency;
    const int32_t *node_job;                /* job of every node (see ppt_net_set_jobs), or NULL */
    struct ppt_job_counters *job_counters;  /* [job] (observe.h) */
    unsigned __int128 latency_sum_as;
    /* traffic classes (classes > 1; see ppt_net_config_t): per class its VC count and 1 / share */
    int32_t classes, class_vcs;
    double *class_cost;                     /* [class] virtual bytes per byte served: 1 / share */
    int32_t *class_priority;                /* [class] strict priority level */
    double *nic_class_tag;                  /* [node * classes + class] a NIC's fair queueing finish tag, virtual B */
    double *nic_vtime;                      /* [node] start tag of the packet the NIC cut last, virtual bytes */
    int32_t *nic_class_msgs;                /* [node * classes + class] messages queued at the NIC (fifo_pick) */
    double *class_tag;                      /* [port * classes + class] fair queueing finish tag, virtual bytes */
    double *port_vtime;                     /* [port] start tag of the packet last started, virtual bytes */
    int32_t *class_rr;                      /* [port * classes + class] round-robin pointer among its VCs */
    int32_t *class_queued;                  /* [port * classes + class] packets queued (class_pick_vc skips none) */
    int32_t *node_class;                    /* [node] class of messages from the node, or NULL: 0 */
    struct ppt_class_counters *class_counters;  /* [class] (observe.h) */
    ppt_histogram_t *class_latency;         /* [class] */
    /* congestion control (cc_on: the scheme, PPT_CC_*; see ppt_net_config_t), per source [node * classes + class] */
    int32_t cc_on;
    int32_t *cc_marks;                      /* IB: [port] packets eligible for a mark since the last one */
    int32_t *ccti;                          /* IB: CCT index; DCQCN: periods since the last rate cut */
    double *cc_next_s;                      /* earliest start of the next data packet, s */
    uint8_t *cc_timer_on;                   /* an EV_CC_TIMER event is pending */
    double *dcqcn_rate, *dcqcn_target;      /* DCQCN: current and target rate, bytes/s */
    double *dcqcn_alpha, *dcqcn_cut_s;      /* DCQCN: congestion estimate, time of the last rate cut (s) */
};

/* Bytes still to serialize on port o's wire after time t_s (0 when idle or unused). */
static inline double port_backlog_B(const port_t *o, double t_s)
{
    return o->inv_bw > 0.0 && o->free_at > t_s ? (o->free_at - t_s) / o->inv_bw : 0.0;
}

static inline int router_local(const ppt_net_t *net, int32_t r) { return r >= net->router_lo && r < net->router_hi; }
static inline int node_local(const ppt_net_t *net, int32_t n) { return router_local(net, net->cfg.node_router[n]); }

/* net.c, for traffic.c */
int32_t ppt_packet_new(ppt_net_t *net);
void ppt_nic_pump(ppt_net_t *net, int32_t node);
void ppt_packet_unlinked(ppt_packet_t *pkt);
/* traffic.c, for net.c: the next synthetic packet of `node` created by now (-1: none) */
int32_t ppt_traffic_take(ppt_net_t *net, int32_t node, double now);

/* observe.c, for net.c: count a packet delivered `latency` seconds after its creation in its job */
void ppt_observe_delivery(ppt_net_t *net, const ppt_packet_t *pkt, double latency);

#endif
