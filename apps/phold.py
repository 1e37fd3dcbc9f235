"""PHOLD, the classic synthetic benchmark of parallel discrete-event engines.

``num_lps`` logical processes start with ``jobs`` events each.  Handling an
event sends one new event after ``lookahead_s`` + an exponential delay of mean
``mean_delay_s``; with probability ``remote`` it goes to a uniformly chosen LP,
otherwise back to the same LP (the ROSS formulation of PHOLD).  Every LP draws
from its own random stream, so the event sequence does not depend on how LPs
are placed over simulation ranks.

Three versions share that definition: event-only entities, entities whose
work runs in a greenlet process, and a bare heapq loop used as the baseline.
"""
from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass
from heapq import heappop, heappush

from ppt.engine import Entity, Simulation
from ppt.engine.parallel import AUTO, max_op


@dataclass(frozen=True)
class PholdParams:
    num_lps: int = 10_000
    jobs: int = 1
    remote: float = 0.25
    lookahead_s: float = 0.1
    mean_delay_s: float = 0.9
    end_s: float = 50.0
    seed: int = 1


class _LP(Entity):
    """An event-only PHOLD logical process."""

    __slots__ = ("rng", "p", "count", "clock_sum")

    def __init__(self, sim, eid, p: PholdParams):
        super().__init__(sim, eid)
        self.rng = random.Random(p.seed * 1_000_003 + eid)
        self.p = p
        self.count = 0
        self.clock_sum = 0.0

    def start(self):
        for _ in range(self.p.jobs):
            self.forward()

    def forward(self):
        p, rng = self.p, self.rng
        delay = p.lookahead_s + rng.expovariate(1.0 / p.mean_delay_s)
        target = rng.randrange(p.num_lps) if rng.random() < p.remote else self.eid
        self.send(target, "event", None, delay)

    def event(self, _):
        self.count += 1
        self.clock_sum += self.sim.now
        self.forward()


class _ProcessLP(_LP):
    """A PHOLD logical process whose handling runs inside a greenlet process.

    Its ``event`` service is its process's ``resume``: an event switches
    straight into the process.
    """

    __slots__ = ("event",)

    def start(self):
        self.event = self.start_process(_lp_body, name=f"lp{self.eid}").resume


def _lp_body(proc):
    lp = proc.entity
    for _ in range(lp.p.jobs):
        lp.forward()
    while True:
        proc.hibernate("phold event")
        lp.count += 1
        lp.clock_sum += lp.sim.now
        lp.forward()


def run_phold(p: PholdParams, processes: bool = False, comm=AUTO) -> dict:
    """Run PHOLD on the engine; returns events, final-state hash (rank 0) and the Simulation.

    ``comm`` as for :class:`~ppt.engine.Simulation` (default: MPI world under
    mpiexec; None: serial).
    """
    sim = Simulation(num_entities=p.num_lps, lookahead_s=p.lookahead_s, end_s=p.end_s, comm=comm)
    cls = _ProcessLP if processes else _LP
    lps = [sim.create(i, cls, p) for i in range(p.num_lps) if sim.is_local(i)]
    for lp in lps:
        lp.start()
    began = time.perf_counter()
    sim.run()
    run_s = time.perf_counter() - began
    states = sim.gather([(lp.eid, lp.count, lp.clock_sum) for lp in lps])
    events = sim.total_events()
    result = {"events": events, "run_s": sim.comm.allreduce(run_s, op=max_op()) if sim.comm else run_s,
              "sim": sim}
    if states is not None:
        result["state_hash"] = state_hash(s for part in states for s in part)
    return result


def state_hash(states) -> str:
    """SHA-256 of every LP's (id, events handled, sum of event times), in id order."""
    h = hashlib.sha256()
    for eid, count, clock_sum in sorted(states):
        h.update(f"{eid} {count} {clock_sum!r}\n".encode())
    return h.hexdigest()


def run_baseline(p: PholdParams) -> tuple[int, float]:
    """The same PHOLD as a bare heapq loop with one function call per event.

    Returns (events, seconds spent in the event loop).
    """
    rngs = [random.Random(p.seed * 1_000_003 + i) for i in range(p.num_lps)]
    heap: list = []
    seq = 0
    rate = 1.0 / p.mean_delay_s

    def handle(now, lp):
        nonlocal seq
        rng = rngs[lp]
        delay = p.lookahead_s + rng.expovariate(rate)
        target = rng.randrange(p.num_lps) if rng.random() < p.remote else lp
        seq += 1
        heappush(heap, (now + delay, seq, target))

    for lp in range(p.num_lps):
        for _ in range(p.jobs):
            handle(0.0, lp)
    events = 0
    end = p.end_s
    began = time.perf_counter()
    while heap and heap[0][0] < end:
        now, _, lp = heappop(heap)
        events += 1
        handle(now, lp)
    return events, time.perf_counter() - began

