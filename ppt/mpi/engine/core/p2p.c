/* The MPI engine's point-to-point layer: matching, requests and the eager and rendezvous protocols.
 *
 * Sends number their messages per destination and receivers match them in that order, whatever
 * order the network delivers in (MPI's non-overtaking rule).  A receive matches the earliest-arrived
 * message of its context with a matching source and tag; an arriving message matches the
 * earliest-posted receive.  Messages up to the eager threshold go at once; larger ones send a
 * request-to-send, and the data follows the receiver's clear-to-send.  A send owes its rank the send
 * overhead before it reaches the NIC; a receive owes the receive overhead when the rank takes it over.
 *
 * On the analytic network and an unshared node memory a send's end is known when the message is handed
 * over (p2p_sent_at): the send is then done from that time on with no event of its own, unless a rank
 * already waits for it or a progress engine acts on it (an Ibarrier's rounds, a flow's sends): those
 * get an event at that time (a timer), as does a send a rank blocks on before its time has come. */
#include <string.h>
#include "_mpicore.h"

int32_t queue_new(ppt_mpi_t *m)
{
    m->queues = ppt_grow(m->queues, &m->cap_queues, sizeof(queue_t), m->nqueues + 1);
    int32_t i = (int32_t)m->nqueues++;
    m->queues[i].head = m->queues[i].tail = -1;
    return i;
}

/* A rank's record of a peer (world rank): sequence numbers both ways, and the queues of posted receives
 * and unexpected messages for COMM_WORLD's two contexts (made on first use; index into m->peers). */
/* A rank talking with more than this many peers, in a job of at most DENSE_RANKS ranks, looks its peers up
 * in a row indexed by world rank (an all-to-all's pattern), else in its recent cache and its map. */
#define DENSE_PEERS 64
#define DENSE_RANKS 4096

static int32_t peer_of(ppt_mpi_t *m, int32_t r, int32_t peer)
{
    rank_t *rk = RANK(m, r);
    int32_t found;
    if (rk->peer_row) {
        if (rk->peer_row[peer] >= 0)
            return rk->peer_row[peer];
    } else if (recent_find(&rk->peers, peer, &found)) {     /* the rank's lines are in the cache; its map may not be */
        return found;
    }
    int64_t *at = map_ref(&rk->map, T_PEER, (uint64_t)(uint32_t)peer, -1);
    if (*at < 0) {
        m->peers = ppt_grow(m->peers, &m->cap_peers, sizeof(peer_t), m->npeers + 1);
        m->peers[m->npeers] = (peer_t){.queue = {{-1, -1}, {-1, -1}}};
        *at = m->npeers++;
        if (++rk->peers_made > DENSE_PEERS && !rk->peer_row && m->num_ranks <= DENSE_RANKS) {
            rk->peer_row = ppt_alloc((size_t)m->num_ranks, sizeof(int32_t));
            memset(rk->peer_row, 0xff, sizeof(int32_t) * (size_t)m->num_ranks);
        }
    }
    if (rk->peer_row)
        rk->peer_row[peer] = (int32_t)*at;
    else
        recent_put(&rk->peers, peer, (int32_t)*at);
    return (int32_t)*at;
}

/* The queue of a rank's posted receives (which 0) or unexpected messages (1) from world rank src in
 * context ctx: made if create, else -1 when there is none yet. */
static int32_t queue_of(ppt_mpi_t *m, int32_t r, int which, int32_t ctx, int32_t src, int create)
{
    if (ctx < 2) {
        int32_t p = peer_of(m, r, src);
        if (m->peers[p].queue[which][ctx] < 0 && create) {
            int32_t qu = queue_new(m);
            m->peers[p].queue[which][ctx] = qu;
        }
        return m->peers[p].queue[which][ctx];
    }
    int table = which ? T_UNEXPECTED : T_POSTED;
    uint64_t key = (uint64_t)(uint32_t)ctx << 32 | (uint32_t)src;
    int64_t qu;
    if (!map_get(&RANK(m, r)->map, table, key, &qu)) {
        if (!create)
            return -1;
        qu = queue_new(m);
        map_put(&RANK(m, r)->map, table, key, qu);
    }
    return (int32_t)qu;
}

int32_t p2p_new_req(ppt_mpi_t *m, int32_t rank)
{
    int32_t q = m->free_req;
    if (q >= 0) {
        m->free_req = m->reqs[q].free_next;
    } else {
        m->reqs = ppt_grow(m->reqs, &m->cap_reqs, sizeof(req_t), m->nreqs + 1);
        q = (int32_t)m->nreqs++;
    }
    req_t *rq = REQ(m, q);
    memset(rq, 0, sizeof *rq);
    rq->rank = rank;
    rq->active = 1;
    rq->prev = rq->next = rq->queue = rq->round_of = -1;
    rq->matched = -1;
    rq->serial = ++m->serials;
    rq->count = 1;
    return q;
}

void p2p_release(ppt_mpi_t *m, int32_t q)
{
    req_t *rq = REQ(m, q);
    if (rq->timer) {                            /* its EV_SEND_DONE frees it */
        rq->orphan = 1;
        return;
    }
    free(rq->parts);
    rq->parts = NULL;
    rq->free_next = m->free_req;
    m->free_req = q;
}

/* -- sending ------------------------------------------------------------------------------------ */
int32_t p2p_isend(ppt_mpi_t *m, int32_t r, int32_t dst, int32_t ctx, int64_t tag, int64_t nbytes, int32_t mode,
                  int32_t q)
{
    req_t *rq = REQ(m, q);
    rank_t *rk = RANK(m, r);
    rq->is_send = 1;
    rq->ctx = ctx;
    rq->tag = tag;
    rq->nbytes = nbytes;
    rq->src = dst;                              /* a send's peer (not matched on) */
    if (dst == PROC_NULL) {
        rq->done = 1;
        return q;
    }
    rk->owed_s += m->send_o;
    int32_t p = peer_of(m, r, dst);                /* (may move m->peers: read it after) */
    int64_t seq = m->peers[p].next_seq++;
    rk->messages_sent++;
    rk->bytes_sent += nbytes;
    int32_t i = mpi_new_msg(m);
    msg_t *g = MSG(m, i);
    g->dst = dst;
    g->src = r;
    g->ctx = ctx;
    g->tag = tag;
    g->seq = seq;
    g->nbytes = nbytes;
    g->hdr = rq->hdr;
    if ((nbytes <= m->eager_B && mode != SYNC) || mode == BUFFERED) {
        g->kind = EAGER;
        g->net_B = nbytes;
        g->on_sent = q;
        g->count = rq->count;
        g->parts = rq->parts;
        g->payload = rq->payload;
        rq->parts = NULL;
    } else {
        g->kind = RTS;
        g->net_B = CONTROL_B;
        g->send_req = q;
    }
    mpi_send_message(m, i, m->now + rk->owed_s);
    return q;
}

/* -- receiving ---------------------------------------------------------------------------------- */
int32_t p2p_irecv(ppt_mpi_t *m, int32_t r, int32_t src, int32_t ctx, int64_t tag, int32_t q)
{
    req_t *rq = REQ(m, q);
    rank_t *rk = RANK(m, r);
    rq->ctx = ctx;
    rq->tag = tag;
    rq->src = src;
    if (src == PROC_NULL) {
        rq->status_src = PROC_NULL;
        rq->status_tag = ANY_TAG;
        rq->done = 1;
        return q;
    }
    rq->overhead_due_s = m->recv_o;
    if (rk->owed_s)
        mpi_schedule(m, rk->node, m->now + rk->owed_s, EV_POST, q, 0);
    else
        p2p_post(m, q);
    return q;
}

static inline int tag_matches(int64_t wanted, int64_t tag) { return wanted == ANY_TAG || wanted == tag; }

static void unlink_unexpected(ppt_mpi_t *m, rank_t *rk, int32_t i)
{
    msg_t *g = MSG(m, i);
    if (g->aprev >= 0) MSG(m, g->aprev)->anext = g->anext; else rk->unexp_head = g->anext;
    if (g->anext >= 0) MSG(m, g->anext)->aprev = g->aprev; else rk->unexp_tail = g->aprev;
    queue_t *qu = &m->queues[g->queue];
    if (g->sprev >= 0) MSG(m, g->sprev)->snext = g->snext; else qu->head = g->snext;
    if (g->snext >= 0) MSG(m, g->snext)->sprev = g->sprev; else qu->tail = g->sprev;
    rk->unreceived--;                           /* an empty queue stays: its pair is likely to talk again */
    if (g->ctx & 1)
        rk->unreceived_coll--;
}

int32_t p2p_find_unexpected(ppt_mpi_t *m, int32_t r, int32_t ctx, int32_t src, int64_t tag, int remove)
{
    rank_t *rk = RANK(m, r);
    int32_t found = -1;
    if (src == ANY_SOURCE) {
        for (int32_t i = rk->unexp_head; i >= 0; i = MSG(m, i)->anext)
            if (MSG(m, i)->ctx == ctx && tag_matches(tag, MSG(m, i)->tag)) {
                found = i;
                break;
            }
    } else {
        int32_t qu = queue_of(m, r, 1, ctx, src, 0);
        if (qu < 0)
            return -1;
        for (int32_t i = m->queues[qu].head; i >= 0; i = MSG(m, i)->snext)
            if (tag_matches(tag, MSG(m, i)->tag)) {
                found = i;
                break;
            }
    }
    if (found >= 0 && remove)
        unlink_unexpected(m, rk, found);
    return found;
}

/* Rank r takes completed request q over: it owes the receive overhead still due (once). */
void p2p_take(ppt_mpi_t *m, int32_t r, int32_t q)
{
    RANK(m, r)->owed_s += REQ(m, q)->overhead_due_s;
    REQ(m, q)->overhead_due_s = 0.0;
}

void p2p_finish(ppt_mpi_t *m, int32_t q)
{
    req_t *rq = REQ(m, q);
    rank_t *rk = RANK(m, rq->rank);
    if (rq->round_of >= 0 && REQ(m, rq->round_of)->icoll) {    /* a nonblocking collective's: it goes on */
        icoll_post_done(m, q);
        return;
    }
    if (rq->round_of >= 0) {                    /* nobody waits for a barrier round's message: the barrier goes on */
        int32_t barrier = rq->round_of;
        p2p_release(m, q);
        ibarrier_round_done(m, barrier);
        return;
    }
    rq->done = 1;
    if (rq->run_post) {
        if (rk->run.awaited == q || (rk->run.any && rq->waited)) {
            rk->run.awaited = -1;
            rk->run.any = 0;
            mpi_at_instant(m, &m->woken, EV_RUN_RESUME, rq->rank);
        }
    } else if (rq->waited && rk->waiting) {
        rk->waiting = 0;
        mpi_at_instant(m, &m->woken, EV_RESUME, rq->rank);
    }
}

/* The event that completes send q when its last byte leaves (done_s). */
static void send_timer(ppt_mpi_t *m, int32_t q)
{
    req_t *rq = REQ(m, q);
    rq->done = 0;                               /* until then: p2p_finish completes it and wakes its waiter */
    rq->timer = 1;
    mpi_schedule(m, RANK(m, rq->rank)->node, rq->done_s, EV_SEND_DONE, q, 0);
}

void p2p_sent_at(ppt_mpi_t *m, int32_t q, double t_s)
{
    req_t *rq = REQ(m, q);
    rq->done_s = t_s;
    rq->done = 1;
    /* a request acted on at the engine's time, and a rank blocked on the send (a rendezvous' data leaves
     * after the wait began), go on when it ends: that takes an event */
    if (rq->progress || rq->waited || (rq->run_post && RANK(m, rq->rank)->run.awaited == q))
        send_timer(m, q);
}

int p2p_done(const ppt_mpi_t *m, int32_t q)
{
    const req_t *rq = &m->reqs[q];
    return rq->done && rq->done_s <= m->now;
}

void p2p_await(ppt_mpi_t *m, int32_t q)
{
    req_t *rq = REQ(m, q);
    if (rq->done && rq->done_s > m->now)
        send_timer(m, q);
}

void p2p_send_done(ppt_mpi_t *m, int32_t q)
{
    req_t *rq = REQ(m, q);
    rq->timer = 0;
    if (rq->orphan) {                           /* released while its timer was queued */
        rq->orphan = 0;
        p2p_release(m, q);
        return;
    }
    p2p_finish(m, q);
}

/* Receive q gets message i's data (an eager message's or the rendezvous data's), which is consumed, and
 * completes. */
static void receive_data(ppt_mpi_t *m, int32_t q, int32_t i)
{
    req_t *rq = REQ(m, q);
    msg_t *g = MSG(m, i);
    rq->hdr = g->hdr;
    rq->payload = g->payload;
    free(rq->parts);
    rq->parts = g->parts;
    g->parts = NULL;
    mpi_free_msg(m, i);
    p2p_finish(m, q);
}

/* Receive q matched envelope i (eager message or RTS), which is consumed. */
void p2p_match(ppt_mpi_t *m, int32_t q, int32_t i)
{
    req_t *rq = REQ(m, q);
    msg_t *g = MSG(m, i);
    rq->status_bytes = g->nbytes;
    rq->status_src = g->src;
    rq->status_tag = g->tag;
    if (g->kind == EAGER) {
        receive_data(m, q, i);
        return;
    }
    int32_t me = g->dst, src = g->src, send_req = g->send_req, ctx = g->ctx;
    int64_t tag = g->tag;
    mpi_free_msg(m, i);
    p2p_transfer(m, CTS, me, src, send_req, q, ctx, tag, CONTROL_B, m->now);     /* in the send's class */
}

void p2p_transfer(ppt_mpi_t *m, int8_t kind, int32_t src, int32_t dst, int32_t send_req, int32_t recv_req,
                  int32_t ctx, int64_t tag, int64_t nbytes, double start_s)
{
    int32_t i = mpi_new_msg(m);
    msg_t *g = MSG(m, i);
    g->kind = kind;
    g->src = src;
    g->dst = dst;
    g->send_req = send_req;
    g->recv_req = recv_req;
    g->ctx = ctx;
    g->tag = tag;
    g->net_B = g->nbytes = nbytes;
    mpi_send_message(m, i, start_s);
}

void p2p_post(ppt_mpi_t *m, int32_t q)
{
    req_t *rq = REQ(m, q);
    int32_t r = rq->rank;
    rank_t *rk = RANK(m, r);
    int32_t found = p2p_find_unexpected(m, r, rq->ctx, rq->src, rq->tag, 1);
    if (found >= 0) {
        p2p_match(m, q, found);
        return;
    }
    rq->post = ++rk->post_count;
    int32_t *head, *tail;
    if (rq->src == ANY_SOURCE) {
        rq->queue = -2;
        head = &rk->any_head;
        tail = &rk->any_tail;
    } else {
        int32_t qu = queue_of(m, r, 0, rq->ctx, rq->src, 1);
        rq->queue = qu;
        head = &m->queues[qu].head;
        tail = &m->queues[qu].tail;
    }
    rq->prev = *tail;
    rq->next = -1;
    if (*tail >= 0) REQ(m, *tail)->next = q; else *head = q;
    *tail = q;
}

static void unpost(ppt_mpi_t *m, rank_t *rk, int32_t q)
{
    req_t *rq = REQ(m, q);
    int32_t *head, *tail;
    if (rq->queue == -2) {
        head = &rk->any_head;
        tail = &rk->any_tail;
    } else {
        head = &m->queues[rq->queue].head;
        tail = &m->queues[rq->queue].tail;
    }
    if (rq->prev >= 0) REQ(m, rq->prev)->next = rq->next; else *head = rq->next;
    if (rq->next >= 0) REQ(m, rq->next)->prev = rq->prev; else *tail = rq->prev;
    rq->queue = -1;                             /* an empty queue stays: its pair is likely to talk again */
}

/* An eager message or RTS in sequence: match it against the posted receives, else keep it. */
static void incoming(ppt_mpi_t *m, int32_t i)
{
    msg_t *g = MSG(m, i);
    int32_t r = g->dst;
    rank_t *rk = RANK(m, r);
    int32_t chosen = -1;
    int32_t qu = queue_of(m, r, 0, g->ctx, g->src, 0);
    if (qu >= 0)
        for (int32_t q = m->queues[qu].head; q >= 0; q = REQ(m, q)->next)
            if (tag_matches(REQ(m, q)->tag, g->tag)) {
                chosen = q;
                break;
            }
    for (int32_t q = rk->any_head; q >= 0; q = REQ(m, q)->next)
        if (REQ(m, q)->ctx == g->ctx && tag_matches(REQ(m, q)->tag, g->tag)) {
            if (chosen < 0 || REQ(m, q)->post < REQ(m, chosen)->post)
                chosen = q;
            break;
        }
    if (chosen < 0) {
        g->aprev = rk->unexp_tail;
        g->anext = -1;
        if (rk->unexp_tail >= 0) MSG(m, rk->unexp_tail)->anext = i; else rk->unexp_head = i;
        rk->unexp_tail = i;
        qu = queue_of(m, r, 1, g->ctx, g->src, 1);
        g = MSG(m, i);
        g->queue = qu;
        g->sprev = m->queues[qu].tail;
        g->snext = -1;
        if (m->queues[qu].tail >= 0) MSG(m, m->queues[qu].tail)->snext = i; else m->queues[qu].head = i;
        m->queues[qu].tail = i;
        rk->unreceived++;
        if (g->ctx & 1)
            rk->unreceived_coll++;
        if (rk->probing && rk->waiting) {
            rk->waiting = 0;
            mpi_schedule(m, rk->node, m->now, EV_RESUME, r, 0);
        }
        return;
    }
    unpost(m, rk, chosen);
    p2p_match(m, chosen, i);
}

void p2p_arrive(ppt_mpi_t *m, int32_t i)
{
    msg_t *g = MSG(m, i);
    if (g->kind == DATA) {
        receive_data(m, g->recv_req, i);
        return;
    }
    if (g->kind == CTS) {
        int32_t q = g->send_req, recv_req = g->recv_req, dst = g->src;
        mpi_free_msg(m, i);
        req_t *rq = REQ(m, q);
        rq->matched = ppt_mpi_is_local(m, dst) ? REQ(m, recv_req)->serial : -1;     /* (another process's index) */
        int32_t d = mpi_new_msg(m);
        msg_t *data = MSG(m, d);
        data->kind = DATA;
        data->dst = dst;
        data->src = rq->rank;
        data->ctx = rq->ctx;
        data->tag = rq->tag;
        data->recv_req = recv_req;
        data->net_B = data->nbytes = rq->nbytes;
        data->on_sent = q;
        data->hdr = rq->hdr;
        data->payload = rq->payload;
        data->count = rq->count;
        data->parts = rq->parts;
        rq->parts = NULL;
        mpi_send_message(m, d, m->now);
        return;
    }
    int32_t r = g->dst, src = g->src;
    rank_t *rk = RANK(m, r);
    int32_t p = peer_of(m, r, src);
    int64_t expected = m->peers[p].expected_seq;
    if (g->seq != expected) {
        map_put(&RANK(m, r)->map, T_EARLY, (uint64_t)src << 40 | (uint64_t)g->seq, i);
        rk->early++;
        rk->unreceived++;
        if (g->ctx & 1)
            rk->unreceived_coll++;
        return;
    }
    incoming(m, i);
    expected++;
    int64_t early;
    while (rk->early && map_del(&RANK(m, r)->map, T_EARLY, (uint64_t)src << 40 | (uint64_t)expected, &early)) {
        rk->early--;
        rk->unreceived--;
        if (MSG(m, early)->ctx & 1)
            rk->unreceived_coll--;
        incoming(m, (int32_t)early);
        expected++;
    }
    m->peers[p].expected_seq = expected;
}
