"""The event loop: serial, or conservative synchronous windows over MPI.

Events are plain tuples ``(time_s, key, service, data)`` in one heap per
simulation rank; ``key`` (creator entity id, creator's running count) breaks
ties deterministically, independent of how entities are placed.

Parallel mode (``mpiexec -n K``): entity ids are split into K contiguous
blocks (dealt round-robin when the number of entities is not given).  Each
rank runs its events with ``time < window_start + lookahead``; events for
entities of other ranks (which by the model's promise are at least
``lookahead_s`` in the future) are exchanged in one all-to-all per window, and
the next window starts at the global earliest pending event (see
:mod:`ppt.engine.parallel`, which also stops all ranks together).  Every entity sees
the same events in the same order as in a serial run, so results are identical.
"""
from __future__ import annotations

import gc
import math
from bisect import bisect_right
from contextlib import contextmanager
from heapq import heapify, heappop, heappush

from greenlet import getcurrent

from ppt.errors import SimulationError
from ppt.engine import parallel


#: The progress hook runs every 2**16 events.
PROGRESS_MASK = (1 << 16) - 1


@contextmanager
def young_garbage_only():
    """Keep the cyclic garbage collector off the model while events run.

    Everything built before the run (topology tables, entities) is frozen out
    of collection, and collections start only after many allocations: a run
    allocates an event tuple per event, and the default thresholds would
    rescan the live event queue and packets over and over.
    """
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


class Simulation:
    """A discrete-event simulation.

    ``num_entities`` (ids ``0 .. num_entities-1``) fixes the block placement in
    parallel mode; ``lookahead_s`` is the model's smallest delay between events
    of different entities (required for parallel runs).  ``comm`` is an mpi4py
    communicator; by default one is used when the program runs under mpiexec.
    """

    def __init__(self, num_entities: int | None = None, lookahead_s: float = 0.0,
                 end_s: float = math.inf, comm=parallel.AUTO, name: str = "ppt"):
        self.name = name
        self.now = 0.0
        self.end_s = end_s
        self.heap: list = []
        #: Entities that live on this simulation rank, by id.
        self.entities: dict[int, object] = {}
        self.processes: set = set()
        self.events = 0
        self.num_entities = num_entities
        self._block_starts = None
        self.lookahead_s = lookahead_s
        self.main_greenlet = getcurrent()
        self.comm = parallel.world() if comm is parallel.AUTO else comm
        self.rank = self.comm.rank if self.comm else 0
        self.size = self.comm.size if self.comm else 1
        #: End of the current parallel window; -inf outside windows (no check).
        self.window_end = -math.inf
        #: Events run now only if earlier than this: the end of the current run or parallel window.
        self.horizon = math.inf
        self._outbox: list[list] = [[] for _ in range(self.size)]
        #: Models that exchange their own cross-rank traffic in each parallel window (see add_exchange).
        self.exchanges: list = []
        #: Called as ``progress(sim)`` every PROGRESS_MASK + 1 events (e.g. a stderr reporter).
        self.progress = None

    # -- placement ------------------------------------------------------
    def owner(self, eid: int) -> int:
        """Simulation rank hosting entity ``eid``: blocks of ids (round-robin without ``num_entities``)."""
        if self.size == 1:
            return 0
        if self._block_starts is not None:
            return bisect_right(self._block_starts, eid) - 1
        if self.num_entities is None:
            return eid % self.size
        return eid * self.size // self.num_entities

    def set_block_starts(self, starts: list[int]) -> None:
        """Place ids ``starts[k] .. starts[k+1]-1`` on rank k (before any entity is created)."""
        if len(starts) != self.size or starts[0] != 0 or sorted(starts) != list(starts):
            raise SimulationError(f"block starts {starts[:4]}... must rise from 0, one per rank")
        self._block_starts = list(starts)

    def is_local(self, eid: int) -> bool:
        return self.owner(eid) == self.rank

    def add(self, entity):
        """Register an entity created on this rank; returns it."""
        if entity.eid in self.entities:
            raise SimulationError(f"two entities with id {entity.eid}: {self.entities[entity.eid]} and {entity}")
        self.entities[entity.eid] = entity
        return entity

    def create(self, eid: int, cls, *args, **kwargs):
        """Create ``cls(self, eid, *args, **kwargs)`` if ``eid`` lives on this rank; else None."""
        if not self.is_local(eid):
            return None
        return self.add(cls(self, eid, *args, **kwargs))

    @staticmethod
    def service(entity, name: str):
        """The bound service ``name`` of ``entity``; a SimulationError if it has none."""
        fn = getattr(entity, name, None)
        if fn is None or not callable(fn):
            raise SimulationError(f"entity {entity} has no service {name!r}")
        return fn

    # -- fast scheduling -------------------------------------------------
    def post(self, time_s: float, key, service, data=None) -> None:
        """Queue ``service(data)`` at ``time_s`` with tie-break ``key``, unchecked (callers
        guarantee ``time_s >= now``; a key above every entity key runs after them)."""
        heappush(self.heap, (time_s, key, service, data))

    def peek(self) -> float:
        """Time of the next queued event (inf if none)."""
        return self.heap[0][0] if self.heap else math.inf

    def cancel(self, key) -> None:
        """Drop the queued event whose tie-break key is ``key``, if any (O(queued events))."""
        kept = [event for event in self.heap if event[1] != key]
        if len(kept) != len(self.heap):
            heapify(kept)
            self.heap[:] = kept

    def only_keys_from(self, key) -> bool:
        """True if every queued event's tie-break key is at least ``key`` (say, only a model's own
        wake-ups are left)."""
        return all(event[1] >= key for event in self.heap)

    def add_exchange(self, model) -> None:
        """Register a model that moves its own events between simulation ranks.

        In every parallel window exchange ``model.outgoing()`` gives one part
        per rank (sent to that rank): None when it has nothing for it, which
        costs no bytes, else a pair ``(raw, obj)`` of bytes that travel as they
        are (fixed C records; ``b""`` for none) and a picklable object (None
        for none).  ``model.outgoing_min_s()`` is the earliest time among
        them, and ``model.incoming(parts)`` receives what the other ranks sent
        here, by rank (None from a rank that had nothing for this one).
        """
        self.exchanges.append(model)

    # -- cross-rank events ---------------------------------------------
    def send_remote(self, sender, time_s, key, eid, service, data):
        if self.size == 1 or not 0 <= eid < (self.num_entities or eid + 1):
            raise SimulationError(f"{sender} sent {service!r} to entity {eid}, which does not exist")
        if time_s < self.window_end:
            raise SimulationError(
                f"{sender} sent {service!r} to entity {eid} on another simulation rank only "
                f"{time_s - self.now!r} s ahead, below the lookahead {self.lookahead_s!r} s")
        self._outbox[self.owner(eid)].append((time_s, key, eid, service, data))

    def _deliver(self, batches):
        heap, entities, service = self.heap, self.entities, self.service
        for batch in batches:
            for time_s, key, eid, name, data in batch:
                target = entities.get(eid)
                if target is None:
                    raise SimulationError(f"event {name!r} for entity {eid}, which does not exist")
                heappush(heap, (time_s, key, service(target, name), data))

    # -- running -----------------------------------------------------------
    def run(self, until_s: float | None = None) -> float:
        """Execute events with time < ``until_s`` (default ``end_s``) until none remain.

        Returns the time of the last event executed on this rank; later events
        stay queued, so ``run`` can be called again with a later time.
        """
        end = self.end_s if until_s is None else min(until_s, self.end_s)
        with young_garbage_only():
            if self.size == 1:
                self._run_window(end)
            else:
                parallel.run_windows(self, end)
        return self.now

    def _run_window(self, end: float) -> None:
        """Execute local events with time < ``end`` (the hot loop)."""
        heap = self.heap
        n = 0
        progress = self.progress
        self.horizon = end
        try:
            while heap:
                event = heappop(heap)
                if event[0] >= end:
                    heappush(heap, event)
                    break
                t, _, fn, data = event
                self.now = t
                n += 1
                fn(data)
                if progress and not n & PROGRESS_MASK:
                    self.events += n
                    n = 0
                    progress(self)
        finally:
            self.events += n

    def blocked(self) -> list:
        """Processes still alive (hibernating or sleeping) on this rank."""
        return sorted((p for p in self.processes if not p.done), key=lambda p: (p.entity.eid, p.name))

    def gather(self, obj):
        """All ranks' ``obj`` as a list on rank 0 (``[obj]`` when serial); None elsewhere."""
        if self.size == 1:
            return [obj]
        return self.comm.gather(obj, root=0)

    def total_events(self) -> int:
        """Events executed over all simulation ranks (the same on every rank)."""
        return self.events if self.size == 1 else self.comm.allreduce(self.events)
