/* The packet core's table of calls (coreapi.h), filled with its own functions. */
#include "coreapi.h"
#include "alloc.h"

static const ppt_core_api_t api = {
    .alloc = ppt_alloc,
    .grow = ppt_grow,
    .net_send_class = ppt_net_send_class,
    .net_run = ppt_net_run,
    .net_next_time = ppt_net_next_time,
    .net_outputs = ppt_net_outputs,
    .net_clear_outputs = ppt_net_clear_outputs,
    .net_stop_traffic = ppt_net_stop_traffic,
    .net_outbox_min_time = ppt_net_outbox_min_time,
    .net_outbox = ppt_net_outbox,
    .net_clear_outbox = ppt_net_clear_outbox,
    .net_receive = ppt_net_receive,
    .hist_add = ppt_hist_add,
    .flows_new = ppt_flows_new,
    .flows_free = ppt_flows_free,
    .flows_add_path = ppt_flows_add_path,
    .flows_path_routes = ppt_flows_path_routes,
    .flows_path_route = ppt_flows_path_route,
    .flows_start = ppt_flows_start,
    .flows_reshare = ppt_flows_reshare,
    .flows_next_s = ppt_flows_next_s,
    .flows_finish = ppt_flows_finish,
};

const ppt_core_api_t *ppt_core_api(void) { return &api; }
