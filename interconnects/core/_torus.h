/* Private to the torus routings: the failure-aware routing (torus_failures.c) that torus.c hands
 * over to when t->port_peer is set, i.e. when some torus links have failed (see torus.py). */
#ifndef PPT_TORUS_PRIVATE_H
#define PPT_TORUS_PRIVATE_H
#include "torus.h"

/* pkt->route[0], one hash per packet: its bits from PPT_TORUS_PICK_SHIFT up pick among parallel links. */
#define PPT_TORUS_PICK_SHIFT 32
/* VC of the up*-down* escape channel of the dimension-order routing with failed links. */
#define PPT_TORUS_DOR_ESCAPE_VC 4

/* The productive moves of a minimally adaptive packet at a router: ring directions it may take
 * next, each with its first port, parallel links and dateline VC bit. */
enum { PPT_TORUS_MAX_MOVES = 16 };
typedef struct ppt_torus_moves {
    int32_t port[PPT_TORUS_MAX_MOVES], links[PPT_TORUS_MAX_MOVES], dateline[PPT_TORUS_MAX_MOVES];
    int32_t count;
    int32_t finished;       /* rings already at the destination coordinate */
} ppt_torus_moves_t;
/* Whether a packet at router may enter a ring through ports [first, first + links), `hops` hops to
 * go along it. */
typedef int (*ppt_torus_enter_fn)(const ppt_torus_t *t, int32_t router, int32_t first, int32_t links,
                                  int32_t hops);
/* The productive moves of pkt at router (not target): the way it is going along a ring it has
 * entered, else a minimal way into each ring not finished that may_enter (NULL: any) allows. */
void ppt_torus_adaptive_moves(const ppt_torus_t *t, const ppt_packet_t *pkt, int32_t router, int32_t target,
                              ppt_torus_enter_fn may_enter, ppt_torus_moves_t *moves);
/* The least occupied port with a working link among the moves' (ties split by key), and its VC
 * (*vc: 2 * finished + dateline); -1 (and VC 0) if no such port. */
int32_t ppt_torus_least_occupied(const ppt_routing_t *rt, const ppt_torus_moves_t *moves, int32_t router,
                                 uint64_t key, int32_t *vc);

void ppt_torus_fail_dor_inject(const ppt_routing_t *rt, ppt_packet_t *pkt);
int32_t ppt_torus_fail_dor_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc);
int32_t ppt_torus_fail_adaptive_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc);
/* The port of the escape path (up*-down* over the surviving links) from router towards target,
 * which must be in router's connected component; the parallel link is chosen by key. */
int32_t ppt_torus_escape_port(const ppt_torus_t *t, uint64_t key, int32_t router, int32_t target);
#endif
