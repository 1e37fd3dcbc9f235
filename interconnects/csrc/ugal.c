/* UGAL-L (Kim, Dally, Scott & Abts, ISCA 2008; Besta & Hoefler's c_SF scale for Slim Fly, SC14):
 * the source router estimates each path's delay as the local queue of its first output port times
 * its hop count, and keeps the minimal path unless a Valiant path is cheaper by more than a bias.
 *
 * The bias is what keeps UGAL-L minimal under benign traffic: without it, any packet queued on the
 * minimal port while some random Valiant port is idle sends the next packet the long way, and at
 * high uniform load those detours double the global-link load they were meant to relieve.
 * BookSim's dragonfly UGAL-L keeps MIN while min_queue <= 2 * nonmin_queue + 30 flits, 30 flits
 * being three of its 10-flit packets; the bias here is likewise three packets of the routed one. */
#include "ugal.h"

enum { BIAS_PACKETS = 3 };

int32_t ppt_ugal_pick(const ppt_routing_t *rt, const ppt_packet_t *pkt, int32_t router, int32_t n,
                      const int32_t *first_port, const int32_t *hops, double scale)
{
    double best = 0.0;
    int32_t pick = 0;
    for (int32_t i = 1; i < n; i++) {
        double cost = ppt_occupancy(rt, router, first_port[i]) * hops[i] * scale;
        if (pick == 0 || cost < best) {
            best = cost;
            pick = i;
        }
    }
    double bias_B = (double)BIAS_PACKETS * pkt->size_B;     /* bytes of minimal queue tolerated */
    double min_cost = (ppt_occupancy(rt, router, first_port[0]) - bias_B) * hops[0];
    return pick && best < min_cost ? pick : 0;
}
