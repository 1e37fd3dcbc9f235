/* Slim Fly routing tables (see slimfly.py for the MMS construction and port layout). */
#ifndef PPT_SLIMFLY_H
#define PPT_SLIMFLY_H
#include "core.h"

typedef struct ppt_slimfly {
    int32_t q, p, h;                    /* field order, nodes per router, intra-subgraph ports */
    int32_t num_routers;
    const int32_t *add, *sub, *mul;     /* GF(q) tables, [x * q + y] */
    const int32_t *inv;                 /* multiplicative inverse, [x] (0 at 0) */
    const int32_t *pos[2];              /* index of an element in X (subgraph 0) or X' (1), -1 if absent */
    const int32_t *two[2];              /* for a difference d: a generator a with d - a a generator, or -1 */
    int32_t radix;                      /* ports per router: p terminal, then h + q network ports */
    const int32_t *port_peer;           /* [router * radix + port]: peer router over a surviving link, -1 for
                                         * a failed link or a terminal; NULL when no link has failed */
} ppt_slimfly_t;

/* First output port of a minimal path from router r to router t != r; *hops gets 1 or 2. */
int32_t ppt_slimfly_min_step(const ppt_slimfly_t *sf, int32_t r, int32_t t, int32_t *hops);

int32_t ppt_slimfly_min_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc);
void ppt_slimfly_val_inject(const ppt_routing_t *rt, ppt_packet_t *pkt);
int32_t ppt_slimfly_val_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc);
void ppt_slimfly_ugal_inject(const ppt_routing_t *rt, ppt_packet_t *pkt);
int32_t ppt_slimfly_ugal_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc);
#endif
