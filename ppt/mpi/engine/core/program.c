/* Ranks driven by Python programs: ppt/mpi/engine/program.py's calls into the engine.
 *
 * A program rank's process is Python's (a greenlet); the engine runs its events and its messaging.
 * Whenever the process must resume (the rank's start, the end of a sleep, a wake at a request's
 * completion, the end of a collective's schedule), ppt_mpi_run stops with PPT_MPI_NEED_RESUME and
 * Python runs the process until it blocks again; its calls below act at that event's time. */
#include <string.h>
#include "_mpicore.h"

void ppt_mpi_set_program(ppt_mpi_t *m, int32_t r)
{
    RANK(m, r)->program = 1;
}

int32_t ppt_mpi_isend(ppt_mpi_t *m, int32_t r, int32_t dst, int32_t ctx, int64_t tag, int64_t nbytes, int32_t mode,
                      int64_t payload)
{
    int32_t q = p2p_new_req(m, r);
    REQ(m, q)->payload = payload;
    return p2p_isend(m, r, dst, ctx, tag, nbytes, mode, q);
}

int32_t ppt_mpi_irecv(ppt_mpi_t *m, int32_t r, int32_t src, int32_t ctx, int64_t tag)
{
    return p2p_irecv(m, r, src, ctx, tag, p2p_new_req(m, r));
}

int32_t ppt_mpi_req_done(const ppt_mpi_t *m, int32_t q)
{
    return p2p_done(m, q);
}

void ppt_mpi_req_status(const ppt_mpi_t *m, int32_t q, int64_t *out)
{
    const req_t *rq = &m->reqs[q];
    out[0] = rq->is_send ? rq->matched : rq->status_src;
    out[1] = rq->status_tag;
    out[2] = rq->status_bytes;
    out[3] = rq->payload;
}

int64_t ppt_mpi_req_serial(const ppt_mpi_t *m, int32_t q)
{
    return m->reqs[q].serial;
}

int32_t ppt_mpi_wait_one(ppt_mpi_t *m, int32_t r, int32_t q, int64_t *out)
{
    if (!p2p_done(m, q)) {
        ppt_mpi_block(m, r, &q, 1);
        return 0;
    }
    p2p_take(m, r, q);
    ppt_mpi_req_status(m, q, out);
    p2p_release(m, q);
    return 1;
}

static int32_t take_in_turn(ppt_mpi_t *m, int32_t r, const int32_t *reqs, int32_t k, int32_t n, int64_t *out)
{
    for (; k < n; k++)
        if (reqs[k] >= 0 && !ppt_mpi_wait_one(m, r, reqs[k], &out[4 * (int64_t)k]))
            return k;
    return n;
}

/* The process blocks once for the whole wait, not once per pending request: the engine takes each request
 * as it completes, at the instant the process would have, so times are those of a process woken for each. */
int32_t ppt_mpi_wait_in_turn(ppt_mpi_t *m, int32_t r, const int32_t *reqs, int32_t n, int64_t *out)
{
    rank_t *rk = RANK(m, r);
    int32_t k = take_in_turn(m, r, reqs, 0, n, out);
    rk->turn = k < n ? reqs : NULL;
    rk->turn_out = out;
    rk->turn_k = k;
    rk->turn_n = k < n ? n : 0;
    return k;
}

int program_turn_on(ppt_mpi_t *m, int32_t r)
{
    rank_t *rk = RANK(m, r);
    ppt_mpi_unblock(m, r, &rk->turn[rk->turn_k], 1);
    rk->turn_k = take_in_turn(m, r, rk->turn, rk->turn_k, rk->turn_n, rk->turn_out);
    if (rk->turn_k < rk->turn_n)
        return 0;
    rk->turn_n = 0;
    rk->turn = NULL;
    return 1;
}

int32_t ppt_mpi_turn_at(const ppt_mpi_t *m, int32_t r)
{
    return m->ranks[r].turn_n ? m->ranks[r].turn_k : -1;
}

void ppt_mpi_turn_drop(ppt_mpi_t *m, int32_t r)
{
    RANK(m, r)->turn_n = 0;
    RANK(m, r)->turn = NULL;
}

void ppt_mpi_block(ppt_mpi_t *m, int32_t r, const int32_t *reqs, int32_t n)
{
    rank_t *rk = RANK(m, r);
    rk->block_clock_s = m->now + rk->owed_s;
    for (int32_t k = 0; k < n; k++) {
        REQ(m, reqs[k])->waited = 1;
        p2p_await(m, reqs[k]);
    }
    rk->waiting = 1;
}

void ppt_mpi_unblock(ppt_mpi_t *m, int32_t r, const int32_t *reqs, int32_t n)
{
    rank_t *rk = RANK(m, r);
    for (int32_t k = 0; k < n; k++)
        REQ(m, reqs[k])->waited = 0;
    double now = m->now, clock = rk->block_clock_s;
    rk->owed_s = clock > now ? clock - now : 0.0;
}

void ppt_mpi_sleep(ppt_mpi_t *m, int32_t r, double delay_s)
{
    mpi_schedule(m, RANK(m, r)->node, m->now + delay_s, EV_RESUME, r, 0);
}

double ppt_mpi_clock(const ppt_mpi_t *m, int32_t r)
{
    return m->now + m->ranks[r].owed_s;
}

double ppt_mpi_owed(const ppt_mpi_t *m, int32_t r)
{
    return m->ranks[r].owed_s;
}

void ppt_mpi_set_owed(ppt_mpi_t *m, int32_t r, double owed_s)
{
    RANK(m, r)->owed_s = owed_s;
}

int32_t ppt_mpi_find(ppt_mpi_t *m, int32_t r, int32_t ctx, int32_t src, int64_t tag, int32_t remove, int64_t *out)
{
    int32_t i = p2p_find_unexpected(m, r, ctx, src, tag, remove);
    if (i >= 0) {
        out[0] = MSG(m, i)->src;
        out[1] = MSG(m, i)->tag;
        out[2] = MSG(m, i)->nbytes;
    }
    return i;
}

void ppt_mpi_probe_wait(ppt_mpi_t *m, int32_t r, int32_t waiting)
{
    RANK(m, r)->probing = RANK(m, r)->waiting = (int8_t)waiting;
}

int32_t ppt_mpi_mrecv(ppt_mpi_t *m, int32_t r, int32_t i)
{
    int32_t q = p2p_new_req(m, r);
    req_t *rq = REQ(m, q);
    rq->ctx = MSG(m, i)->ctx;
    rq->src = MSG(m, i)->src;
    rq->tag = MSG(m, i)->tag;
    rq->overhead_due_s = m->recv_o;
    p2p_match(m, q, i);
    return q;
}

int32_t ppt_mpi_program_run(ppt_mpi_t *m, int32_t r, const int32_t *schedule, const int64_t *sizes, int32_t nslots,
                            const int32_t *members, int32_t ctx, int64_t tag, int32_t hdr_call, int32_t hdr_root)
{
    run_t *run = &RANK(m, r)->run;
    if (nslots > run->cap_slots) {
        int64_t cap = run->cap_slots;
        run->sizes = ppt_grow(run->sizes, &cap, sizeof(int64_t), nslots);
        run->cap_slots = (int32_t)cap;
    }
    memcpy(run->sizes, sizes, sizeof(int64_t) * (size_t)nslots);
    run->nslots = nslots;
    run->schedule = schedule;
    run->nreqs = run->step = run->waited = 0;
    run->members = members;
    run->ctx = ctx;
    run->tag = tag;
    run->hdr = (hdr_t){hdr_call, hdr_root, tag};
    run->awaited = -1;
    run->active = 1;
    run->error = 0;
    int done = run_start(m, r);
    if (done == 0)
        RANK(m, r)->state = R_RUN;
    return done;
}

int32_t ppt_mpi_run_state(const ppt_mpi_t *m, int32_t r, int64_t *out)
{
    const run_t *run = &m->ranks[r].run;
    if (run->error)
        return -1;
    if (!run->active)
        return 1;
    const req_t *rq = &m->reqs[run->awaited >= 0 ? run->awaited : 0];
    out[0] = run->awaited >= 0 ? rq->is_send : -1;
    out[1] = rq->src;
    return 0;
}

void ppt_mpi_mismatch(const ppt_mpi_t *m, int64_t *out)
{
    out[0] = m->mismatch.call;
    out[1] = m->mismatch.root;
    out[2] = m->mismatch.seq;
    out[3] = m->mismatch_src;
    out[4] = m->mismatch_own.call;
    out[5] = m->mismatch_own.root;
    out[6] = m->mismatch_own.seq;
}

void ppt_mpi_program_stats(const ppt_mpi_t *m, int32_t r, int64_t *out)
{
    const rank_t *rk = &m->ranks[r];
    out[0] = rk->messages_sent;
    out[1] = rk->bytes_sent;
    out[2] = rk->unreceived;
    out[3] = rk->unreceived_coll;
}

static int stray_out(const msg_t *g, int64_t *k, int64_t *out)
{
    if (!(g->ctx & 1) || (*k)-- > 0)
        return 0;
    out[0] = g->kind == EAGER ? 0 : 1;
    out[1] = g->src;
    out[2] = g->hdr.call;
    out[3] = g->hdr.root;
    out[4] = g->hdr.seq;
    return 1;
}

int32_t ppt_mpi_stray(const ppt_mpi_t *m, int32_t r, int64_t k, int64_t *out)
{
    const rank_t *rk = &m->ranks[r];
    for (int32_t i = rk->unexp_head; i >= 0; i = m->msgs[i].anext)
        if (stray_out(&m->msgs[i], &k, out))
            return 1;
    for (int64_t s = 0; s < rk->map.cap; s++)       /* messages that overtook one never sent */
        if (rk->map.slot[s].k1 == T_EARLY && stray_out(&m->msgs[rk->map.slot[s].v], &k, out))
            return 1;
    return 0;
}
