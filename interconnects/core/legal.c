/* Pieces shared by the failure-aware routings: see _legal.h. */
#include "_legal.h"

int32_t ppt_legal_port(const void *topo, ppt_port_ok_fn ok, uint64_t key, int32_t router, int32_t first,
                       int32_t last, int32_t target)
{
    int32_t n = 0;
    for (int32_t k = first; k < last; k++)
        n += ok(topo, router, k, target);
    if (n == 0)
        return -1;
    int32_t pick = (int32_t)(key % (uint64_t)n);
    for (int32_t k = first; k < last; k++)
        if (ok(topo, router, k, target) && pick-- == 0)
            return k;
    return -1;                                      /* unreachable: n ports passed */
}
