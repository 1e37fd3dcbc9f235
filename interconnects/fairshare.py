"""Max-min fair sharing of resources (links, NICs, node memory) among flows, over simulated time.

A :class:`Flow` moves ``nbytes`` through a set of :class:`Resource` s, each
of a capacity in bytes/s.  Rates are max-min fair (progressive filling: raise
every flow's rate together; a flow stops rising when one of its resources is
full), and are recomputed whenever a flow starts or ends -- but only over the
flows that can feel the change: the connected component of flows that share
a resource, transitively, with the changed one.

All starts and ends at one simulated time are reshared once: the first change
schedules a resharing event at the current time, later changes at the same time
join it.  Each flow whose rate changed gets a new completion event; events
made stale by a later change are skipped.  Events are scheduled by one
``entity``, so their order among simultaneous events is deterministic.
"""
from __future__ import annotations

import math
from heapq import heappop, heappush

#: A flow never gets less than this fraction of its bottleneck's capacity (guards against rounding).
MIN_SHARE = 1e-12


class Resource:
    """A capacity of ``capacity_Bps`` bytes/s shared by the flows crossing it; ``rid`` orders it."""

    __slots__ = ("rid", "capacity_Bps", "flows")

    def __init__(self, rid: int, capacity_Bps: float):
        self.rid = rid
        self.capacity_Bps = capacity_Bps
        #: Active flows, in arrival order (a dict keeps the order deterministic).
        self.flows: dict = {}


class Flow:
    """``remaining_B`` bytes left at time ``since_s``, moving at ``rate_Bps`` until the next change."""

    __slots__ = ("resources", "remaining_B", "rate_Bps", "since_s", "finish_s", "on_done", "data")

    def __init__(self, resources, nbytes: float, now_s: float, on_done, data):
        self.resources = resources
        self.remaining_B = float(nbytes)
        self.rate_Bps = 0.0
        self.since_s = now_s
        self.finish_s = math.inf
        self.on_done = on_done
        self.data = data


class FairShare:
    """The flows of one model, scheduled through ``entity`` (see module docstring)."""

    def __init__(self, entity):
        self.entity = entity
        self._changed: dict = {}        # resources touched since the last resharing, in order
        self._pending = False
        #: Resharings done and flows they covered (a cost figure for statistics).
        self.reshares = 0
        self.reshared_flows = 0

    def start(self, resources, nbytes: float, on_done, data=None) -> Flow:
        """Start moving ``nbytes`` through ``resources``; ``on_done(data)`` runs when the last byte is through."""
        flow = Flow(resources, nbytes, self.entity.sim.now, on_done, data)
        for resource in resources:
            resource.flows[flow] = None
        self._touch(resources)
        return flow

    def _touch(self, resources) -> None:
        changed = self._changed
        for resource in resources:
            changed[resource] = None
        if not self._pending:
            self._pending = True
            self.entity.schedule(0.0, self._reshare)

    def _finish(self, flow: Flow) -> None:
        """Completion event of ``flow`` (skipped if a later resharing moved its completion)."""
        if flow.finish_s != self.entity.sim.now or flow.resources is None:
            return
        resources, flow.resources = flow.resources, None
        for resource in resources:
            del resource.flows[flow]
        self._touch(resources)
        flow.on_done(flow.data)

    def _reshare(self, _=None) -> None:
        """Recompute the rates of every flow connected to a changed resource, at the current time."""
        self._pending = False
        roots, self._changed = self._changed, {}
        flows, resources = _component(roots)
        now = self.entity.sim.now
        for flow in flows:
            flow.remaining_B = max(0.0, flow.remaining_B - flow.rate_Bps * (now - flow.since_s))
            flow.since_s = now
        rates = max_min_rates(flows, resources)
        schedule_at, finish = self.entity.schedule_at, self._finish
        for flow, rate in zip(flows, rates):
            if rate != flow.rate_Bps:
                flow.rate_Bps = rate
                flow.finish_s = now + flow.remaining_B / rate
                schedule_at(flow.finish_s, finish, flow)
        self.reshares += 1
        self.reshared_flows += len(flows)


def _component(roots) -> tuple[list, list]:
    """Flows and resources connected (through shared resources) to the resources ``roots``."""
    resources = dict(roots)
    flows: dict = {}
    queue = list(roots)
    while queue:
        resource = queue.pop()
        for flow in resource.flows:
            if flow not in flows:
                flows[flow] = None
                for other in flow.resources:
                    if other not in resources:
                        resources[other] = None
                        queue.append(other)
    return list(flows), list(resources)


def max_min_rates(flows: list, resources: list) -> list[float]:
    """Max-min fair rates (bytes/s) of ``flows`` over ``resources`` (which hold every resource they cross;
    capacities finite and positive).

    Progressive filling: the resource whose remaining capacity per unfixed flow
    is smallest fixes all its unfixed flows at that share, which leaves the
    others' shares no smaller; repeat until every flow is fixed.
    """
    left = {r: r.capacity_Bps for r in resources}
    count = {r: len(r.flows) for r in resources}
    heap = [(left[r] / count[r], r.rid, r) for r in resources if count[r]]
    heap.sort()
    rate: dict = {}
    while heap:
        share, _, resource = heappop(heap)
        n = count[resource]
        if not n or share != max(left[resource], 0.0) / n:
            continue                             # stale: this resource's share has risen since
        share = max(share, resource.capacity_Bps * MIN_SHARE)
        count[resource] = 0
        for flow in resource.flows:
            if flow in rate:
                continue
            rate[flow] = share
            for other in flow.resources:
                if other is not resource and count[other]:
                    left[other] -= share
                    count[other] -= 1
                    if count[other]:
                        heappush(heap, (max(left[other], 0.0) / count[other], other.rid, other))
    return [rate[flow] for flow in flows]
