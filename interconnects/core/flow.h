/* The flow network's core: messages as flows sharing resources max-min fairly over simulated time.
 *
 * Resources (links, NIC injection and ejection) are numbered 0 .. n-1, each of
 * a capacity in bytes/s.  A path is one or more routes, each a list of
 * distinct resources; a message started on a path moves its bytes split
 * evenly over the path's routes, one flow per route.  Messages may be
 * started on a queue (numbered from 0 by the caller, e.g. a NIC): a queue moves one message at a
 * time, in the order they were started; the next one's flows start when the
 * last flow of the one before has finished.  Rates are max-min fair
 * (progressive filling) and are recomputed by ppt_flows_reshare() over the
 * flows connected, through shared resources, to a resource touched since the
 * last resharing.  Python drives it once per message: start it, reshare at
 * the same simulated time, ask for the next completion time, and collect the
 * messages whose last flow has finished.  Units are SI: seconds and bytes.
 */
#ifndef PPT_FLOW_H
#define PPT_FLOW_H
#include <stdint.h>

typedef struct ppt_flows ppt_flows_t;

/* A solver over `num_resources` resources of capacity_Bps[i] > 0 bytes/s (copied). */
ppt_flows_t *ppt_flows_new(int32_t num_resources, const double *capacity_Bps);
void ppt_flows_free(ppt_flows_t *fs);
double ppt_flows_capacity_Bps(const ppt_flows_t *fs, int32_t resource);

/* A path of `num_routes` routes, route i crossing route_len[i] resources listed one route after
 * another in `resources`.  Returns its id, or -1 if a resource is out of range or repeated in a route. */
int32_t ppt_flows_add_path(ppt_flows_t *fs, int32_t num_routes, const int32_t *route_len, const int32_t *resources);

/* Routes of `path`: how many, and route i's resources (*resources points into the solver's tables,
 * valid until the next path is added) and their count. */
int32_t ppt_flows_path_routes(const ppt_flows_t *fs, int32_t path);
int32_t ppt_flows_path_route(const ppt_flows_t *fs, int32_t path, int32_t i, const int32_t **resources);

/* Local fairness (local != 0): share each resource among its inputs first (the resources before it
 * on its flows' routes, as a router port's round-robin arbitration serves its input ports), then
 * each input's share among its flows, each share water-filled (what a claim cannot use goes to the
 * others); a flow's rate is the least it is given on its route.  Default 0: max-min fairness. */
void ppt_flows_set_local(ppt_flows_t *fs, int32_t local);

/* Start moving nbytes_B (> 0) over `path` at now_s, behind the messages of `queue` (-1: none);
 * returns the message's id (reused once it is done).  Its flows move from the next
 * ppt_flows_reshare() after its turn has come. */
int32_t ppt_flows_start(ppt_flows_t *fs, double now_s, int32_t path, double nbytes_B, int32_t queue);

/* Recompute, at now_s, the rates of every flow connected to a resource touched since the last call. */
void ppt_flows_reshare(ppt_flows_t *fs, double now_s);

/* The earliest time a flow will finish at the current rates (s; infinity if none moves). */
double ppt_flows_next_s(const ppt_flows_t *fs);

/* End the flows finishing by now_s (in order of finish time, then start); writes into done[] the ids
 * of messages whose last flow ended, at most max_done of them, and returns how many.  Call again while
 * it returns max_done. */
int32_t ppt_flows_finish(ppt_flows_t *fs, double now_s, int32_t *done, int32_t max_done);

/* The rate (bytes/s) message `message` moves at now: the sum of its flows' rates (0 while queued). */
double ppt_flows_rate_Bps(const ppt_flows_t *fs, int32_t message);

/* The bytes the flows crossing `resource` still have to move at now_s (at their current rates). */
double ppt_flows_backlog_B(const ppt_flows_t *fs, int32_t resource, double now_s);

/* Resharings done, and flows they covered (cost figures for statistics). */
int64_t ppt_flows_reshares(const ppt_flows_t *fs);
int64_t ppt_flows_reshared_flows(const ppt_flows_t *fs);
#endif
