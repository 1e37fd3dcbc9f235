/* UGAL-L (Kim, Dally, Scott & Abts, ISCA 2008; Besta & Hoefler's c_SF scale for Slim Fly, SC14):
 * the source router compares the local queue of the minimal path's first port, weighted by hop
 * count, with those of a few random Valiant paths, and keeps the minimal path unless one is
 * strictly cheaper. */
#include "ugal.h"

int32_t ppt_ugal_pick(const ppt_routing_t *rt, int32_t router, int32_t n, const int32_t *first_port,
                      const int32_t *hops, double scale)
{
    double best = ppt_occupancy(rt, router, first_port[0]) * hops[0];
    int32_t pick = 0;
    for (int32_t i = 1; i < n && best > 0.0; i++) {
        double cost = ppt_occupancy(rt, router, first_port[i]) * hops[i] * scale;
        if (cost < best) {
            best = cost;
            pick = i;
        }
    }
    return pick;
}
