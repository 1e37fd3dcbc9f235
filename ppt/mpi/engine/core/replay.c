/* The MPI engine's op-stream interpreter: ppt/traces/replay.py's RankReplay on the simulated MPI
 * (ppt/mpi/surface/api.py, comm.py), call for call, with no greenlet.
 *
 * A rank is a state machine over its stream: it computes each op's recorded gap, then issues the
 * call as the Python replay does, blocking where a Python rank would block (a sleep, a wait for a
 * request, a probe, a collective's schedule) and going on from the same place when the event that
 * would have woken its process runs.  A rank's collective calls ask Python for their schedule once per
 * distinct set of arguments (PPT_MPI_NEED_COLL), and the engine keeps the plan for later calls.  Ops
 * on communicators, groups and reduction ops run in Python (PPT_MPI_NEED_COMM); the agreement a new
 * communicator's members reach (a small collective) runs in the engine.  A nonblocking collective's
 * request (start_coll) runs its schedule in the background as a program's does (icoll.c, ibarrier.c), and
 * the completion op that names it retires it. */
#include <string.h>
#include "_mpicore.h"
#include "mpicore_icoll.h"

/* Op kinds: OP_OTHER, OP_SEND, ... OP_OP_FREE, one per member of ppt/oprecord.py's Op with its value, are
 * defined by the build (ppt/mpi/engine/core/build.py), so C and Python share one list. */
/* Polling calls (api.py MPI.polled). */
enum { POLL_TEST = 1, POLL_TESTALL = 2, POLL_TESTANY = 4, POLL_TESTSOME = 8, POLL_IPROBE = 16 };
/* Where a rank is in its current op. */
enum { P_FETCH, P_CALL, P_HANDLER, P_END, P_FINISH };
/* What a step of an op did. */
enum { OP_DONE = -1, OP_BLOCKED = -2, RANK_DONE = -3 };

void ppt_mpi_set_replay(ppt_mpi_t *m, int32_t cpu_clock, double compute_scale, int32_t keep_startup)
{
    m->cpu_clock = cpu_clock;
    m->compute_scale = compute_scale;
    m->keep_startup = keep_startup;
}

void ppt_mpi_set_skippable(ppt_mpi_t *m, const int8_t *skippable, int32_t n)
{
    m->skippable = skippable;
    m->nskippable = n;
}

void ppt_mpi_set_has_init(ppt_mpi_t *m, int32_t rank, int32_t has_init)
{
    RANK(m, rank)->has_init = (int8_t)has_init;
    RANK(m, rank)->startup = !m->keep_startup;
}

void ppt_mpi_set_chunk(ppt_mpi_t *m, int32_t r, const ppt_op_t *ops, int64_t n, const int64_t *aux,
                       const int32_t *call_ids, int32_t num_calls)
{
    rank_t *rk = RANK(m, r);
    rk->ops = ops;
    rk->nops = n;
    rk->pos = 0;
    rk->aux = aux;
    rk->call_ids = call_ids;
    rk->stream_end = n == 0;
    if (num_calls > rk->num_calls) {
        int64_t cap = rk->num_calls;
        rk->calls = ppt_grow(rk->calls, &cap, sizeof(int64_t), num_calls);
        cap = rk->num_calls;
        rk->skipped = ppt_grow(rk->skipped, &cap, sizeof(int64_t), num_calls);
        for (int32_t i = rk->num_calls; i < (int32_t)cap; i++)
            rk->calls[i] = rk->skipped[i] = 0;
        rk->num_calls = (int32_t)cap;
    }
}

/* -- blocking ------------------------------------------------------------------------------------ */
static int sleep_for(ppt_mpi_t *m, int32_t r, double delay_s)
{
    rank_t *rk = RANK(m, r);
    mpi_schedule(m, rk->node, m->now + delay_s, EV_RESUME, r, 0);
    rk->state = R_SLEEP;
    return OP_BLOCKED;
}

/* Rank.pay: sleep through the overhead owed; OP_BLOCKED if there was some. */
static int pay(ppt_mpi_t *m, int32_t r)
{
    rank_t *rk = RANK(m, r);
    double owed = rk->owed_s;
    if (!owed)
        return OP_DONE;
    rk->owed_s = 0.0;
    return sleep_for(m, r, owed);
}

/* Rank.block on one request. */
static int block_on(ppt_mpi_t *m, int32_t r, int32_t q)
{
    rank_t *rk = RANK(m, r);
    rk->block_clock_s = m->now + rk->owed_s;
    REQ(m, q)->waited = 1;
    p2p_await(m, q);
    rk->waiting = 1;
    rk->blocked_req = q;
    rk->state = R_BLOCK;
    return OP_BLOCKED;
}

/* MPI._complete: retire a completed request; PPT_MPI_MISMATCH if it is a nonblocking collective's that received
 * another collective's message (ppt_mpi_mismatch, of context m->mismatch_ctx), else OP_DONE. */
static int complete(ppt_mpi_t *m, int32_t r, int32_t q)
{
    req_t *rq = REQ(m, q);
    p2p_take(m, r, q);
    rq->active = 0;
    if (rq->coll && rq->status_tag) {
        m->mismatch_ctx = rq->ctx;
        return PPT_MPI_MISMATCH;
    }
    return OP_DONE;
}

static void polled(ppt_mpi_t *m, int32_t r, uint8_t call)
{
    rank_t *rk = RANK(m, r);
    if (m->now + rk->owed_s != rk->poll_clock_s)
        rk->polls = 0;
    if (rk->polls & call)
        rk->owed_s += m->poll_o;
    rk->polls |= call;
    rk->poll_clock_s = m->now + rk->owed_s;
}

/* -- trace request ids (traces/handles.py RequestFifos) -------------------------------------------- */
/* The FIFO of requests started under trace request id `id` (index into m->queues): made if create, else -1
 * when there is none yet.  Ids are negative too (PROC_NULL's), so the recent ones are kept by id + 2^62. */
static int32_t handle_queue(ppt_mpi_t *m, int32_t r, int64_t id, int create)
{
    rank_t *rk = RANK(m, r);
    int64_t key = id + ((int64_t)1 << 62);
    int32_t qu;
    if (recent_find(&rk->handles, key, &qu))
        return qu;
    int64_t found;
    if (!map_get(&rk->map, T_HANDLES, (uint64_t)id, &found)) {
        if (!create)
            return -1;
        found = queue_new(m);
        map_put(&rk->map, T_HANDLES, (uint64_t)id, found);
    }
    recent_put(&rk->handles, key, (int32_t)found);
    return (int32_t)found;
}

static void handle_start(ppt_mpi_t *m, int32_t r, int64_t id, int32_t q)
{
    int32_t qu = handle_queue(m, r, id, 1);    /* (may move m->queues: index it after) */
    queue_t *fifo = &m->queues[qu];
    REQ(m, q)->hnext = -1;
    REQ(m, q)->handled = 1;
    if (fifo->tail >= 0) REQ(m, fifo->tail)->hnext = q; else fifo->head = q;
    fifo->tail = q;
}

static int32_t handle_take(ppt_mpi_t *m, int32_t r, int64_t id)
{
    int32_t qu = handle_queue(m, r, id, 0);
    if (qu < 0)
        return -1;
    queue_t *fifo = &m->queues[qu];
    int32_t q = fifo->head;
    if (q < 0)
        return -1;
    fifo->head = REQ(m, q)->hnext;
    if (fifo->head < 0)
        fifo->tail = -1;                        /* the empty FIFO stays: traces reuse their request ids */
    REQ(m, q)->handled = 0;
    RANK(m, r)->open_colls -= REQ(m, q)->coll;
    return q;
}

static int32_t handle_peek(ppt_mpi_t *m, int32_t r, int64_t id)
{
    int32_t qu = handle_queue(m, r, id, 0);
    return qu >= 0 ? m->queues[qu].head : -1;
}

static void wl_push(rank_t *rk, int32_t q)
{
    if (rk->wl_n == rk->wl_cap) {
        int64_t cap = rk->wl_cap;
        rk->wl = ppt_grow(rk->wl, &cap, sizeof(int32_t), rk->wl_n + 1);
        rk->wl_cap = (int32_t)cap;
    }
    rk->wl[rk->wl_n++] = q;
}

/* The requests of ids (distinct ids, first occurrence order) that have one, oldest first: peek_all. */
static void wl_peek(ppt_mpi_t *m, int32_t r, const int64_t *ids, int64_t n)
{
    rank_t *rk = RANK(m, r);
    rk->wl_n = rk->wl_i = 0;
    for (int64_t i = 0; i < n; i++) {
        int seen = 0;
        for (int64_t j = 0; j < i && !seen; j++)
            seen = ids[j] == ids[i];
        int32_t q = seen ? -1 : handle_peek(m, r, ids[i]);
        if (q >= 0)
            wl_push(rk, q);
    }
}

static void wl_take(ppt_mpi_t *m, int32_t r, const int64_t *ids, int64_t n)
{
    rank_t *rk = RANK(m, r);
    rk->wl_n = rk->wl_i = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t q = handle_take(m, r, ids[i]);
        if (q >= 0)
            wl_push(rk, q);
    }
}

/* Wait for the list in order: rank.wait each (wl_complete 0), or MPI.waitall's skip-inactive, wait
 * and retire (1).  Requests no table holds any more are released once done with. */
static int wl_wait(ppt_mpi_t *m, int32_t r)
{
    rank_t *rk = RANK(m, r);
    while (rk->wl_i < rk->wl_n) {
        int32_t q = rk->wl[rk->wl_i];
        req_t *rq = REQ(m, q);
        if (!rk->wl_complete || rq->active) {
            if (!p2p_done(m, q))
                return block_on(m, r, q);
            if (!rk->wl_complete)
                p2p_take(m, r, q);
            else if (complete(m, r, q) != OP_DONE)
                return PPT_MPI_MISMATCH;
        }
        if (!REQ(m, q)->handled)
            p2p_release(m, q);
        rk->wl_i++;
    }
    return OP_DONE;
}

/* -- the calls --------------------------------------------------------------------------------- */
/* The rank's op is one the simulated MPI refuses: Python issues it to raise the error. */
static int bad(ppt_mpi_t *m, int32_t r, const char *what)
{
    return mpi_stop(m, PPT_MPI_REFUSED, "rank %d: %s", r, what);
}

/* A peer of communicator c as a world rank (or PROC_NULL / ANY_SOURCE); -3 if out of range. */
static int32_t peer_world(ppt_mpi_t *m, int32_t c, int32_t peer, int wildcard)
{
    if (peer == PROC_NULL || (wildcard && peer == ANY_SOURCE))
        return peer;
    if (peer < 0 || peer >= m->comms[c].size)
        return -3;
    return m->comms[c].members[peer];
}

static int start_send(ppt_mpi_t *m, int32_t r, int32_t c, int32_t peer, int64_t tag, int64_t nbytes, int32_t *q)
{
    int32_t dst = peer_world(m, c, peer, 0);
    if (dst == -3 || tag < 0 || nbytes < 0)
        return bad(m, r, "a send the simulated MPI refuses");
    *q = p2p_isend(m, r, dst, m->comms[c].ctx, tag, nbytes, STANDARD, p2p_new_req(m, r));
    return OP_DONE;
}

static int start_recv(ppt_mpi_t *m, int32_t r, int32_t c, int32_t peer, int64_t tag, int32_t *q)
{
    int32_t src = peer_world(m, c, peer, 1);
    if (src == -3 || (tag < 0 && tag != ANY_TAG))
        return bad(m, r, "a receive the simulated MPI refuses");
    *q = p2p_irecv(m, r, src, m->comms[c].ctx, tag, p2p_new_req(m, r));
    return OP_DONE;
}

/* Rank.wait_probe, from hphase 1 on. */
static int probe(ppt_mpi_t *m, int32_t r, const ppt_op_t *op, int32_t c)
{
    rank_t *rk = RANK(m, r);
    for (;;) {
        if (rk->hphase == 1) {
            if (op->peer == PROC_NULL)
                return OP_DONE;
            rk->hphase = 2;
            if (pay(m, r) == OP_BLOCKED)
                return OP_BLOCKED;
        }
        if (p2p_find_unexpected(m, r, m->comms[c].ctx, peer_world(m, c, op->peer, 1), op->tag, 0) >= 0)
            return OP_DONE;
        rk->probing = rk->waiting = 1;
        rk->hphase = 1;
        rk->state = R_PROBE;
        return OP_BLOCKED;
    }
}

/* Start the rank's collective run, if its plan has one: OP_DONE once over, OP_BLOCKED while it runs. */
static int start_run(ppt_mpi_t *m, int32_t r)
{
    rank_t *rk = RANK(m, r);
    if (!rk->run.active)
        return OP_DONE;
    int done = run_start(m, r);
    if (done < 0)
        return PPT_MPI_MISMATCH;
    if (!done) {
        rk->state = R_RUN;
        return OP_BLOCKED;
    }
    return OP_DONE;
}

/* A nonblocking collective op (IBARRIER ... IREDUCE_SCATTER) on engine communicator c, from hphase 0: its
 * request, under the op's trace id, runs what a program's call runs (ppt/mpi/surface/communicators/icoll.py): an
 * Ibarrier's rounds (ibarrier.c), else the blocking call's plan (Python plans the op as its blocking kind),
 * whose schedule runs in the background (icoll.c).  A plan that sends nothing, or a schedule the background
 * runner does not run, runs as the blocking call does, and the request is complete at once. */
static int start_coll(ppt_mpi_t *m, int32_t r, const ppt_op_t *op, const int64_t *aux, int32_t c)
{
    rank_t *rk = RANK(m, r);
    run_t *run = &rk->run;
    comm_t *cm = &m->comms[c];
    int32_t q = -1, st, ctx = cm->ctx + 1;
    if (op->kind == OP_IBARRIER) {
        q = ppt_mpi_ibarrier(m, r, cm->members, cm->size, cm->me, ctx, ++cm->coll_seq, rk->call_ids[op->call]);
    } else {
        if (rk->hphase == 0) {
            rk->hphase = 1;
            int plan = plan_find(m, r, op, aux);
            if (plan < 0)
                return PPT_MPI_NEED_COLL;
            plan_start(m, r, plan);
        }
        if (rk->hphase == 1 && run->active && ppt_mpi_icoll_runs(run->schedule)) {
            run->active = 0;
            q = ppt_mpi_icoll(m, r, run->schedule, run->sizes, run->nslots, run->members, run->ctx, run->tag,
                              run->hdr.call, run->hdr.root);
        } else if (rk->hphase == 1) {
            rk->hphase = 2;
            if ((st = start_run(m, r)) != OP_DONE)
                return st;
        }
        if (q < 0)                              /* over already: a request complete at once */
            q = p2p_isend(m, r, PROC_NULL, ctx, 0, 0, STANDARD, p2p_new_req(m, r));
    }
    req_t *rq = REQ(m, q);
    rq->coll = 1;
    rq->ctx = ctx;
    rq->hdr = (hdr_t){rk->call_ids[op->call], -1, cm->coll_seq};
    rk->open_colls++;
    handle_start(m, r, op->request, q);
    return OP_DONE;
}

static int handler(ppt_mpi_t *m, int32_t r)
{
    rank_t *rk = RANK(m, r);
    const ppt_op_t *op = rk->op;
    const int64_t *aux = rk->aux + op->aux_start;
    int32_t q, st, c = -1;
    if ((op->kind >= OP_SEND && op->kind <= OP_IPROBE) || (op->kind >= OP_BARRIER && op->kind <= OP_REDUCE_SCATTER)
        || (op->kind >= OP_IBARRIER && op->kind <= OP_IREDUCE_SCATTER)) {
        c = comm_of(m, r, op->comm);
        if (c < 0)
            return bad(m, r, "a communicator no replayed call created");
    }
    switch (op->kind) {
    case OP_LOCAL:
    case OP_INIT:
    case OP_WTIME:
        return OP_DONE;
    case OP_SEND:
    case OP_RECV:
    case OP_SENDRECV:
        if (rk->hphase == 0) {
            rk->wl_n = rk->wl_i = 0;
            rk->wl_complete = 0;
            if (op->kind == OP_RECV) {
                if ((st = start_recv(m, r, c, op->peer, op->tag, &q)) != OP_DONE)
                    return st;
                wl_push(rk, q);
            } else if (op->kind == OP_SEND) {
                rk->p2p_bytes += op->nbytes;
                if ((st = start_send(m, r, c, op->peer, op->tag, op->nbytes, &q)) != OP_DONE)
                    return st;
                wl_push(rk, q);
            } else {
                int32_t rq, sq;
                rk->p2p_bytes += op->nbytes;
                if (op->aux_len < 3 || (st = start_recv(m, r, c, (int32_t)aux[0], aux[1], &rq)) != OP_DONE)
                    return op->aux_len < 3 ? bad(m, r, "a short Sendrecv record") : st;
                if ((st = start_send(m, r, c, op->peer, op->tag, op->nbytes, &sq)) != OP_DONE)
                    return st;
                wl_push(rk, rq);
                wl_push(rk, sq);
            }
            rk->hphase = 1;
        }
        return wl_wait(m, r);
    case OP_ISEND:
        rk->p2p_bytes += op->nbytes;
        if ((st = start_send(m, r, c, op->peer, op->tag, op->nbytes, &q)) != OP_DONE)
            return st;
        handle_start(m, r, op->request, q);
        return OP_DONE;
    case OP_IRECV:
        if ((st = start_recv(m, r, c, op->peer, op->tag, &q)) != OP_DONE)
            return st;
        handle_start(m, r, op->request, q);
        return OP_DONE;
    case OP_PROBE:
    case OP_IPROBE:
        if (rk->hphase == 0) {
            if (peer_world(m, c, op->peer, 1) == -3 || (op->tag < 0 && op->tag != ANY_TAG))
                return bad(m, r, "a probe the simulated MPI refuses");
            rk->hphase = op->kind == OP_PROBE || op->flag ? 1 : 10;
        }
        if (rk->hphase < 10)
            return probe(m, r, op, c);
        if (op->peer == PROC_NULL)                      /* Iprobe that recorded failure: only looks */
            return OP_DONE;
        if (rk->hphase == 10) {
            rk->hphase = 11;
            if (pay(m, r) == OP_BLOCKED)
                return OP_BLOCKED;
        }
        if (p2p_find_unexpected(m, r, m->comms[c].ctx, peer_world(m, c, op->peer, 1), op->tag, 0) < 0)
            polled(m, r, POLL_IPROBE);
        return OP_DONE;
    case OP_TEST:
    case OP_TESTALL:
        if (!op->flag) {
            if (rk->hphase == 0) {
                if (op->kind == OP_TEST)
                    wl_peek(m, r, &op->request, 1);
                else
                    wl_peek(m, r, aux, op->aux_len);
                if (op->kind == OP_TEST && !rk->wl_n)
                    return OP_DONE;
                rk->hphase = 1;
                if (pay(m, r) == OP_BLOCKED)
                    return OP_BLOCKED;
            }
            if (op->kind == OP_TEST) {
                req_t *rq = REQ(m, rk->wl[0]);
                if (!rq->active)
                    return OP_DONE;
                if (p2p_done(m, rk->wl[0]))
                    return complete(m, r, rk->wl[0]);
                polled(m, r, POLL_TEST);
                return OP_DONE;
            }
            int all = 1;
            for (int32_t i = 0; i < rk->wl_n; i++)
                all &= p2p_done(m, rk->wl[i]) || !REQ(m, rk->wl[i])->active;
            if (!all) {
                polled(m, r, POLL_TESTALL);
                return OP_DONE;
            }
            for (int32_t i = 0; i < rk->wl_n; i++)
                if (REQ(m, rk->wl[i])->active && (st = complete(m, r, rk->wl[i])) != OP_DONE)
                    return st;
            return OP_DONE;
        }
        /* fall through: a test that recorded success waits as Wait/Waitall do */
    case OP_WAIT:
    case OP_WAITALL:
        if (rk->hphase == 0) {
            if (op->kind == OP_WAIT || op->kind == OP_TEST)
                wl_take(m, r, &op->request, 1);
            else
                wl_take(m, r, aux, op->aux_len);
            rk->wl_complete = 1;
            rk->hphase = 1;
        }
        return wl_wait(m, r);
    case OP_WAITANY:
    case OP_TESTANY:
        if (op->flag >= 0 && op->flag < op->aux_len) {  /* complete the request at the recorded index */
            if (rk->hphase == 0) {
                rk->wl_n = rk->wl_i = 0;
                q = handle_take(m, r, aux[op->flag]);
                if (q < 0)
                    return OP_DONE;
                wl_push(rk, q);
                rk->hphase = 1;
                if (pay(m, r) == OP_BLOCKED)
                    return OP_BLOCKED;
            }
            q = rk->wl[0];
            if (REQ(m, q)->active && !p2p_done(m, q))
                return block_on(m, r, q);
            if (REQ(m, q)->active && (st = complete(m, r, q)) != OP_DONE)
                return st;
            if (!REQ(m, q)->handled)
                p2p_release(m, q);
            return OP_DONE;
        }
        if (rk->hphase == 0) {
            wl_peek(m, r, aux, op->aux_len);
            rk->hphase = 1;
            if (pay(m, r) == OP_BLOCKED)
                return OP_BLOCKED;
        }
        {
            int active = 0;
            for (int32_t i = 0; i < rk->wl_n; i++) {
                q = rk->wl[i];
                if (REQ(m, q)->active) {
                    if (p2p_done(m, q))
                        return complete(m, r, q);
                    active = 1;
                }
            }
            if (active)
                polled(m, r, POLL_TESTANY);
        }
        return OP_DONE;
    case OP_WAITSOME:
    case OP_TESTSOME: {
        int64_t done = op->flag, nreq = op->aux_len - op->flag;
        if (done) {                                     /* complete the requests at the recorded indices */
            if (rk->hphase == 0) {
                rk->wl_n = rk->wl_i = 0;
                for (int64_t i = 0; i < done; i++) {
                    int64_t index = aux[nreq + i];
                    if (index < 0 || index >= nreq)
                        return bad(m, r, "a Waitsome index out of range");
                    q = handle_take(m, r, aux[index]);
                    if (q >= 0)
                        wl_push(rk, q);
                }
                rk->wl_complete = 1;
                rk->hphase = 1;
            }
            return wl_wait(m, r);
        }
        if (rk->hphase == 0) {
            wl_peek(m, r, aux, nreq);
            rk->hphase = 1;
            if (pay(m, r) == OP_BLOCKED)
                return OP_BLOCKED;
        }
        int any_active = 0, retired = 0;
        for (int32_t i = 0; i < rk->wl_n; i++)
            any_active |= REQ(m, rk->wl[i])->active;
        if (!any_active)
            return OP_DONE;
        for (int32_t i = 0; i < rk->wl_n; i++)
            if (REQ(m, rk->wl[i])->active && p2p_done(m, rk->wl[i])) {
                if ((st = complete(m, r, rk->wl[i])) != OP_DONE)
                    return st;
                retired++;
            }
        if (!retired)
            polled(m, r, POLL_TESTSOME);
        return OP_DONE;
    }
    default:
        if (op->kind >= OP_BARRIER && op->kind <= OP_REDUCE_SCATTER) {
            if (rk->hphase == 0) {                      /* the rank's plan of the call, or Python makes one */
                rk->hphase = 1;
                int plan = plan_find(m, r, op, aux);
                if (plan < 0)
                    return PPT_MPI_NEED_COLL;
                plan_start(m, r, plan);
            }
            if (rk->hphase == 1) {
                rk->hphase = 2;
                return start_run(m, r);
            }
            return OP_DONE;
        }
        if (op->kind >= OP_IBARRIER && op->kind <= OP_IREDUCE_SCATTER)
            return start_coll(m, r, op, aux, c);
        if (op->kind >= OP_COMM_DUP && op->kind <= OP_CART_SUB) {    /* a new communicator: Python makes it */
            switch (rk->hphase) {
            case 0:
                rk->hphase = 1;
                rk->run.active = 0;
                return PPT_MPI_NEED_COMM;
            case 1:                                 /* the members' agreement (a collective), if any */
                rk->hphase = 2;
                if ((st = start_run(m, r)) != OP_DONE)
                    return st;
                /* fall through */
            case 2:
                rk->hphase = 3;
                return PPT_MPI_NEED_COMM;
            }
            return OP_DONE;
        }
        if (op->kind >= OP_COMM_FREE && op->kind <= OP_OP_FREE) {   /* local: Python keeps the tables */
            if (rk->hphase == 0) {
                rk->hphase = 1;
                return PPT_MPI_NEED_COMM;
            }
            if (op->kind == OP_OP_CREATE || op->kind == OP_OP_FREE)
                rk->plan_epoch++;
            return OP_DONE;
        }
        return bad(m, r, "an op kind the compiled engine does not know");
    }
}

/* -- the op loop -------------------------------------------------------------------------------- */
static void count_call(rank_t *rk, int32_t id, int other)
{
    if (other)
        rk->skipped[id]++;
    else
        rk->calls[id]++;
}

static int step(ppt_mpi_t *m, int32_t r)
{
    rank_t *rk = RANK(m, r);
    for (;;) {
        switch (rk->phase) {
        case P_FETCH: {
            if (rk->pos == rk->nops) {
                if (!rk->stream_end)
                    return PPT_MPI_NEED_CHUNK;
                rk->phase = P_END;
                break;
            }
            const ppt_op_t *op = rk->op = &rk->ops[rk->pos++];
            rk->records++;
            m->records++;
            rk->phase = P_CALL;
            if (rk->startup) {
                rk->dropped_s += 0.0 > op->gap_wall_s ? 0.0 : op->gap_wall_s;
                rk->startup = rk->has_init && op->kind != OP_INIT;
                if (rk->has_init)
                    rk->dropped_s += op->call_s;
            } else {
                if (op->gap_wall_s > 0.0)
                    rk->wall_s += op->gap_wall_s;
                if (op->gap_cpu_s > 0.0)
                    rk->cpu_s += op->gap_cpu_s;
                double replayed = m->cpu_clock ? op->gap_cpu_s : op->gap_wall_s;
                rk->recorded_mpi_s += op->call_s;
                if (replayed > 0.0) {
                    double seconds = replayed * m->compute_scale;
                    rk->compute_s += seconds;
                    double delay = rk->owed_s + seconds;
                    rk->owed_s = 0.0;
                    return sleep_for(m, r, delay);
                }
            }
            break;
        }
        case P_CALL: {
            const ppt_op_t *op = rk->op;
            int32_t id = rk->call_ids[op->call];
            if (op->kind == OP_OTHER) {             /* a call the reader could not express */
                if (id >= m->nskippable || !m->skippable[id])
                    return bad(m, r, "a call replay does not support");
                count_call(rk, id, 1);
                rk->phase = P_FETCH;
                break;
            }
            if (op->kind == OP_WTIME) {
                double clock = m->now + rk->owed_s;
                int first = rk->wtimes == 0;
                rk->wtime[first ? 0 : 2] = clock;
                rk->wtime[first ? 1 : 3] = op->start_s;
                rk->wtimes++;
            }
            rk->call_start_s = m->now + rk->owed_s;
            count_call(rk, id, 0);
            rk->hphase = 0;
            rk->phase = P_HANDLER;
            break;
        }
        case P_HANDLER: {
            int st = handler(m, r);
            if (st != OP_DONE)
                return st;
            rk->comm_s += m->now + rk->owed_s - rk->call_start_s;
            rk->phase = P_FETCH;
            break;
        }
        case P_END:
            rk->phase = P_FINISH;
            if (pay(m, r) == OP_BLOCKED)
                return OP_BLOCKED;
            break;
        case P_FINISH:
            rk->finish_s = m->now;
            rk->state = R_DONE;
            return RANK_DONE;
        }
    }
}

int replay_continue(ppt_mpi_t *m, int32_t r)
{
    rank_t *rk = RANK(m, r);
    switch (rk->state) {
    case R_BLOCK: {
        REQ(m, rk->blocked_req)->waited = 0;
        rk->blocked_req = -1;
        double now = m->now, clock = rk->block_clock_s;
        rk->owed_s = clock > now ? clock - now : 0.0;
        break;
    }
    case R_PROBE:
        rk->probing = 0;
        break;
    case R_DONE:
        return PPT_MPI_DONE;
    default:
        break;
    }
    rk->state = R_READY;
    int st = step(m, r);
    if (st == OP_BLOCKED || st == RANK_DONE)
        return PPT_MPI_DONE;
    if (st == PPT_MPI_UNSUPPORTED)
        return st;
    m->need_rank = r;                   /* NEED_CHUNK, NEED_COLL, NEED_COMM: go on once Python answered;
                                         * REFUSED, MISMATCH: Python reports the rank's error */
    rk->state = R_NEED;
    return st;
}

int32_t ppt_mpi_blocked(const ppt_mpi_t *m, int32_t r, int64_t *out)
{
    const rank_t *rk = &m->ranks[r];
    if (rk->state == R_DONE)
        return -1;
    out[0] = rk->call_ids[rk->op->call];
    out[1] = rk->op->comm;
    if (rk->state == R_PROBE) {
        out[2] = rk->op->peer;
        out[3] = rk->op->tag;
        return 2;
    }
    if (rk->state == R_RUN)
        return ppt_mpi_run_state(m, r, out + 2) == 0 ? 3 : 0;
    if (rk->state != R_BLOCK)
        return 0;
    const req_t *rq = &m->reqs[rk->blocked_req];
    if (rq->coll) {
        int64_t at[2] = {-1, 0};
        out[2] = rq->ctx;
        out[3] = rq->hdr.call;
        out[4] = rq->icoll ? ppt_mpi_icoll_waiting(m, rk->blocked_req, at) : -1;
        out[5] = rq->icoll ? at[0] : ppt_mpi_ibarrier_dist(m, rk->blocked_req);
        out[6] = at[1];
        return 4;
    }
    out[2] = rq->is_send;
    out[3] = rq->src;
    out[4] = rq->ctx;
    out[5] = rq->tag;
    out[6] = rq->nbytes;
    return 1;
}

int64_t ppt_mpi_open_colls(const ppt_mpi_t *m, int32_t r, int64_t *out)
{
    int64_t n = m->ranks[r].open_colls;
    out[2] = -1;
    for (int64_t q = 0; n && q < m->nreqs; q++) {
        const req_t *rq = &m->reqs[q];
        if (rq->rank == r && rq->coll && rq->handled && (out[2] < 0 || rq->hdr.seq < out[2]
                                                         || (rq->hdr.seq == out[2] && rq->ctx < out[0]))) {
            out[0] = rq->ctx;
            out[1] = rq->hdr.call;
            out[2] = rq->hdr.seq;
        }
    }
    return n;
}

int32_t ppt_mpi_mismatch_ctx(const ppt_mpi_t *m)
{
    return m->mismatch_ctx;
}
