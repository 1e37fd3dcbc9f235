"""Entities: the objects that own simulation state and receive events.

An entity has a global integer id ``eid`` (the same on every simulation rank)
and *services*: plain methods taking one ``data`` argument, invoked by
timestamped events.  Every event an entity schedules gets a key made of the
entity's id and its own running count, so the order of simultaneous events
never depends on how entities are spread over simulation ranks.
"""
from __future__ import annotations

from heapq import heappush

from ppt.errors import SimulationError

#: Bits of an event key reserved for the creating entity's running count.
KEY_BITS = 40


class Entity:
    """Base class of everything that receives events.

    Subclasses call ``super().__init__(sim, eid, name)`` and define services as
    methods ``def service(self, data)``.
    """

    __slots__ = ("sim", "eid", "name", "_key", "__weakref__")

    def __init__(self, sim, eid: int, name: str | None = None):
        self.sim = sim
        self.eid = eid
        self.name = name or f"{type(self).__name__}[{eid}]"
        self._key = eid << KEY_BITS

    def __repr__(self):
        return self.name

    @property
    def now(self) -> float:
        """Current simulated time in seconds."""
        return self.sim.now

    def schedule(self, delay_s: float, service, data=None) -> None:
        """Run the bound method ``service`` (usually of this entity) after ``delay_s`` seconds."""
        if delay_s < 0.0:
            raise SimulationError(f"{self.name} scheduled an event in the past (delay {delay_s!r} s)")
        self._key += 1
        heappush(self.sim.heap, (self.sim.now + delay_s, self._key, service, data))

    def schedule_at(self, time_s: float, service, data=None) -> None:
        """Run ``service`` at the absolute simulated time ``time_s`` (not before now)."""
        if time_s < self.sim.now:
            raise SimulationError(f"{self.name} scheduled an event in the past (at {time_s!r} s, now {self.sim.now!r} s)")
        self._key += 1
        heappush(self.sim.heap, (time_s, self._key, service, data))

    def send(self, eid: int, service: str, data=None, delay_s: float = 0.0) -> None:
        """Invoke ``service`` of the entity with id ``eid`` (on any simulation rank) after ``delay_s``."""
        if delay_s < 0.0:
            raise SimulationError(f"{self.name} scheduled an event in the past (delay {delay_s!r} s)")
        sim = self.sim
        self._key += 1
        target = sim.entities.get(eid)
        if target is None:
            sim.send_remote(self, sim.now + delay_s, self._key, eid, service, data)
            return
        try:
            fn = getattr(target, service)
        except AttributeError:
            raise SimulationError(f"entity {target} has no service {service!r}") from None
        heappush(sim.heap, (sim.now + delay_s, self._key, fn, data))

    def start_process(self, fn, *args, name: str | None = None, delay_s: float = 0.0):
        """Start ``fn(process, *args)`` as a process of this entity after ``delay_s`` seconds."""
        from ppt.engine.process import Process
        proc = Process(self, fn, args, name)
        self.schedule(delay_s, proc.resume, None)
        return proc
