"""The clocks a rank's program reads: its simulated time, as SMPI gives C programs theirs.

A rank's ``import time`` and ``import datetime`` (and ``from time import
perf_counter`` ...), in the program and in modules of its own folder, give
views of those modules (:func:`rank_modules`) whose clocks read the rank's
simulated clock, the one ``MPI.Wtime()`` reads:

* ``perf_counter``, ``monotonic``, ``process_time``, ``thread_time`` (and
  their ``_ns`` forms, and ``clock_gettime`` of the other clocks): simulated
  seconds since the run began;
* ``time``, ``time_ns``, ``clock_gettime(CLOCK_REALTIME)``, ``localtime()``,
  ``gmtime()``, ``ctime()``, ``asctime()``, ``strftime(fmt)`` and
  ``datetime.now``/``utcnow``/``today``, ``date.today``: the host's wall
  time when the run began plus the simulated time;
* ``sleep(s)``: the rank's clock advances by ``s`` seconds, idle (not
  compute time).

The views are made at the program's boundary, so PPT's own code (its
progress, the CPU meter) keeps the host's clocks and a rank pays nothing when
it switches.  Modules the program does not own (the standard library's
``timeit`` and ``logging``, numpy, C extensions) read the host's clocks.
"""
from __future__ import annotations

import datetime as real_datetime
import math
import time as real_time
import types
from numbers import Real

#: Clocks counting simulated seconds since the run began (their ``_ns`` forms too).
ELAPSED = ("perf_counter", "monotonic", "process_time", "thread_time")
#: ``time`` functions whose argument defaults to the current time: a struct_time or seconds as the last one.
CALENDAR = ("localtime", "gmtime", "ctime")


class RankClock:
    """The clocks of one rank: ``mpi`` (its :class:`ppt.mpi.surface.api.MPI`), ``epoch_s`` the host's wall
    time (s since 1970) when the run began."""

    __slots__ = ("mpi", "epoch_s")

    def __init__(self, mpi, epoch_s: float):
        self.mpi = mpi
        self.epoch_s = epoch_s

    def elapsed_s(self) -> float:
        """The rank's simulated time, s (its CPU time so far charged first, as ``MPI.Wtime()`` does)."""
        return self.mpi.now_s()

    def wall_s(self) -> float:
        """Seconds since 1970 on the rank's wall clock."""
        return self.epoch_s + self.mpi.now_s()

    def sleep(self, seconds) -> None:
        """``time.sleep``: the rank idles ``seconds`` of simulated time; Python's errors for bad lengths."""
        if not isinstance(seconds, Real):
            raise TypeError(f"'{type(seconds).__name__}' object cannot be interpreted as an integer")
        if math.isnan(seconds):
            raise ValueError("Invalid value NaN (not a number)")
        if seconds < 0:
            raise ValueError("sleep length must be non-negative")
        rank = self.mpi._rank
        meter = rank.meter
        if meter is not None:
            meter.stop(rank)
        rank.proc.sleep(rank.owed_s + float(seconds))
        rank.owed_s = 0.0
        if meter is not None:
            meter.start(rank)


def _ns(seconds: float) -> int:
    return int(round(seconds * 1e9))


def time_view(clock: RankClock) -> types.ModuleType:
    """The ``time`` module as the rank's program sees it."""
    view = types.ModuleType("time", real_time.__doc__)
    view.__dict__.update({k: v for k, v in vars(real_time).items() if k not in ("__name__", "__doc__")})
    elapsed, wall = clock.elapsed_s, clock.wall_s
    for name in ELAPSED:
        setattr(view, name, elapsed)
        setattr(view, f"{name}_ns", lambda: _ns(elapsed()))
    view.time = wall
    view.time_ns = lambda: _ns(wall())
    view.sleep = clock.sleep

    def clock_gettime(clk_id):
        return wall() if clk_id == real_time.CLOCK_REALTIME else elapsed()
    view.clock_gettime = clock_gettime
    view.clock_gettime_ns = lambda clk_id: _ns(clock_gettime(clk_id))
    for name in CALENDAR:
        real = getattr(real_time, name)
        setattr(view, name, lambda secs=None, _real=real: _real(wall() if secs is None else secs))
    view.asctime = lambda t=None: real_time.asctime(real_time.localtime(wall()) if t is None else t)
    view.strftime = lambda fmt, t=None: real_time.strftime(fmt, real_time.localtime(wall()) if t is None else t)
    return view


class _StandsIn(type):
    """The class of a view's ``date`` and ``datetime``: instances of the real class they extend are theirs
    too (a datetime received in a message is a ``datetime``)."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, cls.__bases__[0])

    def __subclasscheck__(cls, sub):
        return issubclass(sub, cls.__bases__[0])


def datetime_view(clock: RankClock) -> types.ModuleType:
    """The ``datetime`` module as the rank's program sees it: its ``datetime`` and ``date`` classes tell
    the rank's time; their instances pickle as the real classes' (a message's receiver needs no view)."""
    wall = clock.wall_s

    class date(real_datetime.date, metaclass=_StandsIn):
        @classmethod
        def today(cls):
            return cls.fromtimestamp(wall())

        def __reduce_ex__(self, protocol):
            return real_datetime.date, super().__reduce_ex__(protocol)[1]

    class datetime(real_datetime.datetime, metaclass=_StandsIn):
        @classmethod
        def now(cls, tz=None):
            return cls.fromtimestamp(wall(), tz)

        @classmethod
        def today(cls):
            return cls.fromtimestamp(wall())

        @classmethod
        def utcnow(cls):
            return cls.now(real_datetime.timezone.utc).replace(tzinfo=None)

        def __reduce_ex__(self, protocol):
            return real_datetime.datetime, super().__reduce_ex__(protocol)[1]

    for cls in (date, datetime):
        cls.__module__, cls.__qualname__ = "datetime", cls.__name__
    view = types.ModuleType("datetime", real_datetime.__doc__)
    view.__dict__.update({k: v for k, v in vars(real_datetime).items() if k not in ("__name__", "__doc__")})
    view.date, view.datetime = date, datetime
    return view


def rank_modules(mpi, epoch_s: float) -> dict:
    """``{"time": ..., "datetime": ...}``: the views a rank's program imports, on the clock of ``mpi``."""
    clock = RankClock(mpi, epoch_s)
    return {"time": time_view(clock), "datetime": datetime_view(clock)}
