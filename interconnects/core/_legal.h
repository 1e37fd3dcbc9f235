/* Pieces shared by the failure-aware routings (grouped_failures.c, slimfly_failures.c). */
#ifndef PPT_LEGAL_H
#define PPT_LEGAL_H
#include <stdint.h>

/* Whether port `port` of router is a legal next hop towards target (the routing's own test). */
typedef int (*ppt_port_ok_fn)(const void *topo, int32_t router, int32_t port, int32_t target);

/* Among the ports [first, last) of router that ok() accepts, the (key mod count)-th; -1 if none.
 * Spreading packets over every legal port by their key keeps each packet's choice fixed (a route
 * is a function of the packet) while the load spreads over the surviving links. */
int32_t ppt_legal_port(const void *topo, ppt_port_ok_fn ok, uint64_t key, int32_t router, int32_t first,
                       int32_t last, int32_t target);
#endif
