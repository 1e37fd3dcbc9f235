/* The MPI engine: simulated MPI ranks running programs or replaying op streams, with no Python per
 * message.
 *
 * One engine holds every rank of a job, its event queue (events ordered by (time, key), keys made
 * as ppt/engine/entity.py makes them: the scheduling NIC entity's id << 40 | its running count, so the
 * order of simultaneous events does not depend on the partition of a parallel run), the point-to-point layer (matching with
 * MPI's non-overtaking order and wildcards, eager and rendezvous protocols, LogGP send and receive
 * overheads owed by the rank), collective calls as per-rank schedules (ppt/mpi/collectives/schedule.py), the
 * contention-free analytic network and the nodes' shared memory (copies sharing a node's copy
 * bandwidth max-min fairly, through the flow solver of the packet core).
 *
 * Python drives it: ppt_mpi_run() runs events until the job ends or the engine needs something only
 * Python has (the next chunk of a rank's op stream, the schedule of a collective call), then returns
 * a PPT_MPI_NEED_* code; Python answers and calls ppt_mpi_run() again.  Times in seconds, sizes in
 * bytes.
 */

/* One op of a rank's stream: the layout of OP_DTYPE (ppt/oprecord.py), 88 bytes, no padding. */
typedef struct ppt_op {
    int16_t kind, call;
    int32_t comm, peer, tag, root, op, flag, aux_len;
    double gap_wall_s, gap_cpu_s, call_s, start_s;
    int64_t nbytes, request, aux_start;
} ppt_op_t;

typedef struct ppt_mpi ppt_mpi_t;

/* What ppt_mpi_run() returns. */
enum {
    PPT_MPI_DONE = 0,       /* every event ran */
    PPT_MPI_NEED_CHUNK,     /* rank ppt_mpi_need_rank() has replayed its chunk: ppt_mpi_set_chunk() */
    PPT_MPI_NEED_COLL,      /* the rank is at a collective op it has no plan for: ppt_mpi_set_plan() */
    PPT_MPI_NEED_COMM,      /* the rank is at an op on communicators, groups or reduction ops: Python runs
                             * it (ppt_mpi_need_stage() 0: at its start, ppt_mpi_set_plan() for the agreement
                             * a new communicator needs; 1: once that is over, ppt_mpi_set_comm()) */
    PPT_MPI_NEED_PROGRESS,  /* time to report progress (ppt_mpi_set_progress) */
    PPT_MPI_UNSUPPORTED,    /* the engine cannot go on (ppt_mpi_reason()) */
    PPT_MPI_NEED_RESUME,    /* program rank ppt_mpi_need_rank()'s process goes on now */
    PPT_MPI_REFUSED,        /* replay rank ppt_mpi_need_rank() is at an op (ppt_mpi_need_op()) the simulated MPI
                             * refuses (ppt_mpi_reason() says why): Python issues it to raise the error */
    PPT_MPI_MISMATCH,       /* replay rank ppt_mpi_need_rank()'s collective received another collective's
                             * message (ppt_mpi_mismatch()) */
    PPT_MPI_HORIZON         /* the next event is at or past the horizon (ppt_mpi_set_horizon) */
};
/* After PPT_MPI_UNSUPPORTED, PPT_MPI_REFUSED and PPT_MPI_MISMATCH the run cannot go on. */

/* The packet core's calls (interconnects/core/coreapi.h): the engine, an extension of its own, makes them
 * through this table.  Bind it once, before any other call (ppt.mpi.engine.core does, at import). */
void ppt_mpi_bind_core(const struct ppt_core_api *api);

/* A job of num_ranks ranks; rank r runs on node node_of[r], whose NIC entity id is node_eid[node].
 * eager_B: largest eagerly sent message; send/recv/poll overheads as ppt.mpi.settings describes. */
ppt_mpi_t *ppt_mpi_new(int32_t num_ranks, int32_t num_nodes, const int32_t *node_of, const int64_t *node_eid,
                       int64_t eager_B, double send_overhead_s, double recv_overhead_s, double poll_overhead_s);
void ppt_mpi_free(ppt_mpi_t *m);

/* The analytic network: every node pair's path latency_s + wire / bandwidth_Bps with hops 0
 * (constant); or (constant 0) each pair's (hops, latency, bandwidth) from ppt_mpi_path_cb, asked once
 * per pair.  Wire bytes are the payload's (wire_identity) or ppt_mpi_wire_cb's, asked once per size.
 * handle is passed back to the callbacks. */
void ppt_mpi_set_network(ppt_mpi_t *m, int32_t constant, double latency_s, double bandwidth_Bps,
                         int32_t wire_identity, void *handle);
/* The packet network instead: its core (built by packetnet.py's PacketCore, which keeps it), the
 * histogram of message latencies it reports, and how far past the engine's next event a wake-up may
 * run the core (PacketCore.lead_s).  Call it again once synthetic sources started in the core (their
 * lead is zero: an engine event may stop them at its own time); it queues the core's first wake-up. */
void ppt_mpi_set_packet_network(ppt_mpi_t *m, struct ppt_net *net, struct ppt_histogram *message_latency,
                                double lead_s);
/* A job mix's finish notice (ppt/jobs/mix.py): an event at t_s with key, bookkeeping (not counted among
 * the events).  The one that makes a notice from every simulation process stops the core's synthetic
 * sources at its time. */
void ppt_mpi_notice(ppt_mpi_t *m, double t_s, uint64_t key);
/* Finish notices run so far. */
int32_t ppt_mpi_notices(const ppt_mpi_t *m);
/* 1 if nothing can resume a rank of this process any more: no event is queued but the core's wake-ups,
 * and the core owes no delivery or send completion (its synthetic sources may still run). */
int32_t ppt_mpi_quiescent(const ppt_mpi_t *m);
/* The flow network instead: its solver (flownet.py's FairShare's, which keeps it), the entity id of its
 * events, whether its routing is oblivious (routes asked once per node pair and size; else per message,
 * of ppt_mpi_route_cb) and the bytes past a NIC (nic_buffer_B). */
void ppt_mpi_set_flow_network(ppt_mpi_t *m, struct ppt_flows *flows, int64_t eid, int32_t oblivious,
                              int64_t nic_buffer_B, void *handle);
/* Same-node copies: latency_s plus the bytes at a share of bandwidth_Bps (inf: no sharing). */
void ppt_mpi_set_memory(ppt_mpi_t *m, double bandwidth_Bps, double latency_s);

/* A network or node memory model of one's own, run in Python (ppt/mpi/engine/pynet.py): the engine hands it
 * every message (PPT_MPI_PYTHON_ALL: the network's NIC sends it) or only the copies within a node
 * (PPT_MPI_PYTHON_COPIES: the node memory copies it), through ppt_mpi_send_cb with handle.  The model's
 * events join the engine's queue (ppt_mpi_python_event: at t_s with the key the model gave it) and run
 * through ppt_mpi_event_cb; a NIC entity's running count, which the engine's events of its node share, is
 * handed back and forth (ppt_mpi_python_event's nic_key, ppt_mpi_python_keys).  A message delivered
 * reaches its host (ppt_mpi_python_arrive), a send's last byte leaving finishes its request
 * (ppt_mpi_python_sent). */
enum { PPT_MPI_PYTHON_NONE, PPT_MPI_PYTHON_COPIES, PPT_MPI_PYTHON_ALL };
void ppt_mpi_set_python_sends(ppt_mpi_t *m, int32_t which, void *handle);
/* node >= 0: the event's key is that node's NIC's, whose key (id << 40 | running count) is now nic_key. */
void ppt_mpi_python_event(ppt_mpi_t *m, double t_s, uint64_t key, int32_t node, uint64_t nic_key);
/* Events the model ran, or took back, besides those of its own in the engine's queue (the packet
 * network's model counts its core's events and not its wake-ups). */
void ppt_mpi_python_events(ppt_mpi_t *m, int64_t events);
/* In a parallel run a message to a rank of another process goes ahead to that process as the model takes
 * it, numbered there and for the model PPT_MPI_PYTHON_AHEAD + (process << 40) + a running count; msg is
 * the number the model was handed. */
#define PPT_MPI_PYTHON_AHEAD (1LL << 62)
void ppt_mpi_python_arrive(ppt_mpi_t *m, int64_t msg);
void ppt_mpi_python_sent(ppt_mpi_t *m, int32_t req);
/* The nodes whose NIC keys the engine moved since the last call, and those keys (up to num_nodes each);
 * returns how many. */
int32_t ppt_mpi_python_keys(ppt_mpi_t *m, int32_t *nodes, uint64_t *keys);
/* Time of the next queued event (inf: none), s. */
double ppt_mpi_next_s(const ppt_mpi_t *m);
/* Run only the events before until_s (inf: all; ppt_mpi_run then stops with PPT_MPI_HORIZON), the packet
 * core no further (a sampled run reads the core's counters there: ppt/drivers/sampling.py). */
void ppt_mpi_set_horizon(ppt_mpi_t *m, double until_s);
/* Stop with PPT_MPI_NEED_PROGRESS after every `records` ops replayed or 65,536 events (0: never). */
void ppt_mpi_set_progress(ppt_mpi_t *m, int64_t records);
/* Replay options: the gap replayed (0 wall clock, 1 CPU clock) times compute_scale; keep_startup. */
void ppt_mpi_set_replay(ppt_mpi_t *m, int32_t cpu_clock, double compute_scale, int32_t keep_startup);
void ppt_mpi_set_has_init(ppt_mpi_t *m, int32_t rank, int32_t has_init);
/* By call id, whether an OTHER op (a call the trace's reader could not express) of that call is skipped;
 * one that is not stops the engine (PPT_MPI_REFUSED).  The array must stay alive until set again. */
void ppt_mpi_set_skippable(ppt_mpi_t *m, const int8_t *skippable, int32_t n);

/* The next chunk of a rank's stream (n == 0: the stream has ended): ops, their aux values and, per
 * chunk-local call index, a job-wide call id (0 .. num_calls-1).  The arrays must stay alive until
 * the rank asks for the next chunk. */
void ppt_mpi_set_chunk(ppt_mpi_t *m, int32_t rank, const ppt_op_t *ops, int64_t n, const int64_t *aux,
                       const int32_t *call_ids, int32_t num_calls);

int32_t ppt_mpi_run(ppt_mpi_t *m);
int32_t ppt_mpi_need_rank(const ppt_mpi_t *m);
const ppt_op_t *ppt_mpi_need_op(const ppt_mpi_t *m);
const int64_t *ppt_mpi_need_aux(const ppt_mpi_t *m);
const char *ppt_mpi_reason(const ppt_mpi_t *m);

/* The plan of the collective op the rank at NEED_COLL is at, which the engine keeps for every later
 * call of the rank with the same arguments: its schedule (ppt/mpi/collectives/schedule.py, flattened by
 * ppt.mpi.engine.replay: steps, then per step its posts and waits; NULL: the call sends nothing) over
 * nslots slots of the given sizes, in context ctx, with the header (call id, root or -1) every
 * message carries beside the call's sequence number on its communicator, which is also its tag
 * (ppt_mpi_need_seq() + 1).  schedule must stay alive as long as the engine (ppt.mpi.engine.replay keeps
 * it). */
void ppt_mpi_set_plan(ppt_mpi_t *m, const int32_t *schedule, const int64_t *sizes, int32_t nslots, int32_t ctx,
                      int32_t hdr_call, int32_t hdr_root);
/* Collective calls the rank at NEED_COLL made on the op's communicator so far. */
int64_t ppt_mpi_need_seq(const ppt_mpi_t *m);
int32_t ppt_mpi_need_stage(const ppt_mpi_t *m);
/* Bind the rank's op-stream communicator handle to a communicator: its point-to-point context (ctx + 1
 * for collectives), size, the rank's rank in it and its members' world ranks (alive as long as the
 * engine); drop a binding (MPI_Comm_free). */
void ppt_mpi_set_comm(ppt_mpi_t *m, int32_t handle, int32_t ctx, int32_t size, int32_t me, const int32_t *members);
void ppt_mpi_drop_comm(ppt_mpi_t *m, int32_t handle);

/* Traffic classes of the job's messages on the packet network (ppt/mpi/classes.py): a collective's
 * messages (odd contexts) in class coll_class, a point-to-point message in the class of the first of the
 * n tag ranges [tag_lo[k], tag_hi[k]] that holds its tag, else in p2p_class; class -1: the sending node's
 * (its job's).  A rendezvous's control messages and data go in the class of its RTS.  Arrays copied. */
void ppt_mpi_set_classes(ppt_mpi_t *m, int32_t coll_class, int32_t p2p_class, int32_t n, const int64_t *tag_lo,
                         const int64_t *tag_hi, const int32_t *tag_class);

/* Results. */
double ppt_mpi_now(const ppt_mpi_t *m);
int64_t ppt_mpi_events(const ppt_mpi_t *m);
/* Ops replayed so far, all ranks. */
int64_t ppt_mpi_records(const ppt_mpi_t *m);
/* What a replay rank that has not finished waits in (as a program rank's process's blocked_in):
 * 1 a request, 2 a probe, 3 a collective's schedule, 4 a nonblocking collective's request, 0 none of
 * those, -1 nothing (it finished).
 * out[0..1]: its op's job-wide call id and communicator handle; then for a request out[2..6]: 1 if a
 * send, its peer (world rank, or ANY_SOURCE), context, tag and bytes; for a probe out[2..3]: the op's
 * peer and tag; for a schedule out[2..3]: 1 if the message awaited is a send, its peer's world rank;
 * for a nonblocking collective out[2..6]: its collective context, its call id, the step of its schedule
 * it waits in (-1: an Ibarrier), 1 if the message awaited is a send (-1 none; an Ibarrier: its round's
 * distance), that message's peer's rank in the communicator (7 int64s in all). */
int32_t ppt_mpi_blocked(const ppt_mpi_t *m, int32_t rank, int64_t *out);
/* Nonblocking collectives replay rank `rank`'s stream started and completed by none of its ops: how many; out:
 * the collective context, call id and sequence number on its communicator of the one of the lowest sequence
 * number (3 int64s; meaningful when the count is not 0). */
int64_t ppt_mpi_open_colls(const ppt_mpi_t *m, int32_t rank, int64_t *out);
/* The collective context of the nonblocking collective whose completion stopped a replay at PPT_MPI_MISMATCH
 * (its op is the Wait or Test that completed it). */
int32_t ppt_mpi_mismatch_ctx(const ppt_mpi_t *m);
/* Per rank: compute_s, comm_s, finish_s, startup_dropped_s, recorded_mpi_s, compute_wall_s,
 * compute_cpu_s, wtime first/last simulated and recorded (NaN if absent): 11 doubles; messages_sent,
 * bytes_sent, records, p2p_bytes, unreceived messages, unreceived collective messages, wtime reads:
 * 7 int64s. */
void ppt_mpi_rank_stats(const ppt_mpi_t *m, int32_t rank, double *times, int64_t *counts);
/* Per rank: calls by call id, and OTHER ops skipped by call id (num_calls each). */
void ppt_mpi_rank_calls(const ppt_mpi_t *m, int32_t rank, int64_t *calls, int64_t *skipped, int32_t num_calls);
/* The analytic or flow network's messages, bytes and router hops, and the node memories' copies and bytes. */
void ppt_mpi_network_stats(const ppt_mpi_t *m, int64_t *counts);

/* -- ranks driven by Python programs (ppt/mpi/engine/program.py): the engine's events and messaging,
 * the program's own code in its process, resumed at PPT_MPI_NEED_RESUME.  Calls act at the current
 * event's time, on the rank's clock (now plus the overhead it owes). */
void ppt_mpi_set_program(ppt_mpi_t *m, int32_t rank);
/* A send (mode 0 standard, 1 synchronous: rendezvous at any size, 2 buffered: eager at any size) to world
 * rank dst (PROC_NULL: none) and a receive from world rank src (or ANY_SOURCE, PROC_NULL); their request. */
int32_t ppt_mpi_isend(ppt_mpi_t *m, int32_t rank, int32_t dst, int32_t ctx, int64_t tag, int64_t nbytes, int32_t mode,
                      int64_t payload);
int32_t ppt_mpi_irecv(ppt_mpi_t *m, int32_t rank, int32_t src, int32_t ctx, int64_t tag);
/* A request: done, and for receives the status (world source, tag, bytes) and payload handle; for sends
 * out[0] is the serial of the receive a rendezvous matched (-1: none, an eager send, a receive of another
 * simulation process), out[3] the payload handle. */
int32_t ppt_mpi_req_done(const ppt_mpi_t *m, int32_t req);
void ppt_mpi_req_status(const ppt_mpi_t *m, int32_t req, int64_t *out);
/* Request req's serial: its number among every request the engine made, never reused. */
int64_t ppt_mpi_req_serial(const ppt_mpi_t *m, int32_t req);
/* Rank.wait on request q: 1 if it was complete, and is then taken and released, its status and payload
 * handle in out[0..3] as ppt_mpi_req_status writes them; else 0, the rank blocked on it as by
 * ppt_mpi_block (unblock it once the process goes on, and call again). */
int32_t ppt_mpi_wait_one(ppt_mpi_t *m, int32_t rank, int32_t req, int64_t *out);
/* Rank.wait on reqs[0..n) in turn (entries < 0 skipped): each complete one is taken and released, a
 * receive's status and payload handle written to out[4i..4i+3] as ppt_mpi_req_status writes them.
 * Returns n once all are taken; else the index of the first one still pending, the rank then blocked
 * on it, and the engine goes on taking them in turn as they complete (reqs and out must stay valid) and
 * resumes the process once all are taken (no ppt_mpi_unblock then). */
int32_t ppt_mpi_wait_in_turn(ppt_mpi_t *m, int32_t rank, const int32_t *reqs, int32_t n, int64_t *out);
/* Where a wait in turn stands: the index it blocks on, -1 if the rank is in none. */
int32_t ppt_mpi_turn_at(const ppt_mpi_t *m, int32_t rank);
/* The wait in turn is given up (its process is gone): the engine forgets reqs and out. */
void ppt_mpi_turn_drop(ppt_mpi_t *m, int32_t rank);
/* Rank.block: the rank waits until one of reqs completes (the process then sleeps until
 * PPT_MPI_NEED_RESUME); ppt_mpi_unblock once it goes on. */
void ppt_mpi_block(ppt_mpi_t *m, int32_t rank, const int32_t *reqs, int32_t n);
void ppt_mpi_unblock(ppt_mpi_t *m, int32_t rank, const int32_t *reqs, int32_t n);
/* The process sleeps delay_s (its next PPT_MPI_NEED_RESUME is then). */
void ppt_mpi_sleep(ppt_mpi_t *m, int32_t rank, double delay_s);
double ppt_mpi_owed(const ppt_mpi_t *m, int32_t rank);
/* The rank's clock: now plus the overhead it owes, s. */
double ppt_mpi_clock(const ppt_mpi_t *m, int32_t rank);
void ppt_mpi_set_owed(ppt_mpi_t *m, int32_t rank, double owed_s);
/* The first unreceived message matching (ctx, world source or ANY_SOURCE, tag): its index, status in out
 * (world source, tag, bytes), taken off the queue if remove; -1 if none.  probe_wait: the process waits
 * for the next unexpected message (Rank.wait_probe). */
int32_t ppt_mpi_find(ppt_mpi_t *m, int32_t rank, int32_t ctx, int32_t src, int64_t tag, int32_t remove, int64_t *out);
void ppt_mpi_probe_wait(ppt_mpi_t *m, int32_t rank, int32_t waiting);
/* A new receive of the rank's that takes message msg, which ppt_mpi_find removed (MPI_Mrecv). */
int32_t ppt_mpi_mrecv(ppt_mpi_t *m, int32_t rank, int32_t msg);
/* A new request for an MPI_Ibarrier of the rank's, its rounds started (ppt/mpi/surface/communicators/ibarrier.py): the
 * communicator's members (world ranks; alive as long as the engine), size, the rank's rank in it, its
 * collective context, the barrier's sequence number (its messages' tag) and call id (their header). */
int32_t ppt_mpi_ibarrier(ppt_mpi_t *m, int32_t rank, const int32_t *members, int32_t size, int32_t me, int32_t ctx,
                         int64_t seq, int32_t hdr_call);
/* The distance of the round an unfinished MPI_Ibarrier request is in (its messages go to me + dist). */
int32_t ppt_mpi_ibarrier_dist(const ppt_mpi_t *m, int32_t req);
/* A collective's schedule for a program rank (as ppt_mpi_set_plan; sizes are the call's slots, members
 * the communicator's world ranks): 1 if done at once, 0 if the process now waits (PPT_MPI_NEED_RESUME
 * at the end), -1 on a mismatched collective (ppt_mpi_mismatch). */
int32_t ppt_mpi_program_run(ppt_mpi_t *m, int32_t rank, const int32_t *schedule, const int64_t *sizes, int32_t nslots,
                            const int32_t *members, int32_t ctx, int64_t tag, int32_t hdr_call, int32_t hdr_root);
/* The rank's last run: 1 over, -1 stopped at a mismatched collective (ppt_mpi_mismatch: the header
 * received, (call id, root or -1, sequence number), the world rank that sent it, and the header of the
 * rank's own call, 7 int64s), 0 still waiting, for the message out names (1 a send, 0 a receive, -1 none
 * yet; its peer's world rank). */
int32_t ppt_mpi_run_state(const ppt_mpi_t *m, int32_t rank, int64_t *out);
void ppt_mpi_mismatch(const ppt_mpi_t *m, int64_t *out);
/* Messages the rank sent, their bytes, its messages received by nobody, and of those the ones of
 * collectives (4 int64s); the k-th of those (kind 0 eager / 1 RTS, source world rank, header call, root,
 * sequence number), 0 past the last. */
void ppt_mpi_program_stats(const ppt_mpi_t *m, int32_t rank, int64_t *out);
int32_t ppt_mpi_stray(const ppt_mpi_t *m, int32_t rank, int64_t k, int64_t *out);

/* -- parallel runs (mpiexec): each simulation process runs the ranks of its own nodes (remote.c) ---- */
/* A message delivered to a rank of another process, with its delivery event's (time s, key); the slot
 * sizes it carries (count of them) are at parts_at of the outbox's parts, or parts_at is -1.  On the
 * packet network (in_core 1) the core delivers it there: it waits for the core's delivery of its uid,
 * handed to the core at sent_s, and t and key are unused. */
typedef struct ppt_mpi_remote {
    double t, sent_s;
    uint64_t key, uid;
    int64_t tag, seq, nbytes, net_B, payload, hdr_seq, parts_at;
    int32_t kind, dst, src, ctx, send_req, recv_req, count, hdr_call, hdr_root, in_core;
} ppt_mpi_remote_t;
/* This process is `me` of `processes`; owner[node] is the process that runs the node's ranks.  Call
 * once, right after ppt_mpi_new (the ranks of other processes never start here). */
void ppt_mpi_set_partition(ppt_mpi_t *m, int32_t me, int32_t processes, const int32_t *owner);
int32_t ppt_mpi_is_local(const ppt_mpi_t *m, int32_t rank);
/* ppt_mpi_run runs the events before end_s only (default: all). */
void ppt_mpi_set_window(ppt_mpi_t *m, double end_s);
/* The earliest of the next queued event and the outboxes' records, s (inf: none). */
double ppt_mpi_next_time(const ppt_mpi_t *m);
/* Tags from 2**PPT_MPI_OBJECT_TAG_BITS on number a program's tags that are not integers (Python keeps
 * the objects; a parallel run's cargo carries them beside the records that hold them). */
enum { PPT_MPI_OBJECT_TAG_BITS = 60 };
/* What this process sends a process in a window exchange, packed into out (cap bytes): four int64
 * counts (records, slot sizes, packet-core events, and the records that carry Python cargo: a program's
 * payload handle, payload != 0 with hdr_seq 0, or an object tag), then the records (ppt_mpi_remote_t), the slot sizes
 * they carry (int64) and the packet core's events for that process (ppt_remote_t), each array as it is
 * in memory.  Returns the bytes the part takes (written only if they fit in cap), 0 when it is empty. */
int64_t ppt_mpi_pack(const ppt_mpi_t *m, int32_t process, uint8_t *out, int64_t cap);
/* Empty the outboxes (this engine's and its packet core's) once every process's part is packed. */
void ppt_mpi_clear_exchange(ppt_mpi_t *m);
/* A part another process packed (n bytes): the core's events handed to the core, the records queued as
 * their deliveries.  Call ids are per process: the sender's id k is call_ids[k] here (k < num_calls).
 * Returns 0, or -1 when n is not the size the part's counts give (nothing is taken then). */
int32_t ppt_mpi_unpack(ppt_mpi_t *m, const uint8_t *part, int64_t n, const int32_t *call_ids, int32_t num_calls);
