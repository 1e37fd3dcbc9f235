/* The MPI engine's networks: the analytic and flow networks and the nodes' shared memory, each step
 * made as the Python model makes it (analytic.py, flownet.py, nodememory.py; the packet network is
 * packet.c).  The analytic network and a node memory of unbounded bandwidth share nothing, so they
 * know a message's times when it is handed over, however late it starts: its arrival is its one
 * event, and its send is done at a time known then (p2p_sent_at).  The flow network and a node
 * memory of finite bandwidth share their links among the messages in flight, so a message that
 * starts later is handed over by an event at its start (EV_SEND_NOW). */
#include "_mpicore.h"

void ppt_mpi_set_memory(ppt_mpi_t *m, double bandwidth_Bps, double latency_s)
{
    m->mem_bandwidth_Bps = bandwidth_Bps;
    m->mem_latency_s = latency_s;
}

void ppt_mpi_set_packet_network(ppt_mpi_t *m, struct ppt_net *net, struct ppt_histogram *message_latency,
                                double lead_s)
{
    m->net = net;
    m->message_latency = message_latency;
    m->net_lead_s = lead_s;
    m->net_wake_s = INFINITY;
    packet_reschedule(m);                       /* the core may hold events already: synthetic sources */
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

/* Message i leaves src_node at start_s. */
static void send_off_node(ppt_mpi_t *m, int32_t i, int32_t src_node, int32_t dst_node, double start_s)
{
    msg_t *g = MSG(m, i);
    int32_t on_sent = g->on_sent;
    g->on_sent = -1;
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
    mpi_deliver_at(m, start_s + (latency + wire_s), ++m->key[src_node], i);
    if (on_sent >= 0)
        p2p_sent_at(m, on_sent, start_s + wire_s);
}

/* -- node memory (nodememory.py NodeMemory.copy) ------------------------------------------------------ */
static void memory_arrive(ppt_mpi_t *m, int32_t node, int32_t i)
{
    mpi_schedule(m, node, m->now + m->mem_latency_s, EV_MEM_ARRIVE, i, 0);
}

/* Message i copied within node from start_s (now unless the memory's bandwidth is unbounded). */
static void memory_copy(ppt_mpi_t *m, int32_t node, int32_t i, double start_s)
{
    msg_t *g = MSG(m, i);
    m->mem_copies++;
    m->mem_bytes += g->net_B;
    if (m->mem_bandwidth_Bps == INFINITY) {     /* the payload reaches its host, and the send is done */
        double arrive_s = start_s + m->mem_latency_s;
        int32_t on_sent = g->on_sent;
        g->on_sent = -1;
        mpi_schedule(m, node, arrive_s, EV_MEM_ARRIVE, i, 0);
        if (on_sent >= 0)
            p2p_sent_at(m, on_sent, arrive_s);
        return;
    }
    share_t *mem = &m->memory[node];
    if (!mem->flows) {
        mem->flows = packet_core->flows_new(1, &m->mem_bandwidth_Bps);
        int32_t len = 1, resource = 0;
        mem->path = packet_core->flows_add_path(mem->flows, 1, &len, &resource);
    }
    share_start(m, mem, mem->path, (double)MSG(m, i)->net_B, -1, (share_msg_t){.msg = i, .then = SHARE_COPY});
}

/* The payload reaches its host, then (a copy through shared memory) the send finishes, in one event
 * (nodememory.py _deliver_then_call). */
void mpi_deliver(ppt_mpi_t *m, int32_t i)
{
    int32_t on_sent = MSG(m, i)->on_sent;
    p2p_arrive(m, i);
    if (on_sent >= 0)
        p2p_finish(m, on_sent);
}

/* -- the flow network (flownet.py FlowNic.send_off_node, FlowNetwork.injected, message_done) ---------- */
void ppt_mpi_set_flow_network(ppt_mpi_t *m, struct ppt_flows *flows, int64_t eid, int32_t oblivious,
                              int64_t nic_buffer_B, void *handle)
{
    m->flow.flows = flows;
    m->flow.entity = m->num_nodes;
    m->key[m->num_nodes] = (uint64_t)eid << MPI_KEY_BITS;
    m->flow_oblivious = oblivious;
    m->nic_buffer_B = nic_buffer_B;
    m->handle = handle;
}

/* (path, router hops, latency s, wire bytes, queue) of a message of nbytes from src to dst now. */
static const double *route_of(ppt_mpi_t *m, int32_t src, int32_t dst, int64_t nbytes)
{
    static double adaptive[5];
    if (!m->flow_oblivious) {
        ppt_mpi_route_cb(m->handle, src, dst, nbytes, m->now, adaptive);
        return adaptive;
    }
    uint64_t key = (uint64_t)(uint32_t)src << 32 | (uint32_t)dst;
    int64_t at;
    if (!map_get(&m->map, map_k1(T_ROUTE, nbytes), key, &at)) {
        m->routes = ppt_grow(m->routes, &m->cap_routes, 5 * sizeof(double), m->nroutes + 1);
        at = m->nroutes++;
        ppt_mpi_route_cb(m->handle, src, dst, nbytes, m->now, &m->routes[5 * at]);
        map_put(&m->map, map_k1(T_ROUTE, nbytes), key, at);
    }
    return &m->routes[5 * at];
}

static void send_on_flows(ppt_mpi_t *m, int32_t i, int32_t src_node, int32_t dst_node)
{
    msg_t *g = MSG(m, i);
    const double *r = route_of(m, src_node, dst_node, g->net_B);
    int32_t path = (int32_t)r[0], queue = (int32_t)r[4];
    int64_t wire_B = (int64_t)r[3];
    m->net_messages++;
    m->net_bytes += g->net_B;
    m->net_hops += (int64_t)r[1];
    share_msg_t what = {.msg = i, .then = SHARE_DONE, .latency_s = r[2]};
    if (m->nic_buffer_B && wire_B > m->nic_buffer_B) {  /* the NIC is free once the rest fits in the buffer ahead */
        what.then = SHARE_INJECTED;
        what.path = path;
        what.ahead_B = m->nic_buffer_B;
        share_start(m, &m->flow, path, (double)(wire_B - m->nic_buffer_B), queue, what);
        return;
    }
    share_start(m, &m->flow, path, (double)wire_B, queue, what);
}

/* The routes of a path without their first resource (the NIC): where a message's last bytes go on. */
static int32_t past_nic(ppt_mpi_t *m, int32_t path)
{
    int64_t at;
    if (map_get(&m->map, map_k1(T_PAST, 0), (uint64_t)path, &at))
        return (int32_t)at;
    int32_t routes = packet_core->flows_path_routes(m->flow.flows, path);
    int32_t *lengths = ppt_alloc((size_t)routes, sizeof(int32_t)), *ids = NULL;
    int64_t n = 0, cap = 0;
    for (int32_t k = 0; k < routes; k++) {
        const int32_t *resources;
        int32_t len = packet_core->flows_path_route(m->flow.flows, path, k, &resources);
        lengths[k] = len - 1;
        ids = ppt_grow(ids, &cap, sizeof(int32_t), n + len);
        for (int32_t j = 1; j < len; j++)
            ids[n++] = resources[j];
    }
    int32_t past = packet_core->flows_add_path(m->flow.flows, routes, lengths, ids);
    free(lengths);
    free(ids);
    map_put(&m->map, map_k1(T_PAST, 0), (uint64_t)path, past);
    return past;
}

/* A flow message finished: a copy reaches its node's host; a message's bytes up to those past its NIC
 * are through (the send is over, the rest goes on); a message is through (delivered one latency later). */
void share_finished(ppt_mpi_t *m, share_t *sh, share_msg_t what)
{
    msg_t *g = MSG(m, what.msg);
    int32_t on_sent = g->on_sent;
    switch (what.then) {
    case SHARE_COPY:
        memory_arrive(m, sh->entity, what.msg);
        return;
    case SHARE_INJECTED:
        g->on_sent = -1;
        if (on_sent >= 0)
            p2p_finish(m, on_sent);
        what.then = SHARE_DONE;
        share_start(m, sh, past_nic(m, what.path), (double)what.ahead_B, -1, what);
        return;
    case SHARE_DONE:
        g->on_sent = -1;
        mpi_schedule(m, sh->entity, m->now + what.latency_s, EV_DELIVER, what.msg, 0);
        if (on_sent >= 0)
            p2p_finish(m, on_sent);
        return;
    }
}

/* -- a model of one's own, in Python (ppt/mpi/engine/pynet.py) ---------------------------------------------- */
void ppt_mpi_set_python_sends(ppt_mpi_t *m, int32_t which, void *handle)
{
    m->python_sends = which;
    m->python = handle;
    m->dirty = ppt_alloc((size_t)m->num_nodes, sizeof(int32_t));
    m->is_dirty = ppt_alloc((size_t)m->num_nodes, sizeof(int8_t));
    for (int32_t n = 0; n < m->num_nodes; n++) {       /* the ranks' starts moved every key with ranks */
        m->dirty[m->ndirty++] = n;
        m->is_dirty[n] = 1;
    }
}

void ppt_mpi_python_event(ppt_mpi_t *m, double t_s, uint64_t key, int32_t node, uint64_t nic_key)
{
    mpi_post(m, t_s, key, EV_PYTHON, 0, 0);
    if (node >= 0)
        m->key[node] = nic_key;
}

void ppt_mpi_python_events(ppt_mpi_t *m, int64_t events) { m->events += events; }
void ppt_mpi_python_arrive(ppt_mpi_t *m, int64_t msg)
{
    int64_t i = msg;
    if (msg >= PPT_MPI_PYTHON_AHEAD)            /* sent ahead from another process: its number here */
        map_del(&m->map, map_k1(T_UID_MSG, 0), (uint64_t)msg, &i);
    p2p_arrive(m, (int32_t)i);
}
void ppt_mpi_python_sent(ppt_mpi_t *m, int32_t q) { p2p_finish(m, q); }

int32_t ppt_mpi_python_keys(ppt_mpi_t *m, int32_t *nodes, uint64_t *keys)
{
    int32_t n = m->ndirty;
    for (int32_t k = 0; k < n; k++) {
        nodes[k] = m->dirty[k];
        keys[k] = m->key[m->dirty[k]];
        m->is_dirty[m->dirty[k]] = 0;
    }
    m->ndirty = 0;
    return n;
}

static int python_failed(ppt_mpi_t *m)
{
    m->failed = 1;
    return mpi_stop(m, PPT_MPI_UNSUPPORTED, "the network or node memory model raised an exception");
}

int python_event(ppt_mpi_t *m, double t_s, uint64_t key)
{
    return ppt_mpi_event_cb(m->python, t_s, key) ? python_failed(m) : PPT_MPI_DONE;
}

/* Message i handed to the model; one to a rank of another process goes ahead to it (remote.c) under a
 * number of its own, which the model carries there. */
static void python_send(ppt_mpi_t *m, int32_t i, int32_t src_node, int32_t dst_node, double delay_s)
{
    const msg_t *g = MSG(m, i);
    int ahead = !ppt_mpi_is_local(m, g->dst);
    int64_t msg = ahead ? PPT_MPI_PYTHON_AHEAD + ((int64_t)m->me << 40) + ++m->python_ahead : i;
    if (ppt_mpi_send_cb(m->python, msg, src_node, dst_node, g->net_B, delay_s, g->on_sent, m->now))
        python_failed(m);
    else if (ahead)
        mpi_send_ahead(m, (uint64_t)msg, i);
}

/* -- sending (network.py Nic.send_message) --------------------------------------------------------------- */
void mpi_send_message(ppt_mpi_t *m, int32_t i, double start_s)
{
    double delay_s = start_s - m->now;
    msg_t *g = MSG(m, i);
    int32_t src_node = m->node_of[g->src];
    int32_t dst_node = m->node_of[g->dst];
    int off_node = dst_node != src_node;
    if (m->python_sends == PPT_MPI_PYTHON_ALL || (m->python_sends == PPT_MPI_PYTHON_COPIES && !off_node && !delay_s))
        python_send(m, i, src_node, dst_node, delay_s);
    else if (off_node && m->net)                        /* the packet core takes a later start itself */
        packet_send(m, i, src_node, dst_node, start_s);
    else if (off_node && !m->flow.flows)                /* as the analytic network does */
        send_off_node(m, i, src_node, dst_node, start_s);
    else if (!off_node && m->python_sends != PPT_MPI_PYTHON_COPIES && m->mem_bandwidth_Bps == INFINITY)
        memory_copy(m, src_node, i, start_s);           /* ... and a node memory that shares nothing */
    else if (delay_s)
        mpi_schedule(m, src_node, start_s, EV_SEND_NOW, i, 0);
    else if (off_node)
        send_on_flows(m, i, src_node, dst_node);
    else
        memory_copy(m, src_node, i, start_s);
}
