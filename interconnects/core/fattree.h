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
    /* with failed links (NULL when none): reach[switch * leaves + leaf] is PPT_FT_DOWN when the leaf
     * switch is below the switch over surviving links, PPT_FT_UP when a switch with it below is
     * reached by climbing over surviving links, 0 otherwise; port_peer[switch * 2 * half + port] is
     * the surviving peer switch (-1 for a failed link, a node or an unused slot) */
    int32_t leaves;
    const uint8_t *reach;
    const int32_t *port_peer;
} ppt_fattree_t;

enum { PPT_FT_UP = 1, PPT_FT_DOWN = 2 };

void ppt_fattree_mlid_inject(const ppt_routing_t *rt, ppt_packet_t *pkt);
void ppt_fattree_dmodk_inject(const ppt_routing_t *rt, ppt_packet_t *pkt);
int32_t ppt_fattree_route(const ppt_routing_t *rt, ppt_packet_t *pkt, int32_t router, int32_t *vc);
#endif
