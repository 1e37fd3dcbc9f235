"""Parallel runs (``mpiexec -n K``) of the compiled MPI engine, identical to the serial run to the last bit.

Each simulation process holds the engine of the whole job but runs only the ranks of the nodes it owns
(the partition of :mod:`ppt.engine.parallel`: a node belongs to the process where its NIC entity is local).
:func:`ppt.engine.parallel.run_windows` drives the engines in conservative windows of the network's
lookahead, as it drives a parallel Python simulation: each window runs the engine's events before the
window's end; a message delivered to a rank of another process leaves in an outbox as a fixed-size C
record (``ppt_mpi_remote_t``) with its delivery's (time, key), and the window's exchange hands the
records (and the slot sizes they carry) to their destination, which queues them with the same (time,
key).  Keys are made per scheduling entity, so simultaneous events run in the serial order whatever
the partition.

On the packet network each process drives its part of the packet core: a message to a rank of another
process goes ahead to it as a record (``in_core``) when it is handed to the core, and the core delivers
it there; the core's own events for other processes travel in the same exchange.  A model of one's own
(:mod:`ppt.mpi.engine.pynet`) runs its part on each process the same way, its events for other processes in the
exchange too.  A sampled run (:class:`SampledRun`) ends its windows at each sample time.

An error on one process (a replay's refused call or mismatched collective, a program's exception, the
engine stopping) and an interrupt stop all processes together, as :mod:`ppt.engine.parallel`
describes; a deadlock or a collective message nobody received is found once the events run out, from
every process's ranks.
"""
from __future__ import annotations

import math
import pickle
import struct
from functools import partial

import numpy as np

from ppt.engine import parallel
from ppt.mpi.collectives.schedule import Exchange
from ppt.errors import SimulationError
from ppt.mpi.engine.core import ffi, lib

#: ``ppt_mpi_remote_t`` (mpicore.h), field for field.
RECORD = np.dtype([("t", "f8"), ("sent_s", "f8"), ("key", "u8"), ("uid", "u8"), ("tag", "i8"), ("seq", "i8"),
                   ("nbytes", "i8"), ("net_B", "i8"), ("payload", "i8"), ("hdr_seq", "i8"), ("parts_at", "i8"),
                   ("kind", "i4"), ("dst", "i4"), ("src", "i4"), ("ctx", "i4"), ("send_req", "i4"),
                   ("recv_req", "i4"), ("count", "i4"), ("hdr_call", "i4"), ("hdr_root", "i4"), ("in_core", "i4")])
assert RECORD.itemsize == ffi.sizeof("ppt_mpi_remote_t")
NO_RECORDS = np.zeros(0, RECORD)
#: The counts that open a packed part (:func:`ppt_mpi_pack`): records, slot sizes, packet-core events and
#: records carrying Python cargo.
PACKED_COUNTS = struct.Struct("4q")


class Windows:
    """The compiled engine of one simulation process, as :func:`~ppt.engine.parallel.run_windows` drives a
    simulation: its peek, its window's run and its exchange of cross-process messages."""

    def __init__(self, m, names, sim, cargo=None, model=None):
        self.m = m
        #: A network or node memory model of one's own (:class:`~ppt.mpi.engine.pynet.PythonModels`), or None: its
        #: simulation's events for other processes travel too, and its windows are this one's.
        self.model = model
        #: The job's call names (``ppt.mpi.engine.replay._Names``): ids are per process, names travel.
        self.names = names
        #: What travels beside the records in Python, or None: ``cargo.pack(batches)`` gives, per process,
        #: the objects its batch of records names and whatever else goes to it; ``cargo.unpack(records,
        #: objects)`` takes them in at the destination (rewriting the records' fields to its own numbers)
        #: before the records are queued there.
        self.cargo = cargo
        self.comm, self.rank, self.size = sim.comm, sim.rank, sim.size
        #: The network's smallest delay between nodes, s: no message reaches another node sooner.
        self.lookahead_s = sim.lookahead_s
        self.now = 0.0
        self.window_end = -math.inf
        self._outbox = [[] for _ in range(self.size)]     # run_windows' Python events: none here
        self.exchanges = [self] if model is None else [self, *model.sim.exchanges, model]
        self.step = None
        #: Where the engine packs a part (grown to fit); per process, the call names sent to it so far; per
        #: process, its call ids as this process numbers them, as the array the engine reads.
        self._packed = ffi.new("uint8_t[]", 1 << 16)
        self._names_sent = [0] * self.size
        self._call_ids = [ffi.new("int32_t[]", 0) for _ in range(self.size)]

    @classmethod
    def of(cls, engine, comm, cargo=None):
        """The windows of ``engine``'s run under ``comm`` (an mpi4py communicator of more than one process),
        its nodes partitioned as :mod:`ppt.engine.parallel` partitions entities; None for a serial run."""
        if comm is None or comm.size == 1:
            return None
        net = engine.net
        sim = engine.sim or net.simulation(comm=comm, name="mpi")
        owner = np.array([sim.owner(net.nic_eid(node)) for node in range(net.num_nodes)], dtype=np.int32)
        lib.ppt_mpi_set_partition(engine.m, sim.rank, sim.size, ffi.from_buffer("int32_t[]", owner))
        return cls(engine.m, engine.names, sim, cargo, engine.python)

    def run(self, step, until_s: float = math.inf) -> None:
        """Run the engine until no events remain before ``until_s`` on any process (every message due
        before it delivered), ``step()`` running it up to the current window's end."""
        self.step = step
        parallel.run_windows(self, until_s)

    # -- what run_windows calls ---------------------------------------------------------------------
    def peek(self) -> float:
        """The next event here or in the outboxes, s."""
        return lib.ppt_mpi_next_time(self.m)

    outgoing_min_s = peek

    @property
    def events(self) -> int:
        """Events this process's engine has run (its packet core's included), for the window statistics."""
        return lib.ppt_mpi_events(self.m)

    def _deliver(self, batches) -> None:
        for _ in batches:       # no Python events travel
            pass

    def _run_window(self, end: float) -> None:
        lib.ppt_mpi_set_window(self.m, end)
        if self.model is None:
            self.step()
        else:
            with self.model.window(end):
                self.step()
        self.now = lib.ppt_mpi_now(self.m)

    def outgoing(self) -> list:
        """Per process: its records, the slot sizes they carry and the packet core's events for it, packed by
        the engine (:func:`ppt_mpi_pack`) as the raw section, and the call names it has not been sent yet
        and the cargo's objects as the object (None when there are neither: most windows)."""
        raws = [b"" if process == self.rank else self._pack(process) for process in range(self.size)]
        lib.ppt_mpi_clear_exchange(self.m)
        cargo = [None] * self.size if self.cargo is None else self.cargo.pack([_cargo_records(raw) for raw in raws])
        names, parts = self.names.names, []
        for process, (raw, objects) in enumerate(zip(raws, cargo)):
            new = names[self._names_sent[process]:] if raw else ()
            self._names_sent[process] += len(new)
            obj = None if not new and objects is None else (tuple(new), objects)
            parts.append(None if not raw and obj is None else (raw, obj))
        return parts

    def _pack(self, process: int) -> bytes:
        """The engine's part for ``process``, packed (b"" when it has nothing for it)."""
        n = lib.ppt_mpi_pack(self.m, process, self._packed, len(self._packed))
        if n > len(self._packed):
            self._packed = ffi.new("uint8_t[]", 2 * n)
            n = lib.ppt_mpi_pack(self.m, process, self._packed, len(self._packed))
        return ffi.buffer(self._packed, n)[:]

    def incoming(self, parts: list) -> None:
        """Queue what the other processes sent here: the cargo's objects taken in first (they renumber the
        records' fields), then the packed records and packet-core events (:func:`ppt_mpi_unpack`)."""
        for source, part in enumerate(parts):
            if part is None:
                continue
            raw, obj = part
            names, objects = ((), None) if obj is None else obj
            if names:
                self._call_ids[source] = ffi.new("int32_t[]", [*self._call_ids[source], *map(self.names.id, names)])
            if objects is not None:
                raw = bytearray(raw)                          # writable: the cargo renumbers its fields
                self.cargo.unpack(_records(raw), objects)
            if raw:
                ids = self._call_ids[source]
                if lib.ppt_mpi_unpack(self.m, ffi.from_buffer(raw), len(raw), ids, len(ids)):
                    raise SimulationError(f"simulation process {source} sent a malformed window part "
                                          f"({len(raw)} bytes)")


def _records(raw) -> np.ndarray:
    """The records of a part :func:`ppt_mpi_pack` packed (a view: writable if ``raw`` is), or none."""
    if not raw:
        return NO_RECORDS
    return np.frombuffer(raw, RECORD, PACKED_COUNTS.unpack_from(raw)[0], PACKED_COUNTS.size)


def _cargo_records(raw) -> np.ndarray:
    """The records of a packed part when any of them carries Python cargo (a payload handle or an object
    tag), else none: most windows' records carry none, and the cargo then has nothing to look at."""
    return _records(raw) if raw and PACKED_COUNTS.unpack_from(raw)[3] else NO_RECORDS


class CallParts:
    """The :class:`~ppt.mpi.collectives.schedule.Exchange` of every collective call in progress whose parts Python
    combines (a program's payloads, a new communicator's agreement), by call key, when the call's members
    may run on several simulation processes: each part added here also travels, pickled as it is when added
    (the Exchange combines into its values in place), to every other process in the next window exchange
    (:meth:`pack`, :meth:`unpack`: a :class:`Windows` cargo).  A call's reduction op does not travel: every
    member of a call has the same, and the parts from elsewhere take the local member's (:meth:`values`).
    An Exchange is dropped once every member's part is in and every member running here has taken its
    values (a member may finish its part before another has started its own)."""

    def __init__(self, m, comm):
        self.m = m
        #: This simulation process in a parallel run (``comm``: mpi4py's, of more than one process), else None.
        self.process = comm.rank if comm is not None and comm.size > 1 else None
        self.parallel = self.process is not None
        #: By call key: its Exchange and its number of members.
        self.exchanges: dict[tuple, tuple[Exchange, int]] = {}
        #: ``(call key, members, pickled (rank in the call, schedule, values, sizes))`` since the last exchange.
        self.added: list = []

    def _add(self, key: tuple, members, me: int, schedule, values: list, sizes: list, op) -> None:
        found = self.exchanges.get(key)
        if found is None:
            here = sum(map(partial(lib.ppt_mpi_is_local, self.m), members)) if self.parallel else len(members)
            found = self.exchanges[key] = (Exchange(here), len(members))
        found[0].add(me, schedule, values, sizes, op)

    def _drop_if_over(self, key: tuple) -> None:
        exchange, size = self.exchanges[key]
        if not exchange.left and len(exchange.runs) == size:
            del self.exchanges[key]

    def add(self, key: tuple, members, me: int, schedule, values: list, sizes: list, op) -> None:
        """Member ``me``'s part of call ``key`` of a communicator of ``members`` (world ranks), a member running
        here (its values still to be taken: the call is not over)."""
        self._add(key, members, me, schedule, values, sizes, op)
        if self.parallel:
            self.added.append((key, members, pickle.dumps((me, schedule, values, sizes), pickle.HIGHEST_PROTOCOL)))

    def values(self, key: tuple, me: int, combined: bool = True) -> list:
        """Member ``me``'s slots once its part has run: combined (``Exchange.values``), or only where some
        member's slots hold a payload (``Exchange.result``)."""
        exchange = self.exchanges[key][0]
        if self.parallel:
            op = exchange.runs[me][3]
            for member, (schedule, values, sizes, theirs) in exchange.runs.items():
                if theirs is None:
                    exchange.runs[member] = (schedule, values, sizes, op)
        slots = exchange.values(me) if combined else exchange.result(me)
        self._drop_if_over(key)
        return slots

    def pack(self, batches: list) -> list:
        """Per process: the parts added since the last exchange (None for this process, and when there are
        none)."""
        added, self.added = self.added, []
        return [None if process == self.process or not added else added for process in range(len(batches))]

    def unpack(self, records, added) -> None:
        for key, members, part in added:
            self._add(key, members, *pickle.loads(part), None)
            self._drop_if_over(key)


class SampledRun:
    """What a :class:`~ppt.drivers.sampling.Sampler` drives and reads of a compiled run, serial or parallel
    (``windows``: :class:`Windows`, or None), as of a simulation: :meth:`run` up to a sample time, the next
    event's time here (:meth:`peek`), and every process's figures on process 0 (:meth:`gather`).  ``step()``
    runs the engine until no events remain, its window ends or the next event is at its horizon."""

    def __init__(self, engine, windows: Windows | None, step):
        self.engine, self.windows, self.step = engine, windows, step
        self.comm = None if windows is None else windows.comm
        self.rank, self.size = (0, 1) if windows is None else (windows.rank, windows.size)

    def run(self, until_s: float | None = None) -> float:
        """Run every event before ``until_s`` (s; None: all): the engine's horizon (and a Python model's),
        and in a parallel run the windows' end; returns the engine's time."""
        until_s = math.inf if until_s is None else until_s
        lib.ppt_mpi_set_horizon(self.engine.m, until_s)
        if self.engine.sim is not None:
            self.engine.sim.horizon = until_s
        if self.windows is None:
            self.step()
        else:
            self.windows.run(self.step, until_s)
        return lib.ppt_mpi_now(self.engine.m)

    def peek(self) -> float:
        return lib.ppt_mpi_next_s(self.engine.m)

    def gather(self, obj):
        """Every process's ``obj`` as a list on process 0; None elsewhere."""
        return [obj] if self.windows is None else self.comm.gather(obj, root=0)


def drive(engine, windows: Windows | None, step, sampler=None) -> None:
    """Run ``engine``'s job to its end: ``step()`` alone (serial), over every window of a parallel run, or
    driven by ``sampler`` (a :class:`~ppt.drivers.sampling.Sampler`) to each of its sample times."""
    if sampler is not None:
        sampler.attach(engine.net, SampledRun(engine, windows, step))
        sampler.run()
    elif windows is None:
        step()
    else:
        windows.run(step)


def gathered(windows: Windows | None, obj) -> list:
    """Every simulation process's ``obj``, in process order (``[obj]`` in a serial run, ``windows`` None)."""
    return [obj] if windows is None else windows.comm.allgather(obj)
