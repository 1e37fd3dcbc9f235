/* Max-min fair sharing of resources among flows, over simulated time (see flow.h).
 *
 * Invariants between calls:
 *  - every active flow is listed once in the flow list of each resource of its route, and
 *    flow->slot[i] is its index in the list of its route's i-th resource;
 *  - a flow's bytes left at time t are remaining_B - rate_Bps * (t - since_s); it finishes at
 *    finish_s (infinity until its first resharing), and is in the completion heap, ordered by
 *    (finish_s, seq), from its start to its end;
 *  - a queue's active message is the only one of its messages with flows; the others wait in
 *    start order, linked through msg_t.next;
 *  - a resource's used_Bps is the sum of its flows' rates (exact after a resharing that covers it,
 *    kept by additions in between); it is full when used_Bps >= (1 - FULL) * capacity_Bps;
 *  - progressive filling needs every flow of a resource it looks at: the connected component of
 *    the touched resources has that property by construction.
 *
 * Resharing takes two shortcuts, both exact consequences of the max-min definition (every flow
 * crosses a full resource on which no flow is faster): a new flow that fits in the capacity left on
 * its route, and is then the fastest on a resource it fills, gets that rate and changes no other; an
 * ending flow only lets the flows of resources it kept full speed up.  Everything else is reshared
 * over the connected component.  Local fairness (ppt_flows_set_local) takes only the second (a
 * resource that was not full gave every flow its demand): every new flow's component is reshared,
 * in rounds of per-resource water filling (local_fill).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flow.h"
#include "_util.h"

/* A flow never gets less than this fraction of its bottleneck's capacity (guards against rounding). */
#define MIN_SHARE 1e-12
/* A resource with less than this fraction of its capacity unused is full. */
#define FULL 1e-9

typedef struct {
    double capacity_Bps;
    double used_Bps;          /* the sum of its flows' rates */
    int32_t *flows;           /* active flows crossing it */
    int32_t nflows;
    int64_t cap;
    int64_t seen;             /* the last component search that reached it */
    double left_Bps;          /* progressive filling: capacity not given to fixed flows */
    int32_t unfixed;          /* progressive filling: its flows without a rate yet */
    int32_t heap_at;          /* progressive filling: position in the filling heap, -1 outside */
} resource_t;

typedef struct {
    double remaining_B, rate_Bps, since_s, finish_s;
    int64_t seq;              /* start order, the tie-break of equal finish times */
    int64_t seen;             /* the last component search that reached it */
    double new_rate_Bps;      /* progressive filling: its share once fixed */
    int32_t route;            /* index into route_first */
    int32_t message;
    int32_t heap_at;          /* position in the completion heap, -1 outside (free) */
    int32_t *slot;            /* per resource of its route: its index in that resource's list */
    int64_t slot_cap;
    double *alloc_Bps;        /* local fairness: per resource of its route, the rate offered there */
    int64_t alloc_cap;
} flow_t;

typedef struct {
    int32_t left;             /* flows still moving, or to start; 0: a free id */
    int32_t path, queue;
    int32_t next;             /* the message waiting behind it in its queue, -1 for none */
    double nbytes_B;
} msg_t;

typedef struct {
    int32_t active;           /* the message moving, -1 if none */
    int32_t head, tail;       /* messages waiting for it, -1 if none */
} queue_t;

/* Local fairness: a claim on a resource's capacity.  A flow's: id its input (the resource before
 * it on its route, -1 at the route's start), k its index in the resource's list, hop its index on
 * its route.  An input's: id the first of its flows' claims, k how many.  demand_Bps: the most the
 * claim can use. */
typedef struct {
    int32_t id, k, hop;
    double demand_Bps;
} claim_t;

/* A growable array of int32_t. */
typedef struct {
    int32_t *v;
    int32_t n;
    int64_t cap;
} ivec_t;

struct ppt_flows {
    int32_t num_resources;
    resource_t *res;
    /* paths: path p has routes path_first[p] .. path_first[p+1]-1; route r crosses the resources
     * hop[route_first[r]] .. hop[route_first[r+1]-1] */
    ivec_t path_first, route_first, hop;
    flow_t *flow;
    int32_t nflow_slots;
    int64_t flow_cap;
    ivec_t free_flows;
    msg_t *msg;
    int32_t nmsg_slots;
    int64_t msg_cap;
    queue_t *queue_of;
    int32_t num_queues;
    int64_t queue_cap;
    ivec_t free_msgs;
    ivec_t done_heap;         /* completion heap of flow ids */
    ivec_t fill_heap;         /* progressive filling heap of resource ids */
    ivec_t changed;           /* resources touched since the last resharing (may repeat) */
    ivec_t fresh;             /* flows started since the last resharing, in start order */
    ivec_t comp_flows, comp_res, queue;
    int64_t epoch, seq;
    int64_t reshares, reshared_flows;
    int local;                /* share each resource among its inputs first (ppt_flows_set_local) */
    claim_t *claims;          /* local fairness scratch: a resource's flows, then its inputs */
    double *offer_Bps;
    int64_t claims_cap, offer_cap;
};

static void push(ivec_t *a, int32_t x)
{
    a->v = ppt_grow(a->v, &a->cap, sizeof(int32_t), a->n + 1);
    a->v[a->n++] = x;
}

/* -- the completion heap: flows by (finish_s, seq) ------------------------------------------------ */
static int done_before(const ppt_flows_t *fs, int32_t a, int32_t b)
{
    const flow_t *fa = &fs->flow[a], *fb = &fs->flow[b];
    return fa->finish_s < fb->finish_s || (fa->finish_s == fb->finish_s && fa->seq < fb->seq);
}

/* -- the filling heap: resources by (share per unfixed flow, id) ----------------------------------- */
static double share_of(const resource_t *r)
{
    return (r->left_Bps > 0.0 ? r->left_Bps : 0.0) / r->unfixed;
}

static int fill_before(const ppt_flows_t *fs, int32_t a, int32_t b)
{
    double sa = share_of(&fs->res[a]), sb = share_of(&fs->res[b]);
    return sa < sb || (sa == sb && a < b);
}

/* One binary heap code for both: `before` orders items, `at` is where an item's position is kept. */
typedef int (*before_fn)(const ppt_flows_t *, int32_t, int32_t);

static int32_t *heap_pos(ppt_flows_t *fs, const ivec_t *h, int32_t item)
{
    return h == &fs->done_heap ? &fs->flow[item].heap_at : &fs->res[item].heap_at;
}

static void heap_place(ppt_flows_t *fs, ivec_t *h, int32_t i, int32_t item)
{
    h->v[i] = item;
    *heap_pos(fs, h, item) = i;
}

static void heap_fix(ppt_flows_t *fs, ivec_t *h, before_fn before, int32_t i)
{
    int32_t item = h->v[i];
    while (i > 0 && before(fs, item, h->v[(i - 1) / 2])) {
        heap_place(fs, h, i, h->v[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    for (;;) {
        int32_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && before(fs, h->v[c + 1], h->v[c]))
            c++;
        if (!before(fs, h->v[c], item))
            break;
        heap_place(fs, h, i, h->v[c]);
        i = c;
    }
    heap_place(fs, h, i, item);
}

static void heap_add(ppt_flows_t *fs, ivec_t *h, before_fn before, int32_t item)
{
    push(h, item);
    heap_fix(fs, h, before, h->n - 1);
}

static void heap_remove(ppt_flows_t *fs, ivec_t *h, before_fn before, int32_t item)
{
    int32_t *at = heap_pos(fs, h, item), i = *at;
    *at = -1;
    int32_t last = h->v[--h->n];
    if (i < h->n) {
        h->v[i] = last;
        heap_fix(fs, h, before, i);
    }
}

/* -- set-up ------------------------------------------------------------------------------------ */
ppt_flows_t *ppt_flows_new(int32_t num_resources, const double *capacity_Bps)
{
    ppt_flows_t *fs = ppt_alloc(1, sizeof *fs);
    fs->num_resources = num_resources;
    fs->res = ppt_alloc((size_t)(num_resources > 0 ? num_resources : 1), sizeof *fs->res);
    for (int32_t i = 0; i < num_resources; i++) {
        fs->res[i].capacity_Bps = capacity_Bps[i];
        fs->res[i].heap_at = -1;
    }
    push(&fs->path_first, 0);
    push(&fs->route_first, 0);
    return fs;
}

void ppt_flows_free(ppt_flows_t *fs)
{
    if (!fs)
        return;
    for (int32_t i = 0; i < fs->num_resources; i++)
        free(fs->res[i].flows);
    for (int32_t i = 0; i < fs->nflow_slots; i++) {
        free(fs->flow[i].slot);
        free(fs->flow[i].alloc_Bps);
    }
    free(fs->claims);
    free(fs->offer_Bps);
    ivec_t *vecs[] = {&fs->path_first, &fs->route_first, &fs->hop, &fs->free_flows, &fs->free_msgs,
                      &fs->done_heap, &fs->fill_heap, &fs->changed, &fs->fresh, &fs->comp_flows, &fs->comp_res, &fs->queue};
    for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++)
        free(vecs[i]->v);
    free(fs->res);
    free(fs->flow);
    free(fs->msg);
    free(fs->queue_of);
    free(fs);
}

double ppt_flows_capacity_Bps(const ppt_flows_t *fs, int32_t resource)
{
    return fs->res[resource].capacity_Bps;
}

int32_t ppt_flows_add_path(ppt_flows_t *fs, int32_t num_routes, const int32_t *route_len, const int32_t *resources)
{
    int32_t at = 0;
    if (num_routes < 1)
        return -1;
    for (int32_t r = 0; r < num_routes; r++) {
        if (route_len[r] < 1)
            return -1;
        for (int32_t i = 0; i < route_len[r]; i++) {
            int32_t x = resources[at + i];
            if (x < 0 || x >= fs->num_resources)
                return -1;
            for (int32_t j = 0; j < i; j++)
                if (resources[at + j] == x)
                    return -1;
        }
        at += route_len[r];
    }
    at = 0;
    for (int32_t r = 0; r < num_routes; r++) {
        for (int32_t i = 0; i < route_len[r]; i++)
            push(&fs->hop, resources[at++]);
        push(&fs->route_first, fs->hop.n);
    }
    push(&fs->path_first, fs->route_first.n - 1);
    return fs->path_first.n - 2;
}

int32_t ppt_flows_path_routes(const ppt_flows_t *fs, int32_t path)
{
    return fs->path_first.v[path + 1] - fs->path_first.v[path];
}

int32_t ppt_flows_path_route(const ppt_flows_t *fs, int32_t path, int32_t i, const int32_t **resources)
{
    int32_t route = fs->path_first.v[path] + i;
    *resources = fs->hop.v + fs->route_first.v[route];
    return fs->route_first.v[route + 1] - fs->route_first.v[route];
}

/* -- starting and ending flows ------------------------------------------------------------------- */
static void touch(ppt_flows_t *fs, int32_t route)
{
    for (int32_t h = fs->route_first.v[route]; h < fs->route_first.v[route + 1]; h++)
        push(&fs->changed, fs->hop.v[h]);
}

static int32_t new_message(ppt_flows_t *fs)
{
    if (fs->free_msgs.n)
        return fs->free_msgs.v[--fs->free_msgs.n];
    fs->msg = ppt_grow(fs->msg, &fs->msg_cap, sizeof(msg_t), fs->nmsg_slots + 1);
    return fs->nmsg_slots++;
}

static int32_t new_flow(ppt_flows_t *fs)
{
    if (fs->free_flows.n)
        return fs->free_flows.v[--fs->free_flows.n];
    int32_t f = fs->nflow_slots++;
    fs->flow = ppt_grow(fs->flow, &fs->flow_cap, sizeof(flow_t), fs->nflow_slots);
    memset(&fs->flow[f], 0, sizeof(flow_t));
    return f;
}

/* Start the flows of message m (one per route of its path) at now_s. */
static void start_flows(ppt_flows_t *fs, double now_s, int32_t m)
{
    int32_t first = fs->path_first.v[fs->msg[m].path], routes = fs->path_first.v[fs->msg[m].path + 1] - first;
    for (int32_t route = first; route < first + routes; route++) {
        int32_t f = new_flow(fs);
        int32_t h0 = fs->route_first.v[route], len = fs->route_first.v[route + 1] - h0;
        flow_t *fl = &fs->flow[f];
        fl->slot = ppt_grow(fl->slot, &fl->slot_cap, sizeof(int32_t), len);
        fl->alloc_Bps = ppt_grow(fl->alloc_Bps, &fl->alloc_cap, sizeof(double), len);
        fl->remaining_B = fs->msg[m].nbytes_B / routes;
        fl->rate_Bps = 0.0;
        fl->since_s = now_s;
        fl->finish_s = INFINITY;
        fl->seq = fs->seq++;
        fl->route = route;
        fl->message = m;
        for (int32_t i = 0; i < len; i++) {
            resource_t *r = &fs->res[fs->hop.v[h0 + i]];
            r->flows = ppt_grow(r->flows, &r->cap, sizeof(int32_t), r->nflows + 1);
            fl->slot[i] = r->nflows;
            r->flows[r->nflows++] = f;
        }
        heap_add(fs, &fs->done_heap, done_before, f);
        push(&fs->fresh, f);
    }
}

int32_t ppt_flows_start(ppt_flows_t *fs, double now_s, int32_t path, double nbytes_B, int32_t queue)
{
    int32_t m = new_message(fs);
    msg_t *msg = &fs->msg[m];
    msg->left = fs->path_first.v[path + 1] - fs->path_first.v[path];
    msg->path = path;
    msg->queue = queue;
    msg->next = -1;
    msg->nbytes_B = nbytes_B;
    if (queue >= 0) {
        if (queue >= fs->num_queues) {   /* queues are made on first use, idle */
            fs->queue_of = ppt_grow(fs->queue_of, &fs->queue_cap, sizeof(queue_t), queue + 1);
            for (; fs->num_queues <= queue; fs->num_queues++)
                fs->queue_of[fs->num_queues] = (queue_t){-1, -1, -1};
        }
        queue_t *q = &fs->queue_of[queue];
        if (q->active >= 0) {            /* wait behind the queue's last message */
            if (q->tail >= 0)
                fs->msg[q->tail].next = m;
            else
                q->head = m;
            q->tail = m;
            return m;
        }
        q->active = m;
    }
    start_flows(fs, now_s, m);
    return m;
}

/* Message m is through: its queue's next message, if any, starts at now_s. */
static void message_done(ppt_flows_t *fs, double now_s, int32_t m)
{
    push(&fs->free_msgs, m);
    if (fs->msg[m].queue < 0)
        return;
    queue_t *q = &fs->queue_of[fs->msg[m].queue];
    q->active = q->head;
    if (q->head < 0)
        return;
    q->head = fs->msg[q->head].next;
    if (q->head < 0)
        q->tail = -1;
    start_flows(fs, now_s, q->active);
}

static int full(const resource_t *r)
{
    return r->used_Bps >= (1.0 - FULL) * r->capacity_Bps;
}

/* Take flow f off its resources (swap with the last of each list), mark the full ones that keep flows
 * (only their flows may speed up), and recycle f. */
static void end_flow(ppt_flows_t *fs, int32_t f)
{
    flow_t *fl = &fs->flow[f];
    int32_t h0 = fs->route_first.v[fl->route], len = fs->route_first.v[fl->route + 1] - h0;
    for (int32_t i = 0; i < len; i++) {
        int32_t rid = fs->hop.v[h0 + i];
        resource_t *r = &fs->res[rid];
        int was_full = full(r);
        r->used_Bps -= fl->rate_Bps;
        int32_t last = r->flows[--r->nflows];
        if (last != f) {
            flow_t *lf = &fs->flow[last];
            int32_t lh0 = fs->route_first.v[lf->route], j = 0;
            while (fs->hop.v[lh0 + j] != rid)
                j++;
            r->flows[fl->slot[i]] = last;
            lf->slot[j] = fl->slot[i];
        }
        if (was_full && r->nflows)
            push(&fs->changed, rid);
    }
    push(&fs->free_flows, f);
}

double ppt_flows_next_s(const ppt_flows_t *fs)
{
    return fs->done_heap.n ? fs->flow[fs->done_heap.v[0]].finish_s : INFINITY;
}

int32_t ppt_flows_finish(ppt_flows_t *fs, double now_s, int32_t *done, int32_t max_done)
{
    int32_t n = 0;
    while (n < max_done && fs->done_heap.n && fs->flow[fs->done_heap.v[0]].finish_s <= now_s) {
        int32_t f = fs->done_heap.v[0];
        heap_remove(fs, &fs->done_heap, done_before, f);
        int32_t m = fs->flow[f].message;
        end_flow(fs, f);
        if (--fs->msg[m].left == 0) {
            done[n++] = m;
            message_done(fs, now_s, m);
        }
    }
    return n;
}

double ppt_flows_rate_Bps(const ppt_flows_t *fs, int32_t message)
{
    double rate = 0.0;
    for (int32_t f = 0; f < fs->nflow_slots; f++)
        if (fs->flow[f].heap_at >= 0 && fs->flow[f].message == message)
            rate += fs->flow[f].rate_Bps;
    return rate;
}

double ppt_flows_backlog_B(const ppt_flows_t *fs, int32_t resource, double now_s)
{
    const resource_t *r = &fs->res[resource];
    double backlog_B = 0.0;
    for (int32_t k = 0; k < r->nflows; k++) {
        const flow_t *fl = &fs->flow[r->flows[k]];
        double left_B = fl->remaining_B - fl->rate_Bps * (now_s - fl->since_s);
        backlog_B += left_B > 0.0 ? left_B : 0.0;
    }
    return backlog_B;
}

/* -- resharing ----------------------------------------------------------------------------------- */
/* comp_flows, comp_res: the flows and resources connected to the changed resources. */
static void component(ppt_flows_t *fs)
{
    int64_t epoch = ++fs->epoch;
    fs->comp_flows.n = fs->comp_res.n = fs->queue.n = 0;
    for (int32_t i = 0; i < fs->changed.n; i++) {
        int32_t rid = fs->changed.v[i];
        if (fs->res[rid].seen != epoch) {
            fs->res[rid].seen = epoch;
            push(&fs->queue, rid);
        }
    }
    fs->changed.n = 0;
    while (fs->queue.n) {
        int32_t rid = fs->queue.v[--fs->queue.n];
        resource_t *r = &fs->res[rid];
        push(&fs->comp_res, rid);
        for (int32_t k = 0; k < r->nflows; k++) {
            int32_t f = r->flows[k];
            flow_t *fl = &fs->flow[f];
            if (fl->seen == epoch)
                continue;
            fl->seen = epoch;
            push(&fs->comp_flows, f);
            for (int32_t h = fs->route_first.v[fl->route]; h < fs->route_first.v[fl->route + 1]; h++) {
                int32_t other = fs->hop.v[h];
                if (fs->res[other].seen != epoch) {
                    fs->res[other].seen = epoch;
                    push(&fs->queue, other);
                }
            }
        }
    }
}

/* Max-min fair rates of the component's flows, by progressive filling: the resource whose capacity
 * left per unfixed flow is smallest fixes all its unfixed flows at that share, which leaves the
 * other resources' shares no smaller; repeat until every flow is fixed (its `seen` set to -epoch,
 * its share in new_rate_Bps). */
static void fill(ppt_flows_t *fs)
{
    int64_t fixed = -fs->epoch;
    ivec_t *heap = &fs->fill_heap;
    heap->n = 0;
    for (int32_t i = 0; i < fs->comp_res.n; i++) {
        resource_t *r = &fs->res[fs->comp_res.v[i]];
        r->left_Bps = r->capacity_Bps;
        r->unfixed = r->nflows;
        if (r->unfixed)
            heap_add(fs, heap, fill_before, fs->comp_res.v[i]);
    }
    while (heap->n) {
        int32_t rid = heap->v[0];
        resource_t *r = &fs->res[rid];
        double share = share_of(r);
        if (share < r->capacity_Bps * MIN_SHARE)
            share = r->capacity_Bps * MIN_SHARE;
        heap_remove(fs, heap, fill_before, rid);
        r->unfixed = 0;
        for (int32_t k = 0; k < r->nflows; k++) {
            flow_t *fl = &fs->flow[r->flows[k]];
            if (fl->seen == fixed)
                continue;
            fl->seen = fixed;
            fl->new_rate_Bps = share;
            for (int32_t h = fs->route_first.v[fl->route]; h < fs->route_first.v[fl->route + 1]; h++) {
                int32_t oid = fs->hop.v[h];
                resource_t *o = &fs->res[oid];
                if (oid == rid || !o->unfixed)
                    continue;
                o->left_Bps -= share;
                if (--o->unfixed)
                    heap_fix(fs, heap, fill_before, o->heap_at);
                else
                    heap_remove(fs, heap, fill_before, oid);
            }
        }
    }
}

/* -- local fairness: a resource shared among its inputs first -------------------------------------- */
/* Rounds of local sharing per resharing at most; they stop once no rate moves by more than TOLERANCE. */
#define LOCAL_ROUNDS 64
#define TOLERANCE 1e-12

static int by_demand(const void *a, const void *b)
{
    const claim_t *x = a, *y = b;
    if (x->demand_Bps != y->demand_Bps)
        return x->demand_Bps < y->demand_Bps ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static int by_input_then_demand(const void *a, const void *b)
{
    const claim_t *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    if (x->demand_Bps != y->demand_Bps)
        return x->demand_Bps < y->demand_Bps ? -1 : 1;
    return (x->k > y->k) - (x->k < y->k);
}

/* Share capacity_Bps among n claims sorted by demand by water filling (equal shares, what a claim
 * cannot use going to the others); offer_Bps[i] is the most claims[i] could get if it wanted more:
 * the level of the claims its demand does not limit, or, if every demand fits, its demand and all
 * that is left. */
static void water_fill(double capacity_Bps, int32_t n, const claim_t *claims, double *offer_Bps)
{
    double left_Bps = capacity_Bps;
    int32_t fit = 0;
    while (fit < n && claims[fit].demand_Bps < left_Bps / (n - fit))
        left_Bps -= claims[fit++].demand_Bps;
    for (int32_t i = 0; i < n; i++)
        offer_Bps[i] = fit < n ? left_Bps / (n - fit) : claims[i].demand_Bps + left_Bps;
}

/* Local fairness at resource rid, as a router port's round-robin arbitration among its input
 * ports: its capacity is water-filled among its inputs, each input's offer among that input's
 * flows; a flow's demand is the least it is offered on the rest of its route (alloc_Bps). */
static void share_locally(ppt_flows_t *fs, int32_t rid)
{
    const resource_t *r = &fs->res[rid];
    int32_t n = r->nflows, m = 0;
    fs->claims = ppt_grow(fs->claims, &fs->claims_cap, sizeof(claim_t), 2 * n);
    fs->offer_Bps = ppt_grow(fs->offer_Bps, &fs->offer_cap, sizeof(double), 2 * n);
    claim_t *flows = fs->claims, *inputs = fs->claims + n;
    double *flow_offer_Bps = fs->offer_Bps, *input_offer_Bps = fs->offer_Bps + n;
    for (int32_t k = 0; k < n; k++) {
        const flow_t *fl = &fs->flow[r->flows[k]];
        int32_t h0 = fs->route_first.v[fl->route], len = fs->route_first.v[fl->route + 1] - h0, j = 0;
        while (fs->hop.v[h0 + j] != rid)
            j++;
        double demand_Bps = INFINITY;
        for (int32_t i = 0; i < len; i++)
            if (i != j && fl->alloc_Bps[i] < demand_Bps)
                demand_Bps = fl->alloc_Bps[i];
        flows[k] = (claim_t){j ? fs->hop.v[h0 + j - 1] : -1, k, j, demand_Bps};
    }
    qsort(flows, (size_t)n, sizeof(claim_t), by_input_then_demand);
    for (int32_t i = 0; i < n; m++) {
        inputs[m] = (claim_t){i, 0, 0, 0.0};
        for (int32_t id = flows[i].id; i < n && flows[i].id == id; i++, inputs[m].k++)
            inputs[m].demand_Bps += flows[i].demand_Bps;
    }
    qsort(inputs, (size_t)m, sizeof(claim_t), by_demand);
    water_fill(r->capacity_Bps, m, inputs, input_offer_Bps);
    for (int32_t g = 0; g < m; g++)
        water_fill(input_offer_Bps[g], inputs[g].k, flows + inputs[g].id, flow_offer_Bps + inputs[g].id);
    for (int32_t i = 0; i < n; i++)
        fs->flow[r->flows[flows[i].k]].alloc_Bps[flows[i].hop] = flow_offer_Bps[i];
}

/* The component's rates under local fairness (into new_rate_Bps, as fill()): rounds of
 * share_locally over its resources, a flow's rate the least it is offered on its route, until no
 * rate moves. */
static void local_fill(ppt_flows_t *fs)
{
    for (int32_t i = 0; i < fs->comp_flows.n; i++) {
        flow_t *fl = &fs->flow[fs->comp_flows.v[i]];
        int32_t len = fs->route_first.v[fl->route + 1] - fs->route_first.v[fl->route];
        for (int32_t j = 0; j < len; j++)
            fl->alloc_Bps[j] = INFINITY;
        fl->new_rate_Bps = INFINITY;
    }
    int moved = 1;
    for (int32_t round = 0; round < LOCAL_ROUNDS && moved; round++) {
        for (int32_t i = 0; i < fs->comp_res.n; i++)
            share_locally(fs, fs->comp_res.v[i]);
        moved = 0;
        for (int32_t i = 0; i < fs->comp_flows.n; i++) {
            flow_t *fl = &fs->flow[fs->comp_flows.v[i]];
            int32_t len = fs->route_first.v[fl->route + 1] - fs->route_first.v[fl->route];
            double rate_Bps = INFINITY;
            for (int32_t j = 0; j < len; j++)
                rate_Bps = fl->alloc_Bps[j] < rate_Bps ? fl->alloc_Bps[j] : rate_Bps;
            moved |= fabs(rate_Bps - fl->new_rate_Bps) > TOLERANCE * rate_Bps;
            fl->new_rate_Bps = rate_Bps;
        }
    }
}

void ppt_flows_set_local(ppt_flows_t *fs, int32_t local)
{
    fs->local = local;
}

/* Give new flow f, at now_s, the capacity left on its route if that is its max-min rate (see the
 * top of this file); returns whether it did. */
static int fits(ppt_flows_t *fs, int32_t f, double now_s)
{
    flow_t *fl = &fs->flow[f];
    int32_t h0 = fs->route_first.v[fl->route], h1 = fs->route_first.v[fl->route + 1];
    double rate = INFINITY;
    for (int32_t h = h0; h < h1; h++) {
        const resource_t *r = &fs->res[fs->hop.v[h]];
        if (full(r))
            return 0;
        if (r->capacity_Bps - r->used_Bps < rate)
            rate = r->capacity_Bps - r->used_Bps;
    }
    int bottleneck = 0;
    for (int32_t h = h0; h < h1 && !bottleneck; h++) {
        const resource_t *r = &fs->res[fs->hop.v[h]];
        if (r->capacity_Bps - r->used_Bps > rate)
            continue;                               /* f would not fill it */
        bottleneck = 1;
        for (int32_t k = 0; k < r->nflows && bottleneck; k++)
            bottleneck = fs->flow[r->flows[k]].rate_Bps <= rate;
    }
    if (!bottleneck)
        return 0;
    for (int32_t h = h0; h < h1; h++)
        fs->res[fs->hop.v[h]].used_Bps += rate;
    fl->rate_Bps = rate;
    fl->since_s = now_s;
    fl->finish_s = now_s + fl->remaining_B / rate;
    heap_fix(fs, &fs->done_heap, done_before, fl->heap_at);
    return 1;
}

void ppt_flows_reshare(ppt_flows_t *fs, double now_s)
{
    for (int32_t i = 0; i < fs->fresh.n; i++)
        if (fs->local || !fits(fs, fs->fresh.v[i], now_s))
            touch(fs, fs->flow[fs->fresh.v[i]].route);
    fs->fresh.n = 0;
    component(fs);
    for (int32_t i = 0; i < fs->comp_flows.n; i++) {
        flow_t *fl = &fs->flow[fs->comp_flows.v[i]];
        fl->remaining_B -= fl->rate_Bps * (now_s - fl->since_s);
        if (fl->remaining_B < 0.0)
            fl->remaining_B = 0.0;
        fl->since_s = now_s;
    }
    if (fs->local)
        local_fill(fs);
    else
        fill(fs);
    for (int32_t i = 0; i < fs->comp_flows.n; i++) {
        flow_t *fl = &fs->flow[fs->comp_flows.v[i]];
        if (fl->new_rate_Bps == fl->rate_Bps)
            continue;                /* same rate: same finish time */
        fl->rate_Bps = fl->new_rate_Bps;
        fl->finish_s = now_s + fl->remaining_B / fl->rate_Bps;
        heap_fix(fs, &fs->done_heap, done_before, fl->heap_at);
    }
    for (int32_t i = 0; i < fs->comp_res.n; i++) {
        resource_t *r = &fs->res[fs->comp_res.v[i]];
        r->used_Bps = 0.0;
        for (int32_t k = 0; k < r->nflows; k++)
            r->used_Bps += fs->flow[r->flows[k]].rate_Bps;
    }
    fs->reshares++;
    fs->reshared_flows += fs->comp_flows.n;
}

int64_t ppt_flows_reshares(const ppt_flows_t *fs)
{
    return fs->reshares;
}

int64_t ppt_flows_reshared_flows(const ppt_flows_t *fs)
{
    return fs->reshared_flows;
}
