/* One-sided communication (MPI RMA) for program ranks (ppt/mpi/surface/rma/window.py): transfers that no receive
 * matches and no receiver's CPU handles, as an RDMA NIC moves them.  Times in seconds, sizes in bytes. */

/* A request of world rank `rank`'s that a transfer completes (ppt_mpi_rma_put), not yet sent: the grant, the
 * acknowledgement or the notice an RMA synchronisation waits for.  Wait for it and release it as any other. */
int32_t ppt_mpi_rma_request(ppt_mpi_t *m, int32_t rank);
/* nbytes from world rank src to dst, request q (any rank's) completed when they arrive.  own 1: src's own call
 * sends them, at its clock, owing the send overhead; own 0: src's NIC does, at the engine's time, at no cost. */
void ppt_mpi_rma_put(ppt_mpi_t *m, int32_t src, int32_t dst, int64_t nbytes, int32_t q, int32_t own);
/* A get by world rank origin's own call: request_B to target, whose NIC sends reply_B back on arrival; returns
 * the origin's request, completed when the reply arrives.  *served: the target's part, a request to release
 * (ppt_mpi_wait_one as the target) once done. */
int32_t ppt_mpi_rma_get(ppt_mpi_t *m, int32_t origin, int32_t target, int64_t request_B, int64_t reply_B,
                        int32_t *served);
