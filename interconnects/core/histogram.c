/* Latency histograms; see histogram.h. */
#include <math.h>
#include <stddef.h>
#include "histogram.h"

#define SUB (1LL << PPT_HIST_SUB_BITS)
#define HALF (SUB >> 1)
_Static_assert(offsetof(ppt_histogram_t, total) == (64 - PPT_HIST_SUB_BITS + 1) * HALF * sizeof(int64_t),
               "one bucket per (shift, mantissa) pair up to 2^63 ps");
_Static_assert(sizeof(((ppt_histogram_t *)0)->first) == PPT_HIST_EXACT * sizeof(double), "exact prefix size");

int32_t ppt_hist_bucket(int64_t ps)
{
    if (ps < SUB)
        return (int32_t)(ps < 0 ? 0 : ps);
    int32_t shift = 63 - __builtin_clzll((uint64_t)ps) - (PPT_HIST_SUB_BITS - 1);   /* >= 1 */
    return (int32_t)(shift * HALF + (ps >> shift));
}

void ppt_hist_add(ppt_histogram_t *h, double seconds)
{
    if (h->total < PPT_HIST_EXACT)
        h->first[h->total] = seconds;
    h->total++;
    double ps = seconds * 1e12;
    h->count[ppt_hist_bucket(ps < 9.2e18 ? llround(ps) : INT64_MAX)]++;
}
