/* Private to the grouped routings: the failure-aware pieces (grouped_failures.c) that grouped.c
 * calls when t->router_dist is set, i.e. when some links have failed (see legalpaths.py). */
#ifndef PPT_GROUPED_PRIVATE_H
#define PPT_GROUPED_PRIVATE_H
#include "grouped.h"

#define PPT_GF_FAR (1 << 20)    /* router_dist of a router cut off over surviving local links */

/* Surviving local hops from router to target (same group). */
int32_t ppt_gf_hops(const ppt_grouped_t *t, int32_t router, int32_t target);
/* A surviving local port of router one hop closer to target, chosen by key. */
int32_t ppt_gf_local_port(const ppt_grouped_t *t, uint64_t key, int32_t router, int32_t target);
/* 1 if router x reaches router y on a legal MIN path (between groups: <= L local hops, a surviving
 * global link, <= L local hops; inside a group: <= 2L local hops over two phases). */
int ppt_gf_min_legal(const ppt_grouped_t *t, int32_t x, int32_t y);
/* The global link from router's group to `group` that a packet bound for router dst takes, with at
 * most `room` local hops left in its phase: its local leg fits, and from its far end dst is reached
 * in the destination group within L local hops, or (from an intermediate group) on a legal MIN path.
 * A link of router itself wins; otherwise the legal link with the highest hash of (key, link), so
 * routers met on the way (each one hop closer) keep choosing it.  Returns the link's router and
 * *port its port, or -1 if no link is legal. */
int32_t ppt_gf_exit_link(const ppt_grouped_t *t, uint64_t key, int32_t router, int32_t group, int32_t room,
                         int32_t dst, int32_t *port);
/* A router of x's group where a route from x to y (same group, over L local hops apart) changes
 * phase: <= L local hops from x and from it to y; chosen by key; -1 if there is none. */
int32_t ppt_gf_turn_router(const ppt_grouped_t *t, uint64_t key, int32_t x, int32_t y);
#endif
