/* Nonblocking collectives of program ranks (icoll.c; after mpicore.h): a collective's schedule run in the background. */

/* A new request of the rank's for a nonblocking collective, its schedule started (flattened as for
 * ppt_mpi_program_run, SEND and RECV posts only; sizes: its slots', bytes; members: the communicator's
 * world ranks, alive as long as the engine; the schedule, as long as the request).  Its status tag is 1
 * once complete if a message of another collective call came (ppt_mpi_mismatch). */
int32_t ppt_mpi_icoll(ppt_mpi_t *m, int32_t rank, const int32_t *schedule, const int64_t *sizes, int32_t nslots,
                      const int32_t *members, int32_t ctx, int64_t tag, int32_t hdr_call, int32_t hdr_root);
/* 1 if the flattened schedule can run in the background (SEND and RECV posts only), else 0. */
int32_t ppt_mpi_icoll_runs(const int32_t *schedule);
/* The step an unfinished nonblocking collective waits in; out: its first pending wait, 1 a send or 0 a
 * receive (-1 none), and its peer's rank in the communicator. */
int32_t ppt_mpi_icoll_waiting(const ppt_mpi_t *m, int32_t req, int64_t *out);
