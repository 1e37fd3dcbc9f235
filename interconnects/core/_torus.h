/* Private to the torus routings: the failure-aware routing (torus_failures.c) that torus.c hands
 * over to when t->port_peer is set, i.e. when some torus links have failed (see torus.py). */
#ifndef PPT_TORUS_PRIVATE_H
#define PPT_TORUS_PRIVATE_H
#include "torus.h"

/* VC of the up*-down* escape channel of the dimension-order routing with failed links. */
#define PPT_TORUS_DOR_ESCAPE_VC 4

void ppt_torus_fail_dor_inject(const ppt_routing_t *rt, ppt_packet_t *pkt);
int32_t ppt_torus_fail_dor_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc);
int32_t ppt_torus_fail_adaptive_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc);
/* The port of the escape path (up*-down* over the surviving links) from router towards target,
 * which must be in router's connected component; the parallel link is chosen by key. */
int32_t ppt_torus_escape_port(const ppt_torus_t *t, uint64_t key, int32_t router, int32_t target);
#endif
