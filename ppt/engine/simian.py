"""Classic Simian names over the engine, so LANL PPT scripts port with few edits.

    engine = Simian("demo", startTime=0, endTime=100, minDelay=1)
    class Node(engine.Entity):
        def __init__(self, baseInfo, *args):
            super().__init__(baseInfo)
        def ping(self, data, tx, txId): ...
    engine.addEntity("Node", Node, 0)
    engine.schedService(0, "ping", None, "Node", 0)
    engine.run(); engine.exit()

Entities are addressed by (name, number); services take ``(data, tx, txId)``;
process functions take ``(this, *args)``.  In parallel runs every rank must add
the same entities in the same order (they are placed round-robin).
"""
from __future__ import annotations

from ppt.engine.core import Simulation
from ppt.engine.entity import Entity as _Entity
from ppt.errors import SimulationError


class Simian(Simulation):
    """``Simian(simName, startTime, endTime, minDelay=1, useMPI=False)``."""

    def __init__(self, simName="simian", startTime=0.0, endTime=float("inf"), minDelay=1.0, useMPI=False):
        super().__init__(lookahead_s=minDelay, end_s=endTime, name=simName,
                         **({} if useMPI else {"comm": None}))
        self.now = startTime
        self.startTime = startTime
        self.endTime = endTime
        self._ids: dict[tuple, int] = {}
        engine = self

        class Entity(_ClassicEntity):
            """Base class for this engine's entities (``super().__init__(baseInfo)``)."""
            _engine = engine

        self.Entity = Entity

    def eid_of(self, name: str, num: int) -> int:
        try:
            return self._ids[(name, num)]
        except KeyError:
            raise SimulationError(f"no entity {name}[{num}]; add it with addEntity first") from None

    def addEntity(self, name, entityClass, num, *args, **kwargs):
        eid = self._ids.setdefault((name, num), len(self._ids))
        if self.is_local(eid):
            self.add(entityClass((self, eid, name, num), *args, **kwargs))

    def schedService(self, time, eventName, data, rx, rxId):
        eid = self.eid_of(rx, rxId)
        target = self.entities.get(eid)
        if target is not None:
            target.schedule(time - self.now, target._classic_call, (eventName, data, None, None))

    def exit(self):
        """Nothing to clean up; kept for ported scripts."""


class _ClassicEntity(_Entity):
    """Entity with Simian's method names; services receive ``(data, tx, txId)``."""

    __slots__ = ("num", "engine", "out", "_procs")

    def __init__(self, baseInfo):
        sim, eid, name, num = baseInfo
        super().__init__(sim, eid, name)
        self.num = num
        self.engine = sim
        self.out = None
        self._procs = {}

    def __repr__(self):
        return f"{self.name}[{self.num}]"

    def reqService(self, minDelay, serviceName, data, rx, rxId):
        eid = self.sim.eid_of(rx, rxId)
        self.send(eid, "_classic_call", (serviceName, data, self.name, self.num), minDelay)

    def _classic_call(self, packed):
        service, data, tx, tx_id = packed
        self.sim.service(self, service)(data, tx, tx_id)

    def attachService(self, klass, name, fun):
        setattr(klass, name, fun)

    def createProcess(self, name, fun, *args):
        self._procs[name] = (fun, args)

    def startProcess(self, name, *args):
        fun, created_args = self._procs[name]
        self._procs[name] = self.start_process(lambda proc, *a: fun(_ClassicProcess(proc), *a),
                                               *(args or created_args), name=name)

    def wakeProcess(self, name):
        self._procs[name].wake()

    def statusProcess(self, name):
        proc = self._procs.get(name)
        if proc is None or isinstance(proc, tuple):
            return "NonExistent" if proc is None else "NotStarted"
        return "Finished" if proc.done else ("Hibernating" if proc.blocked_in is not None else "Running")


class _ClassicProcess:
    """The ``this`` handed to Simian process functions."""

    __slots__ = ("_proc", "entity")

    def __init__(self, proc):
        self._proc = proc
        self.entity = proc.entity

    def hibernate(self, *_):
        return self._proc.hibernate("hibernate")

    def sleep(self, seconds, *_):
        self._proc.sleep(seconds)
