/* Private to the C sources: the live network's state as seen by routings. */
#ifndef PPT_NET_H
#define PPT_NET_H
#include "core.h"

double ppt_net_port_occupancy(const struct ppt_net *net, int32_t router, int32_t port);

#endif
