"""Processes: greenlets that live inside an entity and can block.

A process is a function ``fn(proc, *args)`` run as a greenlet.  Inside it,
``proc.sleep(dt)`` advances its own simulated time, ``proc.hibernate()`` blocks
until another party calls ``proc.wake(value)``.  Resumptions are ordinary
events, so they are ordered like every other event.
"""
from __future__ import annotations

from greenlet import greenlet

from ppt.errors import PPTError, SimulationError


class ProcessError(SimulationError):
    """An exception escaped a process; the message names the entity and process."""

    @classmethod
    def of(cls, proc, exc: Exception) -> "ProcessError":
        """What exception ``exc`` (not PPT's own) leaves when it escapes process ``proc``."""
        return cls(f"{proc} raised {type(exc).__name__}: {exc}")


def run_body(proc) -> None:
    """Run process ``proc``'s function, ``proc.fn(proc, *proc.args)``; an exception other than PPT's own
    leaves it as a ProcessError naming the process."""
    try:
        proc.fn(proc, *proc.args)
    except PPTError:
        raise
    except Exception as exc:
        raise ProcessError.of(proc, exc) from exc


class Process:
    """A blocking activity of an entity (an MPI rank is one)."""

    __slots__ = ("entity", "name", "glet", "fn", "args", "blocked_in", "done", "_to_engine",
                 "resume", "__weakref__")

    def __init__(self, entity, fn, args, name=None):
        self.entity = entity
        self.name = name or getattr(fn, "__name__", "process")
        self.fn = fn
        self.args = args
        self.glet = greenlet(self._body, parent=entity.sim.main_greenlet)
        self._to_engine = entity.sim.main_greenlet.switch
        #: Service: continue the process; the value becomes its blocking call's result.
        self.resume = self.glet.switch
        #: What the process waits for while hibernating (for deadlock reports).
        self.blocked_in = None
        self.done = False
        entity.sim.processes.add(self)

    def __repr__(self):
        return f"process {self.name!r} of {self.entity.name}"

    def _body(self, _):
        try:
            run_body(self)
        finally:
            self.done = True
            self.entity.sim.processes.discard(self)

    @property
    def now(self) -> float:
        return self.entity.sim.now

    def sleep(self, delay_s: float) -> None:
        """Block this process for ``delay_s`` seconds of simulated time."""
        self.entity.schedule(delay_s, self.resume, None)
        self._to_engine()

    def hibernate(self, why=None):
        """Block until :meth:`wake`; returns the value given to wake. ``why`` is shown in deadlock reports."""
        self.blocked_in = why
        value = self._to_engine()
        self.blocked_in = None
        return value

    def wake(self, value=None, delay_s: float = 0.0) -> None:
        """Resume this hibernating process after ``delay_s`` (call from its own entity's context)."""
        self.entity.schedule(delay_s, self.resume, value)
