/* Parallel runs (mpiexec): the engine of one simulation process runs the ranks of the nodes it owns.
 *
 * Every process holds the whole job's tables but runs only the events of its own nodes, in windows
 * that Python's ppt.engine.parallel.run_windows opens (ppt_mpi_set_window: events before the window's
 * end run, later ones wait).  A message delivered to a node of another process leaves in that
 * process's outbox as a fixed-size record (ppt_mpi_remote_t, the slot sizes it carries in a second
 * array) with its event's (time, key); the destination takes it into its own queue with the same
 * (time, key) (ppt_mpi_receive).  Keys are made per scheduling entity, so the order of simultaneous
 * events is the serial run's whatever the partition, and a parallel run makes the serial run's events
 * and results to the last bit. */
#include <string.h>
#include "_mpicore.h"

static int is_local_rank(const ppt_mpi_t *m, int32_t r)
{
    return !m->owner || m->owner[m->node_of[r]] == m->me;
}

void ppt_mpi_set_partition(ppt_mpi_t *m, int32_t me, int32_t processes, const int32_t *owner)
{
    m->me = me;
    m->processes = processes;
    m->owner = ppt_alloc((size_t)m->num_nodes, sizeof(int32_t));
    memcpy(m->owner, owner, sizeof(int32_t) * (size_t)m->num_nodes);
    m->outbox = ppt_alloc((size_t)processes, sizeof(outbox_t));
    ppt_mpi_clear_outboxes(m);
    ppt_heap_t all = m->heap;               /* only the ranks' first resumes are queued yet */
    m->heap = (ppt_heap_t){0};
    for (int64_t k = 0; k < all.len; k++)
        if (all.ev[k].kind != EV_RESUME || is_local_rank(m, all.ev[k].target))
            heap_push(&m->heap, &all.ev[k]);
    free(all.ev);
}

int32_t ppt_mpi_is_local(const ppt_mpi_t *m, int32_t rank) { return is_local_rank(m, rank); }

void ppt_mpi_set_window(ppt_mpi_t *m, double end_s) { m->window_end = end_s; }

double ppt_mpi_next_time(const ppt_mpi_t *m)
{
    double next = ppt_mpi_next_s(m);
    if (m->net && packet_core->net_outbox_min_time(m->net) < next)
        next = packet_core->net_outbox_min_time(m->net);
    for (int32_t p = 0; p < m->processes; p++)
        if (m->outbox[p].first_s < next)
            next = m->outbox[p].first_s;
    return next;
}

/* Message i into the outbox of the process running its destination, as record rec (which gets the
 * message's own fields); the message then leaves this process (its record is freed here). */
static void export(ppt_mpi_t *m, int32_t i, ppt_mpi_remote_t rec)
{
    msg_t *g = MSG(m, i);
    outbox_t *box = &m->outbox[m->owner[m->node_of[g->dst]]];
    box->records = ppt_grow(box->records, &box->cap, sizeof(ppt_mpi_remote_t), box->len + 1);
    rec.kind = g->kind;
    rec.dst = g->dst;
    rec.src = g->src;
    rec.ctx = g->ctx;
    rec.tag = g->tag;
    rec.seq = g->seq;
    rec.nbytes = g->nbytes;
    rec.net_B = g->net_B;
    rec.send_req = g->send_req;
    rec.recv_req = g->recv_req;
    rec.count = g->count;
    rec.payload = g->payload;
    rec.hdr_call = g->hdr.call;
    rec.hdr_root = g->hdr.root;
    rec.hdr_seq = g->hdr.seq;
    rec.parts_at = -1;
    if (g->parts) {
        rec.parts_at = box->nparts;
        box->parts = ppt_grow(box->parts, &box->cap_parts, sizeof(int64_t), box->nparts + g->count);
        memcpy(&box->parts[box->nparts], g->parts, sizeof(int64_t) * (size_t)g->count);
        box->nparts += g->count;
    }
    if (!rec.in_core && rec.t < box->first_s)
        box->first_s = rec.t;
    box->records[box->len++] = rec;
    mpi_free_msg(m, i);
}

/* Deliver message i at t with key: into this process's queue, or that of the process running its
 * destination. */
void mpi_deliver_at(ppt_mpi_t *m, double t, uint64_t key, int32_t i)
{
    if (is_local_rank(m, MSG(m, i)->dst)) {
        mpi_post(m, t, key, EV_DELIVER, i, 0);
        return;
    }
    if (t < m->window_end) {
        mpi_stop(m, PPT_MPI_UNSUPPORTED, "a message to another simulation process arrives %.9g s ahead, below the "
                 "lookahead", t - m->now);
        return;
    }
    export(m, i, (ppt_mpi_remote_t){.t = t, .key = key});
}

/* Message i, handed to the packet core (or a model in Python) as uid, goes ahead to the process whose core
 * (model) delivers it (it gets there in the exchange that carries the message's first packet, or the
 * model's first event for that process, across, or an earlier one). */
void mpi_send_ahead(ppt_mpi_t *m, uint64_t uid, int32_t i)
{
    export(m, i, (ppt_mpi_remote_t){.uid = uid, .sent_s = MSG(m, i)->sent_s, .in_core = 1});
}

void ppt_mpi_receive_packets(ppt_mpi_t *m, const struct ppt_remote *events, int64_t n)
{
    packet_core->net_receive(m->net, events, n);
    packet_reschedule(m);
}

int64_t ppt_mpi_outbox(const ppt_mpi_t *m, int32_t process, const ppt_mpi_remote_t **records,
                       const int64_t **parts, int64_t *nparts)
{
    const outbox_t *box = &m->outbox[process];
    *records = box->records;
    *parts = box->parts;
    *nparts = box->nparts;
    return box->len;
}

void ppt_mpi_clear_outboxes(ppt_mpi_t *m)
{
    for (int32_t p = 0; p < m->processes; p++) {
        m->outbox[p].len = m->outbox[p].nparts = 0;
        m->outbox[p].first_s = INFINITY;
    }
}

void ppt_mpi_receive(ppt_mpi_t *m, const ppt_mpi_remote_t *records, int64_t n, const int64_t *parts,
                     const int32_t *call_ids, int32_t num_calls)
{
    for (int64_t k = 0; k < n; k++) {
        const ppt_mpi_remote_t *rec = &records[k];
        int32_t i = mpi_new_msg(m);
        msg_t *g = MSG(m, i);
        g->kind = (int8_t)rec->kind;
        g->dst = rec->dst;
        g->src = rec->src;
        g->ctx = rec->ctx;
        g->tag = rec->tag;
        g->seq = rec->seq;
        g->nbytes = rec->nbytes;
        g->net_B = rec->net_B;
        g->send_req = rec->send_req;
        g->recv_req = rec->recv_req;
        g->count = rec->count;
        g->payload = rec->payload;
        g->hdr = (hdr_t){.call = rec->hdr_call < num_calls ? call_ids[rec->hdr_call] : rec->hdr_call,
                         .root = rec->hdr_root, .seq = rec->hdr_seq};
        if (rec->parts_at >= 0) {
            g->parts = ppt_alloc((size_t)rec->count, sizeof(int64_t));
            memcpy(g->parts, &parts[rec->parts_at], sizeof(int64_t) * (size_t)rec->count);
        }
        if (rec->in_core) {
            g->sent_s = rec->sent_s;
            map_put(&m->map, map_k1(T_UID_MSG, 0), rec->uid, i);
            m->net_owed++;
        } else {
            mpi_post(m, rec->t, rec->key, EV_DELIVER, i, 0);
        }
    }
}
