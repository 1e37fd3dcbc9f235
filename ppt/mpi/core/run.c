/* The MPI engine's collective runner: ppt/mpi/runner.py's Run in C, step for step.
 *
 * A rank executes its schedule of a collective call (ppt/mpi/schedule.py) from message
 * completions: a step's posts go out at the rank's clock, its waits are taken in order (a wait for a
 * pending request remembers the rank's clock, and when the request completes the runner goes on in
 * an event of the rank at the later of that clock and now), and taking over a receive owes the
 * receive overhead.  Runs carry no payloads: a received message sets its slots' sizes, which later
 * sends of the schedule carry on. */
#include <string.h>
#include "_mpicore.h"

static uint64_t plan_key(const ppt_op_t *op, int32_t comm, int32_t call, int64_t epoch, const int64_t *aux)
{
    uint64_t h = (uint64_t)op->kind * 0x9E3779B97F4A7C15ull;
    int64_t fields[7] = {comm, op->root, op->op, call, op->nbytes, op->aux_len, epoch};
    for (int i = 0; i < 7; i++)
        h = (h ^ (uint64_t)fields[i]) * 0x100000001B3ull;
    for (int32_t i = 0; i < op->aux_len; i++)
        h = (h ^ (uint64_t)aux[i]) * 0x100000001B3ull;
    return h;
}

/* The rank's plan for the collective op, or -1 (a plan matches on every argument of the call). */
int plan_find(ppt_mpi_t *m, int32_t r, const ppt_op_t *op, const int64_t *aux)
{
    rank_t *rk = RANK(m, r);
    int32_t call = rk->call_ids[op->call], comm = comm_of(m, r, op->comm);
    int64_t at;
    if (!map_get(&rk->map, T_PLAN, plan_key(op, comm, call, rk->plan_epoch, aux), &at))
        return -1;
    const plan_t *p = &m->plans[at];
    if (p->kind != op->kind || p->comm != comm || p->root != op->root || p->op != op->op || p->call != call
        || p->nbytes != op->nbytes || p->aux_len != op->aux_len || p->epoch != rk->plan_epoch
        || (op->aux_len && memcmp(p->aux, aux, sizeof(int64_t) * (size_t)op->aux_len)))
        return -1;                              /* a hash collision: plan it again */
    return (int)at;
}

/* Start the rank's call of plan p: its run (if it sends anything), numbered on its communicator. */
void plan_start(ppt_mpi_t *m, int32_t r, int32_t at)
{
    rank_t *rk = RANK(m, r);
    const plan_t *p = &m->plans[at];
    run_t *run = &rk->run;
    run->active = p->schedule != NULL;
    if (!run->active)
        return;
    if (p->nslots > run->cap_slots) {
        int64_t cap = run->cap_slots;
        run->sizes = ppt_grow(run->sizes, &cap, sizeof(int64_t), p->nslots);
        run->cap_slots = (int32_t)cap;
    }
    memcpy(run->sizes, p->sizes, sizeof(int64_t) * (size_t)p->nslots);
    run->nslots = p->nslots;
    run->schedule = p->schedule;
    run->nreqs = run->step = run->waited = 0;
    run->members = m->comms[p->comm].members;
    run->ctx = p->ctx;
    run->tag = ++m->comms[p->comm].coll_seq;
    run->hdr = (hdr_t){p->hdr_call, p->hdr_root, run->tag};
    run->awaited = -1;
}

void ppt_mpi_set_plan(ppt_mpi_t *m, const int32_t *schedule, const int64_t *sizes, int32_t nslots, int32_t ctx,
                      int32_t hdr_call, int32_t hdr_root)
{
    int32_t r = m->need_rank;
    rank_t *rk = RANK(m, r);
    const ppt_op_t *op = rk->op;
    const int64_t *aux = rk->aux + op->aux_start;
    m->plans = ppt_grow(m->plans, &m->cap_plans, sizeof(plan_t), m->nplans + 1);
    int64_t at = m->nplans++;
    plan_t *p = &m->plans[at];
    *p = (plan_t){.kind = op->kind, .comm = comm_of(m, r, op->comm), .root = op->root, .op = op->op,
                  .call = rk->call_ids[op->call], .aux_len = op->aux_len, .nbytes = op->nbytes,
                  .epoch = rk->plan_epoch, .schedule = schedule, .nslots = nslots, .ctx = ctx, .hdr_call = hdr_call,
                  .hdr_root = hdr_root};
    if (op->aux_len) {
        p->aux = ppt_alloc((size_t)op->aux_len, sizeof(int64_t));
        memcpy(p->aux, aux, sizeof(int64_t) * (size_t)op->aux_len);
    }
    if (schedule) {
        p->sizes = ppt_alloc((size_t)(nslots ? nslots : 1), sizeof(int64_t));
        memcpy(p->sizes, sizes, sizeof(int64_t) * (size_t)nslots);
    }
    map_put(&rk->map, T_PLAN, plan_key(op, p->comm, p->call, p->epoch, aux), at);
    plan_start(m, r, (int32_t)at);
}

int64_t ppt_mpi_need_seq(const ppt_mpi_t *m)
{
    const rank_t *rk = &m->ranks[m->need_rank];
    return m->comms[comm_of((ppt_mpi_t *)m, m->need_rank, rk->op->comm)].coll_seq;
}

/* 0 at the start of a NEED_COMM op, 1 once a new communicator's agreement is over. */
int32_t ppt_mpi_need_stage(const ppt_mpi_t *m)
{
    return m->ranks[m->need_rank].hphase == 1 ? 0 : 1;
}


/* Post the current step (if fresh), take over its completed waits in order, go on to the next step
 * ...: 1 once every step is done, 0 at the first pending request, -1 on mismatched collectives. */
int run_proceed(ppt_mpi_t *m, int32_t r, int fresh)
{
    rank_t *rk = RANK(m, r);
    run_t *run = &rk->run;
    const int32_t *s = run->schedule;
    int32_t nsteps = s[0], step = run->step, waited = run->waited;
    for (;;) {
        const int32_t *st = s + s[1 + step];
        int32_t nposts = st[0];
        const int32_t *posts = st + 1;
        int32_t nwaits = posts[4 * nposts];
        const int32_t *waits = posts + 4 * nposts + 1;
        if (fresh) {
            for (int32_t k = 0; k < nposts; k++) {
                int32_t kind = posts[4 * k], peer = posts[4 * k + 1], slot = posts[4 * k + 2], count = posts[4 * k + 3];
                int32_t q = p2p_new_req(m, r);
                req_t *rq = REQ(m, q);
                rq->run_post = 1;
                rq->slot = slot;
                rq->count = count;
                rq->hdr = run->hdr;
                int32_t peer_world = run->members[peer];
                if (kind == 0) {
                    int64_t nbytes = 0;
                    for (int32_t j = 0; j < count; j++)
                        nbytes += run->sizes[slot + j];
                    if (count > 1) {
                        rq->parts = ppt_alloc((size_t)count, sizeof(int64_t));
                        memcpy(rq->parts, run->sizes + slot, sizeof(int64_t) * (size_t)count);
                    }
                    p2p_isend(m, r, peer_world, run->ctx, run->tag, nbytes, STANDARD, q);
                } else {
                    p2p_irecv(m, r, peer_world, run->ctx, run->tag, q);
                }
                if (run->nreqs == run->cap_reqs) {
                    int64_t cap = run->cap_reqs;
                    run->reqs = ppt_grow(run->reqs, &cap, sizeof(int32_t), run->nreqs + 1);
                    run->cap_reqs = (int32_t)cap;
                }
                run->reqs[run->nreqs++] = q;
            }
        }
        while (waited < nwaits) {
            int32_t q = run->reqs[waits[waited]];
            req_t *rq = REQ(m, q);
            if (!rq->done) {
                run->step = step;
                run->waited = waited;
                run->clock_s = m->now + rk->owed_s;
                run->awaited = q;
                return 0;
            }
            p2p_take(m, r, q);
            if (!rq->is_send) {
                if (rq->hdr.call != run->hdr.call || rq->hdr.root != run->hdr.root || rq->hdr.seq != run->hdr.seq) {
                    m->mismatch = rq->hdr;
                    m->mismatch_own = run->hdr;
                    m->mismatch_src = rq->status_src;
                    return -1;
                }
                if (rq->count == 1)
                    run->sizes[rq->slot] = rq->status_bytes;
                else
                    memcpy(run->sizes + rq->slot, rq->parts, sizeof(int64_t) * (size_t)rq->count);
            }
            waited++;
        }
        step++;
        if (step == nsteps)
            return 1;
        waited = 0;
        fresh = 1;
    }
}

static void run_end(ppt_mpi_t *m, int32_t r)
{
    run_t *run = &RANK(m, r)->run;
    for (int32_t k = 0; k < run->nreqs; k++)
        if (REQ(m, run->reqs[k])->done)
            p2p_release(m, run->reqs[k]);
    run->nreqs = 0;
    run->active = 0;
    run->schedule = NULL;
}

/* Start the run set for rank r: 1 if it completed at once, 0 if the rank now waits, -1 on mismatch. */
int run_start(ppt_mpi_t *m, int32_t r)
{
    run_t *run = &RANK(m, r)->run;
    if (run->schedule[0] == 0) {
        run_end(m, r);
        return 1;
    }
    int done = run_proceed(m, r, 1);
    if (done == 1)
        run_end(m, r);
    return done;
}

void run_resume(ppt_mpi_t *m, int32_t r)
{
    rank_t *rk = RANK(m, r);
    run_t *run = &rk->run;
    double now = m->now, clock = run->clock_s;
    rk->owed_s = clock > now ? clock - now : 0.0;
    int done = run_proceed(m, r, 0);
    if (done < 0 && rk->program) {              /* the process raises the mismatch */
        run->error = 1;
        run->active = 0;
        rk->state = R_READY;
        return;
    }
    if (done < 0) {                             /* Python reports the mismatch */
        m->need = PPT_MPI_MISMATCH;
        m->need_rank = r;
        rk->state = R_NEED;
        return;
    }
    if (done) {
        run_end(m, r);
        rk->state = R_READY;
    }
}
