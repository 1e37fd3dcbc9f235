/* Latency histograms: the packet core's (observe.h) and Python's message latencies (latency.py).
 *
 * A histogram counts latencies in log-linear buckets of integer picoseconds (as HDR histograms do):
 * values below 2^PPT_HIST_SUB_BITS ps each have a bucket of their own, larger ones fall in buckets
 * 2^-(PPT_HIST_SUB_BITS - 1) of their value wide, so a percentile read from the buckets is within
 * that relative resolution (0.2%) of the exact one.  Counts add, so ranks' histograms merge exactly.
 * The first PPT_HIST_EXACT values are also kept as they are, so the percentiles of a small run (or
 * of any span of its first values) are exact.
 */
#ifndef PPT_HISTOGRAM_H
#define PPT_HISTOGRAM_H
#include <stdint.h>

enum { PPT_HIST_SUB_BITS = 10, PPT_HIST_EXACT = 65536 };
typedef struct ppt_histogram {
    int64_t count[28160];           /* (64 - PPT_HIST_SUB_BITS + 1) * 2^(PPT_HIST_SUB_BITS - 1) buckets */
    int64_t total;                  /* values counted */
    double first[65536];            /* the first PPT_HIST_EXACT values, s */
} ppt_histogram_t;

/* The bucket of a latency of `ps` picoseconds (>= 0). */
int32_t ppt_hist_bucket(int64_t ps);
/* Count one latency of `seconds` (negative counts as 0). */
void ppt_hist_add(ppt_histogram_t *h, double seconds);
#endif
