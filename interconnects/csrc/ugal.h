/* UGAL-L, shared by every adaptive routing: weigh the minimal path against Valiant candidates. */
#ifndef PPT_UGAL_H
#define PPT_UGAL_H
#include "core.h"

/* Index of the path to take among n paths from `router`: path 0 is the minimal one, the others
 * Valiant candidates.  A path costs the bytes queued at its first output port (first_port[i])
 * times its router hops (hops[i]), a candidate's cost also times `scale`; a candidate must be
 * strictly cheaper than every earlier path, so ties keep the minimal path. */
int32_t ppt_ugal_pick(const ppt_routing_t *rt, int32_t router, int32_t n, const int32_t *first_port,
                      const int32_t *hops, double scale);
#endif
