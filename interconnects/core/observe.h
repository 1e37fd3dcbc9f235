/* Looking inside the packet network: its packet latencies, per-port / per-NIC counters for sampling,
 * and per-job packet counters. */
#ifndef PPT_OBSERVE_H
#define PPT_OBSERVE_H
#include "core.h"
#include "histogram.h"
#include "net.h"

struct ppt_net;
/* The network's histogram of packet latencies (creation at the source NIC to arrival at the destination). */
const ppt_histogram_t *ppt_net_packet_latencies(const struct ppt_net *net);

/* Packets of one job (those whose source node belongs to it), counted at their delivery. */
typedef struct ppt_job_counters {
    int64_t delivered;              /* packets, responses included */
    int64_t responses;              /* of them, response packets */
    int64_t hops_sum;               /* router-to-router hops */
    int64_t latency_sum_ps;         /* creation at the source NIC to arrival, picoseconds */
    int64_t bytes_delivered;        /* wire bytes */
} ppt_job_counters_t;

/* Count delivered packets per job: node_job[node] is the job of every node (-1: none), counters[job]
 * its totals (both owned by the caller, alive as long as the network; zeroed by the caller). */
void ppt_net_set_jobs(struct ppt_net *net, const int32_t *node_job, ppt_job_counters_t *counters);

/* Class `cls`'s counters (ppt_class_counters_t: net.h) and latency histogram (NULL without classes). */
void ppt_net_class_counters(const struct ppt_net *net, int32_t cls, ppt_class_counters_t *out);
const ppt_histogram_t *ppt_net_class_latencies(const struct ppt_net *net, int32_t cls);

/* Cumulative bytes sent by every port of this rank's routers since the start ([router * radix + port];
 * other ranks' routers are left alone). */
void ppt_net_port_bytes(const struct ppt_net *net, int64_t *bytes);
/* Bytes waiting at time t_s (every event before it run, none after) for each (port, VC) of this rank's
 * routers ([(router * radix + port) * vcs + vc]); with unbounded buffers, the port's backlog, on VC 0. */
void ppt_net_port_queued(const struct ppt_net *net, double t_s, int64_t *queued_B);
/* Cumulative bytes each of this rank's NICs has injected and ejected ([node]). */
void ppt_net_nic_bytes(const struct ppt_net *net, int64_t *injected_B, int64_t *ejected_B);
#endif
