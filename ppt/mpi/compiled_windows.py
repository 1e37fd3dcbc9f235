"""Parallel runs (``mpiexec -n K``) of the compiled MPI engine, identical to the serial run to the last bit.

Each simulation process holds the engine of the whole job but runs only the ranks of the nodes it owns
(the partition of the Python engine: a node belongs to the process where its NIC entity is local).
:func:`ppt.engine.parallel.run_windows` drives the engines in conservative windows of the network's
lookahead, as it drives a parallel Python simulation: each window runs the engine's events before the
window's end; a message delivered to a rank of another process leaves in an outbox as a fixed-size C
record (``ppt_mpi_remote_t``) with its delivery's (time, key), and the window's exchange hands the
records (and the slot sizes they carry) to their destination, which queues them with the same (time,
key).  Keys are made per scheduling entity, so simultaneous events run in the serial order whatever
the partition.

A process whose engine gives up (a call it does not carry, a lookahead broken) tells the others in the
next exchange; every process then stops running and the run ends with the same reason everywhere, for
the caller to fall back to the Python engine together.  Failures in Python and interrupts stop all
processes together as :mod:`ppt.engine.parallel` describes.
"""
from __future__ import annotations

import math

import numpy as np

from ppt.engine import parallel
from ppt.interconnects.core import ffi, lib

RECORD_B = ffi.sizeof("ppt_mpi_remote_t")


class Windows:
    """The compiled engine of one simulation process, as :func:`~ppt.engine.parallel.run_windows` drives a
    simulation: its peek, its window's run and its exchange of cross-process messages."""

    def __init__(self, m, names, sim):
        self.m = m
        #: The job's call names (``ppt.mpi.compiled._Names``): ids are per process, names travel.
        self.names = names
        self.comm, self.rank, self.size = sim.comm, sim.rank, sim.size
        #: The network's smallest delay between nodes, s: no message reaches another node sooner.
        self.lookahead_s = sim.lookahead_s
        self.now = 0.0
        self.window_end = -math.inf
        self._outbox = [[] for _ in range(self.size)]     # run_windows' Python events: none here
        self.exchanges = [self]
        self.why = None
        self.step = None

    @classmethod
    def of(cls, engine, comm):
        """The windows of ``engine``'s run under ``comm`` (an mpi4py communicator of more than one process),
        its nodes partitioned as the Python engine partitions them; None for a serial run."""
        if comm is None or comm.size == 1:
            return None
        net = engine.net
        sim = net.simulation(comm=comm, name="mpi")
        owner = np.array([sim.owner(net.nic_eid(node)) for node in range(net.num_nodes)], dtype=np.int32)
        lib.ppt_mpi_set_partition(engine.m, sim.rank, sim.size, ffi.from_buffer("int32_t[]", owner))
        return cls(engine.m, engine.names, sim)

    def run(self, step):
        """Run the engine to the end of the job, ``step()`` running it up to the current window's end (None,
        or why the engine gave up); None, or the reason every process gave up with."""
        self.step = step
        parallel.run_windows(self, math.inf)
        return next((why for why in gathered(self, self.why) if why is not None), None)

    # -- what run_windows calls ---------------------------------------------------------------------
    def peek(self) -> float:
        """The next event here or in the outboxes, s (inf once the engine gave up)."""
        return math.inf if self.why is not None else lib.ppt_mpi_next_time(self.m)

    outgoing_min_s = peek

    def _deliver(self, batches) -> None:
        for _ in batches:       # no Python events travel
            pass

    def _run_window(self, end: float) -> None:
        if self.why is not None:
            return
        lib.ppt_mpi_set_window(self.m, end)
        self.why = self.step()
        self.now = lib.ppt_mpi_now(self.m)

    def outgoing(self) -> list:
        """Per process: the bytes of the records and of the slot sizes for it, the call names (by id) of
        this process, and why this engine gave up."""
        m, out, names = self.m, [], tuple(self.names.names)
        records, parts, nparts = ffi.new("ppt_mpi_remote_t **"), ffi.new("int64_t **"), ffi.new("int64_t *")
        for process in range(self.size):
            n = lib.ppt_mpi_outbox(m, process, records, parts, nparts)
            out.append((bytes(ffi.buffer(records[0], n * RECORD_B)) if n else b"",
                        bytes(ffi.buffer(parts[0], nparts[0] * 8)) if nparts[0] else b"", names if n else (),
                        self.why))
        lib.ppt_mpi_clear_outboxes(m)
        return out

    def incoming(self, parts: list) -> None:
        """Queue the records the other processes sent here (none once any process gave up)."""
        for *_, why in parts:
            if why is not None and self.why is None:
                self.why = why
        if self.why is not None:
            return
        for records, sizes, names, _ in parts:
            if records:
                ids = ffi.new("int32_t[]", [self.names.id(name) for name in names] or [0])
                lib.ppt_mpi_receive(self.m, ffi.from_buffer("ppt_mpi_remote_t[]", records), len(records) // RECORD_B,
                                    ffi.from_buffer("int64_t[]", sizes) if sizes else ffi.NULL, ids, len(names))


def gathered(windows: Windows | None, obj) -> list:
    """Every simulation process's ``obj``, in process order (``[obj]`` in a serial run, ``windows`` None)."""
    return [obj] if windows is None else windows.comm.allgather(obj)
