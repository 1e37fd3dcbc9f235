/* Routing tables of m-port n-trees (see fattree.py for the numbering and LID scheme). */
#ifndef PPT_FATTREE_H
#define PPT_FATTREE_H
#include "core.h"

typedef struct ppt_fattree {
    int32_t levels, half;               /* n, m / 2 */
    int64_t lids_per_node;              /* half^(n-1) */
    /* per switch: the destination is below it when dst / below_div == prefix, and then leaves on
     * port (dst / digit_div) % digit_mod; otherwise up on port half + ((dlid - 1) / digit_div) % half */
    const int64_t *below_div, *prefix, *digit_div, *digit_mod;
} ppt_fattree_t;

void ppt_fattree_mlid_inject(const ppt_routing_t *rt, ppt_packet_t *pkt);
void ppt_fattree_dmodk_inject(const ppt_routing_t *rt, ppt_packet_t *pkt);
int32_t ppt_fattree_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc);
#endif
