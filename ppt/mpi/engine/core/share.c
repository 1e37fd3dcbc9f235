/* The MPI engine's fair sharing (max-min, as fairshare.py's FairShare shares), over the flow solver of
 * the packet core (interconnects/core/flow.c).
 *
 * All starts and ends at one simulated time are reshared once: the first change queues a resharing
 * for the end of the current instant (ppt_mpi.reshares, after its events and the ranks they woke), later
 * ones join it.  After a resharing one wake-up event waits for the solver's next completion time;
 * wake-ups made stale by a later resharing find nothing to end.  Every wake-up belongs to the share's
 * entity, so their order among simultaneous events does not depend on how a parallel run splits the
 * job. */
#include <string.h>
#include "_mpicore.h"

int32_t share_start(ppt_mpi_t *m, share_t *sh, int32_t path, double nbytes, int32_t queue, share_msg_t what)
{
    int32_t id = packet_core->flows_start(sh->flows, m->now, path, nbytes, queue);
    if (id >= sh->cap_msgs)
        sh->msgs = ppt_grow(sh->msgs, &sh->cap_msgs, sizeof(share_msg_t), (int64_t)id + 1);
    sh->msgs[id] = what;
    if (!sh->pending) {
        sh->pending = 1;
        mpi_at_instant(m, &m->reshares, EV_RESHARE, sh->entity);
    }
    return id;
}

void share_reshare(ppt_mpi_t *m, share_t *sh)
{
    sh->pending = 0;
    packet_core->flows_reshare(sh->flows, m->now);
    double next = packet_core->flows_next_s(sh->flows);
    if (next == INFINITY)
        return;
    for (int64_t k = 0; k < sh->nwakes; k++)
        if (sh->wakes[k] == next)
            return;
    sh->wakes = ppt_grow(sh->wakes, &sh->cap_wakes, sizeof(double), sh->nwakes + 1);
    sh->wakes[sh->nwakes++] = next;
    mpi_schedule(m, sh->entity, next, EV_SHARE_WAKE, sh->entity, 0);
}

void share_wake(ppt_mpi_t *m, share_t *sh, double at)
{
    for (int64_t k = 0; k < sh->nwakes; k++)
        if (sh->wakes[k] == at) {
            sh->wakes[k] = sh->wakes[--sh->nwakes];
            break;
        }
    if (packet_core->flows_next_s(sh->flows) > at)
        return;                                 /* stale: a resharing moved the completion */
    int32_t done[256];
    share_msg_t *ended = NULL;
    int64_t nended = 0, cap = 0;
    for (;;) {                                  /* every id is free for reuse before any message goes on */
        int32_t n = packet_core->flows_finish(sh->flows, at, done, 256);
        ended = ppt_grow(ended, &cap, sizeof(share_msg_t), nended + n);
        for (int32_t k = 0; k < n; k++)
            ended[nended++] = sh->msgs[done[k]];
        if (n < 256)
            break;
    }
    if (!sh->pending) {
        sh->pending = 1;
        mpi_at_instant(m, &m->reshares, EV_RESHARE, sh->entity);
    }
    for (int64_t k = 0; k < nended; k++)
        share_finished(m, sh, ended[k]);
    free(ended);
}

void share_free(share_t *sh)
{
    if (sh->flows)
        packet_core->flows_free(sh->flows);
    free(sh->wakes);
    free(sh->msgs);
}
