/* The packet core's calls for C built apart from it: one table of pointers to its functions.
 *
 * The MPI engine (ppt/mpi/engine/core) is a Python extension of its own, and two extensions cannot
 * portably link to each other's functions.  So the packet core fills this table once (coreapi.c) and
 * Python hands its address (ppt_core_api) to the engine at import (ppt.mpi.engine.core).  A field is
 * the function of the same name without its ppt_ prefix: the engine calls packet_core->net_run(...)
 * where the core's own code calls ppt_net_run(...).  Read by cffi as well: declarations only.
 */
#ifndef PPT_COREAPI_H
#define PPT_COREAPI_H
#include <stddef.h>
#include <stdint.h>
#include "flow.h"
#include "histogram.h"
#include "net.h"

typedef struct ppt_core_api {
    /* memory (alloc.h) */
    void *(*alloc)(size_t count, size_t size);
    void *(*grow)(void *p, int64_t *cap, size_t item, int64_t need);
    /* the packet network (net.h) */
    uint64_t (*net_send_class)(ppt_net_t *net, int32_t src, int32_t dst, int64_t nbytes, int32_t notify_sent,
                               double now_s, int32_t tclass);
    int64_t (*net_run)(ppt_net_t *net, double until_s, int64_t max_events);
    double (*net_next_time)(ppt_net_t *net);
    int64_t (*net_outputs)(ppt_net_t *net, ppt_output_t **out);
    void (*net_clear_outputs)(ppt_net_t *net);
    void (*net_stop_traffic)(ppt_net_t *net, double stop_s);
    double (*net_outbox_min_time)(const ppt_net_t *net);
    int64_t (*net_outbox)(ppt_net_t *net, int32_t rank, ppt_remote_t **events);
    void (*net_clear_outbox)(ppt_net_t *net);
    void (*net_receive)(ppt_net_t *net, const ppt_remote_t *events, int64_t count);
    /* latency histograms (histogram.h) */
    void (*hist_add)(ppt_histogram_t *h, double seconds);
    /* the flow solver (flow.h) */
    ppt_flows_t *(*flows_new)(int32_t num_resources, const double *capacity_Bps);
    void (*flows_free)(ppt_flows_t *fs);
    int32_t (*flows_add_path)(ppt_flows_t *fs, int32_t num_routes, const int32_t *route_len,
                              const int32_t *resources);
    int32_t (*flows_path_routes)(const ppt_flows_t *fs, int32_t path);
    int32_t (*flows_path_route)(const ppt_flows_t *fs, int32_t path, int32_t i, const int32_t **resources);
    int32_t (*flows_start)(ppt_flows_t *fs, double now_s, int32_t path, double nbytes_B, int32_t queue);
    void (*flows_reshare)(ppt_flows_t *fs, double now_s);
    double (*flows_next_s)(const ppt_flows_t *fs);
    int32_t (*flows_finish)(ppt_flows_t *fs, double now_s, int32_t *done, int32_t max_done);
} ppt_core_api_t;

/* The table, filled with this extension's functions. */
const ppt_core_api_t *ppt_core_api(void);
#endif
