/* What sampling and job accounting read of the packet network; see observe.h. */
#include <math.h>
#include "_net.h"
#include "observe.h"

const ppt_histogram_t *ppt_net_packet_latencies(const struct ppt_net *net) { return &net->packet_latency; }

void ppt_net_port_bytes(const struct ppt_net *net, int64_t *bytes)
{
    for (int64_t i = (int64_t)net->router_lo * net->radix; i < (int64_t)net->router_hi * net->radix; i++)
        bytes[i] = net->ports[i].bytes_out;
}

void ppt_net_port_queued(const struct ppt_net *net, double t_s, int64_t *queued_B)
{
    int32_t nvc = net->num_vcs;
    for (int64_t i = (int64_t)net->router_lo * net->radix; i < (int64_t)net->router_hi * net->radix; i++) {
        for (int32_t v = 0; v < nvc; v++)
            queued_B[i * nvc + v] = 0;
        if (!net->credit_on) {
            queued_B[i * nvc] = llround(port_backlog_B(&net->ports[i], t_s));
            continue;
        }
        for (int32_t v = 0; v < nvc; v++)
            for (int32_t p = net->q_head[i * nvc + v]; p >= 0; p = net->pkts[p].next)
                queued_B[i * nvc + v] += net->pkts[p].size_B;
    }
}

void ppt_net_nic_bytes(const struct ppt_net *net, int64_t *injected_B, int64_t *ejected_B)
{
    for (int32_t n = 0; n < net->cfg.num_nodes; n++)
        if (node_local(net, n)) {
            injected_B[n] = net->nic_injected_B[n];
            ejected_B[n] = net->nic_ejected_B[n];
        }
}

void ppt_net_set_jobs(struct ppt_net *net, const int32_t *node_job, ppt_job_counters_t *counters)
{
    net->node_job = node_job;
    net->job_counters = counters;
}

void ppt_observe_delivery(ppt_net_t *net, const ppt_packet_t *pkt, double latency)
{
    if (net->classes > 1) {
        ppt_class_counters_t *k = &net->class_counters[pkt->tclass];
        k->delivered++;
        k->bytes_delivered += pkt->size_B;
        k->latency_sum_ps += llround(latency * 1e12);
        ppt_hist_add(&net->class_latency[pkt->tclass], latency);
    }
    int32_t job = net->node_job ? net->node_job[pkt->src] : -1;
    if (job < 0)
        return;
    ppt_job_counters_t *c = &net->job_counters[job];
    c->delivered++;
    c->responses += pkt->npackets == 0;
    c->hops_sum += pkt->hops;
    c->latency_sum_ps += llround(latency * 1e12);
    c->bytes_delivered += pkt->size_B;
}

void ppt_net_class_counters(const struct ppt_net *net, int32_t cls, ppt_class_counters_t *out)
{
    *out = net->classes > 1 ? net->class_counters[cls] : (ppt_class_counters_t){0};
}

const ppt_histogram_t *ppt_net_class_latencies(const struct ppt_net *net, int32_t cls)
{
    return net->classes > 1 ? &net->class_latency[cls] : NULL;
}
