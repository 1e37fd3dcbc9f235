/* The packet network's hot path: routers, NICs, credits and the core's event queue.
 *
 * Timing: an output port serializes one packet at a time (size / bandwidth).
 * Store-and-forward (cut_through 0): the packet reaches the next router one
 * link latency plus one router delay after its serialization ends, so a lone
 * packet's latency is the sum of serialization, link and router delays along
 * its path.  Virtual cut-through (cut_through 1): the next router sees the
 * packet once its header is in (header / bandwidth + link latency + router
 * delay after the wire started) and forwards it as soon as the output is
 * free; the wire stays busy for the whole packet and cannot finish before
 * the packet's last byte has come in, so a lone packet pays one full
 * serialization and per hop its link and router time and its header's
 * (between links of equal speed; see forward() for the rule).  Either way a router takes a whole packet
 * into its buffer (credits count whole packets, returned as it starts to
 * leave) and a NIC receives it whole.
 * A message pays nic_latency_s at the source NIC (before its first packet
 * leaves) and at the destination NIC (after its last packet arrives).
 *
 * Flow control: with vc_capacity_B > 0 every router input port has that many
 * bytes of buffer per VC and an upstream port sends only with credits for
 * the downstream (port, VC) buffer; credits return one link latency after
 * the packet leaves that buffer.  Packets waiting for a port or for credits
 * queue per (output port, VC) and a free port serves its VCs round-robin.
 * With unbounded buffers nothing blocks: each output port is a FIFO whose
 * departure times are computed when packets arrive (one event per hop).
 *
 * Every event carries the key (creating entity id << PPT_KEY_BITS | its running count)
 * and events run in (time, key) order, so each router and NIC sees the same
 * events in the same order however routers are split over simulation ranks.
 */
#include <stddef.h>
#include <string.h>
#include "_net.h"
#include "_util.h"

/* Routers of at most this many ports have all their port records prefetched before a packet arrives. */
#define PREFETCH_PORTS 8

/* ---------------------------------------------------------------- event queue */

static inline uint64_t router_key(ppt_net_t *net, int32_t r) { return ++net->router_key[r]; }
static inline uint64_t nic_key(ppt_net_t *net, int32_t node) { return ++net->nic_key[node]; }

static void post(ppt_net_t *net, double t, uint64_t key, int32_t kind, int32_t target, int32_t a, int32_t b)
{
    ppt_event_t ev = {t, key, kind, target, a, b};
    queue_push(&net->queue, &ev);
}

/* An event for router `target`, here or on its own simulation rank (with the packet, if any). */
static void post_router(ppt_net_t *net, double t, uint64_t key, int32_t kind, int32_t target, int32_t a,
                        int32_t b, int32_t pkt)
{
    if (router_local(net, target)) {
        post(net, t, key, kind, target, a, b);
        return;
    }
    int32_t rank = net->router_rank[target];
    net->outbox[rank] = ppt_grow(net->outbox[rank], &net->outbox_cap[rank], sizeof(ppt_remote_t),
                             net->outbox_len[rank] + 1);
    ppt_remote_t *r = &net->outbox[rank][net->outbox_len[rank]++];
    memset(r, 0, sizeof *r);
    r->t = t; r->key = key; r->kind = kind; r->target = target; r->a = a; r->b = b;
    if (pkt != NONE) {
        r->pkt = net->pkts[pkt];
        r->pkt.next = NONE;
        net->pkts[pkt].next = net->pkt_free;       /* the packet now lives on the other rank */
        net->pkt_free = pkt;
        net->pkts_live--;
    }
}

static void output(ppt_net_t *net, const ppt_event_t *ev, int32_t kind, uint64_t uid)
{
    net->out = ppt_grow(net->out, &net->out_cap, sizeof(ppt_output_t), net->out_len + 1);
    ppt_output_t *o = &net->out[net->out_len++];
    o->t = ev->t; o->key = ev->key; o->uid = uid; o->kind = kind; o->node = ev->target;
}

/* ---------------------------------------------------------------- pools */

/* Grow a pool of `item`-byte records whose int32 free-list link sits `link` bytes into each. */
static void pool_grow(void **items, int32_t *cap, int32_t *free_head, size_t item, size_t link)
{
    int64_t n = *cap;
    *items = ppt_grow(*items, &n, item, (int64_t)*cap + 1);
    for (int64_t i = n - 1; i >= *cap; i--) {
        *(int32_t *)((char *)*items + i * item + link) = *free_head;
        *free_head = (int32_t)i;
    }
    *cap = (int32_t)n;
}

int32_t ppt_packet_new(ppt_net_t *net)
{
    if (net->pkt_free == NONE) {
        pool_grow((void **)&net->pkts, &net->pkt_cap, &net->pkt_free, sizeof(ppt_packet_t),
                  offsetof(ppt_packet_t, next));
        net->queue.hint.base = (const char *)net->pkts;
    }
    int32_t p = net->pkt_free;
    net->pkt_free = net->pkts[p].next;
    memset(&net->pkts[p], 0, sizeof(ppt_packet_t));
    net->pkts[p].next = NONE;
    net->pkts_live++;
    return p;
}

/* Append packet p to the FIFO (*head, *tail) of packets linked through their `next`. */
static void packet_append(ppt_net_t *net, int32_t *head, int32_t *tail, int32_t p)
{
    if (*tail == NONE)
        *head = p;
    else
        net->pkts[*tail].next = p;
    *tail = p;
}

static void packet_free(ppt_net_t *net, int32_t p)
{
    net->pkts[p].next = net->pkt_free;
    net->pkt_free = p;
    net->pkts_live--;
}

static int32_t message_new(ppt_net_t *net)
{
    if (net->msg_free == NONE)
        pool_grow((void **)&net->msgs, &net->msg_cap, &net->msg_free, sizeof(message_t), offsetof(message_t, next));
    int32_t m = net->msg_free;
    net->msg_free = net->msgs[m].next;
    net->msgs[m].next = NONE;
    return m;
}

static void message_free(ppt_net_t *net, int32_t m)
{
    net->msgs[m].next = net->msg_free;
    net->msg_free = m;
}

/* ---------------------------------------------------------------- reassembly map */

static void map_grow(msgmap_t *map);

static int64_t map_slot(const msgmap_t *map, uint64_t uid)
{
    int64_t i = (int64_t)(ppt_mix64(uid) & (uint64_t)map->mask);
    while (map->keys[i] && map->keys[i] != uid)
        i = (i + 1) & map->mask;
    return i;
}

/* Packets of message `uid` still missing after one more arrived (npackets in all). */
static int32_t map_arrived(msgmap_t *map, uint64_t uid, int32_t npackets)
{
    if (2 * (map->used + 1) > map->mask + 1)
        map_grow(map);
    int64_t i = map_slot(map, uid);
    if (!map->keys[i]) {
        map->keys[i] = uid;
        map->left[i] = npackets;
        map->used++;
    }
    int32_t left = --map->left[i];
    if (left)
        return left;
    /* delete by backward shift, keeping every probe chain unbroken */
    map->keys[i] = 0;
    map->used--;
    int64_t j = i;
    for (;;) {
        j = (j + 1) & map->mask;
        if (!map->keys[j])
            break;
        int64_t home = (int64_t)(ppt_mix64(map->keys[j]) & (uint64_t)map->mask);
        if (((j - home) & map->mask) >= ((j - i) & map->mask)) {
            map->keys[i] = map->keys[j];
            map->left[i] = map->left[j];
            map->keys[j] = 0;
            i = j;
        }
    }
    return 0;
}

static void map_grow(msgmap_t *map)
{
    msgmap_t bigger = {0};
    bigger.mask = map->mask ? 2 * map->mask + 1 : 1023;
    bigger.keys = ppt_alloc((size_t)bigger.mask + 1, sizeof(uint64_t));
    bigger.left = ppt_alloc((size_t)bigger.mask + 1, sizeof(int32_t));
    for (int64_t i = 0; map->mask && i <= map->mask; i++)
        if (map->keys[i]) {
            int64_t s = map_slot(&bigger, map->keys[i]);
            bigger.keys[s] = map->keys[i];
            bigger.left[s] = map->left[i];
            bigger.used++;
        }
    free(map->keys);
    free(map->left);
    *map = bigger;
}

/* ---------------------------------------------------------------- routers */

/* Router of the live network that plane-local `router` of routing rt's plane is. */
static inline int32_t live_router(const ppt_routing_t *rt, int32_t router)
{
    return router * rt->planes + rt->plane;
}

double ppt_occupancy(const ppt_routing_t *rt, int32_t router, int32_t port)
{
    if (rt->occupancy)
        return rt->occupancy[port];
    const ppt_net_t *net = rt->net;
    if (!net)
        return 0.0;
    const port_t *o = &net->ports[(int64_t)live_router(rt, router) * net->radix + port];
    return (double)o->queued_B + port_backlog_B(o, net->now);
}

double ppt_credits_waiting_B(const ppt_routing_t *rt, int32_t router, int32_t port, int32_t size_B)
{
    const ppt_net_t *net = rt->net;
    if (rt->occupancy || !net || !net->credit_on)
        return 0.0;
    int64_t i = (int64_t)live_router(rt, router) * net->radix + port;
    const port_t *o = &net->ports[i];
    if (o->peer < 0)                                    /* a terminal port: no credits */
        return 0.0;
    double used = 0.0;
    for (int32_t v = 0; v < net->num_vcs; v++)
        used += (double)(net->cfg.vc_capacity_B - net->credits[i * net->num_vcs + v]);
    double in_flight = size_B + (o->arrive_s + net->link_s[i]) / o->inv_bw;
    return used > in_flight ? used - in_flight : 0.0;
}

static void port_wake_at(ppt_net_t *net, int32_t r, int32_t port, double t)
{
    port_t *o = &net->ports[(int64_t)r * net->radix + port];
    if (t < o->wake_s) {
        o->wake_s = t;
        post(net, t, router_key(net, r), EV_PORT_FREE, r, port, 0);
    }
}

/* Bytes a router needs of packet pkt before it may forward it under cut-through: its header. */
static inline int32_t head_B(const ppt_net_t *net, const ppt_packet_t *pkt)
{
    return pkt->size_B < net->cfg.header_B ? pkt->size_B : net->cfg.header_B;
}

/* When a wire of `inv_bw` s/B that starts packet pkt at start_s is done with it: size / bandwidth later,
 * and under cut-through not before the packet's last byte has come in (pkt->tail_s). */
static inline double wire_end(const ppt_net_t *net, const ppt_packet_t *pkt, double inv_bw, double start_s)
{
    double end = start_s + pkt->size_B * inv_bw;
    return net->cut_through && pkt->tail_s > end ? pkt->tail_s : end;
}

/* Put packet p on the wire of `port` of router r from start_s on; returns when its serialization ends.
 *
 * Store-and-forward: the packet, whole, reaches the next router (or the NIC) one link latency (plus
 * the router delay, towards a router) after the serialization ends.
 * Virtual cut-through: with t_i the time wire i (NIC to router, router to router, router to NIC)
 * starts the packet, d_i its link latency plus router delay, b_i its bandwidth, H the header and L
 * the packet bytes,
 *     head at the next router:  t_i + H / b_i + d_i
 *     tail at the next router:  tail_{i+1} = e_i + d_i, where wire i is done at e_i = t_i + L / b_i
 *     next wire starts:         t_{i+1} = max(head, tail_{i+1} - L / b_{i+1}) once the port is free
 * (a faster next wire waits until the rest can follow without a gap: router_arrive()).  So on an
 * idle path e_{i+1} = e_i + d_i + max(0, L / b_{i+1} - (L - H) / b_i), and a lone packet arrives
 *     L / b_0 + sum_i d_i + sum_{i>=1} max(0, L / b_i - (L - H) / b_{i-1})
 * after it started: one full serialization, then per hop its delays and what its wire cannot overlap
 * with the one before (the header's time between equal links, nothing onto a faster link, more onto
 * a slower one).  A NIC takes the packet at its tail. */
static double forward(ppt_net_t *net, int32_t r, int32_t p, int32_t port, int32_t vc, double start_s)
{
    port_t *o = &net->ports[(int64_t)r * net->radix + port];
    ppt_packet_t *pkt = &net->pkts[p];
    double end = wire_end(net, pkt, o->inv_bw, start_s);
    double head = net->cut_through ? start_s + head_B(net, pkt) * o->inv_bw : end;
    pkt->tail_s = end + o->arrive_s;
    o->free_at = end;
    o->bytes_out += pkt->size_B;
    if (o->peer >= 0) {
        pkt->hops++;
        pkt->vc = vc;
        pkt->in_port = o->peer_port;
        pkt->from_router = r;
        post_router(net, head + o->arrive_s, router_key(net, r), EV_ARRIVE, o->peer, p, 0, p);
    } else {
        post(net, pkt->tail_s, router_key(net, r), EV_NIC_RECEIVE, o->peer_port, p, 0);
    }
    return end;
}

/* The buffer packet p held at router r is free from left_s on (as it starts to leave, in either mode:
 * credits count whole packets): credits go back upstream. */
static void return_credit(ppt_net_t *net, int32_t r, const ppt_packet_t *pkt, double left_s)
{
    int64_t i = (int64_t)r * net->radix + pkt->in_port;
    uint64_t key = router_key(net, r);
    double t = left_s + net->link_s[i];
    int32_t back = net->ports[i].peer_port;     /* the upstream router's output port, or the node */
    if (pkt->from_router >= 0)
        post_router(net, t, key, EV_CREDIT, pkt->from_router, back | (pkt->vc << 16), pkt->size_B, NONE);
    else
        post(net, t, key, EV_NIC_CREDIT, back, net->planes > 1 ? r % net->planes : 0, pkt->size_B);
}

/* ---------------------------------------------------------------- traffic classes
 *
 * An output port shares its wire among the traffic classes with packets waiting for it by start-time
 * fair queueing (Goyal, Vin & Cheng, SIGCOMM 1996): every class has a finish tag in virtual bytes
 * (bytes served / its share); a packet starts at tag max(class tag, port's virtual time), advances its
 * class's tag by size / share, and the port's virtual time becomes that start tag.  The free port
 * starts the waiting class of highest priority and, among equals, of lowest start tag.  A backlogged
 * class so gets at least its share of the wire in any window of a few packets; a class with nothing
 * eligible (empty, or out of credits) is skipped and its share goes to the others (work-conserving),
 * and it cannot bank the time it was idle: its start tag is raised to the port's virtual time. */

/* Account packet pkt, starting now on a server (a port, or a NIC) whose classes' finish tags start at
 * `tags` and whose virtual time is *vtime, to its class. */
static void class_started(const ppt_net_t *net, double *tags, double *vtime, const ppt_packet_t *pkt)
{
    double *tag = &tags[pkt->tclass];
    double start = *tag > *vtime ? *tag : *vtime;
    *vtime = start;
    *tag = start + pkt->size_B * net->class_cost[pkt->tclass];
}

/* The VC of class c whose head packet may start on port i now (round-robin among the class's VCs), or -1. */
static int32_t class_ready_vc(const ppt_net_t *net, int64_t i, int32_t c, int to_router)
{
    int32_t nv = net->class_vcs, v = net->class_rr[i * net->classes + c];
    for (int32_t k = 0; k < nv; k++, v = v + 1 < nv ? v + 1 : 0) {
        int64_t q = i * net->num_vcs + c * nv + v;
        int32_t p = net->q_head[q];
        if (p != NONE && (!to_router || net->credits[q] >= net->pkts[p].size_B))
            return c * nv + v;
    }
    return NONE;
}

/* The VC whose head packet the idle port i starts next: the ready class of highest priority, then of
 * lowest start tag (lowest class on ties); -1 if none is ready. */
static int32_t class_pick_vc(ppt_net_t *net, int64_t i, int to_router)
{
    int32_t best_vc = NONE, best_prio = 0;
    double best_tag = 0.0, vtime = net->port_vtime[i];
    const int32_t *queued = &net->class_queued[i * net->classes];
    for (int32_t c = 0; c < net->classes; c++) {
        if (!queued[c])
            continue;
        int32_t vc = class_ready_vc(net, i, c, to_router);
        if (vc == NONE)
            continue;
        int32_t prio = net->class_priority[c];
        double tag = net->class_tag[i * net->classes + c];
        tag = tag > vtime ? tag : vtime;
        if (best_vc == NONE || prio > best_prio || (prio == best_prio && tag < best_tag)) {
            best_vc = vc;
            best_prio = prio;
            best_tag = tag;
        }
    }
    if (best_vc != NONE) {
        int32_t c = best_vc / net->class_vcs;
        net->class_rr[i * net->classes + c] = (best_vc - c * net->class_vcs + 1) % net->class_vcs;
    }
    return best_vc;
}

/* Credit flow control: send packet p now on the idle `port`. */
static void transmit(ppt_net_t *net, int32_t r, int32_t p, int32_t port, int32_t vc)
{
    int64_t i = (int64_t)r * net->radix + port;
    port_t *o = &net->ports[i];
    ppt_packet_t *pkt = &net->pkts[p];
    return_credit(net, r, pkt, net->now);   /* its buffer frees as it starts to leave, whole */
    if (o->peer >= 0)
        net->credits[i * net->num_vcs + vc] -= pkt->size_B;
    if (net->classes > 1)
        class_started(net, &net->class_tag[i * net->classes], &net->port_vtime[i], pkt);
    double end = forward(net, r, p, port, vc, net->now);
    if (o->queued_B)
        port_wake_at(net, r, port, end);
}

/* Start the next eligible queued packet on `port` if the port is idle (round-robin over VCs). */
static void serve(ppt_net_t *net, int32_t r, int32_t port)
{
    int64_t i = (int64_t)r * net->radix + port;
    port_t *o = &net->ports[i];
    if (o->free_at > net->now) {
        port_wake_at(net, r, port, o->free_at);
        return;
    }
    int32_t nvc = net->num_vcs, start = net->rr[i];
    int to_router = o->peer >= 0;
    if (net->classes > 1) {
        start = class_pick_vc(net, i, to_router);
        if (start == NONE)
            return;
        nvc = 1;                                /* the loop below takes that VC */
    }
    for (int32_t k = 0, vc = start; k < nvc; k++, vc = vc + 1 < net->num_vcs ? vc + 1 : 0) {
        int64_t q = i * net->num_vcs + vc;
        int32_t p = net->q_head[q];
        if (p == NONE)
            continue;
        if (to_router && net->credits[q] < net->pkts[p].size_B)
            continue;
        net->q_head[q] = net->pkts[p].next;
        if (net->q_head[q] == NONE)
            net->q_tail[q] = NONE;
        net->pkts[p].next = NONE;
        o->queued_B -= net->pkts[p].size_B;
        if (net->classes > 1)
            net->class_queued[i * net->classes + net->pkts[p].tclass]--;
        net->rr[i] = vc + 1 < net->num_vcs ? vc + 1 : 0;
        transmit(net, r, p, port, vc);
        return;
    }
}

/* The routing's choice at live router r: that of r's plane, which sees plane-local router ids. */
static inline int32_t plane_route(ppt_net_t *net, ppt_packet_t *pkt, int32_t r, int32_t *vc)
{
    if (net->planes == 1)
        return net->routing.route(&net->routing, pkt, r, vc);
    const ppt_routing_t *rt = &net->plane_routing[r % net->planes];
    return rt->route(rt, pkt, r / net->planes, vc);
}

/* The routing's choice for packet pkt at router r, on the VCs of its traffic class.
 *
 * Deadlock freedom with classes: class c owns a private copy [c * V, (c + 1) * V) of the routing's V
 * VCs on every port, with their own buffers and credits.  The routing sees and chooses VCs in 0..V-1
 * exactly as without classes, so within one class the channel dependency graph is the routing's own,
 * acyclic by its original argument (VC per hop or per phase for the dragonfly family and Slim Fly,
 * datelines for tori, up*-down* for fat-trees); a packet never changes class, and no buffer holds
 * packets of two classes, so no dependency joins two classes' graphs.  The port arbiter only chooses
 * among packets already granted a buffer and credits downstream, so it adds no dependency. */
static inline int32_t route(ppt_net_t *net, ppt_packet_t *pkt, int32_t r, int32_t *vc)
{
    if (net->classes <= 1)
        return plane_route(net, pkt, r, vc);
    int32_t base = pkt->tclass * net->class_vcs;
    pkt->vc -= base;
    int32_t port = plane_route(net, pkt, r, vc);
    pkt->vc += base;
    *vc += base;
    return port;
}

/* ---------------------------------------------------------------- congestion control
 *
 * InfiniBand congestion control (IBTA specification, annex A10), per source NIC and traffic class
 * (the specification's SL-level throttling): a switch output port whose waiting bytes (queued plus
 * the rest of the packet on its wire) reach cc_threshold_B marks FECN on one in cc_marking_rate of
 * the packets of at least cc_min_packet_B that arrive for it; a destination NIC answers a FECN-marked
 * packet with a congestion notification packet (BECN, one response-sized packet back through the
 * network, in the packet's class); each BECN raises the source's CCT index (CCTI) by ccti_increase, up to
 * ccti_limit, and a timer lowers it by one every ccti_timer_s while it is above 0.  The NIC starts a
 * data packet of that class no sooner than CCTI * cct_step_s after the end of the previous one (the
 * Congestion Control Table's inter-packet delay, here a linear table).  Notifications and responses
 * are never throttled.  At CCTI 0 (no congestion seen) nothing waits: timing is that without control. */

/* Packet pkt arrives for output port i on VC vc: mark it FECN if the port is a root of congestion (one
 * in marking_rate).  A port is a root when its waiting bytes reach the threshold while the packet's
 * downstream buffer has room for it: the port's own wire holds the queue.  A port whose queue waits
 * for credits is a victim of congestion further on and marks nothing (the specification's default,
 * victim marking off), so flows that merely cross a congestion tree are not throttled. */
static void cc_mark(ppt_net_t *net, int64_t i, int32_t vc, ppt_packet_t *pkt)
{
    const port_t *o = &net->ports[i];
    if (pkt->size_B < net->cfg.cc_min_packet_B || !pkt->npackets || (pkt->cc & PPT_CC_FECN) ||
        (double)o->queued_B + port_backlog_B(o, net->now) < net->cfg.cc_threshold_B)
        return;
    if (net->credit_on && o->peer >= 0 && net->credits[i * net->num_vcs + vc] < pkt->size_B)
        return;
    if (++net->cc_marks[i] < net->cfg.cc_marking_rate)
        return;
    net->cc_marks[i] = 0;
    pkt->cc |= PPT_CC_FECN;
    net->c.fecn_marked++;
}

/* A BECN for class cls arrived back at source node: raise its CCT index and start its timer. */
static void cc_backoff(ppt_net_t *net, int32_t node, int32_t cls)
{
    int64_t k = (int64_t)node * net->classes + cls;
    net->c.becn_received++;
    net->ccti[k] += net->cfg.ccti_increase;
    if (net->ccti[k] > net->cfg.ccti_limit)
        net->ccti[k] = net->cfg.ccti_limit;
    if (!net->cc_timer_on[k]) {
        net->cc_timer_on[k] = 1;
        post(net, net->now + net->cfg.ccti_timer_s, nic_key(net, node), EV_CC_TIMER, node, cls, 0);
    }
}

/* CCTI_Timer of class cls at node expired: lower the index, and run again while it is above 0. */
static void cc_timer(ppt_net_t *net, int32_t node, int32_t cls)
{
    int64_t k = (int64_t)node * net->classes + cls;
    if (net->ccti[k] > 0)
        net->ccti[k]--;
    if (net->ccti[k] > 0)
        post(net, net->now + net->cfg.ccti_timer_s, nic_key(net, node), EV_CC_TIMER, node, cls, 0);
    else
        net->cc_timer_on[k] = 0;
}

/* DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015), per source NIC
 * and class: a switch port marks an arriving data packet ECN (the FECN bit) with a probability rising
 * linearly from 0 at red_kmin_B bytes waiting to red_pmax at red_kmax_B, and 1 beyond (RED); the
 * destination returns a congestion notification packet (CNP, the BECN packet above) per marked packet;
 * the source cuts its rate to rate * (1 - alpha / 2) at most once per dcqcn_cnp_interval_s (the target
 * rate keeps the rate before the cut) and raises its estimate alpha <- (1 - g) alpha + g; every
 * dcqcn_period_s without a cut alpha decays by (1 - g), and the rate recovers halfway to the target for
 * dcqcn_fast_stages periods, then the target grows by dcqcn_ai_Bps a period (additive increase).  The
 * NIC spaces the class's data packets size / rate apart; at line rate (no notification yet, or fully
 * recovered) nothing waits.  The byte counter and hyper increase of the paper are not modelled. */

/* Node's injection rate over all its rails, bytes/s. */
static inline double line_Bps(const ppt_net_t *net, int32_t node)
{
    return net->planes / net->nic_inv_bw[(int64_t)node * net->planes];
}

/* Packet pkt arrives for output port i: RED marking by the bytes waiting there (a hash of the packet and
 * its hop draws the chance, so serial and parallel runs mark alike). */
static void red_mark(ppt_net_t *net, int64_t i, ppt_packet_t *pkt)
{
    const port_t *o = &net->ports[i];
    if (!pkt->npackets || (pkt->cc & PPT_CC_FECN))
        return;
    double waiting = (double)o->queued_B + port_backlog_B(o, net->now), kmin = net->cfg.red_kmin_B;
    if (waiting <= kmin)
        return;
    double p = waiting >= net->cfg.red_kmax_B ? 1.0 : net->cfg.red_pmax * (waiting - kmin) / (net->cfg.red_kmax_B - kmin);
    uint64_t h = ppt_mix64(pkt->uid ^ ((uint64_t)pkt->hops << 56) ^ 0x65636eULL);
    if ((double)(h >> 11) * 0x1p-53 >= p)
        return;
    pkt->cc |= PPT_CC_FECN;
    net->c.fecn_marked++;
}

static void dcqcn_start_timer(ppt_net_t *net, int32_t node, int32_t cls, int64_t k)
{
    if (!net->cc_timer_on[k]) {
        net->cc_timer_on[k] = 1;
        post(net, net->now + net->cfg.dcqcn_period_s, nic_key(net, node), EV_CC_TIMER, node, cls, 0);
    }
}

/* A CNP for class cls arrived back at source node: cut the rate (at most once per CNP interval). */
static void dcqcn_cut(ppt_net_t *net, int32_t node, int32_t cls)
{
    int64_t k = (int64_t)node * net->classes + cls;
    net->c.becn_received++;
    if (net->now - net->dcqcn_cut_s[k] < net->cfg.dcqcn_cnp_interval_s)
        return;
    double g = net->cfg.dcqcn_g, rate = net->dcqcn_rate[k] * (1.0 - net->dcqcn_alpha[k] / 2.0);
    net->dcqcn_target[k] = net->dcqcn_rate[k];
    net->dcqcn_rate[k] = rate > net->cfg.dcqcn_min_rate_Bps ? rate : net->cfg.dcqcn_min_rate_Bps;
    net->dcqcn_alpha[k] = (1.0 - g) * net->dcqcn_alpha[k] + g;
    net->dcqcn_cut_s[k] = net->now;
    net->ccti[k] = 0;
    dcqcn_start_timer(net, node, cls, k);
}

/* A DCQCN period of class cls at node passed: alpha decays and the rate recovers; the timer stops at line rate. */
static void dcqcn_period(ppt_net_t *net, int32_t node, int32_t cls)
{
    int64_t k = (int64_t)node * net->classes + cls;
    double line = line_Bps(net, node);
    net->cc_timer_on[k] = 0;
    if (net->now - net->dcqcn_cut_s[k] < net->cfg.dcqcn_period_s) {    /* cut within this period: wait a whole one */
        dcqcn_start_timer(net, node, cls, k);
        return;
    }
    net->dcqcn_alpha[k] *= 1.0 - net->cfg.dcqcn_g;
    if (++net->ccti[k] > net->cfg.dcqcn_fast_stages) {
        double target = net->dcqcn_target[k] + net->cfg.dcqcn_ai_Bps;
        net->dcqcn_target[k] = target < line ? target : line;
    }
    net->dcqcn_rate[k] = (net->dcqcn_rate[k] + net->dcqcn_target[k]) / 2.0;
    if (net->dcqcn_rate[k] >= line * (1.0 - 1e-9))
        net->dcqcn_rate[k] = net->dcqcn_target[k] = line;
    else
        dcqcn_start_timer(net, node, cls, k);
}

/* Put packet p, routed to (port, vc) at router r, on that port now or in its queue. */
static void router_take(ppt_net_t *net, int32_t r, int32_t p, int32_t port, int32_t vc)
{
    int64_t i = (int64_t)r * net->radix + port;
    port_t *o = &net->ports[i];
    int32_t size = net->pkts[p].size_B;
    if (net->cc_on == PPT_CC_IB)
        cc_mark(net, i, vc, &net->pkts[p]);
    else if (net->cc_on == PPT_CC_DCQCN)
        red_mark(net, i, &net->pkts[p]);
    if (!net->credit_on) {
        /* unbounded buffers: the output port is a FIFO, so the departure is known now */
        double start = o->free_at;
        if (start > net->now) {
            int64_t backlog = (int64_t)((start - net->now) / o->inv_bw);
            if (backlog > o->max_queued_B)
                o->max_queued_B = backlog;
        } else {
            start = net->now;
        }
        forward(net, r, p, port, vc, start);
        return;
    }
    int64_t q = i * net->num_vcs + vc;
    if (o->free_at <= net->now && !o->queued_B && (o->peer < 0 || net->credits[q] >= size)) {
        transmit(net, r, p, port, vc);
        return;
    }
    packet_append(net, &net->q_head[q], &net->q_tail[q], p);
    o->queued_B += size;
    if (net->classes > 1)
        net->class_queued[i * net->classes + net->pkts[p].tclass]++;
    if (o->queued_B > o->max_queued_B)
        o->max_queued_B = o->queued_B;
    serve(net, r, port);
}

/* Packet p has arrived at router r (its header, under cut-through): route it.  Under cut-through an
 * output faster than the packet's input would wait on the wire for the tail; the packet instead waits
 * off the port (EV_CUT) until the rest of it can follow without a gap, as a cut-through switch passes
 * slow-to-fast traffic, so the faster port meanwhile serves other packets. */
static void router_arrive(ppt_net_t *net, int32_t r, int32_t p)
{
    net->c.router_traversals++;
    int32_t vc;
    int32_t port = route(net, &net->pkts[p], r, &vc);
    if (net->cut_through) {
        const ppt_packet_t *pkt = &net->pkts[p];
        double ready = pkt->tail_s - pkt->size_B * net->ports[(int64_t)r * net->radix + port].inv_bw;
        if (ready > net->now) {
            post(net, ready, router_key(net, r), EV_CUT, r, p, port | (vc << 16));
            return;
        }
    }
    router_take(net, r, p, port, vc);
}

/* ---------------------------------------------------------------- NICs and their rails
 *
 * A NIC has one rail (port) per plane, each with its own wire, router credits, pending packet,
 * wake-up and queue of messages sent whole over it (rail_unit per message).  Messages whose
 * packets each choose a rail (rail_unit per packet), response packets and synthetic traffic wait
 * in the node's shared queues; a rail that is free cuts the next shared packet and the rail policy
 * names its rail: if that is another rail, the packet is held for it (one held packet per node) and
 * that rail is woken.  The destination NIC reassembles a message whatever rails its packets took.
 * With one plane all this is the single NIC of before: rail 0, never a held packet. */

/* Salt of the rail policy's random choice (apart from the routings' salts). */
#define RAIL_SALT 0x7261696cULL

static int32_t packet_size(const ppt_net_t *net, int32_t payload_B)
{
    int32_t chunk = net->cfg.chunk_B, raw = net->cfg.header_B + payload_B;
    int32_t size = (raw + chunk - 1) / chunk * chunk;
    return size > chunk ? size : chunk;
}

static int32_t response_size(const ppt_net_t *net)
{
    int32_t chunk = net->cfg.chunk_B;
    return net->cfg.response_B == 0 ? packet_size(net, 0) : (net->cfg.response_B + chunk - 1) / chunk * chunk;
}

/* A new packet, in no queue and not yet in the network (its routing prepares it at launch). */
void ppt_packet_unlinked(ppt_packet_t *pkt)
{
    pkt->in_port = pkt->from_router = NONE;
    pkt->next = NONE;
}

static inline int64_t rail_index(const ppt_net_t *net, int32_t node, int32_t rail)
{
    return (int64_t)node * net->planes + rail;
}

static void rail_wake_at(ppt_net_t *net, int32_t node, int32_t rail, double t)
{
    int64_t i = rail_index(net, node, rail);
    if (t < net->nic_wake_s[i]) {
        net->nic_wake_s[i] = t;
        post(net, t, nic_key(net, node), EV_NIC_WAKE, node, rail, 0);
    }
}

/* Bytes waiting for a rail now: on its wire, pending or held for it, and not yet cut from its messages. */
static double rail_load_B(const ppt_net_t *net, int32_t node, int32_t rail)
{
    int64_t i = rail_index(net, node, rail);
    double load = (double)net->rail_queued_B[i];
    if (net->nic_free_at[i] > net->now)
        load += (net->nic_free_at[i] - net->now) / net->nic_inv_bw[i];
    if (net->nic_pending[i] != NONE)
        load += net->pkts[net->nic_pending[i]].size_B;
    if (net->nic_held[node] != NONE && net->nic_held_rail[node] == rail)
        load += net->pkts[net->nic_held[node]].size_B;
    return load;
}

/* The legal hops of every plane for the router pair of nodes src and dst (see ppt_net_set_plane_hops). */
static inline const uint8_t *pair_hops(const ppt_net_t *net, int32_t src, int32_t dst)
{
    int64_t routers = net->cfg.num_routers / net->planes;
    int64_t s = net->cfg.node_router[src] / net->planes, d = net->cfg.node_router[dst] / net->planes;
    return &net->plane_hops[(s * routers + d) * net->planes];
}

/* Whether plane `plane` may carry packets from node src to node dst: it has a legal path for their
 * routers (by the hops table; every plane when none is set). */
static int plane_usable(const ppt_net_t *net, int32_t plane, int32_t src, int32_t dst)
{
    return !net->plane_hops || pair_hops(net, src, dst)[plane] != PPT_PLANE_NONE;
}

/* PPT_RAIL_SHORTEST: among the usable planes whose legal path from node's router to dst's is
 * shortest, the turn-th (mod their count); -1 if no plane is usable.  With every plane tied (no
 * failures, or equal lengths) this is round-robin's pick. */
static int32_t shortest_rail(const ppt_net_t *net, int32_t node, int32_t dst, uint64_t turn)
{
    const uint8_t *hops = net->plane_hops ? pair_hops(net, node, dst) : NULL;
    int32_t best = PPT_PLANE_NONE, ties = 0;
    for (int32_t k = 0; k < net->planes; k++) {
        if (!plane_usable(net, k, node, dst))
            continue;
        int32_t h = hops ? hops[k] : 0;
        if (h < best)
            best = h, ties = 0;
        ties += h == best;
    }
    if (!ties)
        return NONE;
    int32_t nth = (int32_t)(turn % (uint64_t)ties);
    for (int32_t k = 0; k < net->planes; k++)
        if (plane_usable(net, k, node, dst) && (hops ? hops[k] : 0) == best && nth-- == 0)
            return k;
    return NONE;                                /* unreachable: `ties` planes passed */
}

/* The rail (plane) of message or packet `uid` from `node` to `dst` by the rail policy, among the
 * planes usable for (node, dst): random hashes (seed, uid), round-robin counts the node's choices,
 * congestion takes the least loaded rail (lowest index on ties), dedicated the node's plane,
 * shortest the planes with the shortest legal path in turn.  An unusable pick moves on to the next
 * usable plane; if none is usable the policy's pick stands.
 *
 * Deadlock freedom: a packet stays on the plane chosen here until it is delivered, and each plane
 * is a separate router graph with its own deadlock-free routing (its VC scheme ranks only that
 * plane's channels), so no channel dependency crosses planes.  Skipping planes without a legal path
 * for the pair means a routing is never asked for a path its VC scheme does not cover. */
static int32_t choose_rail(ppt_net_t *net, int32_t node, int32_t dst, uint64_t uid)
{
    int32_t planes = net->planes, pick = 0;
    if (planes == 1)
        return 0;
    switch (net->rail_policy) {
    case PPT_RAIL_SHORTEST: {
        uint64_t turn = net->nic_rail_count[node]++;
        pick = shortest_rail(net, node, dst, turn);
        if (pick != NONE)
            return pick;
        pick = (int32_t)(turn % (uint64_t)planes);
        break;
    }
    case PPT_RAIL_RANDOM: {
        ppt_packet_t key = {.uid = uid};
        pick = (int32_t)(ppt_rand(&net->routing, &key, RAIL_SALT) % (uint64_t)planes);
        break;
    }
    case PPT_RAIL_ROUND_ROBIN:
        pick = (int32_t)(net->nic_rail_count[node]++ % (uint64_t)planes);
        break;
    case PPT_RAIL_DEDICATED:
        pick = net->node_plane ? net->node_plane[node] : 0;
        break;
    default: {                                  /* PPT_RAIL_CONGESTION */
        double least = INFINITY;
        pick = NONE;
        for (int32_t pass = 0; pass < 2 && pick == NONE; pass++)   /* usable planes, else all */
            for (int32_t k = 0; k < planes; k++) {
                if (!pass && !plane_usable(net, k, node, dst))
                    continue;
                double load = rail_load_B(net, node, k);
                if (pick == NONE || load < least) {
                    least = load;
                    pick = k;
                }
            }
        return pick;
    }
    }
    for (int32_t j = 0; j < planes; j++) {
        int32_t k = (pick + j) % planes;
        if (plane_usable(net, k, node, dst))
            return k;
    }
    return pick;
}

/* Serialize packet p onto the rail's link to its router from start_s; returns when it ends.  The
 * plane's routing prepares the packet here, once its rail is known: planes whose links failed
 * apart route over their own tables. */
static double nic_launch(ppt_net_t *net, int32_t node, int32_t rail, int32_t p, double start_s)
{
    int64_t i = rail_index(net, node, rail);
    ppt_packet_t *pkt = &net->pkts[p];
    const ppt_routing_t *rt = &net->plane_routing[rail];
    if (rt->inject)
        rt->inject(rt, pkt);
    double at = net->nic_free_at[i] = start_s + pkt->size_B * net->nic_inv_bw[i];
    double head = net->cut_through ? start_s + head_B(net, pkt) * net->nic_inv_bw[i] : at;   /* see forward() */
    pkt->tail_s = at + net->nic_arrive_s[i];
    pkt->in_port = net->cfg.node_port[node];
    pkt->from_router = NONE;
    pkt->vc = pkt->tclass * net->class_vcs;    /* VC 0 of its class */
    net->c.injected++;
    net->nic_injected_B[node] += pkt->size_B;
    net->c.injected_uid_hash += ppt_mix64(pkt->uid);
    post(net, head + net->nic_arrive_s[i], nic_key(net, node), EV_ARRIVE, net->cfg.node_router[node] + rail, p, 0);
    return at;
}

/* The next packet of message m, created at created_s. */
static int32_t nic_cut(ppt_net_t *net, int32_t m, double created_s)
{
    message_t *msg = &net->msgs[m];
    int32_t index = msg->cut++;
    int64_t left = msg->nbytes - (int64_t)index * net->cfg.max_payload_B;
    int32_t payload = left < 0 ? 0 : left > net->cfg.max_payload_B ? net->cfg.max_payload_B : (int32_t)left;
    int32_t p = ppt_packet_new(net);
    ppt_packet_t *pkt = &net->pkts[p];
    pkt->uid = (msg->uid << 24) | (uint64_t)index;
    pkt->msg_uid = msg->uid;
    pkt->src = msg->src;
    pkt->dst = msg->dst;
    pkt->size_B = packet_size(net, payload);
    pkt->payload_B = payload;
    pkt->npackets = msg->npackets;
    pkt->tclass = msg->tclass;
    pkt->inject_s = created_s;
    ppt_packet_unlinked(pkt);
    return p;
}

static void post_sent(ppt_net_t *net, int32_t node, double t, uint64_t uid)
{
    post(net, t, nic_key(net, node), EV_SENT, node, (int32_t)(uid >> 32), (int32_t)(uint32_t)uid);
}

/* A NIC shares its injection among the classes of the messages queued at it as an output port shares its
 * wire (start-time fair queueing, above), per node: messages of one class leave in the order they were
 * queued, and the class that sends next is the one of highest priority, then of lowest start tag
 * max(class tag, the NIC's virtual time) (the earlier message on ties).  With one class queued the
 * FIFO's head sends, as without classes. */

/* The message of the FIFO from `head` at `node` that sends next; *before: the message ahead of it, or NONE. */
static int32_t fifo_pick(const ppt_net_t *net, int32_t node, int32_t head, int32_t *before)
{
    *before = NONE;
    int32_t C = net->classes, present = 0;
    if (C == 1)
        return head;
    const int32_t *queued = &net->nic_class_msgs[(int64_t)node * C];
    for (int32_t c = 0; c < C; c++)
        present += queued[c] > 0;
    if (present < 2)
        return head;
    const double *tags = &net->nic_class_tag[(int64_t)node * C];
    double vtime = net->nic_vtime[node];
    uint64_t seen = 0;                          /* classes met so far (at most 8: classes.py) */
    int32_t pick = NONE, best_prio = 0, seen_count = 0;
    double best_tag = 0.0;
    for (int32_t last = NONE, m = head; m != NONE && seen_count < present; last = m, m = net->msgs[m].next) {
        int32_t c = net->msgs[m].tclass;
        if (seen >> c & 1)
            continue;                           /* a later message of a class already seen */
        seen |= (uint64_t)1 << c;
        seen_count++;
        int32_t prio = net->class_priority[c];
        double tag = tags[c] > vtime ? tags[c] : vtime;
        if (pick == NONE || prio > best_prio || (prio == best_prio && tag < best_tag)) {
            pick = m;
            *before = last;
            best_prio = prio;
            best_tag = tag;
        }
    }
    return pick;
}

/* Cut the next packet of the FIFO's (*head, *tail) message at `node` that sends next (fifo_pick), now; the
 * message leaves the FIFO with its last packet, and *notify is then its uid if Python asked to hear it
 * sent (else 0). */
static int32_t fifo_cut(ppt_net_t *net, int32_t node, int32_t *head, int32_t *tail, uint64_t *notify)
{
    int32_t before;
    int32_t m = fifo_pick(net, node, *head, &before);
    int32_t p = nic_cut(net, m, net->now);
    message_t *msg = &net->msgs[m];
    *notify = 0;
    if (net->classes > 1)
        class_started(net, &net->nic_class_tag[(int64_t)node * net->classes], &net->nic_vtime[node], &net->pkts[p]);
    if (msg->cut == msg->npackets) {
        if (before == NONE)
            *head = msg->next;
        else
            net->msgs[before].next = msg->next;
        if (msg->next == NONE)
            *tail = before;
        if (msg->notify_sent)
            *notify = msg->uid;
        if (net->classes > 1)
            net->nic_class_msgs[(int64_t)node * net->classes + msg->tclass]--;
        message_free(net, m);
    }
    return p;
}

/* Whether rail `rail` sends shared packet p (just cut or dequeued); else p is held for its rail, which is woken. */
static int rail_claims(ppt_net_t *net, int32_t node, int32_t rail, int32_t p)
{
    if (net->planes == 1)
        return 1;
    int32_t j = choose_rail(net, node, net->pkts[p].dst, net->pkts[p].uid);
    if (j == rail)
        return 1;
    net->nic_held[node] = p;
    net->nic_held_rail[node] = j;
    double free = net->nic_free_at[rail_index(net, node, j)];
    rail_wake_at(net, node, j, free > net->now ? free : net->now);
    return 0;
}

/* The packet held for `rail`, if any; the node's other idle rails then look at the shared queues again. */
static int32_t take_held(ppt_net_t *net, int32_t node, int32_t rail)
{
    int32_t p = net->nic_held[node];
    if (p == NONE || net->nic_held_rail[node] != rail)
        return NONE;
    net->nic_held[node] = NONE;
    for (int32_t k = 0; k < net->planes; k++) {
        int64_t i = rail_index(net, node, k);
        if (k != rail && net->nic_free_at[i] <= net->now && net->nic_pending[i] == NONE)
            rail_wake_at(net, node, k, net->now);
    }
    return p;
}

/* The next packet for `rail` (now free): one held for it, a response, the next of its own messages, or
 * the next shared one (a message's, then synthetic traffic) if the policy gives it this rail. */
static int32_t rail_next_packet(ppt_net_t *net, int32_t node, int32_t rail)
{
    int32_t p = take_held(net, node, rail);
    if (p != NONE)
        return p;
    int shared_free = net->nic_held[node] == NONE;
    p = net->nic_resp_head[node];
    if (p != NONE && shared_free) {
        net->nic_resp_head[node] = net->pkts[p].next;
        if (net->nic_resp_head[node] == NONE)
            net->nic_resp_tail[node] = NONE;
        net->pkts[p].next = NONE;
        if (rail_claims(net, node, rail, p))
            return p;
        shared_free = 0;
    }
    int64_t i = rail_index(net, node, rail);
    uint64_t notify;
    if (net->nic_out_head[i] != NONE) {
        p = fifo_cut(net, node, &net->nic_out_head[i], &net->nic_out_tail[i], &notify);
        net->rail_queued_B[i] -= net->pkts[p].payload_B;
        if (notify)
            post_sent(net, node, net->now + net->pkts[p].size_B * net->nic_inv_bw[i], notify);
        return p;
    }
    if (!shared_free)
        return NONE;
    if (net->nic_shared_head[node] != NONE) {
        p = fifo_cut(net, node, &net->nic_shared_head[node], &net->nic_shared_tail[node], &notify);
        int claimed = rail_claims(net, node, rail, p);
        if (notify) {   /* its last byte leaves after its rail's wire and the packets on the other rails */
            int32_t k = claimed ? rail : net->nic_held_rail[node];
            double t = net->nic_free_at[rail_index(net, node, k)];
            t = (t > net->now ? t : net->now) + net->pkts[p].size_B * net->nic_inv_bw[rail_index(net, node, k)];
            for (int32_t j = 0; j < net->planes; j++)
                if (net->nic_free_at[rail_index(net, node, j)] > t)
                    t = net->nic_free_at[rail_index(net, node, j)];
            post_sent(net, node, t, notify);
        }
        return claimed ? p : NONE;
    }
    if (net->traffic_on) {
        p = ppt_traffic_take(net, node, net->now);
        if (p == NONE && net->sources[node].next_s < INFINITY)
            rail_wake_at(net, node, rail, net->sources[node].next_s);
        return p != NONE && rail_claims(net, node, rail, p) ? p : NONE;
    }
    return NONE;
}

/* Inject the rail's next packet if its link is free and its router has buffer for it. */
static void rail_pump(ppt_net_t *net, int32_t node, int32_t rail)
{
    double now = net->now;
    int64_t i = rail_index(net, node, rail);
    if (net->nic_free_at[i] > now) {
        rail_wake_at(net, node, rail, net->nic_free_at[i]);
        return;
    }
    int32_t p = net->nic_pending[i];
    if (p == NONE)
        p = rail_next_packet(net, node, rail);
    if (p == NONE)
        return;
    int32_t size = net->pkts[p].size_B;
    double *cc_next = NULL;
    if (net->cc_on && net->pkts[p].npackets) {  /* a data packet waits out its class's injection delay */
        cc_next = &net->cc_next_s[(int64_t)node * net->classes + net->pkts[p].tclass];
        if (*cc_next > now) {
            net->nic_pending[i] = p;
            rail_wake_at(net, node, rail, *cc_next);
            return;
        }
    }
    if (net->credit_on && net->nic_credit_B[i] < size) {
        net->nic_pending[i] = p;                /* a credit from the router resumes us */
        return;
    }
    net->nic_pending[i] = NONE;
    if (net->credit_on)
        net->nic_credit_B[i] -= size;
    double free = nic_launch(net, node, rail, p, now);
    if (cc_next) {
        int64_t k = (int64_t)node * net->classes + net->pkts[p].tclass;
        if (net->cc_on == PPT_CC_IB)
            *cc_next = free + net->ccti[k] * net->cfg.cct_step_s;
        else if (net->dcqcn_rate[k] < line_Bps(net, node))
            *cc_next = now + size / net->dcqcn_rate[k];
    }
    if (net->nic_out_head[i] != NONE || net->nic_resp_head[node] != NONE || net->nic_shared_head[node] != NONE ||
        (net->nic_held[node] != NONE && net->nic_held_rail[node] == rail))
        rail_wake_at(net, node, rail, free);
    else if (net->traffic_on && net->sources[node].next_s < INFINITY)
        rail_wake_at(net, node, rail, free > net->sources[node].next_s ? free : net->sources[node].next_s);
}

void ppt_nic_pump(ppt_net_t *net, int32_t node)
{
    for (int32_t rail = 0; rail < net->planes; rail++)
        rail_pump(net, node, rail);
}

static void nic_queue(ppt_net_t *net, int32_t node, int32_t m)
{
    message_t *msg = &net->msgs[m];
    int per_packet = net->rail_unit == PPT_RAIL_PER_PACKET;
    int32_t rail = per_packet ? NONE : choose_rail(net, node, msg->dst, msg->uid << 24);
    if (!net->credit_on && !net->traffic_on && !net->cc_on && net->classes == 1) {
        /* unbounded buffers: nothing can hold a rail up, so lay out all packets now (FIFO per rail) */
        double done = net->now;
        while (msg->cut < msg->npackets) {
            int32_t k = per_packet ? choose_rail(net, node, msg->dst, (msg->uid << 24) | (uint64_t)msg->cut) : rail;
            double free = net->nic_free_at[rail_index(net, node, k)];
            int32_t p = nic_cut(net, m, free > net->now ? free : net->now);
            double end = nic_launch(net, node, k, p, net->pkts[p].inject_s);
            done = end > done ? end : done;
            msg = &net->msgs[m];
        }
        if (msg->notify_sent)
            post_sent(net, node, done, msg->uid);
        message_free(net, m);
        return;
    }
    int32_t *head = &net->nic_shared_head[node], *tail = &net->nic_shared_tail[node];
    if (!per_packet) {
        int64_t i = rail_index(net, node, rail);
        head = &net->nic_out_head[i];
        tail = &net->nic_out_tail[i];
        net->rail_queued_B[i] += msg->nbytes;
    }
    if (*tail == NONE)
        *head = m;
    else
        net->msgs[*tail].next = m;
    *tail = m;
    if (net->classes > 1)
        net->nic_class_msgs[(int64_t)node * net->classes + msg->tclass]++;
    if (per_packet)
        ppt_nic_pump(net, node);
    else
        rail_pump(net, node, rail);
}

/* Send a response packet (marks cc: a congestion notification) of class tclass from node to dst now. */
static void nic_respond(ppt_net_t *net, int32_t node, int32_t dst, int32_t tclass, int32_t cc)
{
    int32_t rp = ppt_packet_new(net);
    ppt_packet_t *resp = &net->pkts[rp];
    resp->msg_uid = ((uint64_t)node << 32) | RESPONSE_BIT | ++net->nic_resp_seq[node];
    resp->uid = resp->msg_uid << 24;
    resp->src = node;
    resp->dst = dst;
    resp->size_B = response_size(net);
    resp->npackets = 0;
    resp->tclass = (int16_t)tclass;
    resp->cc = (uint16_t)cc;
    resp->inject_s = net->now;
    ppt_packet_unlinked(resp);
    if (!net->credit_on && !net->traffic_on && !net->cc_on) {
        int32_t rail = choose_rail(net, node, resp->dst, resp->uid);
        double free = net->nic_free_at[rail_index(net, node, rail)];
        nic_launch(net, node, rail, rp, free > net->now ? free : net->now);
    } else {
        packet_append(net, &net->nic_resp_head[node], &net->nic_resp_tail[node], rp);
        ppt_nic_pump(net, node);
    }
}

static void nic_receive(ppt_net_t *net, int32_t node, int32_t p)
{
    ppt_packet_t *pkt = &net->pkts[p];
    double latency = net->now - pkt->inject_s;
    net->c.delivered++;
    net->c.delivered_uid_hash += ppt_mix64(pkt->uid);
    net->latency_sum_as += (unsigned __int128)llround(latency * 1e18);
    if (latency > net->c.latency_max_s)
        net->c.latency_max_s = latency;
    ppt_hist_add(&net->packet_latency, latency);
    net->nic_ejected_B[node] += pkt->size_B;
    net->c.hops_sum += pkt->hops;
    if (pkt->hops > net->c.hops_max)
        net->c.hops_max = pkt->hops;
    net->c.bytes_delivered += pkt->size_B;
    ppt_observe_delivery(net, pkt, latency);
    if (pkt->npackets == 0) {                   /* a response packet ends here */
        net->c.responses++;
        if ((pkt->cc & PPT_CC_BECN) && net->cc_on == PPT_CC_IB)
            cc_backoff(net, node, pkt->tclass);
        else if (pkt->cc & PPT_CC_BECN)
            dcqcn_cut(net, node, pkt->tclass);
        packet_free(net, p);
        return;
    }
    uint64_t msg_uid = pkt->msg_uid;
    int32_t npackets = pkt->npackets, src = pkt->src, tclass = pkt->tclass, fecn = pkt->cc & PPT_CC_FECN;
    packet_free(net, p);
    if (net->cfg.response_B)
        nic_respond(net, node, src, tclass, 0);
    if (fecn)
        nic_respond(net, node, src, tclass, PPT_CC_BECN);
    if (npackets > 1 && map_arrived(&net->partial, msg_uid, npackets))
        return;
    net->c.messages_delivered++;
    if (!(msg_uid & SYNTHETIC_BIT))             /* synthetic traffic has no host to tell */
        post(net, net->now + net->cfg.nic_latency_s, nic_key(net, node), EV_DELIVER, node,
             (int32_t)(msg_uid >> 32), (int32_t)(uint32_t)msg_uid);
}

/* ---------------------------------------------------------------- the run loop */

static inline uint64_t uid_of(const ppt_event_t *ev)
{
    return ((uint64_t)(uint32_t)ev->a << 32) | (uint32_t)ev->b;
}

int64_t ppt_net_run(ppt_net_t *net, double until_s, int64_t max_events)
{
    ppt_event_t ev;
    int64_t done = 0;
    const ppt_event_t *next;
    /* Once an output at time t is out, Python may hand over new messages from t on, and they reach
     * the core nic_latency_s later: events before t + nic_latency_s can still run, in this call. */
    double limit = until_s;
    int64_t seen = net->out_len;
    while ((next = queue_peek(&net->queue)) && next->t < limit && done < max_events) {
        net->c.queue_depth_sum += net->queue.len;
        queue_pop(&net->queue, &ev);
        const ppt_event_t *after = queue_peek(&net->queue);
        if (after && (after->kind == EV_ARRIVE || after->kind == EV_NIC_RECEIVE)) {
            prefetch_record(&net->pkts[after->a], sizeof(ppt_packet_t));   /* the next event's packet: a likely miss */
            if (after->kind == EV_ARRIVE && net->radix <= PREFETCH_PORTS) {
                /* so is the output port it will take: on a small router, fetch them all */
                const port_t *o = &net->ports[(int64_t)after->target * net->radix];
                for (int32_t k = 0; k < net->radix; k++)
                    __builtin_prefetch(&o[k], 1);
            }
        }
        net->now = ev.t;
        done++;
        int32_t target = ev.target;
        int64_t i;
        switch (ev.kind) {
        case EV_ARRIVE:
            router_arrive(net, target, ev.a);
            break;
        case EV_CUT:
            router_take(net, target, ev.a, ev.b & 0xffff, ev.b >> 16);
            break;
        case EV_PORT_FREE:
            i = (int64_t)target * net->radix + ev.a;
            if (net->now == net->ports[i].wake_s) {     /* else superseded by an earlier wake-up */
                net->ports[i].wake_s = INFINITY;
                serve(net, target, ev.a);
            }
            break;
        case EV_CREDIT: {
            int32_t port = ev.a & 0xffff, vc = ev.a >> 16;
            i = (int64_t)target * net->radix + port;
            net->credits[i * net->num_vcs + vc] += ev.b;
            if (net->ports[i].queued_B && net->ports[i].wake_s == INFINITY)
                serve(net, target, port);
            break;
        }
        case EV_NIC_QUEUE:
            nic_queue(net, target, ev.a);
            break;
        case EV_NIC_WAKE:                       /* of rail a */
            i = rail_index(net, target, ev.a);
            if (net->now == net->nic_wake_s[i]) {
                net->nic_wake_s[i] = INFINITY;
                rail_pump(net, target, ev.a);
            }
            break;
        case EV_NIC_CREDIT:                     /* for rail a */
            i = rail_index(net, target, ev.a);
            net->nic_credit_B[i] += ev.b;
            if (net->nic_pending[i] != NONE && net->nic_wake_s[i] == INFINITY)
                rail_pump(net, target, ev.a);
            break;
        case EV_NIC_RECEIVE:
            nic_receive(net, target, ev.a);
            break;
        case EV_DELIVER:
            output(net, &ev, PPT_OUT_DELIVER, uid_of(&ev));
            break;
        case EV_SENT:
            output(net, &ev, PPT_OUT_SENT, uid_of(&ev));
            break;
        case EV_CC_TIMER:
            if (net->cc_on == PPT_CC_IB)
                cc_timer(net, target, ev.a);
            else
                dcqcn_period(net, target, ev.a);
            break;
        }
        if (net->out_len > seen && !seen) {
            seen = net->out_len;
            if (ev.t + net->cfg.nic_latency_s < limit)
                limit = ev.t + net->cfg.nic_latency_s;
        }
    }
    net->c.events += done;
    return done;
}

uint64_t ppt_net_send(ppt_net_t *net, int32_t src, int32_t dst, int64_t nbytes, int32_t notify_sent, double now_s)
{
    return ppt_net_send_class(net, src, dst, nbytes, notify_sent, now_s, -1);
}

uint64_t ppt_net_send_class(ppt_net_t *net, int32_t src, int32_t dst, int64_t nbytes, int32_t notify_sent,
                            double now_s, int32_t tclass)
{
    int32_t m = message_new(net);
    message_t *msg = &net->msgs[m];
    msg->uid = ((uint64_t)src << 32) | ++net->nic_msg_seq[src];
    msg->nbytes = nbytes;
    msg->src = src;
    msg->dst = dst;
    int64_t n = (nbytes + net->cfg.max_payload_B - 1) / net->cfg.max_payload_B;
    msg->npackets = n > 1 ? (int32_t)n : 1;
    msg->cut = 0;
    msg->notify_sent = notify_sent;
    msg->tclass = tclass >= 0 ? tclass : net->node_class ? net->node_class[src] : 0;
    net->c.messages_sent++;
    post(net, now_s + net->cfg.nic_latency_s, ++net->nic_send_key[src], EV_NIC_QUEUE, src, m, 0);
    return msg->uid;
}

/* ---------------------------------------------------------------- set-up and queries */

/* First router of simulation rank k's block: the given starts, or even blocks of whole sets of a
 * router's planes. */
static int32_t block_first_router(const ppt_net_config_t *cfg, int32_t k)
{
    if (cfg->router_starts)
        return cfg->router_starts[k];
    int64_t per_plane = cfg->num_routers / cfg->planes;
    return (int32_t)((int64_t)k * per_plane / cfg->num_ranks * cfg->planes);
}

ppt_net_t *ppt_net_new(const ppt_net_config_t *cfg, const ppt_routing_t *routing)
{
    ppt_net_t *net = ppt_alloc(1, sizeof *net);
    ppt_queue_init(&net->queue, 1024, 1e-9);
    net->queue.hint.stride = sizeof(ppt_packet_t);           /* the packets arrivals and receptions move */
    net->queue.hint.kinds = 1u << EV_ARRIVE | 1u << EV_NIC_RECEIVE | 1u << EV_CUT;
    net->cfg = *cfg;
    net->routing = *routing;
    net->routing.net = net;
    net->routing.occupancy = NULL;
    int32_t R = cfg->num_routers, N = cfg->num_nodes, radix = cfg->radix, nvc = cfg->num_vcs;
    int64_t ports = (int64_t)R * radix;
    net->radix = radix;
    net->num_vcs = nvc;
    net->credit_on = cfg->vc_capacity_B > 0;
    net->cut_through = cfg->cut_through != 0;
    int32_t P = net->planes = cfg->planes;
    net->rail_policy = cfg->rail_policy;
    net->rail_unit = P > 1 ? cfg->rail_unit : PPT_RAIL_PER_MESSAGE;
    net->plane_routing = ppt_alloc((size_t)P, sizeof(ppt_routing_t));
    for (int32_t k = 0; k < P; k++) {
        net->plane_routing[k] = net->routing;
        net->plane_routing[k].plane = k;
        net->plane_routing[k].planes = P;
    }
    net->routing = net->plane_routing[0];
    net->router_lo = block_first_router(cfg, cfg->rank);
    net->router_hi = block_first_router(cfg, cfg->rank + 1);
    net->router_rank = ppt_alloc((size_t)R, sizeof(int32_t));
    for (int32_t k = 0; k < cfg->num_ranks; k++)
        for (int32_t r = block_first_router(cfg, k); r < block_first_router(cfg, k + 1); r++)
            net->router_rank[r] = k;
    net->ports = ppt_alloc((size_t)ports, sizeof(port_t));
    net->link_s = ppt_alloc((size_t)ports, sizeof(double));
    net->rr = ppt_alloc((size_t)ports, sizeof(int32_t));
    net->router_key = ppt_alloc((size_t)R, sizeof(uint64_t));
    for (int32_t r = net->router_lo; r < net->router_hi; r++)
        net->router_key[r] = (uint64_t)cfg->router_eid[r] << PPT_KEY_BITS;
    if (net->credit_on) {
        net->credits = ppt_alloc((size_t)(ports * nvc), sizeof(int64_t));
        net->q_head = ppt_alloc((size_t)(ports * nvc), sizeof(int32_t));
        net->q_tail = ppt_alloc((size_t)(ports * nvc), sizeof(int32_t));
    }
    for (int64_t i = (int64_t)net->router_lo * radix; i < (int64_t)net->router_hi * radix; i++) {
        int8_t cls = cfg->port_class[i];
        port_t *o = &net->ports[i];
        o->wake_s = INFINITY;
        o->peer = cfg->port_peer[i];
        o->peer_port = cfg->port_peer_port[i];
        if (cls < 0)
            continue;
        int to_router = o->peer >= 0;
        o->inv_bw = 1.0 / cfg->class_bandwidth_Bps[cls];
        net->link_s[i] = cfg->class_latency_s[cls];
        o->arrive_s = cfg->class_latency_s[cls] + (to_router ? cfg->router_delay_s : 0.0);
        for (int32_t v = 0; net->credit_on && v < nvc; v++) {
            net->credits[i * nvc + v] = to_router ? cfg->vc_capacity_B : 0;
            net->q_head[i * nvc + v] = net->q_tail[i * nvc + v] = NONE;
        }
    }
    size_t rails = (size_t)N * (size_t)P;
    net->nic_inv_bw = ppt_alloc(rails, sizeof(double));
    net->nic_arrive_s = ppt_alloc(rails, sizeof(double));
    net->nic_free_at = ppt_alloc(rails, sizeof(double));
    net->nic_wake_s = ppt_alloc(rails, sizeof(double));
    net->nic_credit_B = ppt_alloc(rails, sizeof(int64_t));
    net->nic_out_head = ppt_alloc(rails, sizeof(int32_t));
    net->nic_out_tail = ppt_alloc(rails, sizeof(int32_t));
    net->nic_pending = ppt_alloc(rails, sizeof(int32_t));
    net->rail_queued_B = ppt_alloc(rails, sizeof(int64_t));
    net->nic_injected_B = ppt_alloc((size_t)N, sizeof(int64_t));
    net->nic_ejected_B = ppt_alloc((size_t)N, sizeof(int64_t));
    net->nic_resp_head = ppt_alloc((size_t)N, sizeof(int32_t));
    net->nic_resp_tail = ppt_alloc((size_t)N, sizeof(int32_t));
    net->nic_shared_head = ppt_alloc((size_t)N, sizeof(int32_t));
    net->nic_shared_tail = ppt_alloc((size_t)N, sizeof(int32_t));
    net->nic_held = ppt_alloc((size_t)N, sizeof(int32_t));
    net->nic_held_rail = ppt_alloc((size_t)N, sizeof(int32_t));
    net->nic_rail_count = ppt_alloc((size_t)N, sizeof(uint64_t));
    net->nic_msg_seq = ppt_alloc((size_t)N, sizeof(uint64_t));
    net->nic_resp_seq = ppt_alloc((size_t)N, sizeof(uint64_t));
    net->nic_key = ppt_alloc((size_t)N, sizeof(uint64_t));
    net->nic_send_key = ppt_alloc((size_t)N, sizeof(uint64_t));
    for (int32_t n = 0; n < N; n++) {
        if (!node_local(net, n))
            continue;
        for (int32_t k = 0; k < P; k++) {
            int64_t i = (int64_t)(cfg->node_router[n] + k) * radix + cfg->node_port[n], rail = (int64_t)n * P + k;
            int8_t cls = cfg->port_class[i];
            double bw = cfg->class_bandwidth_Bps[cls] < cfg->nic_bandwidth_Bps ? cfg->class_bandwidth_Bps[cls]
                                                                               : cfg->nic_bandwidth_Bps;
            net->nic_inv_bw[rail] = 1.0 / bw;
            net->nic_arrive_s[rail] = cfg->class_latency_s[cls] + cfg->router_delay_s;
            net->nic_wake_s[rail] = INFINITY;
            net->nic_credit_B[rail] = cfg->vc_capacity_B;
            net->nic_out_head[rail] = net->nic_out_tail[rail] = net->nic_pending[rail] = NONE;
        }
        /* a NIC's key range: the engine's own events of the NIC count from 0, events of messages
         * Python hands over from 2^38, the core's own from 2^39: no count depends on another */
        net->nic_send_key[n] = ((uint64_t)cfg->nic_eid[n] << PPT_KEY_BITS) | (1ULL << (PPT_KEY_BITS - 2));
        net->nic_key[n] = ((uint64_t)cfg->nic_eid[n] << PPT_KEY_BITS) | (1ULL << (PPT_KEY_BITS - 1));
        net->nic_resp_head[n] = net->nic_resp_tail[n] = NONE;
        net->nic_shared_head[n] = net->nic_shared_tail[n] = net->nic_held[n] = NONE;
    }
    net->classes = cfg->classes > 1 ? cfg->classes : 1;
    net->class_vcs = nvc / net->classes;
    if (net->classes > 1) {
        int32_t C = net->classes;
        net->class_cost = ppt_alloc((size_t)C, sizeof(double));
        net->class_priority = ppt_alloc((size_t)C, sizeof(int32_t));
        for (int32_t c = 0; c < C; c++) {
            net->class_cost[c] = 1.0 / cfg->class_share[c];
            net->class_priority[c] = cfg->class_priority ? cfg->class_priority[c] : 0;
        }
        net->nic_class_tag = ppt_alloc((size_t)N * (size_t)C, sizeof(double));
        net->nic_vtime = ppt_alloc((size_t)N, sizeof(double));
        net->nic_class_msgs = ppt_alloc((size_t)N * (size_t)C, sizeof(int32_t));
        net->class_tag = ppt_alloc((size_t)(ports * C), sizeof(double));
        net->class_rr = ppt_alloc((size_t)(ports * C), sizeof(int32_t));
        net->class_queued = ppt_alloc((size_t)(ports * C), sizeof(int32_t));
        net->port_vtime = ppt_alloc((size_t)ports, sizeof(double));
        net->class_counters = ppt_alloc((size_t)C, sizeof(ppt_class_counters_t));
        net->class_latency = ppt_alloc((size_t)C, sizeof(ppt_histogram_t));
    }
    net->cc_on = cfg->cc_scheme;
    if (net->cc_on) {
        size_t flows = (size_t)N * (size_t)net->classes;
        net->cc_marks = ppt_alloc((size_t)ports, sizeof(int32_t));
        net->ccti = ppt_alloc(flows, sizeof(int32_t));
        net->cc_next_s = ppt_alloc(flows, sizeof(double));
        net->cc_timer_on = ppt_alloc(flows, 1);
    }
    if (net->cc_on == PPT_CC_DCQCN) {
        size_t flows = (size_t)N * (size_t)net->classes;
        net->dcqcn_rate = ppt_alloc(flows, sizeof(double));
        net->dcqcn_target = ppt_alloc(flows, sizeof(double));
        net->dcqcn_alpha = ppt_alloc(flows, sizeof(double));
        net->dcqcn_cut_s = ppt_alloc(flows, sizeof(double));
        for (int32_t n = 0; n < N; n++)
            for (int32_t c = 0; c < net->classes && node_local(net, n); c++) {
                int64_t k = (int64_t)n * net->classes + c;
                net->dcqcn_rate[k] = net->dcqcn_target[k] = line_Bps(net, n);
                net->dcqcn_alpha[k] = 1.0;          /* the paper's initial estimate */
                net->dcqcn_cut_s[k] = -INFINITY;
            }
    }
    net->pkt_free = net->msg_free = NONE;
    net->outbox = ppt_alloc((size_t)cfg->num_ranks, sizeof(ppt_remote_t *));
    net->outbox_len = ppt_alloc((size_t)cfg->num_ranks, sizeof(int64_t));
    net->outbox_cap = ppt_alloc((size_t)cfg->num_ranks, sizeof(int64_t));
    return net;
}

void ppt_net_free(ppt_net_t *net)
{
    if (!net)
        return;
    void *tables[] = {net->router_rank, net->ports, net->link_s, net->rr, net->router_key, net->credits,
                      net->q_head, net->q_tail, net->nic_inv_bw, net->nic_arrive_s, net->nic_free_at,
                      net->nic_wake_s, net->nic_credit_B, net->nic_out_head, net->nic_out_tail, net->nic_pending,
                      net->rail_queued_B, net->nic_injected_B, net->nic_ejected_B, net->nic_resp_head,
                      net->nic_resp_tail, net->nic_shared_head, net->nic_shared_tail, net->nic_held,
                      net->nic_held_rail, net->nic_rail_count, net->nic_msg_seq, net->nic_resp_seq, net->nic_key,
                      net->nic_send_key, net->plane_routing, (void *)net->node_plane, net->plane_hops,
                      net->pkts, net->msgs, net->partial.keys, net->partial.left, net->out,
                      net->sources, net->outbox_len, net->outbox_cap, net->class_cost, net->class_priority,
                      net->class_tag, net->class_rr, net->class_queued, net->port_vtime, net->nic_class_tag,
                      net->nic_vtime, net->nic_class_msgs, net->node_class, net->class_counters,
                      net->class_latency, net->cc_marks, net->ccti, net->cc_next_s, net->cc_timer_on,
                      net->dcqcn_rate, net->dcqcn_target, net->dcqcn_alpha, net->dcqcn_cut_s};
    for (size_t k = 0; k < sizeof tables / sizeof *tables; k++)
        free(tables[k]);
    for (int32_t k = 0; k < net->cfg.num_ranks; k++)
        free(net->outbox[k]);
    free(net->outbox);
    ppt_queue_free(&net->queue);
    free(net);
}

void ppt_net_set_node_planes(ppt_net_t *net, const int32_t *node_plane)
{
    int32_t *copy = ppt_alloc((size_t)net->cfg.num_nodes, sizeof(int32_t));
    memcpy(copy, node_plane, (size_t)net->cfg.num_nodes * sizeof(int32_t));
    free((void *)net->node_plane);
    net->node_plane = copy;
}

void ppt_net_set_node_classes(ppt_net_t *net, const int32_t *node_class)
{
    int32_t *copy = ppt_alloc((size_t)net->cfg.num_nodes, sizeof(int32_t));
    memcpy(copy, node_class, (size_t)net->cfg.num_nodes * sizeof(int32_t));
    free(net->node_class);
    net->node_class = copy;
}

void ppt_net_set_plane_routing(ppt_net_t *net, int32_t plane, const ppt_routing_t *routing)
{
    ppt_routing_t *rt = &net->plane_routing[plane];
    *rt = *routing;
    rt->net = net;
    rt->occupancy = NULL;
    rt->plane = plane;
    rt->planes = net->planes;
}

void ppt_net_set_plane_hops(ppt_net_t *net, const uint8_t *hops)
{
    int64_t routers = net->cfg.num_routers / net->planes;
    size_t size = (size_t)(routers * routers * net->planes);
    uint8_t *copy = ppt_alloc(size, 1);
    memcpy(copy, hops, size);
    free(net->plane_hops);
    net->plane_hops = copy;
}

double ppt_net_next_time(ppt_net_t *net)
{
    const ppt_event_t *next = queue_peek(&net->queue);
    return next ? next->t : INFINITY;
}
int64_t ppt_net_packets_in_flight(const ppt_net_t *net) { return net->pkts_live; }
double ppt_net_now(const ppt_net_t *net) { return net->now; }

int64_t ppt_net_outputs(ppt_net_t *net, ppt_output_t **out)
{
    *out = net->out;
    return net->out_len;
}

void ppt_net_clear_outputs(ppt_net_t *net) { net->out_len = 0; }

int64_t ppt_net_outbox(ppt_net_t *net, int32_t rank, ppt_remote_t **events)
{
    *events = net->outbox[rank];
    return net->outbox_len[rank];
}

double ppt_net_outbox_min_time(const ppt_net_t *net)
{
    double t = INFINITY;
    for (int32_t k = 0; k < net->cfg.num_ranks; k++)
        for (int64_t j = 0; j < net->outbox_len[k]; j++)
            if (net->outbox[k][j].t < t)
                t = net->outbox[k][j].t;
    return t;
}

void ppt_net_clear_outbox(ppt_net_t *net)
{
    for (int32_t k = 0; k < net->cfg.num_ranks; k++)
        net->outbox_len[k] = 0;
}

void ppt_net_receive(ppt_net_t *net, const ppt_remote_t *events, int64_t count)
{
    for (int64_t j = 0; j < count; j++) {
        const ppt_remote_t *r = &events[j];
        int32_t a = r->a;
        if (r->kind == EV_ARRIVE) {
            a = ppt_packet_new(net);
            net->pkts[a] = r->pkt;
            net->pkts[a].next = NONE;
        }
        post(net, r->t, r->key, r->kind, r->target, a, r->b);
    }
}

void ppt_net_counters(const ppt_net_t *net, ppt_counters_t *out)
{
    *out = net->c;
    out->latency_sum_as_hi = (uint64_t)(net->latency_sum_as >> 64);
    out->latency_sum_as_lo = (uint64_t)net->latency_sum_as;
}

void ppt_net_link_summary(const ppt_net_t *net, ppt_link_summary_t *out)
{
    memset(out, 0, sizeof *out);
    out->busiest_router = out->busiest_port = NONE;
    for (int64_t i = (int64_t)net->router_lo * net->radix; i < (int64_t)net->router_hi * net->radix; i++) {
        const port_t *o = &net->ports[i];
        if (!o->bytes_out)
            continue;
        double busy = o->bytes_out * o->inv_bw;
        out->count++;
        out->bytes += o->bytes_out;
        if (o->max_queued_B > out->max_queue_B)
            out->max_queue_B = o->max_queued_B;
        if (out->busiest_router == NONE || busy > out->busiest_busy_s) {   /* first (lowest id) wins ties */
            out->busiest_router = (int32_t)(i / net->radix);
            out->busiest_port = (int32_t)(i % net->radix);
            out->busiest_bytes = o->bytes_out;
            out->busiest_busy_s = busy;
            out->busiest_max_queue_B = o->max_queued_B;
        }
    }
}
