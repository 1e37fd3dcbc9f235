/* The MPI engine on the packet network: its core (interconnects/core/net.c) driven as packetnet.py's
 * PacketCore drives it from a simulation of its own.
 *
 * A message is handed to the core at once, with its start time (the rank's clock); the engine keeps
 * one wake-up event at the core's next event time, keyed after every entity's events at that time.
 * A wake-up runs the core up to the engine's next event plus the NIC latency (no message handed over
 * later can reach the core before then; in a parallel run, no further than the window's end) and turns
 * the core's outputs -- a message delivered, a message's last byte sent -- into engine events with the
 * keys the core gave them.  A message to a rank of another process goes ahead to it (remote.c), whose
 * core delivers it.
 *
 * A job mix runs synthetic sources in the core beside its MPI jobs (ppt/jobs/mix.py): they stop at a
 * finish notice, an engine event, and the mix asks between runs whether its ranks can still move
 * (ppt_mpi_quiescent: what the core owes this process is counted as it is handed over and settled). */
#include <string.h>
#include "_mpicore.h"

void packet_reschedule(ppt_mpi_t *m)
{
    double t = packet_core->net_next_time(m->net);
    if (t < m->net_wake_s) {
        m->net_wake_s = t;
        m->net_wakes++;
        mpi_post(m, t, NET_WAKE_KEY + (uint64_t)m->net_wakes, EV_NET_WAKE, 0, (int32_t)m->net_wakes);
    }
}

void ppt_mpi_set_classes(ppt_mpi_t *m, int32_t coll_class, int32_t p2p_class, int32_t n, const int64_t *tag_lo,
                         const int64_t *tag_hi, const int32_t *tag_class)
{
    m->classes_on = 1;
    m->coll_class = coll_class;
    m->p2p_class = p2p_class;
    m->class_ranges = n;
    m->class_lo = ppt_alloc((size_t)n + 1, sizeof(int64_t));
    m->class_hi = ppt_alloc((size_t)n + 1, sizeof(int64_t));
    m->class_of_range = ppt_alloc((size_t)n + 1, sizeof(int32_t));
    memcpy(m->class_lo, tag_lo, (size_t)n * sizeof(int64_t));
    memcpy(m->class_hi, tag_hi, (size_t)n * sizeof(int64_t));
    memcpy(m->class_of_range, tag_class, (size_t)n * sizeof(int32_t));
}

/* Message g's traffic class (-1: its node's), as ppt_mpi_set_classes says. */
static int32_t message_class(const ppt_mpi_t *m, const msg_t *g)
{
    if (!m->classes_on)
        return -1;
    if (g->ctx & 1)
        return m->coll_class;
    for (int32_t k = 0; k < m->class_ranges; k++)
        if (m->class_lo[k] <= g->tag && g->tag <= m->class_hi[k])
            return m->class_of_range[k];
    return m->p2p_class;
}

void packet_send(ppt_mpi_t *m, int32_t i, int32_t src_node, int32_t dst_node, double start_s)
{
    msg_t *g = MSG(m, i);
    uint64_t uid = packet_core->net_send_class(m->net, src_node, dst_node, g->net_B, g->on_sent >= 0, start_s,
                                      message_class(m, g));
    g->sent_s = start_s;
    if (g->on_sent >= 0) {
        map_put(&m->map, map_k1(T_UID_SENT, 0), uid, g->on_sent);
        m->net_owed++;
    }
    if (!ppt_mpi_is_local(m, g->dst)) {
        mpi_send_ahead(m, uid, i);
    } else {
        map_put(&m->map, map_k1(T_UID_MSG, 0), uid, i);
        m->net_owed++;
    }
    packet_reschedule(m);
}

/* Wake-up `number`: the core's events run (0 if a later wake-up superseded this one). */
int64_t packet_wake(ppt_mpi_t *m, int32_t number)
{
    if (number != (int32_t)m->net_wakes)
        return 0;
    m->net_wake_s = INFINITY;
    double next = m->heap.len ? m->heap.ev[0].t : INFINITY;
    int64_t ran = packet_core->net_run(m->net, fmin(next + m->net_lead_s, fmin(m->window_end, m->horizon_s)), 1 << 20);
    ppt_output_t *out;
    int64_t count = packet_core->net_outputs(m->net, &out);
    m->net_owed -= count;                       /* each output settles one message or send completion */
    for (int64_t k = 0; k < count; k++) {
        int64_t v;
        if (out[k].kind == PPT_OUT_DELIVER) {
            map_del(&m->map, map_k1(T_UID_MSG, 0), out[k].uid, &v);
            packet_core->hist_add(m->message_latency, out[k].t - MSG(m, (int32_t)v)->sent_s);
            mpi_post(m, out[k].t, out[k].key, EV_DELIVER, (int32_t)v, 0);
        } else {
            map_del(&m->map, map_k1(T_UID_SENT, 0), out[k].uid, &v);
            mpi_post(m, out[k].t, out[k].key, EV_SENT, (int32_t)v, 0);
        }
    }
    packet_core->net_clear_outputs(m->net);
    packet_reschedule(m);
    return ran;
}

/* -- a job mix beside synthetic traffic ------------------------------------------------------------ */
void ppt_mpi_notice(ppt_mpi_t *m, double t_s, uint64_t key)
{
    mpi_post(m, t_s, key, EV_NOTICE, 0, 0);
}

void packet_notice(ppt_mpi_t *m)
{
    m->events--;                                /* bookkeeping, not a model event */
    if (++m->notices == (m->processes ? m->processes : 1))
        packet_core->net_stop_traffic(m->net, m->now);
}

int32_t ppt_mpi_notices(const ppt_mpi_t *m) { return m->notices; }

int32_t ppt_mpi_quiescent(const ppt_mpi_t *m)
{
    if (m->net_owed || mpi_instant_busy(m))
        return 0;
    for (int64_t k = 0; k < m->heap.len; k++)
        if (m->heap.ev[k].key < NET_WAKE_KEY)
            return 0;
    return 1;
}
