/* The MPI engine's collective runner: one rank's schedule of a collective call, step by step.
 *
 * A rank executes its schedule of a collective call (ppt/mpi/collectives/schedule.py) from message
 * completions: a step's posts go out at the rank's clock, its waits are taken in order (a wait for a
 * pending request remembers the rank's clock, and when the request completes the runner goes on in
 * an event of the rank at the later of that clock and now), and taking over a receive owes the
 * receive overhead.  Runs carry no payloads: a received message sets its slots' sizes, which later
 * sends of the schedule carry on; a stream's or a flow's message carries its mark where a program's
 * message carries its payload handle.  A flow keeps per slot whether it is ready, and waits for
 * whichever of its heads completes first by marking them waited (run->any). */
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


/* Post a message of the run at the rank's clock: a send of slots slot .. slot + count - 1 to the
 * communicator's rank peer (their sizes summed), or a receive from it into them; mark: the payload
 * (a stream message's mark); progress: a flow's (req_t).  Its request. */
static int32_t run_post(ppt_mpi_t *m, int32_t r, int is_send, int32_t peer, int32_t slot, int32_t count, int64_t mark,
                        int progress)
{
    run_t *run = &RANK(m, r)->run;
    int32_t q = p2p_new_req(m, r);
    req_t *rq = REQ(m, q);
    rq->run_post = 1;
    rq->progress = (int8_t)progress;
    rq->slot = slot;
    rq->count = count;
    rq->hdr = run->hdr;
    rq->payload = mark;
    int32_t peer_world = run->members[peer];
    if (is_send) {
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
    return q;
}

static void keep_req(run_t *run, int32_t q)
{
    if (run->nreqs == run->cap_reqs) {
        int64_t cap = run->cap_reqs;
        run->reqs = ppt_grow(run->reqs, &cap, sizeof(int32_t), run->nreqs + 1);
        run->cap_reqs = (int32_t)cap;
    }
    run->reqs[run->nreqs++] = q;
}

/* A new slot after the last, of nbytes; its number. */
static int32_t new_slot(run_t *run, int64_t nbytes)
{
    if (run->nslots == run->cap_slots) {
        int64_t cap = run->cap_slots;
        run->sizes = ppt_grow(run->sizes, &cap, sizeof(int64_t), run->nslots + 1);
        run->cap_slots = (int32_t)cap;
    }
    run->sizes[run->nslots] = nbytes;
    return run->nslots++;
}

/* The flow defined at def (the flattened Flow of ppt/mpi/engine/replay.py flatten) started: its receives
 * posted, peer after peer; its index in the run's flows. */
static int32_t flow_start(ppt_mpi_t *m, int32_t r, const int32_t *def)
{
    run_t *run = &RANK(m, r)->run;
    if (run->nflows == run->cap_flows) {
        int64_t cap = run->cap_flows;
        run->flows = ppt_grow(run->flows, &cap, sizeof(flow_t), run->nflows + 1);
        run->cap_flows = (int32_t)cap;
    }
    int32_t window = def[0], ngroups = def[1], nrecvs = 0;
    for (int32_t g = 0; g < ngroups; g++)
        nrecvs += def[3 + 2 * g];
    const int32_t *at = def + 2 + 2 * ngroups;
    int32_t nstreams = *at++;
    flow_t f = {.window = window, .ngroups = ngroups, .nheads = -1,
                .recvs = ppt_alloc((size_t)nrecvs, sizeof(int32_t)),
                .group = ppt_alloc((size_t)(2 * ngroups), sizeof(int32_t)),
                .streams = ppt_alloc((size_t)nstreams, sizeof(stream_t)),
                .ready = ppt_alloc((size_t)run->nslots, sizeof(int8_t)),
                .heads = ppt_alloc((size_t)(ngroups + nstreams), sizeof(int32_t))};
    for (int32_t g = 0, k = 0; g < ngroups; g++) {
        f.group[2 * g] = k;
        for (int32_t i = 0; i < def[3 + 2 * g]; i++)
            f.recvs[k++] = run_post(m, r, 0, def[2 + 2 * g], -1, 1, 0, 1);
        f.group[2 * g + 1] = k;
    }
    for (int32_t s = 0; s < nstreams; s++) {
        int32_t ntasks = *at++;
        if (ntasks)
            f.streams[f.nstreams++] = (stream_t){at, ntasks, ppt_alloc((size_t)(2 * window), sizeof(int32_t)), 0};
        for (int32_t k = 0; k < ntasks; k++)
            at += 3 + at[0] + at[1 + at[0]] + 3 * at[2 + at[0] + at[1 + at[0]]];
    }
    run = &RANK(m, r)->run;
    run->flows[run->nflows] = f;
    return run->nflows++;
}

static void flow_free(flow_t *f)
{
    for (int32_t s = 0; s < f->nstreams; s++)
        free(f->streams[s].fly);
    free(f->recvs);
    free(f->group);
    free(f->streams);
    free(f->ready);
    free(f->sends);
    free(f->heads);
}

/* Post one entry of a step's posts (ppt/mpi/collectives/schedule.py: SEND, RECV, STREAM, RELAY, FLOW). */
static void post_entry(ppt_mpi_t *m, int32_t r, const int32_t *post)
{
    run_t *run = &RANK(m, r)->run;
    int32_t kind = post[0], peer = post[1], slot = post[2], count = post[3];
    if (kind == 0 || kind == 1) {
        keep_req(run, run_post(m, r, kind == 0, peer, slot, count, 0, 0));
    } else if (kind == 2) {
        for (int32_t i = 0; i < count; i++)
            keep_req(run, run_post(m, r, 1, peer, slot + i, 1, count - 1 - i, 0));
    } else if (kind == 4) {
        int32_t k = flow_start(m, r, run->schedule + peer);
        keep_req(&RANK(m, r)->run, -1 - FLOW_TAG - k);
    } else {
        if (run->nrelays == run->cap_relays) {
            int64_t cap = run->cap_relays;
            run->relays = ppt_grow(run->relays, &cap, sizeof(relay_t), run->nrelays + 1);
            run->cap_relays = (int32_t)cap;
        }
        run->relays[run->nrelays] = (relay_t){peer, slot, count, run_post(m, r, 0, peer, -1, 1, 0, 0), run->nfwds};
        keep_req(run, -1 - run->nrelays++);
    }
}

/* Take over completed receive q: 0, or -1 if it belongs to another collective call (m->mismatch). */
static int take_receive(ppt_mpi_t *m, int32_t r, int32_t q)
{
    run_t *run = &RANK(m, r)->run;
    req_t *rq = REQ(m, q);
    p2p_take(m, r, q);
    if (rq->hdr.call != run->hdr.call || rq->hdr.root != run->hdr.root || rq->hdr.seq != run->hdr.seq) {
        m->mismatch = rq->hdr;
        m->mismatch_own = run->hdr;
        m->mismatch_src = rq->status_src;
        return -1;
    }
    return 0;
}

/* Take relay k's completed receives in turn, each into a new slot, forwarding it and posting the next
 * receive: the pending receive, -1 once its last stream is in, -2 on mismatched collectives. */
static int32_t relay_take(ppt_mpi_t *m, int32_t r, int32_t k)
{
    run_t *run = &RANK(m, r)->run;
    for (;;) {
        relay_t *rl = &run->relays[k];
        int32_t q = rl->current;
        req_t *rq = REQ(m, q);
        if (!rq->done)
            return q;
        if (take_receive(m, r, q) < 0)
            return -2;
        int32_t slot = new_slot(run, rq->status_bytes);
        int64_t mark = rq->payload;
        p2p_release(m, q);
        if (rl->dest >= 0) {
            int32_t f = run_post(m, r, 1, rl->dest, slot, 1, mark, 0);
            if (run->nfwds == run->cap_fwds) {
                int64_t cap = run->cap_fwds;
                run->fwds = ppt_grow(run->fwds, &cap, 2 * sizeof(int32_t), run->nfwds + 1);
                run->cap_fwds = (int32_t)cap;
            }
            run->fwds[2 * run->nfwds] = k;
            run->fwds[2 * run->nfwds++ + 1] = f;
        }
        rl = &run->relays[k];
        rl->left -= mark == 0;
        if (!rl->left)
            return -1;
        rl->current = run_post(m, r, 0, rl->source, -1, 1, 0, 0);
    }
}

/* Take relay k's forwarded sends over in turn: the first pending one, or -1 once all are. */
static int32_t forwards_take(ppt_mpi_t *m, int32_t r, int32_t k)
{
    run_t *run = &RANK(m, r)->run;
    relay_t *rl = &run->relays[k];
    for (; rl->next_fwd < run->nfwds; rl->next_fwd++) {
        if (run->fwds[2 * rl->next_fwd] != k)
            continue;
        int32_t q = run->fwds[2 * rl->next_fwd + 1];
        if (!p2p_done(m, q))
            return q;
        p2p_take(m, r, q);
    }
    return -1;
}

/* Take over flow k's completed receives, each peer's in order, filling the slot each one's mark names:
 * 0, or -1 on mismatched collectives. */
static int flow_arrivals(ppt_mpi_t *m, int32_t r, int32_t k)
{
    run_t *run = &RANK(m, r)->run;
    flow_t *f = &run->flows[k];
    for (int32_t g = 0; g < f->ngroups; g++)
        for (; f->group[2 * g] < f->group[2 * g + 1]; f->group[2 * g]++) {
            int32_t q = f->recvs[f->group[2 * g]];
            req_t *rq = REQ(m, q);
            if (!rq->done)
                break;
            if (take_receive(m, r, q) < 0)
                return -1;
            run->sizes[rq->payload] = rq->status_bytes;
            f->ready[rq->payload] = 1;
            p2p_release(m, q);
        }
    return 0;
}

/* Run stream s's next task of flow k: its combines' destinations become ready (they keep their sizes),
 * its sends go out, and, if it sent anything, it is in flight. */
static void flow_task(ppt_mpi_t *m, int32_t r, int32_t k, int32_t s)
{
    flow_t *f = &RANK(m, r)->run.flows[k];
    stream_t *st = &f->streams[s];
    const int32_t *task = st->task, *dsts = task + 1 + task[0], *sends = dsts + 1 + dsts[0];
    for (int32_t i = 0; i < dsts[0]; i++)
        f->ready[dsts[1 + i]] = 1;
    int32_t first = f->nsends;
    for (int32_t i = 0; i < sends[0]; i++) {
        const int32_t *send = sends + 1 + 3 * i;
        int32_t q = run_post(m, r, 1, send[0], send[1], 1, send[2], 1);
        f = &RANK(m, r)->run.flows[k];
        if (f->nsends == f->cap_sends) {
            int64_t cap = f->cap_sends;
            f->sends = ppt_grow(f->sends, &cap, sizeof(int32_t), f->nsends + 1);
            f->cap_sends = (int32_t)cap;
        }
        f->sends[f->nsends++] = q;
    }
    st = &f->streams[s];
    if (f->nsends > first) {
        st->fly[2 * st->nfly] = first;
        st->fly[2 * st->nfly++ + 1] = f->nsends - first;
    }
    st->task = sends + 1 + 3 * sends[0];
    st->left--;
}

/* Whether stream st's oldest task in flight has all its sends complete. */
static int oldest_landed(ppt_mpi_t *m, const flow_t *f, const stream_t *st)
{
    for (int32_t i = 0; i < st->fly[1]; i++)
        if (!p2p_done(m, f->sends[st->fly[0] + i]))
            return 0;
    return 1;
}

/* The streams of flow k take turns, one task each per round, until none can run one; streams that have
 * run all their tasks leave. */
static void flow_streams(ppt_mpi_t *m, int32_t r, int32_t k)
{
    for (int moved = 1; moved;) {
        moved = 0;
        flow_t *f = &RANK(m, r)->run.flows[k];
        for (int32_t s = 0; s < f->nstreams; s++) {
            stream_t *st = &f->streams[s];
            while (st->nfly && oldest_landed(m, f, st))
                memmove(st->fly, st->fly + 2, sizeof(int32_t) * (size_t)(2 * --st->nfly));
            if (!st->left || st->nfly >= f->window)
                continue;
            int ready = 1;
            for (int32_t i = 0; i < st->task[0]; i++)
                ready &= f->ready[st->task[1 + i]];
            if (ready) {
                flow_task(m, r, k, s);
                f = &RANK(m, r)->run.flows[k];
                moved = 1;
            }
        }
        int32_t live = 0;
        for (int32_t s = 0; s < f->nstreams; s++) {
            if (f->streams[s].left)
                f->streams[live++] = f->streams[s];
            else
                free(f->streams[s].fly);
        }
        f->nstreams = live;
    }
}

/* Run flow k on (after a wait, first taking over its completed receives): -1 once every stream has run
 * all its tasks, -3 when it waits for whichever of its heads (none complete, their waited set)
 * completes first, -2 on mismatched collectives. */
static int32_t flow_take(ppt_mpi_t *m, int32_t r, int32_t k)
{
    flow_t *f = &RANK(m, r)->run.flows[k];
    if (f->nheads >= 0) {
        for (int32_t i = 0; i < f->nheads; i++)
            REQ(m, f->heads[i])->waited = 0;
        f->nheads = -1;
        if (flow_arrivals(m, r, k) < 0)
            return -2;
    }
    for (;;) {
        flow_streams(m, r, k);
        f = &RANK(m, r)->run.flows[k];
        if (!f->nstreams)
            return -1;
        int32_t n = 0, any_done = 0;
        for (int32_t g = 0; g < f->ngroups; g++)
            if (f->group[2 * g] < f->group[2 * g + 1])
                f->heads[n++] = f->recvs[f->group[2 * g]];
        for (int32_t s = 0; s < f->nstreams; s++) {
            const stream_t *st = &f->streams[s];
            if (st->nfly < f->window)
                continue;
            int32_t i = 0;
            while (p2p_done(m, f->sends[st->fly[0] + i]))
                i++;
            f->heads[n++] = f->sends[st->fly[0] + i];
        }
        for (int32_t i = 0; i < n; i++)
            any_done |= p2p_done(m, f->heads[i]);
        if (!any_done) {
            for (int32_t i = 0; i < n; i++)
                REQ(m, f->heads[i])->waited = 1;
            f->nheads = n;
            return -3;
        }
        if (flow_arrivals(m, r, k) < 0)
            return -2;
    }
}

/* Take flow k's sends over in turn: the first pending one, or -1 once all are. */
static int32_t flow_sends_take(ppt_mpi_t *m, int32_t r, int32_t k)
{
    flow_t *f = &RANK(m, r)->run.flows[k];
    for (; f->taken < f->nsends; f->taken++) {
        int32_t q = f->sends[f->taken];
        if (!p2p_done(m, q))
            return q;
        p2p_take(m, r, q);
    }
    return -1;
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
        if (fresh)
            for (int32_t k = 0; k < nposts; k++)
                post_entry(m, r, posts + 4 * k);
        while (waited < nwaits) {
            int32_t n = waits[waited], at = n >= 0 ? n : -1 - n;
            int32_t q = run->reqs[at];
            if (q == RUN_TAKEN) {
                waited++;
                continue;
            }
            if (q < 0) {                        /* a relay or flow, or (n < 0) its sends */
                int32_t k = -1 - q;
                if (k < FLOW_TAG)
                    q = n >= 0 ? relay_take(m, r, k) : forwards_take(m, r, k);
                else
                    q = n >= 0 ? flow_take(m, r, k - FLOW_TAG) : flow_sends_take(m, r, k - FLOW_TAG);
                if (q == -2)
                    return -1;
                if (q == -1) {
                    waited++;
                    continue;
                }
                if (q == -3) {                  /* whichever of the flow's heads completes first */
                    const flow_t *f = &run->flows[k - FLOW_TAG];
                    run->step = step;
                    run->waited = waited;
                    run->clock_s = m->now + rk->owed_s;
                    run->awaited = f->heads[0];
                    run->any = 1;
                    return 0;
                }
            }
            req_t *rq = REQ(m, q);
            if (!p2p_done(m, q)) {
                run->step = step;
                run->waited = waited;
                run->clock_s = m->now + rk->owed_s;
                run->awaited = q;
                p2p_await(m, q);
                return 0;
            }
            if (rq->is_send) {
                p2p_take(m, r, q);
            } else {
                if (take_receive(m, r, q) < 0)
                    return -1;
                if (rq->count == 1)
                    run->sizes[rq->slot] = rq->status_bytes;
                else
                    memcpy(run->sizes + rq->slot, rq->parts, sizeof(int64_t) * (size_t)rq->count);
            }
            p2p_release(m, q);                  /* a long schedule (an alltoall's) keeps no request it is done with */
            run->reqs[at] = RUN_TAKEN;
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
        if (run->reqs[k] >= 0 && REQ(m, run->reqs[k])->done)
            p2p_release(m, run->reqs[k]);
    for (int32_t k = 0; k < run->nfwds; k++)
        if (REQ(m, run->fwds[2 * k + 1])->done)
            p2p_release(m, run->fwds[2 * k + 1]);
    for (int32_t k = 0; k < run->nflows; k++) {
        flow_t *f = &run->flows[k];
        for (int32_t i = 0; i < f->nsends; i++)
            if (REQ(m, f->sends[i])->done)
                p2p_release(m, f->sends[i]);
        flow_free(f);
    }
    run->nreqs = run->nrelays = run->nfwds = run->nflows = 0;
    run->active = 0;
    run->schedule = NULL;
}

/* Start the run set for rank r: 1 if it completed at once, 0 if the rank now waits, -1 on mismatch. */
int run_start(ppt_mpi_t *m, int32_t r)
{
    run_t *run = &RANK(m, r)->run;
    run->nrelays = run->nfwds = run->nflows = 0;
    run->any = 0;
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
