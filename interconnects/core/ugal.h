/* UGAL-L, shared by every adaptive routing: weigh the minimal path against Valiant candidates. */
#ifndef PPT_UGAL_H
#define PPT_UGAL_H
#include "core.h"

/* Index of the path `pkt` takes among n paths from `router`: path 0 is the minimal one, the others
 * Valiant candidates.  A path costs the bytes committed to its first output port (first_port[i]:
 * its queue, or the walk's occupancy, and on the live network what it left waiting in the next
 * router) times its router hops (hops[i]), a candidate's cost also times `scale`.  The cheapest
 * candidate wins only if it costs less than the minimal path with rt->bias_packets of pkt's packets
 * taken off the minimal queue (the bias toward MIN); otherwise, and on an idle network, 0.  Where failed
 * links leave no legal minimal path (minimal_legal 0), path 0 is not taken: the cheapest candidate. */
int32_t ppt_ugal_pick(const ppt_routing_t *rt, const ppt_packet_t *pkt, int32_t router, int32_t n,
                      const int32_t *first_port, const int32_t *hops, double scale,
                      int minimal_legal);
#endif
