"""Max-min fair sharing of resources (links, NICs) among messages, over simulated time.

The sharing itself is compiled (``core/flow.c``): resources numbered
``0 .. n-1`` of given capacities (bytes/s); a message moves over a path (one
or more routes, its bytes split evenly over them, one flow per route) at the
max-min fair rates, recomputed when a flow starts or ends over the flows
connected to it through shared resources.  A message may wait in a queue
(numbered from 0, e.g. one per NIC): a queue moves its messages one at a
time, in the order they were started.  This module drives it from the
engine, once per message:

All starts and ends at one simulated time are reshared once: the first change
schedules a resharing event at the current time, later changes at the same time
join it.  After a resharing, one wake-up event waits for the solver's next
completion time; wake-ups made stale by a later resharing find nothing to end.
Events are scheduled by one ``entity``, so their order among simultaneous
events is deterministic.
"""
from __future__ import annotations

import math

from ppt.interconnects.core import array, ffi, lib

#: Finished messages collected per call into the solver.
_DONE_BATCH = 256


class FairShare:
    """The messages of one model over resources of ``capacity_Bps`` (a sequence, bytes/s, indexed by
    resource id), scheduled through ``entity`` (see module docstring).  ``local``: share each
    resource among its inputs first, then among each input's flows (``ppt_flows_set_local`` in
    ``core/flow.h``), instead of max-min among flows."""

    def __init__(self, entity, capacity_Bps, local: bool = False):
        self.entity = entity
        caps = array("double", capacity_Bps)
        self.c = ffi.gc(lib.ppt_flows_new(len(capacity_Bps), caps), lib.ppt_flows_free)
        lib.ppt_flows_set_local(self.c, int(local))
        self._done = ffi.new("int32_t[]", _DONE_BATCH)
        self._messages: dict[int, tuple] = {}
        self._pending = False
        self._wakes: set[float] = set()

    def path(self, routes) -> int:
        """Id of a path of ``routes`` (each a sequence of distinct resource ids)."""
        hops = [rid for route in routes for rid in route]
        path = lib.ppt_flows_add_path(self.c, len(routes), array("int32_t", [len(r) for r in routes]),
                                      array("int32_t", hops))
        if path < 0:
            raise ValueError(f"not a path: {routes!r} (empty, a resource out of range or repeated in a route)")
        return path

    def routes(self, path: int) -> list[list[int]]:
        """The routes of ``path`` (each a list of resource ids)."""
        first = ffi.new("int32_t **")
        routes = []
        for i in range(lib.ppt_flows_path_routes(self.c, path)):
            n = lib.ppt_flows_path_route(self.c, path, i, first)
            routes.append(ffi.unpack(first[0], n))
        return routes

    def start(self, path: int, nbytes: float, on_done, data=None, queue: int = -1) -> int:
        """Start moving ``nbytes`` over ``path``, behind the messages of ``queue`` (-1: none);
        ``on_done(data)`` runs when the last byte is through.  Returns the message's id (reused after
        it is done)."""
        message = lib.ppt_flows_start(self.c, self.entity.sim.now, path, nbytes, queue)
        self._messages[message] = (on_done, data)
        if not self._pending:
            self._pending = True
            self.entity.schedule(0.0, self._reshare)
        return message

    def rate_Bps(self, message: int) -> float:
        """The rate message ``message`` moves at now (bytes/s; as of the last resharing)."""
        return lib.ppt_flows_rate_Bps(self.c, message)

    @property
    def reshares(self) -> int:
        return lib.ppt_flows_reshares(self.c)

    @property
    def reshared_flows(self) -> int:
        return lib.ppt_flows_reshared_flows(self.c)

    def _reshare(self, _=None) -> None:
        self._pending = False
        lib.ppt_flows_reshare(self.c, self.entity.sim.now)
        next_s = lib.ppt_flows_next_s(self.c)
        if next_s != math.inf and next_s not in self._wakes:
            self._wakes.add(next_s)
            self.entity.schedule_at(next_s, self._wake, next_s)

    def _wake(self, at_s: float) -> None:
        self._wakes.discard(at_s)
        if lib.ppt_flows_next_s(self.c) > at_s:
            return                                  # stale: a resharing moved the completion
        done, finish = self._done, lib.ppt_flows_finish
        ended = []
        while True:
            n = finish(self.c, at_s, done, _DONE_BATCH)
            ended.extend(done[0:n])
            if n < _DONE_BATCH:
                break
        if not self._pending:
            self._pending = True
            self.entity.schedule(0.0, self._reshare)
        messages = self._messages
        for on_done, data in [messages.pop(message) for message in ended]:    # ids are free for reuse now
            on_done(data)
