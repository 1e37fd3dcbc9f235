/* One-sided communication on the MPI engine (rma.h): the point-to-point layer's data messages, which complete
 * the request they name on arrival with no matching, carry a put; a get is its request as a clear-to-send,
 * whose arrival makes the target's NIC send the data back (p2p_arrive), with no process of the target's. */
#include "_mpicore.h"
#include "rma.h"

/* The tag of one-sided messages, which no tag range of ppt_mpi_set_classes holds: they are in the
 * point-to-point class. */
#define RMA_TAG (-1)

int32_t ppt_mpi_rma_request(ppt_mpi_t *m, int32_t rank)
{
    return p2p_new_req(m, rank);
}

/* When src sends: its clock, owing the send overhead (own), else now. */
static double departure(ppt_mpi_t *m, int32_t src, int64_t nbytes, int32_t own)
{
    if (!own)
        return m->now;
    rank_t *rk = RANK(m, src);
    rk->owed_s += m->send_o;
    rk->messages_sent++;
    rk->bytes_sent += nbytes;
    return m->now + rk->owed_s;
}

void ppt_mpi_rma_put(ppt_mpi_t *m, int32_t src, int32_t dst, int64_t nbytes, int32_t q, int32_t own)
{
    p2p_transfer(m, DATA, src, dst, -1, q, 0, RMA_TAG, nbytes, departure(m, src, nbytes, own));
}

int32_t ppt_mpi_rma_get(ppt_mpi_t *m, int32_t origin, int32_t target, int64_t request_B, int64_t reply_B,
                        int32_t *served)
{
    double start_s = departure(m, origin, request_B, 1);
    int32_t q = p2p_new_req(m, origin);
    int32_t s = p2p_new_req(m, target);         /* the target NIC's send of the reply */
    REQ(m, s)->is_send = 1;
    REQ(m, s)->nbytes = reply_B;
    REQ(m, s)->tag = RMA_TAG;                   /* (the reply's, p2p_arrive) */
    p2p_transfer(m, CTS, origin, target, s, q, 0, RMA_TAG, request_B, start_s);
    *served = s;
    return q;
}
