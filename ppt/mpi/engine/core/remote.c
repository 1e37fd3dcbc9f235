/* Parallel runs (mpiexec): the engine of one simulation process runs the ranks of the nodes it owns.
 *
 * Every process holds the whole job's tables but runs only the events of its own nodes, in windows
 * that Python's ppt.engine.parallel.run_windows opens (ppt_mpi_set_window: events before the window's
 * end run, later ones wait).  A message delivered to a node of another process leaves in that
 * process's outbox as a fixed-size record (ppt_mpi_remote_t, the slot sizes it carries in a second
 * array) with its event's (time, key); the destination takes it into its own queue with the same
 * (time, key) (ppt_mpi_unpack).  Keys are made per scheduling entity, so the order of simultaneous
 * events is the serial run's whatever the partition, and a parallel run makes the serial run's events
 * and results to the last bit. */
#include <string.h>
#include "_mpicore.h"

static int is_local_rank(const ppt_mpi_t *m, int32_t r)
{
    return !m->owner || m->owner[m->node_of[r]] == m->me;
}

static void clear_outboxes(ppt_mpi_t *m)
{
    for (int32_t p = 0; p < m->processes; p++) {
        m->outbox[p].len = m->outbox[p].nparts = 0;
        m->outbox[p].first_s = INFINITY;
    }
}

void ppt_mpi_set_partition(ppt_mpi_t *m, int32_t me, int32_t processes, const int32_t *owner)
{
    m->me = me;
    m->processes = processes;
    m->owner = ppt_alloc((size_t)m->num_nodes, sizeof(int32_t));
    memcpy(m->owner, owner, sizeof(int32_t) * (size_t)m->num_nodes);
    m->outbox = ppt_alloc((size_t)processes, sizeof(outbox_t));
    clear_outboxes(m);
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

/* The counts that open a packed part. */
typedef struct { int64_t records, parts, packets, cargo; } counts_t;

/* Records that carry something Python keeps: a payload handle or an object tag. */
static int64_t cargo_records(const ppt_mpi_remote_t *records, int64_t n)
{
    int64_t count = 0;
    for (int64_t k = 0; k < n; k++)
        count += (records[k].payload != 0 && records[k].hdr_seq == 0)
                 || records[k].tag >= (INT64_C(1) << PPT_MPI_OBJECT_TAG_BITS);
    return count;
}

static int64_t packed_bytes(counts_t c)
{
    return (int64_t)sizeof(counts_t) + c.records * (int64_t)sizeof(ppt_mpi_remote_t)
           + c.parts * (int64_t)sizeof(int64_t) + c.packets * (int64_t)sizeof(ppt_remote_t);
}

int64_t ppt_mpi_pack(const ppt_mpi_t *m, int32_t process, uint8_t *out, int64_t cap)
{
    const outbox_t *box = &m->outbox[process];
    ppt_remote_t *events = NULL;
    counts_t c = {box->len, box->nparts, m->net ? packet_core->net_outbox(m->net, process, &events) : 0,
                  cargo_records(box->records, box->len)};
    if (!c.records && !c.parts && !c.packets)
        return 0;
    int64_t n = packed_bytes(c);
    if (n > cap)
        return n;
    memcpy(out, &c, sizeof c);
    out += sizeof c;
    memcpy(out, box->records, sizeof(ppt_mpi_remote_t) * (size_t)c.records);
    out += sizeof(ppt_mpi_remote_t) * (size_t)c.records;
    memcpy(out, box->parts, sizeof(int64_t) * (size_t)c.parts);
    out += sizeof(int64_t) * (size_t)c.parts;
    memcpy(out, events, sizeof(ppt_remote_t) * (size_t)c.packets);
    return n;
}

void ppt_mpi_clear_exchange(ppt_mpi_t *m)
{
    clear_outboxes(m);
    if (m->net)
        packet_core->net_clear_outbox(m->net);
}

/* Records another process sent here (their parts_at index parts): queued as their deliveries. */
static void receive(ppt_mpi_t *m, const ppt_mpi_remote_t *records, int64_t n, const int64_t *parts,
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

int32_t ppt_mpi_unpack(ppt_mpi_t *m, const uint8_t *part, int64_t n, const int32_t *call_ids, int32_t num_calls)
{
    counts_t c;
    if (n < (int64_t)sizeof c)
        return -1;
    memcpy(&c, part, sizeof c);
    if (c.records < 0 || c.parts < 0 || c.packets < 0 || c.cargo < 0 || packed_bytes(c) != n || (c.packets && !m->net))
        return -1;
    const uint8_t *at = part + sizeof c;
    const ppt_mpi_remote_t *records = (const ppt_mpi_remote_t *)at;
    at += sizeof(ppt_mpi_remote_t) * (size_t)c.records;
    const int64_t *parts = (const int64_t *)at;
    at += sizeof(int64_t) * (size_t)c.parts;
    if (c.packets) {
        packet_core->net_receive(m->net, (const ppt_remote_t *)at, c.packets);
        packet_reschedule(m);
    }
    receive(m, records, c.records, parts, call_ids, num_calls);
    return 0;
}
