/* Routing tables of k-ary n-cubes (see torus.py for the port layout). */
#ifndef PPT_TORUS_H
#define PPT_TORUS_H
#include "core.h"

typedef struct ppt_torus {
    int32_t nrings;             /* dimensions with more than one router, in dimension order */
    int32_t dim[8];             /* the dimension of ring j */
    int32_t k[8];               /* routers around ring j */
    int32_t plus[8], minus[8];  /* first port of the + and - links of ring j */
    int32_t links[8];           /* parallel links per direction of ring j */
    int32_t stride[8];          /* router id step of one move + along ring j */
    const int32_t *coord;       /* [router * nrings + j]: the router's coordinate on ring j */
    const int32_t *node_router, *node_port;
    /* Link failures (torus_failures.c); port_peer is NULL when every link works. */
    int32_t num_routers, radix;
    const int32_t *port_peer;   /* [router * radix + port]: the far router, -1 for a failed link or a terminal port */
    const int32_t *esc_depth;   /* [router]: depth in the escape forest (a breadth-first tree per component) */
    const int32_t *esc_pre;     /* [router]: preorder number in that forest */
    const int32_t *esc_end;     /* [router]: esc_pre + the size of its subtree */
} ppt_torus_t;

void ppt_torus_inject(const ppt_routing_t *rt, ppt_packet_t *pkt);
void ppt_torus_adaptive_inject(const ppt_routing_t *rt, ppt_packet_t *pkt);
int32_t ppt_torus_dor_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc);
int32_t ppt_torus_adaptive_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc);
#endif
