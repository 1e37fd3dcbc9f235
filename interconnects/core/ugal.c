/* UGAL-L (Kim, Dally, Scott & Abts, ISCA 2008; Besta & Hoefler's c_SF scale for Slim Fly, SC14):
 * the source router estimates each path's delay as the bytes its first output port is committed to
 * (committed_B) times its router hops, and keeps the minimal path unless a Valiant path is cheaper
 * by more than a bias.
 *
 * The bias is what keeps UGAL-L minimal under benign traffic: without it, any packet queued on the
 * minimal port while some random Valiant port is idle sends the next packet the long way, and at
 * high uniform load those detours double the global-link load they were meant to relieve.
 * BookSim's dragonfly UGAL-L keeps MIN while min_queue <= 2 * nonmin_queue + 30 flits, 30 flits
 * being three of its 10-flit packets; the bias here is likewise a number of packets of the routed one
 * (rt->bias_packets, network.ugal_bias_packets, 3 by default), as Aries lets a job choose how strongly its
 * adaptive routing leans toward minimal paths (Cray MPICH_GNI_ROUTING_MODE, ADAPTIVE_0 to ADAPTIVE_3). */
#include "ugal.h"

/* Bytes a path's first port is committed to.  The core's routers queue at their outputs, so the
 * local queue (ppt_occupancy) grows only once the next router's input buffer is full; BookSim's
 * input-queued routers compare the used credits of the port instead, which count the packets that
 * wait in the next router as soon as they arrive.  On the live network with credits this adds the
 * port's used credits beyond what a busy link holds in flight over one credit round trip
 * (ppt_credits_waiting_B), so a queue behind a saturated link one hop away shows before it has
 * filled the buffers that other traffic through that router needs. */
static double committed_B(const ppt_routing_t *rt, const ppt_packet_t *pkt, int32_t router, int32_t port)
{
    return ppt_occupancy(rt, router, port) + ppt_credits_waiting_B(rt, router, port, pkt->size_B);
}

int32_t ppt_ugal_pick(const ppt_routing_t *rt, const ppt_packet_t *pkt, int32_t router, int32_t n,
                      const int32_t *first_port, const int32_t *hops, double scale, int minimal_legal)
{
    double best = 0.0;
    int32_t pick = 0;
    for (int32_t i = 1; i < n; i++) {
        double cost = committed_B(rt, pkt, router, first_port[i]) * hops[i] * scale;
        if (pick == 0 || cost < best) {
            best = cost;
            pick = i;
        }
    }
    if (!minimal_legal)
        return pick;
    double bias_B = rt->bias_packets * pkt->size_B;     /* bytes of minimal queue tolerated */
    double min_cost = (committed_B(rt, pkt, router, first_port[0]) - bias_B) * hops[0];
    return pick && best < min_cost ? pick : 0;
}
