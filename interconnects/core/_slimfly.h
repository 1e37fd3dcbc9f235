/* Private to the Slim Fly routings: the failure-aware pieces (slimfly_failures.c) that slimfly.c
 * calls when sf->port_peer is set, i.e. when some links have failed (see slimfly.py). */
#ifndef PPT_SLIMFLY_PRIVATE_H
#define PPT_SLIMFLY_PRIVATE_H
#include "slimfly.h"

#define PPT_SFF_FAR 3           /* surviving hops over 2: no legal minimal leg */

/* Surviving router hops from r to t: 0, 1, 2, or PPT_SFF_FAR when every path of at most 2 hops
 * crosses a failed link. */
int32_t ppt_sff_hops(const ppt_slimfly_t *sf, int32_t r, int32_t t);
/* First port of a shortest surviving path from r to t != r (1 or 2 hops; the direct link if it
 * survives, else a surviving middle router chosen by key); -1 if t is over 2 surviving hops away. */
int32_t ppt_sff_step(const ppt_slimfly_t *sf, uint64_t key, int32_t r, int32_t t);
/* The first router from `start` on (cyclically) through which src reaches dst on two legal minimal
 * legs (each at most 2 surviving hops); src itself counts if the minimal path is legal; -1 if none. */
int32_t ppt_sff_mid(const ppt_slimfly_t *sf, int32_t start, int32_t src, int32_t dst);
#endif
