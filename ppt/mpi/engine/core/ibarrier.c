/* MPI_Ibarrier on a program rank: ppt/mpi/surface/communicators/ibarrier.py's dissemination barrier, progressed by
 * its messages.
 *
 * ceil(log2 P) rounds: in the round at distance dist (1, 2, 4, ...) the rank sends an empty message to
 * rank me + dist and receives one from rank me - dist of the communicator.  The call starts the first
 * round at the rank's clock; the completion of a round's two messages starts the next from the engine's
 * events, as an MPI library's progress engine would, and the last completes the barrier's request.  The
 * rounds after the first cost the rank no software overhead: they are sent at the engine's time, not at
 * the rank's clock. */
#include <stdlib.h>
#include "_mpicore.h"

struct ibarrier {
    const int32_t *members;     /* the communicator's members (world ranks) */
    int32_t size, me, ctx;      /* its size, the rank's rank in it, its collective context */
    int32_t dist, pending;      /* the round's distance, and its messages not yet complete */
    hdr_t hdr;                  /* its messages' header (their tag: hdr.seq) */
};

/* Start the round at distance b->dist of barrier request q: its send, then its receive. */
static void start_round(ppt_mpi_t *m, int32_t q)
{
    int32_t r = REQ(m, q)->rank;
    struct ibarrier *b = REQ(m, q)->barrier;
    b->pending = 2;
    int32_t send = p2p_new_req(m, r);
    REQ(m, send)->round_of = q;
    REQ(m, send)->progress = 1;
    REQ(m, send)->hdr = b->hdr;
    p2p_isend(m, r, b->members[(b->me + b->dist) % b->size], b->ctx, b->hdr.seq, 0, STANDARD, send);
    int32_t recv = p2p_new_req(m, r);
    REQ(m, recv)->round_of = q;
    p2p_irecv(m, r, b->members[(b->me - b->dist + b->size) % b->size], b->ctx, b->hdr.seq, recv);
}

int32_t ppt_mpi_ibarrier(ppt_mpi_t *m, int32_t r, const int32_t *members, int32_t size, int32_t me, int32_t ctx,
                         int64_t seq, int32_t hdr_call)
{
    int32_t q = p2p_new_req(m, r);
    REQ(m, q)->is_send = 1;
    REQ(m, q)->src = PROC_NULL;
    if (size == 1) {
        REQ(m, q)->done = 1;
        return q;
    }
    struct ibarrier *b = malloc(sizeof *b);
    *b = (struct ibarrier){members, size, me, ctx, 1, 0, {hdr_call, -1, seq}};
    REQ(m, q)->barrier = b;
    start_round(m, q);
    return q;
}

void ibarrier_round_done(ppt_mpi_t *m, int32_t q)
{
    struct ibarrier *b = REQ(m, q)->barrier;
    if (--b->pending)
        return;
    b->dist <<= 1;
    if (b->dist >= b->size) {
        free(b);
        REQ(m, q)->barrier = NULL;
        p2p_finish(m, q);
        return;
    }
    rank_t *rk = RANK(m, REQ(m, q)->rank);
    double owed_s = rk->owed_s;                 /* sent by the progress engine now, not at the rank's clock */
    rk->owed_s = 0.0;
    start_round(m, q);
    rk->owed_s = owed_s;
}

int32_t ppt_mpi_ibarrier_dist(const ppt_mpi_t *m, int32_t q)
{
    return m->reqs[q].barrier->dist;
}
