/* The packet core's public types and calls.
 *
 * This header is read twice: by the C compiler, and (with its '#' lines
 * stripped) by cffi's cdef, so it holds declarations only.  Units are SI:
 * seconds (double), bytes (int32/int64).
 */
#ifndef PPT_CORE_H
#define PPT_CORE_H
#include <stdint.h>

/* One packet.  Packets live in a pool and are named by their index. */
typedef struct ppt_packet {
    uint64_t uid;            /* message uid << 24 | packet index (mod 2^64): the key of its random choices */
    uint64_t msg_uid;        /* its message: source node << 32 | the source's message count */
    int64_t route[4];        /* private to the routing (plan, intermediate, random key) */
    double inject_s;         /* creation time at the source NIC, s */
    double tail_s;           /* cut-through: when its last byte reaches the router it is at, s */
    int32_t src, dst;        /* source and destination nodes */
    int32_t size_B;          /* header + payload bytes on the wire */
    int32_t payload_B;
    int32_t hops;            /* router-to-router hops taken so far */
    int32_t vc;              /* VC of the channel the packet arrived on */
    int32_t in_port;         /* input port at the current router */
    int32_t from_router;     /* router it came from, -1 from the source NIC */
    int32_t npackets;        /* packets of its message; 0 for a response packet */
    int32_t next;            /* queue link (pool index), -1 at the end */
    int16_t tclass;          /* traffic class (0 without classes): its VCs and its share of every port */
    uint16_t cc;             /* congestion control marks: PPT_CC_FECN, PPT_CC_BECN */
} ppt_packet_t;

/* Congestion marks of a packet: FECN set by a congested switch port, BECN on the notification the
 * destination returns to the source (InfiniBand congestion control, net.c). */
enum { PPT_CC_FECN = 1, PPT_CC_BECN = 2 };

typedef struct ppt_routing ppt_routing_t;
struct ppt_net;

/* route(): the output port at `router` (returned) and the VC (*vc) of the
 * packet's next channel.  At the destination router it returns the terminal
 * port of pkt->dst.  It may update pkt->route (adaptive decisions). */
typedef int32_t (*ppt_route_fn)(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc);
/* inject(): called once when the packet enters the network at its source NIC. */
typedef void (*ppt_inject_fn)(const ppt_routing_t *rt, ppt_packet_t *pkt);

struct ppt_routing {
    ppt_route_fn route;
    ppt_inject_fn inject;       /* NULL: nothing to prepare */
    const void *topo;           /* the topology's tables (ppt_torus_t, ppt_grouped_t, ...) */
    const double *occupancy;    /* per-port bytes seen by walks; NULL: the live network's queues */
    const struct ppt_net *net;  /* the live network, or NULL */
    uint64_t seed;
    int32_t num_vcs;
    int32_t candidates;         /* Valiant candidates weighed by the UGAL-type routings */
    double c_sf;                /* Slim Fly UGAL: scale of a Valiant path's cost */
    double bias_packets;        /* UGAL-L: minimal queue, in the routed packet's sizes, tolerated before a detour */
    /* Multi-plane networks: this routing runs in plane `plane` of `planes` identical router planes and
     * sees plane-local router ids; router r of the plane is router r * planes + plane of the live network. */
    int32_t plane, planes;
};

/* SplitMix64 finaliser. */
uint64_t ppt_mix64(uint64_t x);
/* A deterministic random word for (seed, packet uid, salt): serial and parallel runs agree. */
uint64_t ppt_rand(const ppt_routing_t *rt, const ppt_packet_t *pkt, uint64_t salt);
/* What an adaptive routing may read of the network's state (net.c): on a walk, rt->occupancy; on the
 * live network, its ports.  Bytes waiting for, or being serialized on, output `port` of `router` now. */
double ppt_occupancy(const ppt_routing_t *rt, int32_t router, int32_t port);
/* Bytes output `port` of `router` has left waiting in the next router: the port's used credits beyond
 * what a busy link holds in flight over one credit round trip (a packet of size_B serializing, the
 * link and router delay there and the credit's link back).  0 on a walk, with unbounded buffers and
 * on a terminal port. */
double ppt_credits_waiting_B(const ppt_routing_t *rt, int32_t router, int32_t port, int32_t size_B);

#endif
