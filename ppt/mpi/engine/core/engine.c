/* The MPI engine: its state, its event loop and its results.
 *
 * Events run in (time, key) order, keyed by the scheduling entity's id << 40 | its running count (a
 * NIC's, or the flow network's), so simultaneous events run in an order that does not depend on how a
 * parallel run splits the job.  An eager message on the analytic network costs one event, its arrival:
 * the sender knows when its last byte leaves (p2p_sent_at), so the send needs no event of its own.
 * What needs no key runs at the end of its instant, without a heap entry (next_event): the ranks woken
 * by requests completed then, each once, and the node memories' resharings.  Predictions are those
 * recorded in tests/golden.json. */
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
    m->key = ppt_alloc((size_t)num_nodes + 1, sizeof(uint64_t));     /* the NICs, then the flow network */
    for (int32_t n = 0; n < num_nodes; n++)
        m->key[n] = (uint64_t)node_eid[n] << MPI_KEY_BITS;
    m->eager_B = eager_B;
    m->send_o = send_overhead_s;
    m->recv_o = recv_overhead_s;
    m->poll_o = poll_overhead_s;
    m->mem_bandwidth_Bps = INFINITY;
    m->mem_latency_s = 1e-7;
    m->horizon_s = INFINITY;
    m->memory = ppt_alloc((size_t)num_nodes, sizeof(share_t));
    for (int32_t n = 0; n < num_nodes; n++)
        m->memory[n].entity = n;
    m->ranks = ppt_alloc((size_t)num_ranks, sizeof(rank_t));
    m->free_req = m->free_msg = -1;
    m->need_rank = -1;
    m->compute_scale = 1.0;
    m->window_end = INFINITY;
    m->world_ids = ppt_alloc((size_t)num_ranks, sizeof(int32_t));
    for (int32_t r = 0; r < num_ranks; r++)
        m->world_ids[r] = r;
    for (int32_t r = 0; r < num_ranks; r++) {
        rank_t *rk = RANK(m, r);
        rk->node = node_of[r];
        rk->world = comm_new(m, 0, num_ranks, r, m->world_ids);      /* ids 0 and 1 (ppt/mpi/engine/outcome.py) */
        for (int k = 0; k < RECENT; k++)
            rk->peers.key[k] = rk->handles.key[k] = -1;
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
        free(rk->peer_row);
        free(rk->run.sizes);
        free(rk->run.reqs);
        free(rk->run.relays);
        free(rk->run.fwds);
        free(rk->run.flows);
        map_free(&rk->map);
    }
    for (int64_t i = 0; i < m->nreqs; i++) {
        free(m->reqs[i].parts);
        free(m->reqs[i].barrier);               /* an Ibarrier still going on when the run ended */
    }
    for (int64_t i = 0; i < m->nmsgs; i++)
        free(m->msgs[i].parts);
    for (int32_t n = 0; n < m->num_nodes; n++)
        share_free(&m->memory[n]);
    free(m->memory);
    m->flow.flows = NULL;                       /* the flow network's solver is Python's FairShare's */
    share_free(&m->flow);
    free(m->routes);
    free(m->node_of);
    free(m->key);
    free(m->class_lo);
    free(m->class_hi);
    free(m->class_of_range);
    free(m->dirty);
    free(m->is_dirty);
    free(m->paths);
    free(m->heap.ev);
    free(m->woken.ev);
    free(m->reshares.ev);
    free(m->ranks);
    free(m->reqs);
    free(m->msgs);
    free(m->queues);
    free(m->peers);
    for (int64_t i = 0; i < m->nplans; i++) {
        free(m->plans[i].aux);
        free(m->plans[i].sizes);
    }
    free(m->plans);
    free(m->comms);
    free(m->world_ids);
    for (int32_t p = 0; p < m->processes; p++) {
        free(m->outbox[p].records);
        free(m->outbox[p].parts);
    }
    free(m->outbox);
    free(m->owner);
    map_free(&m->map);
    free(m);
}


void ppt_mpi_set_progress(ppt_mpi_t *m, int64_t records)
{
    m->progress_records = records;
    m->progress_records_at = m->records + records;
    m->progress_events_at = m->events + PPT_MPI_PROGRESS_EVENTS;
}



int mpi_stop(ppt_mpi_t *m, int status, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(m->reason, sizeof m->reason, fmt, args);
    va_end(args);
    m->need = status;
    return status;
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
    if (m->python_sends && node < m->num_nodes && !m->is_dirty[node]) {     /* Python's NIC must catch up */
        m->is_dirty[node] = 1;
        m->dirty[m->ndirty++] = node;
    }
}

/* An event with a key made elsewhere (the packet core's, its wake-ups'). */
void mpi_post(ppt_mpi_t *m, double t, uint64_t key, int32_t kind, int32_t target, int32_t a)
{
    ppt_event_t ev = {.t = t, .key = key, .kind = kind, .target = target, .a = a, .b = 0};
    heap_push(&m->heap, &ev);
}

void mpi_at_instant(ppt_mpi_t *m, instant_t *q, int32_t kind, int32_t target)
{
    q->ev = ppt_grow(q->ev, &q->cap, sizeof(ppt_event_t), q->len + 1);
    q->ev[q->len++] = (ppt_event_t){.t = m->now, .kind = kind, .target = target};
}

static int instant_pop(instant_t *q, ppt_event_t *ev)
{
    if (q->head == q->len)
        return 0;
    *ev = q->ev[q->head++];
    if (q->head == q->len)
        q->head = q->len = 0;
    return 1;
}

/* The next event to run into ev: the heap's first if it is an entity's event at the current instant,
 * else the instant's woken ranks, then its resharings (ppt_mpi.woken), else the heap's first (a packet
 * core's wake-up, keyed after every entity's events at its time, or the next instant's first event) if it
 * is before the window's end (its time is then the engine's); 0 if none, PPT_MPI_HORIZON at the
 * horizon. */
static int next_event(ppt_mpi_t *m, ppt_event_t *ev)
{
    int at_instant = m->heap.len && m->heap.ev[0].t <= m->now && m->heap.ev[0].key < NET_WAKE_KEY;
    if (!at_instant && (instant_pop(&m->woken, ev) || instant_pop(&m->reshares, ev)))
        return 1;
    if (!m->heap.len || m->heap.ev[0].t >= m->window_end)
        return 0;
    if (m->heap.ev[0].t >= m->horizon_s)
        return PPT_MPI_HORIZON;
    heap_pop(&m->heap, ev);
    m->now = ev->t;
    m->events++;
    return 1;
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

/* -- running ------------------------------------------------------------------------------------- */
static int dispatch(ppt_mpi_t *m, const ppt_event_t *ev)
{
    switch (ev->kind) {
    case EV_RESUME:
        if (RANK(m, ev->target)->program) {
            if (RANK(m, ev->target)->turn_n && !program_turn_on(m, ev->target))
                return PPT_MPI_DONE;
            m->need_rank = ev->target;
            return PPT_MPI_NEED_RESUME;
        }
        return replay_continue(m, ev->target);
    case EV_POST:
        p2p_post(m, ev->target);
        return PPT_MPI_DONE;
    case EV_SEND_DONE:
        p2p_send_done(m, ev->target);
        return PPT_MPI_DONE;
    case EV_SEND_NOW:
        mpi_send_message(m, ev->target, m->now);
        return PPT_MPI_DONE;
    case EV_DELIVER:                            /* off the node: the send finishes by its own event */
        p2p_arrive(m, ev->target);
        return PPT_MPI_DONE;
    case EV_SENT:
        p2p_finish(m, ev->target);
        return PPT_MPI_DONE;
    case EV_RESHARE:
        share_reshare(m, ev->target < m->num_nodes ? &m->memory[ev->target] : &m->flow);
        return PPT_MPI_DONE;
    case EV_SHARE_WAKE:
        share_wake(m, ev->target < m->num_nodes ? &m->memory[ev->target] : &m->flow, ev->t);
        return PPT_MPI_DONE;
    case EV_MEM_ARRIVE:
        mpi_deliver(m, ev->target);
        return PPT_MPI_DONE;
    case EV_PYTHON:
        return python_event(m, ev->t, ev->key);
    case EV_NET_WAKE:
        m->events += packet_wake(m, ev->a) - 1;     /* the wake-up is bookkeeping; the core's events count */
        return PPT_MPI_DONE;
    case EV_NOTICE:
        packet_notice(m);
        return PPT_MPI_DONE;
    case EV_RUN_RESUME:
        run_resume(m, ev->target);
        if (m->need != PPT_MPI_DONE)
            return m->need;
        if (RANK(m, ev->target)->state == R_READY && RANK(m, ev->target)->program) {
            m->need_rank = ev->target;
            return PPT_MPI_NEED_RESUME;
        }
        if (RANK(m, ev->target)->state == R_READY)
            return replay_continue(m, ev->target);
        return PPT_MPI_DONE;
    }
    return mpi_stop(m, PPT_MPI_UNSUPPORTED, "unknown event kind %d", ev->kind);
}

int32_t ppt_mpi_run(ppt_mpi_t *m)
{
    if (m->failed)
        return PPT_MPI_UNSUPPORTED;
    m->need = PPT_MPI_DONE;
    if (m->need_rank >= 0 && RANK(m, m->need_rank)->program) {
        m->need_rank = -1;                      /* its process ran in Python: the event is over */
    } else if (m->need_rank >= 0) {
        int32_t r = m->need_rank;
        m->need_rank = -1;
        int status = replay_continue(m, r);
        if (status != PPT_MPI_DONE)
            return status;
    }
    ppt_event_t ev;
    int next;
    while ((next = next_event(m, &ev)) == 1) {
        int status = dispatch(m, &ev);
        if (status != PPT_MPI_DONE)
            return status;
        if (m->need == PPT_MPI_UNSUPPORTED)    /* a step that returns nothing stopped the engine (remote.c's
                                                 * lookahead, a Python model that raised) */
            return PPT_MPI_UNSUPPORTED;
        if (m->progress_records && (m->events >= m->progress_events_at || m->records >= m->progress_records_at)) {
            m->progress_events_at = m->events + PPT_MPI_PROGRESS_EVENTS;
            m->progress_records_at = m->records + m->progress_records;
            return PPT_MPI_NEED_PROGRESS;
        }
    }
    return next ? next : PPT_MPI_DONE;
}

int32_t ppt_mpi_need_rank(const ppt_mpi_t *m) { return m->need_rank; }
const ppt_op_t *ppt_mpi_need_op(const ppt_mpi_t *m) { return m->need_rank >= 0 ? m->ranks[m->need_rank].op : NULL; }
const int64_t *ppt_mpi_need_aux(const ppt_mpi_t *m) { return m->need_rank >= 0 ? m->ranks[m->need_rank].aux : NULL; }
const char *ppt_mpi_reason(const ppt_mpi_t *m) { return m->reason; }
double ppt_mpi_now(const ppt_mpi_t *m) { return m->now; }
double ppt_mpi_next_s(const ppt_mpi_t *m)
{
    return mpi_instant_busy(m) ? m->now : m->heap.len ? m->heap.ev[0].t : INFINITY;
}
void ppt_mpi_set_horizon(ppt_mpi_t *m, double until_s) { m->horizon_s = until_s; }
int64_t ppt_mpi_events(const ppt_mpi_t *m) { return m->events; }
int64_t ppt_mpi_records(const ppt_mpi_t *m) { return m->records; }

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
    counts[3] = m->mem_copies;
    counts[4] = m->mem_bytes;
}
