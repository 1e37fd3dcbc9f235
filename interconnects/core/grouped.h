/* Routing tables of the grouped topologies: dragonfly, Megafly, Cray Aries (dragonfly.py, megafly.py). */
#ifndef PPT_GROUPED_H
#define PPT_GROUPED_H
#include "core.h"

typedef struct ppt_grouped {
    int32_t a, g;                       /* routers per group, groups */
    int32_t L;                          /* local diameter: most local hops between two routers of a group */
    int32_t local_valiant;              /* 1: Valiant inside a group goes via a random router; 0: MIN */
    int32_t radix, local_ports, global_ports;   /* port layout: local, then global, then node ports */
    const int32_t *port_peer;           /* [router * radix + port]: peer router, -1 none */
    const int32_t *node_router, *node_port;
    const int32_t *local_next_start;    /* [u * a + v], a*a + 1 entries: ports of local router u one hop */
    const int32_t *local_next;          /*   closer to local router v */
    const int32_t *local_dist;          /* [u * a + v]: local hops */
    const int32_t *gw_start, *gw_count; /* [group * g + to_group]: global links between two groups */
    const int32_t *gw_router, *gw_port;
    const int32_t *router_dist;         /* [router * a + v]: surviving local hops to router v of its group
                                         * (PPT_GF_FAR if cut off); NULL when no link has failed */
} ppt_grouped_t;

void ppt_grouped_min_inject(const ppt_routing_t *rt, ppt_packet_t *pkt);
int32_t ppt_grouped_min_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc);
void ppt_grouped_val_inject(const ppt_routing_t *rt, ppt_packet_t *pkt);
int32_t ppt_grouped_ugal_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc);
int32_t ppt_grouped_par_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc);
#endif
