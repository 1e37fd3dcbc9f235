/* Private to the MPI engine's sources: its state. */
#ifndef PPT_MPICORE_PRIVATE_H
#define PPT_MPICORE_PRIVATE_H
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "alloc.h"
#include "coreapi.h"
#include "flow.h"
#include "heap.h"
#include "histogram.h"
#include "net.h"
#include "mpicore.h"

/* The packet core's calls (bind.c): packet_core->net_run(...) is its ppt_net_run(...). */
extern const ppt_core_api_t *packet_core;

/* Key bits of an entity's running count (ppt/engine/entity.py KEY_BITS). */
#define MPI_KEY_BITS 40
/* Bytes of a rendezvous control message on the wire (ppt/mpi/constants.py CONTROL_B). */
#define CONTROL_B 64
/* The simulated MPI's wildcards and null process (ppt/mpi/constants.py). */
#define ANY_SOURCE (-2)
#define ANY_TAG (-1)
#define PROC_NULL (-1)
#define PPT_MPI_PROGRESS_EVENTS 65536

/* Python answers these once per node pair and once per message size (ppt/mpi/engine/replay.py); the flow
 * network's route once per pair and size, or per message under an adaptive routing. */
int32_t ppt_mpi_path_cb(void *handle, int32_t src, int32_t dst, double *out);
int64_t ppt_mpi_wire_cb(void *handle, int64_t nbytes);
int32_t ppt_mpi_route_cb(void *handle, int32_t src, int32_t dst, int64_t nbytes, double now_s, double *out);
/* A network or node memory model of one's own runs in Python (ppt/mpi/engine/pynet.py): a message handed to it
 * at now_s (msg: its number, PYTHON_AHEAD on if it went ahead to another process; on_sent: the request its
 * last byte leaving finishes, or -1), and one of its events run.  Both return 0, or -1 if the model raised
 * (the run then stops). */
int32_t ppt_mpi_send_cb(void *handle, int64_t msg, int32_t src_node, int32_t dst_node, int64_t nbytes, double delay_s,
                        int32_t on_sent, double now_s);
int32_t ppt_mpi_event_cb(void *handle, double t_s, uint64_t key);

/* -- a hash map from two 64-bit keys to a 64-bit value (linear probing; k1 is never 0) ------- */
typedef struct { uint64_t k1, k2; int64_t v; } map_slot_t;
typedef struct { map_slot_t *slot; int64_t cap, len; } map_t;
int map_get(const map_t *map, uint64_t k1, uint64_t k2, int64_t *v);
/* The value of (k1, k2), inserted as dflt if absent; valid until the next insertion. */
int64_t *map_ref(map_t *map, uint64_t k1, uint64_t k2, int64_t dflt);
void map_put(map_t *map, uint64_t k1, uint64_t k2, int64_t v);
int map_del(map_t *map, uint64_t k1, uint64_t k2, int64_t *v);
void map_free(map_t *map);
/* Map tables (k1): a rank's own (in its map: k1 the table) and the engine's (k1 the table << 56). */
enum { T_PEER = 1, T_EARLY, T_POSTED, T_UNEXPECTED, T_HANDLES, T_PATH, T_WIRE, T_UID_MSG,
       T_UID_SENT, T_PLAN, T_COMM, T_ROUTE, T_PAST };
static inline uint64_t map_k1(int table, int64_t rank) { return (uint64_t)table << 56 | (uint64_t)rank; }

/* -- messages and requests ---------------------------------------------------------------- */
enum { EAGER, RTS, CTS, DATA };

typedef struct {                /* a collective's header: (call, root, sequence number) */
    int32_t call, root;
    int64_t seq;
} hdr_t;

typedef struct {
    int8_t kind;
    int32_t dst, src, ctx;      /* world ranks; context */
    int64_t tag, seq, nbytes;    /* nbytes: the message's size (an RTS's: the data's) */
    int64_t net_B;              /* bytes it moves (CONTROL_B for RTS and CTS) */
    int32_t send_req, recv_req; /* RTS/CTS/DATA: the waiting send and matched receive */
    int32_t on_sent;            /* request to finish once the last byte left the NIC, or -1 */
    int32_t count;              /* slots carried (schedule messages); parts: their sizes when count > 1 */
    int64_t *parts;
    hdr_t hdr;
    int64_t payload;            /* eager messages and data: the send's payload handle */
    int32_t aprev, anext;       /* a rank's unexpected messages in arrival order */
    int32_t sprev, snext, queue;/* ... and per (context, source) */
    double sent_s;              /* when handed to the packet core, s */
    int32_t free_next;
} msg_t;

typedef struct {
    int32_t rank;               /* owner (world rank) */
    int8_t is_send, done, waited, active, run_post, handled;
    int32_t prev, next, queue;  /* posted receives: per (context, source), or ANY_SOURCE (queue -2) */
    int32_t hnext;              /* the next request started under the same trace request id */
    int64_t post;
    double done_s;              /* done sends: when the last byte left, known at the send on the analytic network
                                 * (the send completes then, with no event unless a wait needs one: timer) */
    int8_t timer, orphan;       /* timer: an EV_SEND_DONE is queued for it; orphan: released, freed by that event */
    int8_t progress;            /* sends a progress engine acts on (an Ibarrier's rounds, a flow's): they complete
                                 * by an event at their time */
    int32_t ctx, src;           /* receives: world source or ANY_SOURCE; sends: the destination */
    int64_t tag, nbytes;
    double overhead_due_s;
    int64_t status_bytes;
    int32_t status_src;         /* receives: the world rank it matched */
    int64_t serial;             /* this request's number, never reused (its index is, once it is released) */
    int64_t matched;            /* rendezvous sends: the serial of the receive their CTS named, else -1 */
    int64_t status_tag;
    int64_t payload;            /* a program's payload: Python's handle of the object sent (0: none) */
    int32_t slot, count;        /* schedule posts */
    int64_t *parts;             /* sends: sizes of the slots carried; receives: as received */
    hdr_t hdr;
    int32_t round_of;           /* a message of an MPI_Ibarrier's round or a nonblocking collective's: its request,
                                 * else -1 */
    struct ibarrier *barrier;   /* an MPI_Ibarrier's request while its rounds go on, else NULL */
    struct icoll *icoll;        /* a nonblocking collective's request while its schedule runs, else NULL */
    int32_t icoll_post;         /* a nonblocking collective's message: its post number in the schedule */
    int8_t coll;                /* a replayed nonblocking collective's request (its status tag 1: a mismatch) */
    int32_t free_next;
} req_t;

/* A FIFO of requests or messages (a rank's posted receives or unexpected messages from one source, the
 * requests started under one trace request id); kept once made, empty or not. */
typedef struct { int32_t head, tail; } queue_t;

/* A rank's record of one peer (world rank): the next sequence number of its messages to the peer and
 * the one it expects from it, and the queues (index into m->queues, -1: none yet) of its posted
 * receives [0] and unexpected messages [1] from the peer in COMM_WORLD's two contexts. */
typedef struct {
    int64_t next_seq, expected_seq;
    int32_t queue[2][2];
} peer_t;

/* -- communicators: one per rank per communicator it belongs to (ppt/mpi/surface/communicators/comm.py Comm) -- */
typedef struct {
    int32_t ctx, size, me;      /* point-to-point context (collectives: ctx + 1); this rank's rank in it */
    const int32_t *members;     /* world rank of each rank of the communicator */
    int64_t coll_seq;           /* collective calls made on it so far */
} comm_t;

/* -- a rank's plan of a collective call, kept for its later calls with the same arguments -------- */
typedef struct {
    int16_t kind;
    int32_t comm, root, op, call, aux_len;     /* comm: the communicator (engine's index), not the handle */
    int64_t nbytes, epoch;
    int64_t *aux;
    const int32_t *schedule;    /* NULL: the call sends nothing */
    int64_t *sizes;
    int32_t nslots, ctx, hdr_call, hdr_root;
} plan_t;

/* -- one rank's collective schedule in progress (run.c) ------------------------------------- */
typedef struct {                /* a relay post of the schedule (a stream's messages carry their mark as payload) */
    int32_t source, dest;       /* world ranks; dest -1: the messages are kept */
    int32_t left;               /* streams still to come */
    int32_t current;            /* its receive posted */
    int32_t next_fwd;           /* where its forwards not yet taken over start in the run's fwds */
} relay_t;

#define FLOW_TAG (1 << 24)      /* reqs: relays are -1 - index, flows -1 - FLOW_TAG - index */
#define RUN_TAKEN INT32_MIN     /* reqs: a request taken over and released */

typedef struct {                /* a stream of a flow in progress */
    const int32_t *task;        /* its next task in the schedule */
    int32_t left;               /* tasks still to run */
    int32_t *fly;               /* tasks in flight, oldest first: (first send in the flow's sends, sends) pairs */
    int32_t nfly;
} stream_t;

typedef struct {                /* a flow post of the schedule in progress */
    int32_t window, ngroups, nstreams;  /* nstreams: streams with tasks still to run, in order */
    int32_t *recvs;             /* its receives, peer after peer, in the order posted */
    int32_t *group;             /* per peer: its next receive to take over and the end of its receives, in recvs */
    stream_t *streams;
    int8_t *ready;              /* per slot: filled by a message or a task's combine */
    int32_t *sends;             /* its sends, in the order posted; the first taken taken over */
    int32_t nsends, cap_sends, taken;
    int32_t *heads;             /* what it waits for, whichever completes first (nheads -1: it does not wait) */
    int32_t nheads;
} flow_t;

/* A queue of the current instant's work (ppt_mpi.woken, .reshares): ev[head .. len) wait, in order. */
typedef struct {
    ppt_event_t *ev;
    int64_t len, head, cap;
} instant_t;

typedef struct {
    int8_t active;
    const int32_t *schedule;    /* [nsteps, offset of each step, steps..., flows...]; a step: nposts, posts, nwaits,
                                 * waits; a flow as ppt/mpi/engine/replay.py flatten lays it out */
    int64_t *sizes;
    int32_t nslots, cap_slots;
    int32_t *reqs;              /* by post number: the request, or -1 - the relay's index in relays */
    int32_t nreqs, cap_reqs;
    relay_t *relays;
    int32_t nrelays, cap_relays;
    int32_t *fwds;              /* the relays' forwarded sends, in order: (relay index, request) pairs */
    int32_t nfwds, cap_fwds;
    flow_t *flows;              /* in reqs as -1 - FLOW_TAG - its index */
    int32_t nflows, cap_flows;
    int8_t any;                 /* waiting for whichever of a flow's heads (their waited set) completes first */
    int32_t step, waited, ctx;
    const int32_t *members;     /* the communicator's members (world ranks) */
    int8_t error;               /* a program rank's run stopped at a mismatched collective */
    int64_t tag;
    double clock_s;
    int32_t awaited;
    hdr_t hdr;
} run_t;

/* -- ranks ----------------------------------------------------------------------------------- */
enum { R_READY, R_SLEEP, R_BLOCK, R_PROBE, R_RUN, R_NEED, R_DONE };

/* A rank's most recently used entries of one of its map's tables, kept beside the rank: the peers of a
 * halo and a log-P collective, the request ids of a trace's iteration fit. */
#define RECENT 16
typedef struct {
    int64_t key[RECENT];                /* -1: free */
    int32_t value[RECENT];
    int32_t next;                       /* the slot the next miss replaces */
} recent_t;

static inline int recent_find(const recent_t *c, int64_t key, int32_t *value)
{
    for (int k = 0; k < RECENT; k++)
        if (c->key[k] == key) {
            *value = c->value[k];
            return 1;
        }
    return 0;
}

static inline void recent_put(recent_t *c, int64_t key, int32_t value)
{
    c->key[c->next] = key;
    c->value[c->next] = value;
    c->next = (c->next + 1) % RECENT;
}

typedef struct {
    int32_t node;
    map_t map;                          /* this rank's tables: peers, queues, requests, plans */
    recent_t peers, handles;            /* recent peers (world rank -> record), request ids (-> queue) */
    int32_t *peer_row;                  /* once the rank has many peers in a job of few ranks: world rank ->
                                         * record, -1 not yet looked up (the map stays the record's owner) */
    int32_t peers_made;
    int8_t state, waiting, probing, startup, has_init, stream_end;
    int8_t program;                     /* driven by a Python program (its process), not an op stream */
    double owed_s;
    int64_t post_count;
    int32_t any_head, any_tail;         /* posted ANY_SOURCE receives, in post order */
    int32_t unexp_head, unexp_tail;     /* unexpected messages, in arrival order */
    int64_t unreceived, unreceived_coll;
    int64_t early;                      /* messages that overtook an earlier one from their source */
    /* statistics */
    double compute_s, comm_s, finish_s;
    int64_t messages_sent, bytes_sent;
    int64_t *calls, *skipped;
    int32_t num_calls;
    /* the op stream */
    const ppt_op_t *ops;
    const int64_t *aux;
    const int32_t *call_ids;
    int64_t nops, pos;
    const ppt_op_t *op;                 /* the op being replayed */
    int32_t phase, hphase;
    double call_start_s;
    int32_t *wl;                        /* requests a completion op waits for, in order */
    int32_t wl_n, wl_i, wl_cap, wl_complete;
    int32_t blocked_req;
    double block_clock_s;
    double poll_clock_s;
    uint8_t polls;
    run_t run;
    const int32_t *turn;                /* a program's wait on turn[turn_k..turn_n) in turn (turn_n 0: none), */
    int64_t *turn_out;                  /* their statuses out: carried on by the engine, not the process */
    int32_t turn_k, turn_n;
    int32_t world, self;                /* this rank's COMM_WORLD and COMM_SELF (engine's comm indexes) */
    int64_t plan_epoch;                 /* bumped when an op handle is (re)defined: older plans are stale */
    int64_t open_colls;                 /* nonblocking collectives started and not yet completed by the stream */
    /* what replay reports */
    int64_t records, p2p_bytes, wtimes;
    double dropped_s, recorded_mpi_s, wall_s, cpu_s;
    double wtime[4];                    /* first simulated, first recorded, last simulated, last recorded */
} rank_t;

/* -- max-min fair sharing driven as fairshare.py's FairShare drives it: a node's memory, the flow
 * network --------------------------------------------------------------------------------------- */
enum { SHARE_COPY, SHARE_INJECTED, SHARE_DONE };   /* what a finished flow message goes on to */

typedef struct {
    int32_t msg;
    int8_t then;                /* SHARE_* */
    int32_t path;               /* SHARE_INJECTED: the message's path, past the NIC for its last bytes */
    int64_t ahead_B;            /* ... those bytes */
    double latency_s;           /* flow network: delivery this long after the last byte is through */
} share_msg_t;

typedef struct {
    ppt_flows_t *flows;
    int32_t entity;             /* the entity its events belong to: a node's NIC, or the flow network's */
    int32_t path;               /* node memory: the one path through it */
    int8_t pending;
    double *wakes;
    int64_t nwakes, cap_wakes;
    share_msg_t *msgs;          /* by flow message id */
    int64_t cap_msgs;
} share_t;

enum { EV_RESUME, EV_POST, EV_SEND_DONE, EV_SEND_NOW, EV_DELIVER, EV_SENT, EV_RESHARE, EV_SHARE_WAKE, EV_MEM_ARRIVE,
       EV_RUN_RESUME, EV_NET_WAKE, EV_PYTHON, EV_NOTICE };
/* Keys of the packet core's wake-ups: after every entity's events at the same time (packetnet.py WAKE_KEY). */
#define NET_WAKE_KEY (1ull << 63)

/* Messages for the ranks of one other process (remote.c). */
typedef struct {
    ppt_mpi_remote_t *records;
    int64_t len, cap;
    int64_t *parts;
    int64_t nparts, cap_parts;
    double first_s;             /* the earliest record's time (inf: none) */
} outbox_t;

struct ppt_mpi {
    int32_t num_ranks, num_nodes;
    /* parallel runs: this process, how many, which runs each node (NULL: serial), outboxes per process */
    int32_t me, processes;
    int32_t *owner;
    outbox_t *outbox;
    double window_end;          /* events from this time on wait for the next window */
    int32_t *node_of;
    uint64_t *key;              /* per node: its NIC entity's last event key */
    int64_t eager_B;
    double send_o, recv_o, poll_o;
    /* network */
    int32_t constant_path, wire_identity;
    double latency_s, bandwidth_Bps;
    void *handle;
    double *paths;              /* cached (hops, latency, bandwidth) triples */
    int64_t npaths, cap_paths;
    int64_t net_messages, net_bytes, net_hops;
    ppt_net_t *net;             /* the packet network's core, or NULL: the analytic network */
    ppt_histogram_t *message_latency;
    double net_lead_s, net_wake_s;
    int32_t classes_on;         /* ppt_mpi_set_classes was called: the class of each message (packet.c) */
    int32_t coll_class, p2p_class, class_ranges;
    int64_t *class_lo, *class_hi;
    int32_t *class_of_range;
    double horizon_s;           /* events from here on wait (ppt_mpi_set_horizon) */
    int64_t net_wakes;
    int64_t net_owed;           /* deliveries and send completions the core still owes this process */
    int32_t notices;            /* finish notices run (ppt_mpi_notice) */
    share_t flow;               /* the flow network (flows NULL: another network) */
    int32_t flow_oblivious;     /* its routes depend on the node pair only (ask once per pair and size) */
    int64_t nic_buffer_B;       /* bytes past a NIC (flownet.py nic_buffer_B) */
    double mem_bandwidth_Bps, mem_latency_s;
    share_t *memory;            /* per node */
    int64_t mem_copies, mem_bytes;
    double *routes;             /* flow network: cached (path, hops, latency, wire bytes, queue) */
    int64_t nroutes, cap_routes;
    /* a model of one's own in Python (PPT_MPI_PYTHON_*) */
    int32_t python_sends;
    void *python;               /* passed back to ppt_mpi_send_cb and ppt_mpi_event_cb */
    int32_t *dirty;             /* nodes whose NIC key the engine moved since Python last read them */
    int32_t ndirty;
    int8_t *is_dirty;
    int8_t failed;              /* the Python model raised: the run stops (reason says so) */
    int64_t python_ahead;       /* messages sent ahead to other processes so far (their numbers) */
    /* replay */
    int32_t cpu_clock, keep_startup;
    const int8_t *skippable;    /* by call id: an OTHER op of that call is skipped (else refused) */
    int32_t nskippable;
    double compute_scale;
    /* state */
    double now;
    int64_t events, records;
    int64_t progress_records;   /* 0: no progress reports; else report after as many ops (or 65,536 events) */
    int64_t progress_records_at, progress_events_at;
    ppt_heap_t heap;
    /* The current instant's work that needs no key, after the heap's events at that instant: first the
     * ranks woken by a request completed then (each goes on once, with all that completed for it at the
     * instant), then the resharings of the node memories that changed (all starts and ends of the
     * instant reshared once).  Neither is counted as an event: they run within the instant's events. */
    instant_t woken, reshares;
    rank_t *ranks;
    req_t *reqs;
    int64_t nreqs, cap_reqs;
    int32_t free_req;
    int64_t serials;                    /* requests made: the last one's serial */
    msg_t *msgs;
    int64_t nmsgs, cap_msgs;
    int32_t free_msg;
    comm_t *comms;
    int64_t ncomms, cap_comms;
    int32_t *world_ids;         /* 0 .. num_ranks-1: COMM_WORLD's members, and each COMM_SELF's */
    plan_t *plans;
    int64_t nplans, cap_plans;
    peer_t *peers;
    int64_t npeers, cap_peers;
    queue_t *queues;
    int64_t nqueues, cap_queues;
    map_t map;
    int32_t need_rank;          /* the rank to continue before the next event, or -1 */
    hdr_t mismatch;             /* a rank's collective got this header (from world rank mismatch_src) ... */
    hdr_t mismatch_own;         /* ... instead of its own */
    int32_t mismatch_ctx;       /* a replayed nonblocking collective's context, when its wait found the mismatch */
    int32_t mismatch_src;
    int32_t need;
    char reason[256];
};

/* engine.c: events */
void mpi_schedule(ppt_mpi_t *m, int32_t node, double t, int32_t kind, int32_t target, int32_t a);
void mpi_post(ppt_mpi_t *m, double t, uint64_t key, int32_t kind, int32_t target, int32_t a);
/* At the current instant, once its heap events have run: rank r goes on (EV_RESUME or EV_RUN_RESUME), or
 * (after every rank woken) node memory `entity` reshares (EV_RESHARE); see ppt_mpi.woken. */
void mpi_at_instant(ppt_mpi_t *m, instant_t *q, int32_t kind, int32_t target);
/* Work of the current instant is waiting. */
static inline int mpi_instant_busy(const ppt_mpi_t *m)
{
    return m->woken.head < m->woken.len || m->reshares.head < m->reshares.len;
}
/* remote.c: message i delivered at t, key -- here or on the process running its destination; message i
 * handed to the packet core as uid, for a rank of another process (whose core delivers it) */
void mpi_deliver_at(ppt_mpi_t *m, double t, uint64_t key, int32_t i);
void mpi_send_ahead(ppt_mpi_t *m, uint64_t uid, int32_t i);
/* packet.c: wake the core at its next event (after its events from other processes came in); run a
 * finish notice (ppt_mpi_notice) */
void packet_reschedule(ppt_mpi_t *m);
void packet_notice(ppt_mpi_t *m);
/* network.c: the analytic and flow networks and node memory */
/* Message msg leaves its node at start_s (now or later). */
void mpi_send_message(ppt_mpi_t *m, int32_t msg, double start_s);
int python_event(ppt_mpi_t *m, double t_s, uint64_t key);
void mpi_deliver(ppt_mpi_t *m, int32_t msg);
/* share.c: fair sharing (fairshare.py) */
int32_t share_start(ppt_mpi_t *m, share_t *sh, int32_t path, double nbytes, int32_t queue, share_msg_t what);
void share_reshare(ppt_mpi_t *m, share_t *sh);
void share_wake(ppt_mpi_t *m, share_t *sh, double at);
void share_free(share_t *sh);
void share_finished(ppt_mpi_t *m, share_t *sh, share_msg_t what);
int32_t mpi_new_msg(ppt_mpi_t *m);
void mpi_free_msg(ppt_mpi_t *m, int32_t msg);
/* Stop the run with status (a PPT_MPI_* code), the reason written as printf writes fmt. */
int mpi_stop(ppt_mpi_t *m, int status, const char *fmt, ...);
/* packet.c: the packet network's core, driven as packetnet.py's PacketCore drives it */
void packet_send(ppt_mpi_t *m, int32_t msg, int32_t src_node, int32_t dst_node, double start_s);
int64_t packet_wake(ppt_mpi_t *m, int32_t number);
/* p2p.c: matching, requests, protocols */
int32_t p2p_new_req(ppt_mpi_t *m, int32_t rank);
void p2p_release(ppt_mpi_t *m, int32_t req);
int32_t p2p_isend(ppt_mpi_t *m, int32_t rank, int32_t dst, int32_t ctx, int64_t tag, int64_t nbytes, int32_t mode,
                  int32_t req);
/* Send modes (ppt/mpi/surface/core/requests.py). */
enum { STANDARD, SYNC, BUFFERED };
void p2p_match(ppt_mpi_t *m, int32_t req, int32_t msg);
int32_t p2p_irecv(ppt_mpi_t *m, int32_t rank, int32_t src, int32_t ctx, int64_t tag, int32_t req);
void p2p_post(ppt_mpi_t *m, int32_t req);
/* Hand the network a protocol message of kind (CTS, DATA) from src to dst moving nbytes, that names the send
 * and receive requests it serves (-1: none) and the context and tag whose traffic class it travels in, at
 * start_s. */
void p2p_transfer(ppt_mpi_t *m, int8_t kind, int32_t src, int32_t dst, int32_t send_req, int32_t recv_req,
                  int32_t ctx, int64_t tag, int64_t nbytes, double start_s);
void p2p_arrive(ppt_mpi_t *m, int32_t msg);
void p2p_finish(ppt_mpi_t *m, int32_t req);
/* Send q's last byte leaves its NIC at t_s (the analytic network and unshared node memory know it when they
 * take the message): the send is done then, with no event of its own. */
void p2p_sent_at(ppt_mpi_t *m, int32_t q, double t_s);
/* Whether request q is complete now (a send done at a known time once that time has come). */
int p2p_done(const ppt_mpi_t *m, int32_t q);
/* Request q, not done, is waited for: a send done at a known later time gets the event that completes
 * it then (a timer). */
void p2p_await(ppt_mpi_t *m, int32_t q);
/* EV_SEND_DONE: send q's timer. */
void p2p_send_done(ppt_mpi_t *m, int32_t q);
void p2p_take(ppt_mpi_t *m, int32_t rank, int32_t req);
int32_t p2p_find_unexpected(ppt_mpi_t *m, int32_t rank, int32_t ctx, int32_t src, int64_t tag, int remove);
int32_t queue_new(ppt_mpi_t *m);
/* ibarrier.c: MPI_Ibarrier's rounds */
void ibarrier_round_done(ppt_mpi_t *m, int32_t barrier_req);
/* icoll.c: a nonblocking collective's message p is complete (released here; its schedule goes on) */
void icoll_post_done(ppt_mpi_t *m, int32_t p);
/* run.c: collective schedules */
int run_proceed(ppt_mpi_t *m, int32_t rank, int fresh);
int run_start(ppt_mpi_t *m, int32_t rank);
int32_t comm_of(ppt_mpi_t *m, int32_t rank, int32_t handle);
int32_t comm_new(ppt_mpi_t *m, int32_t ctx, int32_t size, int32_t me, const int32_t *members);
int plan_find(ppt_mpi_t *m, int32_t rank, const ppt_op_t *op, const int64_t *aux);
void plan_start(ppt_mpi_t *m, int32_t rank, int32_t plan);
void run_resume(ppt_mpi_t *m, int32_t rank);
/* replay.c: the op-stream interpreter */
int replay_continue(ppt_mpi_t *m, int32_t rank);
/* Program rank r, woken in a wait in turn, takes what completed: 1 once every request is taken (its process
 * goes on), 0 blocked on the next. */
int program_turn_on(ppt_mpi_t *m, int32_t r);

static inline rank_t *RANK(ppt_mpi_t *m, int32_t r) { return &m->ranks[r]; }
static inline req_t *REQ(ppt_mpi_t *m, int32_t q) { return &m->reqs[q]; }
static inline msg_t *MSG(ppt_mpi_t *m, int32_t i) { return &m->msgs[i]; }
#endif
