/* Nonblocking collectives on a program rank (MPI_Iallreduce ...): a collective's schedule run in the background.
 *
 * The schedule is the blocking call's (ppt/mpi/collectives/schedule.py, flattened), of SEND and RECV posts
 * only, timed as the blocking run times it, on a clock of its own instead of the rank's: the call posts
 * the first step at the rank's clock (the rank owes the sends' overhead); once a step's waits are over
 * they are taken in order, each at the later of the clock and its completion, a receive adding its
 * receive overhead, and the next step's posts go out at that clock, as an MPI library's progress engine
 * would send them, while the rank does other things.  The request completes once the last step's waits
 * and every post are over; the rank's wait then owes what the clock is ahead of the engine (the last
 * receives' overhead), so a wait right after the call ends when the blocking call would have.
 *
 * Messages carry sizes only, as a blocking run's: a receive sets its slots' sizes, later sends carry them
 * on.  A message of another collective call sets the request's status tag to 1 (ppt_mpi_mismatch tells
 * which); the schedule goes on. */
#include <stdlib.h>
#include <string.h>
#include "_mpicore.h"
#include "mpicore_icoll.h"

struct icoll {
    const int32_t *schedule;    /* flattened: [steps, offset of each step, per step: posts, 4 ints each, waits, ...] */
    const int32_t *members;     /* the communicator's members (world ranks) */
    int64_t *sizes;             /* the slots' sizes, bytes */
    int8_t *done;               /* per post number: complete */
    double *at_s, *due_s;       /* per post number: when it completed, s, and the receive overhead it owes, s */
    int32_t *first;             /* per step: the number of its first post */
    int32_t step, pending, ctx; /* the step whose waits are awaited; posts out and not complete */
    int8_t posting, mismatch;   /* posts going out (completions only recorded); a foreign message came */
    hdr_t hdr;                  /* its messages' header (their tag: hdr.seq) */
    double clock_s;             /* the schedule's clock: when its last posts went out, then its waits taken, s */
};

static const int32_t *step_at(const struct icoll *c, int32_t k)
{
    return c->schedule + c->schedule[1 + k];
}

/* Post step k of request q's schedule; the rank's owed overhead is the progress engine's during it. */
static void post_step(ppt_mpi_t *m, int32_t q, int32_t k, int background)
{
    struct icoll *c = REQ(m, q)->icoll;
    int32_t r = REQ(m, q)->rank;
    const int32_t *step = step_at(c, k);
    double owed_s = RANK(m, r)->owed_s;
    if (background)
        RANK(m, r)->owed_s = c->clock_s > m->now ? c->clock_s - m->now : 0.0;
    c->posting = 1;
    for (int32_t i = 0; i < step[0]; i++) {
        const int32_t *post = step + 1 + 4 * i;
        int32_t slot = post[2], count = post[3], p = p2p_new_req(m, r);
        req_t *rq = REQ(m, p);
        rq->round_of = q;
        rq->icoll_post = c->first[k] + i;
        rq->slot = slot;
        rq->count = count;
        rq->hdr = c->hdr;
        c->pending++;
        if (post[0] == 0) {
            int64_t nbytes = 0;
            for (int32_t j = 0; j < count; j++)
                nbytes += c->sizes[slot + j];
            if (count > 1) {
                rq->parts = ppt_alloc((size_t)count, sizeof(int64_t));
                memcpy(rq->parts, c->sizes + slot, sizeof(int64_t) * (size_t)count);
            }
            rq->progress = 1;
            p2p_isend(m, r, c->members[post[1]], c->ctx, c->hdr.seq, nbytes, STANDARD, p);
        } else {
            p2p_irecv(m, r, c->members[post[1]], c->ctx, c->hdr.seq, p);
        }
    }
    c->posting = 0;
    c->clock_s = m->now + RANK(m, r)->owed_s;
    if (background)
        RANK(m, r)->owed_s = owed_s;
}

/* Whether step k's waits are over; if so, the clock has taken them in order. */
static int waits_over(struct icoll *c, int32_t k)
{
    const int32_t *step = step_at(c, k);
    const int32_t *waits = step + 1 + 4 * step[0];
    for (int32_t i = 0; i < waits[0]; i++)
        if (!c->done[waits[1 + i]])
            return 0;
    for (int32_t i = 0; i < waits[0]; i++) {
        int32_t n = waits[1 + i];
        c->clock_s = (c->clock_s > c->at_s[n] ? c->clock_s : c->at_s[n]) + c->due_s[n];
    }
    return 1;
}

/* Go on with request q's schedule as far as its completed posts allow; complete q at its end. */
static void advance(ppt_mpi_t *m, int32_t q)
{
    struct icoll *c = REQ(m, q)->icoll;
    int32_t nsteps = c->schedule[0];
    while (c->step < nsteps && waits_over(c, c->step))
        if (++c->step < nsteps)
            post_step(m, q, c->step, 1);
    if (c->step < nsteps || c->pending)
        return;
    req_t *rq = REQ(m, q);
    rq->overhead_due_s = c->clock_s > m->now ? c->clock_s - m->now : 0.0;
    rq->status_tag = c->mismatch;
    free(c->sizes);
    free(c->done);
    free(c->at_s);
    free(c->due_s);
    free(c->first);
    free(c);
    rq->icoll = NULL;
    p2p_finish(m, q);
}

int32_t ppt_mpi_icoll(ppt_mpi_t *m, int32_t r, const int32_t *schedule, const int64_t *sizes, int32_t nslots,
                      const int32_t *members, int32_t ctx, int64_t tag, int32_t hdr_call, int32_t hdr_root)
{
    int32_t q = p2p_new_req(m, r);
    req_t *rq = REQ(m, q);
    rq->src = rq->status_src = PROC_NULL;
    int32_t nsteps = schedule[0], nposts = 0;
    struct icoll *c = malloc(sizeof *c);
    *c = (struct icoll){.schedule = schedule, .members = members, .ctx = ctx, .hdr = {hdr_call, hdr_root, tag},
                        .sizes = ppt_alloc((size_t)(nslots ? nslots : 1), sizeof(int64_t)),
                        .first = ppt_alloc((size_t)(nsteps ? nsteps : 1), sizeof(int32_t))};
    memcpy(c->sizes, sizes, sizeof(int64_t) * (size_t)nslots);
    for (int32_t k = 0; k < nsteps; k++) {
        c->first[k] = nposts;
        nposts += step_at(c, k)[0];
    }
    c->done = calloc((size_t)(nposts ? nposts : 1), 1);
    c->at_s = ppt_alloc((size_t)(nposts ? nposts : 1), sizeof(double));
    c->due_s = ppt_alloc((size_t)(nposts ? nposts : 1), sizeof(double));
    rq->icoll = c;
    if (nsteps)
        post_step(m, q, 0, 0);
    advance(m, q);
    return q;
}

int32_t ppt_mpi_icoll_runs(const int32_t *schedule)
{
    for (int32_t k = 0; k < schedule[0]; k++) {
        const int32_t *step = schedule + schedule[1 + k];
        for (int32_t i = 0; i < step[0]; i++)
            if (step[1 + 4 * i] > 1)
                return 0;
    }
    return 1;
}

void icoll_post_done(ppt_mpi_t *m, int32_t p)
{
    req_t *rq = REQ(m, p);
    int32_t q = rq->round_of;
    struct icoll *c = REQ(m, q)->icoll;
    if (!rq->is_send) {
        if (rq->hdr.call != c->hdr.call || rq->hdr.root != c->hdr.root || rq->hdr.seq != c->hdr.seq) {
            m->mismatch = rq->hdr;
            m->mismatch_own = c->hdr;
            m->mismatch_src = rq->status_src;
            c->mismatch = 1;
        } else if (rq->count > 1) {
            memcpy(c->sizes + rq->slot, rq->parts, sizeof(int64_t) * (size_t)rq->count);
        } else {
            c->sizes[rq->slot] = rq->status_bytes;
        }
        c->due_s[rq->icoll_post] = rq->overhead_due_s;
    } else {
        c->due_s[rq->icoll_post] = 0.0;
    }
    c->at_s[rq->icoll_post] = m->now;
    c->done[rq->icoll_post] = 1;
    c->pending--;
    p2p_release(m, p);
    if (!c->posting)
        advance(m, q);
}

int32_t ppt_mpi_icoll_waiting(const ppt_mpi_t *m, int32_t q, int64_t *out)
{
    const struct icoll *c = m->reqs[q].icoll;
    const int32_t *step = step_at(c, c->step);
    const int32_t *waits = step + 1 + 4 * step[0];
    for (int32_t i = 0; i < waits[0]; i++) {
        int32_t n = waits[1 + i];
        if (c->done[n])
            continue;
        for (int32_t k = 0;; k++)
            if (k + 1 == c->schedule[0] || c->first[k + 1] > n) {
                const int32_t *post = step_at(c, k) + 1 + 4 * (n - c->first[k]);
                out[0] = post[0] == 0;
                out[1] = post[1];
                return c->step;
            }
    }
    out[0] = -1;
    return c->step;
}
