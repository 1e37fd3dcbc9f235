/* The MPI engine's event loop, the analytic network and the nodes' shared memory.
 *
 * Every event is made as the Python engine makes it (ppt/engine/entity.py): at now + delay, keyed
 * by the scheduling NIC entity's id << 40 | its running count, and each network step keeps the order
 * in which the Python models (analytic.py, nodememory.py, fairshare.py) schedule their events, so a
 * run executes the same events in the same order as the Python engine and predicts the same times
 * to the last bit. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "_mpicore.h"

ppt_mpi_t *ppt_mpi_new(int32_t num_ranks, int32_t num_nodes, const int32_t *node_of, const int64_t *node_eid,
                       int64_t eager_B, double send_overhead_s, double recv_overhead_s, double poll_overhead_s)
{
    ppt_mpi_t *m = ppt_alloc(1, sizeof(ppt_mpi_t));
    m->num_ranks = num_ranks;
    m->num_nodes = num_nodes;
    m->node_of = ppt_alloc((size_t)num_ranks, sizeof(int32_t));
    memcpy(m->node_of, node_of, sizeof(int32_t) * (size_t)num_ranks);
    m->key = ppt_alloc((size_t)num_nodes, sizeof(uint64_t));
    for (int32_t n = 0; n < num_nodes; n++)
        m->key[n] = (uint64_t)node_eid[n] << MPI_KEY_BITS;
    m->eager_B = eager_B;
    m->send_o = send_overhead_s;
    m->recv_o = recv_overhead_s;
    m->poll_o = poll_overhead_s;
    m->mem_bandwidth_Bps = INFINITY;
    m->mem_latency_s = 1e-7;
    m->memory = ppt_alloc((size_t)num_nodes, sizeof(memory_t));
    m->ranks = ppt_alloc((size_t)num_ranks, sizeof(rank_t));
    m->free_req = m->free_msg = -1;
    m->need_rank = -1;
    m->compute_scale = 1.0;
    m->world_ids = ppt_alloc((size_t)num_ranks, sizeof(int32_t));
    for (int32_t r = 0; r < num_ranks; r++)
        m->world_ids[r] = r;
    for (int32_t r = 0; r < num_ranks; r++) {
        rank_t *rk = RANK(m, r);
        rk->node = node_of[r];
        rk->world = comm_new(m, 0, num_ranks, r, m->world_ids);      /* ids 0 and 1 (ppt/mpi/job.py) */
        rk->self = comm_new(m, 2, 1, 0, &m->world_ids[r]);
        rk->any_head = rk->any_tail = rk->unexp_head = rk->unexp_tail = -1;
        rk->startup = 1;
        rk->has_init = 1;
        rk->blocked_req = -1;
        rk->poll_clock_s = -1.0;
        rk->finish_s = NAN;
        for (int i = 0; i < 4; i++)
            rk->wtime[i] = NAN;
        /* every rank starts as the Python job starts its processes: one event each, in rank order */
        mpi_schedule(m, rk->node, 0.0, EV_RESUME, r, 0);
    }
    return m;
}

void ppt_mpi_free(ppt_mpi_t *m)
{
    if (!m)
        return;
    for (int32_t r = 0; r < m->num_ranks; r++) {
        rank_t *rk = RANK(m, r);
        free(rk->calls);
        free(rk->skipped);
        free(rk->wl);
        free(rk->run.sizes);
        free(rk->run.reqs);
        map_free(&rk->map);
    }
    for (int64_t i = 0; i < m->nreqs; i++)
        free(m->reqs[i].parts);
    for (int64_t i = 0; i < m->nmsgs; i++)
        free(m->msgs[i].parts);
    for (int32_t n = 0; n < m->num_nodes; n++) {
        if (m->memory[n].flows)
            ppt_flows_free(m->memory[n].flows);
        free(m->memory[n].wakes);
        free(m->memory[n].copies);
    }
    free(m->memory);
    free(m->node_of);
    free(m->key);
    free(m->paths);
    free(m->heap.ev);
    free(m->ranks);
    free(m->reqs);
    free(m->msgs);
    free(m->queues);
    for (int64_t i = 0; i < m->nplans; i++) {
        free(m->plans[i].aux);
        free(m->plans[i].sizes);
    }
    free(m->plans);
    free(m->comms);
    free(m->world_ids);
    map_free(&m->map);
    free(m);
}

void ppt_mpi_set_network(ppt_mpi_t *m, int32_t constant, double latency_s, double bandwidth_Bps,
                         int32_t wire_identity, void *handle)
{
    m->constant_path = constant;
    m->latency_s = latency_s;
    m->bandwidth_Bps = bandwidth_Bps;
    m->wire_identity = wire_identity;
    m->handle = handle;
}

void ppt_mpi_set_progress(ppt_mpi_t *m, int64_t records)
{
    m->progress_records = records;
    m->progress_records_at = m->records + records;
    m->progress_events_at = m->events + PPT_MPI_PROGRESS_EVENTS;
}

void ppt_mpi_set_packet_network(ppt_mpi_t *m, struct ppt_net *net, struct ppt_histogram *message_latency,
                                double lead_s)
{
    m->net = net;
    m->message_latency = message_latency;
    m->net_lead_s = lead_s;
    m->net_wake_s = INFINITY;
}

void ppt_mpi_set_memory(ppt_mpi_t *m, double bandwidth_Bps, double latency_s)
{
    m->mem_bandwidth_Bps = bandwidth_Bps;
    m->mem_latency_s = latency_s;
}

int mpi_unsupported(ppt_mpi_t *m, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(m->reason, sizeof m->reason, fmt, args);
    va_end(args);
    m->need = PPT_MPI_UNSUPPORTED;
    return PPT_MPI_UNSUPPORTED;
}

/* -- communicators ----------------------------------------------------------------------------- */
int32_t comm_new(ppt_mpi_t *m, int32_t ctx, int32_t size, int32_t me, const int32_t *members)
{
    m->comms = ppt_grow(m->comms, &m->cap_comms, sizeof(comm_t), m->ncomms + 1);
    m->comms[m->ncomms] = (comm_t){.ctx = ctx, .size = size, .me = me, .members = members};
    return (int32_t)m->ncomms++;
}

/* The communicator a rank's op-stream handle names, or -1 (none: never made, freed, or not a member). */
int32_t comm_of(ppt_mpi_t *m, int32_t r, int32_t handle)
{
    rank_t *rk = RANK(m, r);
    if (handle == 0 || handle == 1)
        return handle ? rk->self : rk->world;
    int64_t c;
    return map_get(&rk->map, T_COMM, (uint64_t)(uint32_t)handle, &c) ? (int32_t)c : -1;
}

void ppt_mpi_set_comm(ppt_mpi_t *m, int32_t handle, int32_t ctx, int32_t size, int32_t me, const int32_t *members)
{
    int32_t r = m->need_rank;
    map_put(&RANK(m, r)->map, T_COMM, (uint64_t)(uint32_t)handle, comm_new(m, ctx, size, me, members));
}

void ppt_mpi_drop_comm(ppt_mpi_t *m, int32_t handle)
{
    map_del(&RANK(m, m->need_rank)->map, T_COMM, (uint64_t)(uint32_t)handle, NULL);
}

/* -- events --------------------------------------------------------------------------------- */
void mpi_schedule(ppt_mpi_t *m, int32_t node, double t, int32_t kind, int32_t target, int32_t a)
{
    mpi_post(m, t, ++m->key[node], kind, target, a);
}

/* An event with a key made elsewhere (the packet core's, its wake-ups'). */
void mpi_post(ppt_mpi_t *m, double t, uint64_t key, int32_t kind, int32_t target, int32_t a)
{
    ppt_event_t ev = {.t = t, .key = key, .kind = kind, .target = target, .a = a, .b = 0};
    heap_push(&m->heap, &ev);
}

int32_t mpi_new_msg(ppt_mpi_t *m)
{
    int32_t i = m->free_msg;
    if (i >= 0) {
        m->free_msg = m->msgs[i].free_next;
    } else {
        m->msgs = ppt_grow(m->msgs, &m->cap_msgs, sizeof(msg_t), m->nmsgs + 1);
        i = (int32_t)m->nmsgs++;
    }
    msg_t *g = MSG(m, i);
    memset(g, 0, sizeof *g);
    g->on_sent = g->send_req = g->recv_req = -1;
    g->aprev = g->anext = g->sprev = g->snext = g->queue = -1;
    g->count = 1;
    return i;
}

void mpi_free_msg(ppt_mpi_t *m, int32_t i)
{
    msg_t *g = MSG(m, i);
    free(g->parts);
    g->parts = NULL;
    g->free_next = m->free_msg;
    m->free_msg = i;
}

/* -- the analytic network (analytic.py AnalyticNic.send_off_node) -------------------------------- */
static const double *path_of(ppt_mpi_t *m, int32_t src, int32_t dst)
{
    int64_t at;
    uint64_t pair = (uint64_t)(uint32_t)src << 32 | (uint32_t)dst;
    if (!map_get(&m->map, map_k1(T_PATH, 0), pair, &at)) {
        m->paths = ppt_grow(m->paths, &m->cap_paths, 3 * sizeof(double), m->npaths + 1);
        at = m->npaths++;
        ppt_mpi_path_cb(m->handle, src, dst, &m->paths[3 * at]);
        map_put(&m->map, map_k1(T_PATH, 0), pair, at);
    }
    return &m->paths[3 * at];
}

static int64_t wire_bytes(ppt_mpi_t *m, int64_t nbytes)
{
    if (m->wire_identity)
        return nbytes;
    int64_t wire;
    if (!map_get(&m->map, map_k1(T_WIRE, 0), (uint64_t)nbytes, &wire)) {
        wire = ppt_mpi_wire_cb(m->handle, nbytes);
        map_put(&m->map, map_k1(T_WIRE, 0), (uint64_t)nbytes, wire);
    }
    return wire;
}

static void send_off_node(ppt_mpi_t *m, int32_t i, int32_t src_node, int32_t dst_node)
{
    msg_t *g = MSG(m, i);
    double hops = 0.0, latency = m->latency_s, bandwidth = m->bandwidth_Bps;
    if (!m->constant_path) {
        const double *p = path_of(m, src_node, dst_node);
        hops = p[0];
        latency = p[1];
        bandwidth = p[2];
    }
    double wire_s = (double)wire_bytes(m, g->net_B) / bandwidth;
    m->net_messages++;
    m->net_bytes += g->net_B;
    m->net_hops += (int64_t)hops;
    mpi_schedule(m, src_node, m->now + (latency + wire_s), EV_DELIVER, i, 0);
    if (g->on_sent >= 0)
        mpi_schedule(m, src_node, m->now + wire_s, EV_SENT, g->on_sent, 0);
}

/* -- node memory (nodememory.py NodeMemory.copy, fairshare.py FairShare) -------------------------- */
static void memory_arrive(ppt_mpi_t *m, int32_t node, int32_t i)
{
    mpi_schedule(m, node, m->now + m->mem_latency_s, EV_MEM_ARRIVE, i, 0);
}

static void memory_copy(ppt_mpi_t *m, int32_t node, int32_t i)
{
    if (m->mem_bandwidth_Bps == INFINITY) {
        memory_arrive(m, node, i);
        return;
    }
    memory_t *mem = &m->memory[node];
    if (!mem->flows) {
        mem->flows = ppt_flows_new(1, &m->mem_bandwidth_Bps);
        int32_t len = 1, resource = 0;
        mem->path = ppt_flows_add_path(mem->flows, 1, &len, &resource);
    }
    int32_t id = ppt_flows_start(mem->flows, m->now, mem->path, (double)MSG(m, i)->net_B, -1);
    if (id >= mem->cap_copies) {
        int64_t old = mem->cap_copies;
        mem->copies = ppt_grow(mem->copies, &mem->cap_copies, sizeof(int32_t), (int64_t)id + 1);
        for (int64_t k = old; k < mem->cap_copies; k++)
            mem->copies[k] = -1;
    }
    mem->copies[id] = i;
    if (!mem->pending) {
        mem->pending = 1;
        mpi_schedule(m, node, m->now, EV_RESHARE, node, 0);
    }
}

static void memory_reshare(ppt_mpi_t *m, int32_t node)
{
    memory_t *mem = &m->memory[node];
    mem->pending = 0;
    ppt_flows_reshare(mem->flows, m->now);
    double next = ppt_flows_next_s(mem->flows);
    if (next == INFINITY)
        return;
    for (int64_t k = 0; k < mem->nwakes; k++)
        if (mem->wakes[k] == next)
            return;
    mem->wakes = ppt_grow(mem->wakes, &mem->cap_wakes, sizeof(double), mem->nwakes + 1);
    mem->wakes[mem->nwakes++] = next;
    mpi_schedule(m, node, next, EV_MEM_WAKE, node, 0);
}

static void memory_wake(ppt_mpi_t *m, int32_t node, double at)
{
    memory_t *mem = &m->memory[node];
    for (int64_t k = 0; k < mem->nwakes; k++)
        if (mem->wakes[k] == at) {
            mem->wakes[k] = mem->wakes[--mem->nwakes];
            break;
        }
    if (ppt_flows_next_s(mem->flows) > at)
        return;                                 /* stale: a resharing moved the completion */
    int32_t done[256];
    int32_t *ended = NULL;
    int64_t nended = 0, cap = 0;
    for (;;) {
        int32_t n = ppt_flows_finish(mem->flows, at, done, 256);
        ended = ppt_grow(ended, &cap, sizeof(int32_t), nended + n);
        memcpy(ended + nended, done, sizeof(int32_t) * (size_t)n);
        nended += n;
        if (n < 256)
            break;
    }
    if (!mem->pending) {
        mem->pending = 1;
        mpi_schedule(m, node, m->now, EV_RESHARE, node, 0);
    }
    int32_t *msgs = ppt_alloc((size_t)(nended ? nended : 1), sizeof(int32_t));
    for (int64_t k = 0; k < nended; k++) {      /* every id is free for reuse before any copy goes on */
        msgs[k] = mem->copies[ended[k]];
        mem->copies[ended[k]] = -1;
    }
    for (int64_t k = 0; k < nended; k++)
        memory_arrive(m, node, msgs[k]);
    free(msgs);
    free(ended);
}

/* -- sending (network.py Nic.send_message) ------------------------------------------------------- */
void mpi_send_message(ppt_mpi_t *m, int32_t i, double delay_s)
{
    msg_t *g = MSG(m, i);
    int32_t src_node = m->node_of[g->src];
    int32_t dst_node = m->node_of[g->dst];
    if (dst_node != src_node && m->net)            /* the packet core takes a later start itself */
        packet_send(m, i, src_node, dst_node, delay_s);
    else if (dst_node != src_node && !delay_s)
        send_off_node(m, i, src_node, dst_node);
    else if (delay_s)
        mpi_schedule(m, src_node, m->now + delay_s, EV_SEND_NOW, i, 0);
    else
        memory_copy(m, src_node, i);
}

static void deliver(ppt_mpi_t *m, int32_t i)
{
    int32_t on_sent = MSG(m, i)->on_sent;
    p2p_arrive(m, i);
    if (on_sent >= 0)
        p2p_finish(m, on_sent);
}

/* -- running ------------------------------------------------------------------------------------- */
static int dispatch(ppt_mpi_t *m, const ppt_event_t *ev)
{
    switch (ev->kind) {
    case EV_RESUME:
        return replay_continue(m, ev->target);
    case EV_POST:
        p2p_post(m, ev->target);
        return PPT_MPI_DONE;
    case EV_SEND_NOW:
        mpi_send_message(m, ev->target, 0.0);
        return PPT_MPI_DONE;
    case EV_DELIVER:                            /* off the node: the send finishes by its own event */
        p2p_arrive(m, ev->target);
        return PPT_MPI_DONE;
    case EV_SENT:
        p2p_finish(m, ev->target);
        return PPT_MPI_DONE;
    case EV_RESHARE:
        memory_reshare(m, ev->target);
        return PPT_MPI_DONE;
    case EV_MEM_WAKE:
        memory_wake(m, ev->target, ev->t);
        return PPT_MPI_DONE;
    case EV_MEM_ARRIVE:
        deliver(m, ev->target);
        return PPT_MPI_DONE;
    case EV_NET_WAKE:
        m->events += packet_wake(m, ev->a) - 1;     /* the wake-up is bookkeeping; the core's events count */
        return PPT_MPI_DONE;
    case EV_RUN_RESUME:
        run_resume(m, ev->target);
        if (m->need == PPT_MPI_UNSUPPORTED)
            return PPT_MPI_UNSUPPORTED;
        if (RANK(m, ev->target)->state == R_READY)
            return replay_continue(m, ev->target);
        return PPT_MPI_DONE;
    }
    return mpi_unsupported(m, "unknown event kind %d", ev->kind);
}

int32_t ppt_mpi_run(ppt_mpi_t *m)
{
    m->need = PPT_MPI_DONE;
    if (m->need_rank >= 0) {
        int32_t r = m->need_rank;
        m->need_rank = -1;
        int status = replay_continue(m, r);
        if (status != PPT_MPI_DONE)
            return status;
    }
    ppt_event_t ev;
    while (m->heap.len) {
        heap_pop(&m->heap, &ev);
        m->now = ev.t;
        m->events++;
        int status = dispatch(m, &ev);
        if (status != PPT_MPI_DONE)
            return status;
        if (m->progress_records && (m->events >= m->progress_events_at || m->records >= m->progress_records_at)) {
            m->progress_events_at = m->events + PPT_MPI_PROGRESS_EVENTS;
            m->progress_records_at = m->records + m->progress_records;
            return PPT_MPI_NEED_PROGRESS;
        }
    }
    return PPT_MPI_DONE;
}

int32_t ppt_mpi_need_rank(const ppt_mpi_t *m) { return m->need_rank; }
const ppt_op_t *ppt_mpi_need_op(const ppt_mpi_t *m) { return m->need_rank >= 0 ? m->ranks[m->need_rank].op : NULL; }
const int64_t *ppt_mpi_need_aux(const ppt_mpi_t *m) { return m->need_rank >= 0 ? m->ranks[m->need_rank].aux : NULL; }
const char *ppt_mpi_reason(const ppt_mpi_t *m) { return m->reason; }
double ppt_mpi_now(const ppt_mpi_t *m) { return m->now; }
int64_t ppt_mpi_events(const ppt_mpi_t *m) { return m->events; }
int64_t ppt_mpi_records(const ppt_mpi_t *m) { return m->records; }

int32_t ppt_mpi_unfinished(const ppt_mpi_t *m)
{
    int32_t n = 0;
    for (int32_t r = 0; r < m->num_ranks; r++)
        n += m->ranks[r].state != R_DONE;
    return n;
}

void ppt_mpi_rank_stats(const ppt_mpi_t *m, int32_t r, double *times, int64_t *counts)
{
    const rank_t *rk = &m->ranks[r];
    double t[11] = {rk->compute_s, rk->comm_s, rk->finish_s, rk->dropped_s, rk->recorded_mpi_s, rk->wall_s,
                    rk->cpu_s, rk->wtime[0], rk->wtime[1], rk->wtime[2], rk->wtime[3]};
    int64_t c[7] = {rk->messages_sent, rk->bytes_sent, rk->records, rk->p2p_bytes, rk->unreceived,
                    rk->unreceived_coll, rk->wtimes};
    memcpy(times, t, sizeof t);
    memcpy(counts, c, sizeof c);
}

void ppt_mpi_rank_calls(const ppt_mpi_t *m, int32_t r, int64_t *calls, int64_t *skipped, int32_t num_calls)
{
    const rank_t *rk = &m->ranks[r];
    for (int32_t i = 0; i < num_calls; i++) {
        calls[i] = i < rk->num_calls ? rk->calls[i] : 0;
        skipped[i] = i < rk->num_calls ? rk->skipped[i] : 0;
    }
}

void ppt_mpi_network_stats(const ppt_mpi_t *m, int64_t *counts)
{
    counts[0] = m->net_messages;
    counts[1] = m->net_bytes;
    counts[2] = m->net_hops;
}
